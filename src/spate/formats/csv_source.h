// Copyright spate authors.
#pragma once

// CsvDataSource: the DataSource of Spark's `csv` file format — one file, or directories
// of files with Hive-style `key=value` partition folders (trailing columns), listed,
// split and read in parallel with the machinery of file_index.h (recursiveFileLookup,
// pathGlobFilter, modifiedBefore, modifiedAfter).
//
//  - Parsing: csv/parser.h (tokenizer + typed column conversion, the options of
//    csv/options.h, parse modes with columnNameOfCorruptRecord).
//  - Schema: the user's; else names from the first record of Spark's scan (the largest
//    piece first, FilePacking) with one
//    (header=true: the header, made safe as Spark's makeSafeHeader does; else _c0, _c1,
//    ...) and types inferred over all records with inferSchema=true (all STRING
//    otherwise). header=true skips the first record of every file; with
//    enforceSchema=false each file's header must match the schema's names
//    (case-insensitively), else the read fails naming the file.
//  - rescuedDataColumn=<name> (Databricks): a STRING data column (appended when the
//  schema
//    lacks it) with the tokens that did not fit, as JSON (csv/parser.h CsvConverter);
//    tokens beyond the schema are named by the header at a file's first split, _c<i> in
//    its later splits. Columns still match by position (as Spark's reader).
//  - Splits: files split at line boundaries into `split_bytes` chunks, except multiLine
//    files and files read with a two-character lineSep (one split each). A UTF-8 BOM at
//    the start of a file is skipped.
//
// Ownership: shares the FileSystem. Thread safety: immutable after Make(); splits may be
// read concurrently. Failure: missing path -> PATH_NOT_FOUND; no files and no schema ->
// UNABLE_TO_INFER_SCHEMA; I/O errors and FAILFAST parse errors name the file.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/formats/csv/options.h"
#include "spate/formats/file_index.h"
#include "spate/io/file_system.h"

namespace spate::formats {

class CsvDataSource final : public SplitFileDataSource {
 public:
  static constexpr int64_t kDefaultSplitBytes = 128ll << 20;  // maxPartitionBytes

  /// `options`: the reader's options (keys case-insensitive). `session_time_zone`: the
  /// default of the `timeZone` option; `corrupt_column_default`:
  /// spark.sql.columnNameOfCorruptRecord.
  static Result<std::shared_ptr<CsvDataSource>> Make(
      const io::FileSystemPtr& fs, const std::vector<std::string>& paths,
      const SchemaPtr& user_schema, const std::map<std::string, std::string>& options,
      const std::string& session_time_zone = "UTC",
      const std::string& corrupt_column_default = "_corrupt_record",
      int64_t split_bytes = kDefaultSplitBytes, FilePacking packing = {});

  /// The data columns Make() infers without a user schema (also for tests and benches):
  /// names from the first record of Spark's scan of the files (partitions by `packing`:
  /// the largest piece first), types (inferSchema) folded over each of Spark's partitions
  /// and merged across them as Spark does, run by `parallelism` threads of
  /// ThreadPool::Default() over splits of `split_bytes` (0: chosen from the input size).
  /// The result does not depend on the splitting or the threads.
  static Result<std::vector<Field>> InferDataFields(io::FileSystem& fs,
                                                    const std::vector<InputFile>& files,
                                                    const csv::CsvOptions& options,
                                                    const FilePacking& packing,
                                                    int parallelism, int64_t split_bytes);

  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override;

  const csv::CsvOptions& options() const { return options_; }

 private:
  CsvDataSource() = default;
  io::FileSystemPtr fs_;
  std::vector<std::string> paths_;
  SchemaPtr data_schema_;
  csv::CsvOptions options_;
};

}  // namespace spate::formats
