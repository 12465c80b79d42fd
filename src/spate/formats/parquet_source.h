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
  static Result<std::shared_ptr<ParquetDataSource>> Make(
      const io::FileSystemPtr& fs, std::vector<std::string> paths,
      const SchemaPtr& user_schema = nullptr, bool merge_schema = false,
      bool infer_partition_types = true, const std::string& time_zone = "UTC");

  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(splits_.size()); }
  std::string SplitPath(int split) const override {
    return files_[splits_[split].file].path;
  }
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
Status ListFiles(io::FileSystem& fs, const std::string& root,
                 std::vector<Candidate>* out);
/// Spark's partition column type inference over a column's raw (unescaped) folder values:
/// each value is INT, BIGINT, DECIMAL(p, 0) (an integral value beyond BIGINT, "1e3"),
/// DOUBLE (Java's number forms), DATE ("yyyy-MM-dd"), TIMESTAMP ("yyyy-MM-dd
/// HH:mm:ss[.S]") or STRING, and the column's type is their widest (VOID when every
/// value is __HIVE_DEFAULT_PARTITION__; STRING when they do not widen). `infer_types`
/// false (spark.sql.sources.partitionColumnTypeInference.enabled) makes every column
/// STRING.
DataTypePtr InferPartitionType(const std::vector<std::string>& raw,
                               bool infer_types = true);
/// A partition folder's raw value as a value of `t` (NULL for
/// __HIVE_DEFAULT_PARTITION__); a TIMESTAMP is the wall-clock time in `time_zone` (the
/// session's).
Value PartitionValue(const std::string& raw, const DataTypePtr& t,
                     std::string_view time_zone = "UTC");
/// The reader option that carries spark.sql.sources.partitionColumnTypeInference.enabled
/// (DataFrameReader sets it from the session; a read's own option of that name is
/// replaced, as Spark reads the session's setting only).
inline constexpr const char* kPartitionTypeInferenceOption =
    "spark.sql.sources.partitionColumnTypeInference.enabled";

/// Parses a Hive partition folder value ("a%2Fb" -> "a/b").
std::string UnescapePathName(std::string_view s);
/// Escapes a partition value for a folder name as Spark does.
std::string EscapePathName(std::string_view s);

}  // namespace spate::formats
