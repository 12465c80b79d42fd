// Copyright spate authors.
#pragma once

// Writing a query result as part files, for every file format and every caller
// (DataFrameWriter for parquet/json/csv/text, the Delta table writer, the streaming file
// sink). Two pieces:
//
//  * FileWriter / FileWriterFactory: one open output file of one format. A format plugs
//    in by implementing both (see ParquetWriterFactory below): the factory knows the
//    file extension (".snappy.parquet", ".json", ".csv.gz", ...) and opens a FileWriter
//    over an io::WritableFile for a data schema; the writer takes batches and Close()s.
//
//  * PartitionedWriteJob: one write job. Callers push (partition index, batch) from many
//    threads — exactly the calls exec::ExecuteToSink makes, one thread per partition
//    index, sequential within one index — and the job splits each batch by the
//    partitionBy columns into Hive `key=value` folders (values escaped as Spark's
//    ExternalCatalogUtils.escapePathName; NULL and "" become __HIVE_DEFAULT_PARTITION__),
//    keeps one open file per (partition index, folder), named
//    part-<index %05d>-<job uuid>-c<file count %03d><extension> like Spark, and collects
//    per-file statistics (rows; per leaf column min/max/null count; Delta's add.stats).
//    Commit() closes every file and, with a staging folder, moves the files from
//    <output>/_temporary/<job>/ into place and writes _SUCCESS (Spark's
//    FileOutputCommitter layout; readers never see half-written files). Without staging
//    (Delta: a file becomes visible only when a log commit names it) files are written in
//    place. Abort() (or destroying an uncommitted job) deletes everything the job wrote.
//
//   auto factory = formats::MakeParquetWriterFactory(options, "snappy");
//   formats::WriteJobOptions o;  o.output_dir = path;  o.partition_columns = {"day"};
//   auto job = formats::PartitionedWriteJob::Make(fs, *factory, schema, o, parts);
//   exec::ExecuteToSink(plan, exec_opts, [&](int p, const BatchPtr& b) {
//     return (*job)->Write(p, b); });
//   auto files = (*job)->Commit();   // vector<WrittenFile>
//
// Ownership: the job shares the FileSystem and factory. Thread safety: Write() may be
// called concurrently for different partition indexes (never for the same one);
// Commit()/Abort() run after every Write() returned, on one thread.
// Failure: the first error of a Write() is returned by it (the caller stops) and the job
// must then be aborted; Commit() errors leave nothing behind (it aborts itself).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"
#include "spate/io/file_system.h"
#include "spate/types/value.h"

namespace spate::formats {

struct ColumnStats;

/// One output file being written.
class FileWriter {
 public:
  virtual ~FileWriter() = default;
  /// Appends rows (columns of the data schema the writer was opened with).
  virtual Status Write(const BatchPtr& batch) = 0;
  /// Finishes the file (footer, flush) and closes it.
  virtual Status Close() = 0;
  /// Bytes written to the file so far (its final size after Close()).
  virtual int64_t bytes_written() const = 0;
  /// Called before the first Write() when the job collects statistics: which leaves
  /// (ColumnStats order) the writer will derive from what it computes anyway (Parquet:
  /// its column chunk statistics), so the job's pass over the rows skips them. Empty (the
  /// default): none.
  virtual std::vector<bool> DeriveLeafStats() { return {}; }
  /// After Close(), for a file with rows: sets null_count, min, max and no_bounds of the
  /// leaves DeriveLeafStats() returned, exactly as AccumulateStats would have.
  virtual void FillLeafStats(std::vector<ColumnStats>* /*stats*/) const {}
};

/// Opens FileWriters of one format with fixed options. Thread safe (Open is const).
class FileWriterFactory {
 public:
  virtual ~FileWriterFactory() = default;
  /// "parquet", "json", ...
  virtual std::string format_name() const = 0;
  /// File name suffix including the dot and codec: ".snappy.parquet".
  virtual std::string extension() const = 0;
  virtual Result<std::unique_ptr<FileWriter>> Open(
      std::unique_ptr<io::WritableFile> file, const SchemaPtr& data_schema) const = 0;
};
using FileWriterFactoryPtr = std::shared_ptr<const FileWriterFactory>;

/// Parquet. `options` are the writer options as Spark names them (case-insensitive):
/// compression / parquet.compression (none, uncompressed, snappy, gzip, zstd, lz4_raw),
/// parquet.block.size, parquet.page.size, parquet.enable.dictionary,
/// spate.parquet.rowGroupRows; `default_codec` applies when no compression option is
/// given (spark.sql.parquet.compression.codec).
Result<FileWriterFactoryPtr> MakeParquetWriterFactory(
    const std::map<std::string, std::string>& options,
    const std::string& default_codec = "snappy");

/// Statistics of one leaf column of a written file (a top-level column, or a field of a
/// struct column: `path` holds the field names from the top).
struct ColumnStats {
  std::vector<std::string> path;
  DataTypePtr type;
  int64_t null_count = 0;
  /// Set for orderable types (numbers, decimal, string, date, timestamps) when the file
  /// has a non-null value and no NaN; the smallest / largest value.
  std::optional<Value> min;
  std::optional<Value> max;
  /// A NaN was seen: min/max stay unset for the whole file.
  bool no_bounds = false;
};

/// One file a job wrote.
struct WrittenFile {
  /// Path relative to the output folder:
  /// "day=2024-01-01/part-00000-<uuid>-c000.snappy.parquet" (folders escaped as on disk).
  std::string relative_path;
  /// The partitionBy values of the file, in partition_columns order; nullopt = NULL.
  /// Raw (unescaped) strings as Spark prints them (Delta's add.partitionValues).
  std::vector<std::optional<std::string>> partition_values;
  int64_t size_bytes = 0;
  int64_t num_records = 0;
  int64_t modification_time_ms = 0;
  /// Per leaf column of the data schema, in schema order (empty without collect_stats).
  std::vector<ColumnStats> stats;
};

struct WriteJobOptions {
  /// The folder the files end up in (created if missing).
  std::string output_dir;
  /// partitionBy column names (resolved case-insensitively against the schema).
  std::vector<std::string> partition_columns;
  /// true: write under <output>/_temporary/<job>/ and move into place on Commit(), then
  /// write _SUCCESS (plain file output). false: write in place, no _SUCCESS (Delta).
  bool use_staging = true;
  bool write_success_file = true;
  /// A result with no rows and no partition columns still writes one (empty) file, so
  /// the schema is readable (Spark does the same).
  bool write_file_when_empty = true;
  /// Collect ColumnStats for every file.
  bool collect_stats = false;
  /// maxRecordsPerFile: roll over to a new file (c001, c002, ...) past this many rows;
  /// 0 = unlimited.
  int64_t max_records_per_file = 0;
  /// The uuid in file names; empty = a fresh random one.
  std::string job_id;
  /// The start of file names ("part-00000-<uuid>.c000..."; Delta's change data files
  /// are "cdc-...").
  std::string file_prefix = "part";
  /// Session time zone: timestamp partition values are written in it, as Spark does
  /// ("2024-01-01 10:00:00"). Empty = UTC.
  std::string time_zone_id;
};

class PartitionedWriteJob {
 public:
  /// `schema`: the schema of the batches Write() receives (data and partition columns);
  /// `num_partitions`: the partition indexes Write() will see are [0, num_partitions).
  static Result<std::unique_ptr<PartitionedWriteJob>> Make(io::FileSystemPtr fs,
                                                           FileWriterFactoryPtr factory,
                                                           SchemaPtr schema,
                                                           WriteJobOptions options,
                                                           int num_partitions);
  ~PartitionedWriteJob();

  /// Writes the rows of `batch` for partition index `partition`.
  Status Write(int partition, const BatchPtr& batch);
  /// Closes the files, moves them into place (with staging) and returns them, ordered by
  /// partition index then open order. Durable on return: every file is synced when it
  /// closes and every folder that gained an entry is synced here, so a log commit that
  /// names the files afterwards never points at data a power loss could take back.
  Result<std::vector<WrittenFile>> Commit();
  /// Deletes every file written (best effort). Idempotent.
  void Abort();

  /// The schema of the files: `schema` without the partition columns.
  const SchemaPtr& data_schema() const { return data_schema_; }
  const std::string& job_id() const { return options_.job_id; }

  struct OpenFile;
  struct PartitionState;

 private:
  PartitionedWriteJob() = default;
  Result<OpenFile*> Open(int partition, const std::string& key,
                         const std::vector<std::optional<std::string>>* values);
  Status WriteToFile(int partition, const std::string& key,
                     const std::vector<std::optional<std::string>>* values,
                     const BatchPtr& data);

  io::FileSystemPtr fs_;
  FileWriterFactoryPtr factory_;
  SchemaPtr schema_;
  SchemaPtr data_schema_;
  WriteJobOptions options_;
  std::string write_dir_;  // staging folder or output_dir
  std::vector<int> part_cols_, data_cols_;
  std::vector<std::unique_ptr<PartitionState>> partitions_;
  bool finished_ = false;
};

/// Spark's partition folder text of a value: NULL or "" -> nullopt (written as
/// __HIVE_DEFAULT_PARTITION__), otherwise Value::ToString() (timestamps in
/// `time_zone_id` when given).
std::optional<std::string> PartitionValueString(const Value& v,
                                                const std::string& time_zone_id = "");

/// Per leaf column statistics of a batch (merged into `stats`, which is initialised to
/// the leaves of `schema` when empty). Used by the job; exposed for tests and sinks.
/// `skip`: leaves (true) left alone (a FileWriter derives them).
void AccumulateStats(const Batch& batch, std::vector<ColumnStats>* stats,
                     const std::vector<bool>* skip = nullptr);

/// A new random (version 4) UUID string.
std::string NewUuid();
/// The text of the version 4 UUID of the random bits `hi` and `lo` (its version and
/// variant bits set): "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string UuidV4Text(uint64_t hi, uint64_t lo);

}  // namespace spate::formats
