// Copyright spate authors.
#pragma once

// Writing to a Delta table (Delta's WriteIntoDelta): data files through
// formats::PartitionedWriteJob (Parquet part files written in place under partition
// folders, with per-file statistics), then one OptimisticTransaction commit that adds
// them (and removes the old files for overwrite). Files of a failed or lost commit are
// deleted; files of a crashed writer are orphans that no snapshot references.
//
// Modes: "append", "overwrite" (all active files, or with option replaceWhere the files
// whose partition values match `col = literal [AND ...]` on partition columns),
// "errorifexists"/"error" (DELTA_PATH_EXISTS when the table exists), "ignore" (no-op
// when the table exists).
// Options (case-insensitive keys): mergeSchema=true adds new columns to the table
// schema; overwriteSchema=true (with overwrite) replaces schema and partitioning;
// replaceWhere; userMetadata; compression and the other Parquet writer options;
// maxRecordsPerFile; "delta.*" keys become table properties of a new table (e.g.
// delta.checkpointInterval, delta.appendOnly); txnAppId + txnVersion (Delta's
// idempotent writes) are the same as `txn`.
// Schema enforcement: an append whose data has columns the table lacks fails with
// DELTA_METADATA_MISMATCH (unless mergeSchema); a column whose type differs fails with
// DELTA_FAILED_TO_MERGE_FIELDS; columns the data lacks are written as absent (read as
// NULL), as Delta does.
//
// Idempotency (streaming sinks): with `txn` = {appId, version}, a write whose version is
// <= the table's latest txn version for appId commits nothing and returns
// already_committed; otherwise the commit carries txn(appId, version), and a concurrent
// commit for the same appId fails with DELTA_CONCURRENT_TRANSACTION.
//
// Thread safety: any number of writers (threads or processes) may write one table
// concurrently. Failure: Status with Delta's error classes; nothing is committed then.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/exec/executor.h"
#include "spate/exec/physical_plan.h"
#include "spate/formats/file_writer.h"
#include "spate/table/transaction.h"

namespace spate::table {

struct TxnId {
  std::string app_id;
  int64_t version = 0;
};

/// The protocol features the table properties of `meta` need (delta.enableChangeDataFeed:
/// changeDataFeed; delta.checkpointPolicy = 'v2': v2Checkpoint; `delta.feature.<name>` =
/// 'supported': that feature, the key leaving the configuration), added to `p` as
/// delta-spark 4 writes them (writer version 7 with its implied features). Errors:
/// DELTA_UNSUPPORTED_FEATURES_IN_CONFIG, DELTA_UNSUPPORTED_FEATURE_STATUS.
Status AddPropertyFeatures(Metadata* meta, Protocol* p);

struct DeltaWriteOptions {
  std::string mode = "errorifexists";
  std::vector<std::string> partition_by;
  std::map<std::string, std::string> options;
  /// A new table's properties (CREATE TABLE ... TBLPROPERTIES): all go to
  /// metaData.configuration, whatever their prefix, as Delta stores them (of `options`,
  /// only the `delta.*` keys do).
  std::map<std::string, std::string> table_properties;
  std::optional<TxnId> txn;
  /// commitInfo.operation; empty = "WRITE" (or "CREATE TABLE AS SELECT"-free: spate
  /// writes "WRITE" for DataFrame writes, "STREAMING UPDATE" for the streaming sink).
  std::string operation;
  /// commitInfo.operationParameters; empty = Delta's WRITE parameters (mode,
  /// partitionBy[, predicate]).
  std::map<std::string, std::string> operation_parameters;
  /// The session time zone (partition values of timestamp columns are written in it).
  std::string time_zone_id = "UTC";
  /// Parquet compression when no option is given (spark.sql.parquet.compression.codec).
  std::string default_codec = "snappy";

  /// The table's log object to use (its cached snapshot is reused and advanced, so a
  /// long-lived writer such as the streaming sink reads only new commits); nullptr: a
  /// fresh one for this write. Must be a DeltaLog of `table_path`.
  std::shared_ptr<const DeltaLog> log;
  /// Write the post-commit checkpoint on the log's background thread.
  bool async_checkpoint = false;
  /// How the post-commit checkpoint is written (multi-part size, V2 top-level format);
  /// nullopt: the log's checkpoint_options().
  std::optional<CheckpointOptions> checkpoint;

  /// A new table's schema keeps the data's NOT NULL columns (CREATE TABLE with a column
  /// list); otherwise it is made nullable, as Delta writes DataFrames (asNullable).
  bool keep_nullability = false;

  // DML rewrites (MERGE, UPDATE, DELETE), with mode "append":
  /// The snapshot the operation read: the commit's readVersion, and the schema the data
  /// must match. nullptr: the latest snapshot when the write starts.
  SnapshotPtr read_snapshot;
  /// Files of `read_snapshot` that the commit removes (rewritten copy-on-write).
  std::vector<AddFile> remove_files;
  /// Adds of files already in the table, committed beside the written files: a file of
  /// `read_snapshot` with a new deletion vector (its old add is in `remove_files`).
  std::vector<AddFile> add_files;
  /// What the operation read, for conflict detection: the whole table (a concurrent
  /// append or removal anywhere conflicts), or the partitions `read_partitions` accepts
  /// (a concurrent append there conflicts).
  bool read_whole_table = false;
  OptimisticTransaction::PartitionFilter read_partitions;
  /// Files of `read_snapshot` the command's (pruned) scan read besides `remove_files`: a
  /// concurrent removal of one of them conflicts (DELTA_CONCURRENT_DELETE_READ), as
  /// Delta's readFiles.
  std::vector<AddFile> read_files;
  /// dataChange of the add and remove actions: false for a rewrite that changes no data
  /// (OPTIMIZE, auto-compaction), which streaming readers of the table skip.
  bool data_change = true;
  /// Change data (Delta's change data feed): the produced batches end with a string
  /// column `_change_type`. Rows where it is NULL are the table's data (written without
  /// it); the others are change data, written with it as `cdc-*` Parquet files under
  /// `_change_data/` (partitioned as the table) and committed as cdc actions
  /// (dataChange=false), which readChangeFeed reads instead of the commit's adds/removes.
  bool change_data = false;
  /// When set, replaces commitInfo.operationMetrics, given what was written.
  std::function<std::map<std::string, std::string>(const struct DeltaWriteResult&)>
      operation_metrics;
};

struct DeltaWriteResult {
  /// The committed version; -1 when nothing was committed (ignore mode, already
  /// committed).
  int64_t version = -1;
  /// The txn version for the appId was already >= the requested one.
  bool already_committed = false;
  /// Ignore mode on an existing table.
  bool skipped = false;
  int64_t num_files = 0;
  int64_t num_output_rows = 0;
  int64_t num_output_bytes = 0;
  int64_t num_removed_files = 0;
  /// Bytes of the removed files (remove_files / overwrite).
  int64_t num_removed_bytes = 0;
  /// Change data files written (change_data).
  int64_t num_cdc_files = 0;
  /// Size of each written file, in write order (OPTIMIZE's file size metrics).
  std::vector<int64_t> file_sizes;
  /// The distinct partition values of the written files (auto-compaction's scope).
  std::vector<PartitionValues> partitions_written;
  /// Per written file (the order of file_sizes): its index in partitions_written.
  std::vector<size_t> file_partitions;
};

/// Pushes the data: calls sink(partition, batch) from any number of threads, one
/// thread per partition index in [0, num_partitions).
using BatchSink = std::function<Status(int partition, const BatchPtr& batch)>;
using BatchProducer = std::function<Status(const BatchSink& sink)>;

/// The general form: `schema` is the schema of the produced batches. Without
/// `options.log`, the table's process-wide DeltaLog (DeltaLog::ForTable) is used, or,
/// when `now` is given (tests controlling commit times), a fresh one with that clock.
Result<DeltaWriteResult> WriteDelta(io::FileSystemPtr fs, const std::string& table_path,
                                    SchemaPtr schema, int num_partitions,
                                    const BatchProducer& produce,
                                    const DeltaWriteOptions& options, NowFn now = {});

/// Writes in-memory batches (all of one schema; at least one batch, possibly empty).
Result<DeltaWriteResult> WriteBatches(io::FileSystemPtr fs, const std::string& table_path,
                                      const std::vector<BatchPtr>& batches,
                                      const DeltaWriteOptions& options, NowFn now = {});

/// Runs a physical plan into the table (one writer thread per result partition).
Result<DeltaWriteResult> WritePlan(io::FileSystemPtr fs, const std::string& table_path,
                                   const exec::PhysicalPlan& plan,
                                   const exec::ExecOptions& exec_options,
                                   const DeltaWriteOptions& options, NowFn now = {});

/// True when the table properties enable the change data feed
/// (delta.enableChangeDataFeed = true).
bool ChangeDataFeedEnabled(const Metadata& metadata);
/// The name of the change type column of change data files and change feed reads.
inline constexpr const char* kChangeTypeColumn = "_change_type";

/// The latest committed txn version for `app_id` (nullopt: none, or no table).
Result<std::optional<int64_t>> LatestTxnVersion(io::FileSystemPtr fs,
                                                const std::string& table_path,
                                                const std::string& app_id);

/// The stats JSON of an add action for a written file: min/max/nullCount of the first
/// `num_indexed_cols` leaf columns (delta.dataSkippingNumIndexedCols, default 32; -1 =
/// all), numRecords always; `"tightBounds":true` with `tight_bounds` (tables with the
/// deletionVectors feature, as Delta writes them).
std::string StatsJson(const formats::WrittenFile& file, int num_indexed_cols = 32,
                      bool tight_bounds = false);

}  // namespace spate::table
