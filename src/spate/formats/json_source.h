// Copyright spate authors.
#pragma once

// LineFileDataSource: the DataSource of Spark's `json` and `text` file formats — one
// file, or directories of files with Hive-style `key=value` partition folders (trailing
// columns, as for Parquet).
//
//  - json: JSON Lines (one record per line; blank lines give no row), parsed by
//    JsonColumnParser with the JSON options (mode, columnNameOfCorruptRecord, dateFormat,
//    timestampFormat, primitivesAsString, allowComments, ...). multiLine=true reads each
//    file as one JSON value (an object, or an array of records). Without a user schema,
//    the schema is inferred from all input (samplingRatio), over splits on all cores
//    (InferJsonSchema, json/infer_schema.h: fields sorted by name; the corrupt-record
//    column is added in PERMISSIVE mode when some record is malformed).
//    rescuedDataColumn=<name> (Databricks' rescued data column): a STRING data column
//    (appended to the data columns when the schema lacks it) holding, per record, a JSON
//    object of the top-level fields that did not fit the schema — fields the schema does
//    not name with that exact case, and non-null values the parser could not convert
//    (the column itself is NULL then) — plus "_file_path"; NULL when nothing was rescued.
//    Found at the top level only (a bad field inside a struct is NULL, not rescued); a
//    record strict JSON cannot parse, and the rows of a root array, rescue nothing. A
//    record whose only faults are such values is not a malformed record (no
//    corrupt-record text; DROPMALFORMED keeps it, FAILFAST does not fail), as with
//    Databricks.
//  - text: one STRING column `value`, one row per line (wholetext=true: one per file).
//  - both: the file options of file_index.h (recursiveFileLookup, pathGlobFilter,
//    modifiedBefore, modifiedAfter), lineSep (default: lines end at "\n" or "\r\n"; a
//    lone
//    "\r" is not a separator, unlike Spark's default).
//
// Splits: a file, or chunks of `split_bytes` bytes of a large file (a line belongs to the
// split its first byte is in), except multiLine / wholetext files and files read with a
// multi-byte lineSep, which are one split.
//
// Ownership: shares the FileSystem. Thread safety: immutable after Make(); splits may be
// read concurrently. Failure: missing path -> PATH_NOT_FOUND; no files and no schema ->
// UNABLE_TO_INFER_SCHEMA; I/O errors and FAILFAST parse errors name the file.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/formats/file_index.h"
#include "spate/formats/json/options.h"
#include "spate/io/file_system.h"

namespace spate::formats {

class LineFileDataSource final : public SplitFileDataSource {
 public:
  enum class Format : uint8_t { kJson, kText };
  static constexpr int64_t kDefaultSplitBytes = 128ll << 20;  // maxPartitionBytes

  /// `options`: the reader's options (keys case-insensitive). `session_time_zone`: the
  /// default of the JSON `timeZone` option.
  static Result<std::shared_ptr<LineFileDataSource>> Make(
      const io::FileSystemPtr& fs, Format format, const std::vector<std::string>& paths,
      const SchemaPtr& user_schema, const std::map<std::string, std::string>& options,
      const std::string& session_time_zone = "UTC",
      int64_t split_bytes = kDefaultSplitBytes);

  /// The schema inference of Make() without a user schema (also for tests and benches):
  /// the records of `files` (lines split at `sep`, a '\r' before it dropped when
  /// `strip_cr`; whole files with `whole_file`), sampled by the samplingRatio of
  /// `reader_options`, inferred by `parallelism` threads of ThreadPool::Default() over
  /// splits of `split_bytes` (0: chosen from the input size), one JsonSchemaInferrer per
  /// split, merged. The schema does not depend on the splitting or the threads.
  /// FAILFAST errors name the file of the first malformed record.
  static Result<DataTypePtr> InferJsonSchema(io::FileSystem& fs,
                                             const std::vector<InputFile>& files,
                                             const json::JsonOptions& options,
                                             bool whole_file, const std::string& sep,
                                             bool strip_cr,
                                             const OptionMap& reader_options,
                                             int parallelism, int64_t split_bytes);

  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override;

 private:
  LineFileDataSource() = default;
  io::FileSystemPtr fs_;
  Format format_ = Format::kJson;
  std::vector<std::string> paths_;
  int rescued_index_ = -1;   // the rescuedDataColumn among the data columns; -1: none
  bool whole_file_ = false;  // multiLine (json) / wholetext (text)
  std::string line_sep_;  // the lineSep option; empty: "\n" (a "\r" before it is dropped)
  const std::string& read_sep() const {
    static const std::string kNewline = "\n";
    return line_sep_.empty() ? kNewline : line_sep_;
  }
  json::JsonOptions json_options_;
};

}  // namespace spate::formats
