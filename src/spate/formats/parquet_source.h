// Copyright spate authors.
#pragma once

// ParquetDataSource: a DataSource over Parquet files — one file, or directories of part
// files with Hive-style `key=value` partition folders (discovered as trailing columns, as
// Spark does). Splits are row groups; OpenSplit reads only the requested columns, skips
// row groups (and whole files, for partition columns) that pushed-down predicates rule
// out by statistics, and fills partition columns with their constant values.
//
// Ownership: shares the FileSystem and the opened file readers. Thread safety: immutable
// after Make(); splits may be read concurrently.
// Failure: missing path -> PATH_NOT_FOUND; no data files -> UNABLE_TO_INFER_SCHEMA; file
// errors name the file.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/formats/parquet/reader.h"
#include "spate/io/file_system.h"

namespace spate::formats {

class ParquetDataSource final : public DataSource {
 public:
  /// `paths`: files or directories (searched recursively; names starting with '_' or '.'
  /// are skipped). `user_schema` (optional) replaces the inferred schema; columns are
  /// matched by name (case-insensitively) and missing ones read as NULL.
  /// `merge_schema` (Spark's mergeSchema): the union of every file's columns, in order of
  /// first appearance; otherwise the first file's schema.
  static Result<std::shared_ptr<ParquetDataSource>> Make(io::FileSystemPtr fs,
                                                         std::vector<std::string> paths,
                                                         SchemaPtr user_schema = nullptr,
                                                         bool merge_schema = false);

  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(splits_.size()); }
  std::string SplitPath(int split) const override { return files_[splits_[split].file].path; }
  std::optional<int64_t> EstimatedBytes() const override { return total_bytes_; }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override;

  int num_files() const { return static_cast<int>(files_.size()); }
  /// Row groups skipped by statistics so far (tests, metrics).
  int64_t skipped_row_groups() const { return skipped_->load(); }

  struct File {
    std::string path;
    std::shared_ptr<parquet::ParquetFileReader> reader;
    std::vector<Value> partition_values;  // one per partition column
    std::vector<int> column_map;  // source data column -> file column (-1 = missing)
  };

 private:
  ParquetDataSource() = default;
  std::vector<std::string> paths_;
  SchemaPtr schema_;
  int num_data_columns_ = 0;  // the partition columns follow them
  std::vector<File> files_;
  int64_t total_bytes_ = 0;
  struct Split {
    int file;
    int row_group;  // -1: a file without row groups
  };
  std::vector<Split> splits_;
  std::shared_ptr<std::atomic<int64_t>> skipped_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

/// A data file found under a root path, with the `key=value` folders between the root and
/// it (key, raw value). Shared by the file sources (Parquet, JSON, text).
struct Candidate {
  std::string path;
  std::vector<std::pair<std::string, std::string>> partitions;  // key, raw value
  int64_t size = 0;
};
/// Lists the data files under `root` (recursively; names starting with '_' or '.' and
/// everything below such folders are skipped) with their partition folders.
Status ListFiles(io::FileSystem& fs, const std::string& root, std::vector<Candidate>* out);
/// Spark's partition value type inference (INT, BIGINT, DOUBLE, else STRING).
DataTypePtr InferPartitionType(const std::vector<std::string>& raw);
/// A partition folder's raw value as a value of `t` (NULL for __HIVE_DEFAULT_PARTITION__).
Value PartitionValue(const std::string& raw, const DataTypePtr& t);

/// Parses a Hive partition folder value ("a%2Fb" -> "a/b").
std::string UnescapePathName(std::string_view s);
/// Escapes a partition value for a folder name as Spark does.
std::string EscapePathName(std::string_view s);

}  // namespace spate::formats
