// Copyright spate authors.
#pragma once

// DeltaSink: each micro-batch becomes one Delta commit (table/delta_writer.h) that
// carries txn(appId = query id, version = batch id) and commitInfo operation
// "STREAMING UPDATE" with operationParameters {outputMode, queryId, epochId}. A batch the
// table already holds (its txn version for the query id is >= the batch id: a replay
// after a crash between the Delta commit and commits/N) commits nothing. Append adds the
// batch's files; complete replaces the table's contents. The table is created by the
// first batch when missing.
// Auto-compaction (Delta's auto compact; table property delta.autoOptimize.autoCompact or
// the session conf spark.databricks.delta.autoCompact.enabled): after a batch's commit,
// the partitions it wrote that hold at least minNumFiles files smaller than maxFileSize
// are compacted in
// a separate OPTIMIZE commit (auto=true, dataChange=false, table/delta_compaction.h)
// that readers of the table skip, so the live files stay bounded. The check and the
// choice of files run on the query thread after the batch's commit (as Delta's
// post-commit hook); the rewrite and its commit run on a thread of the sink's, off the
// batches' critical path (the batch does not wait for it), racing the next batches'
// blind appends without conflict, so the OPTIMIZE commit may land after the next batch's.
// The next check waits for it (it then sees the table as Delta's would), so the same
// files are compacted as with Delta's synchronous hook; so do a complete-mode batch
// (it reads the whole table) and Stop(). When the compaction fails (a concurrent
// removal of a file it compacts) the batch stays committed and the next batch checks
// again. The check itself (a pass over the table's active files) runs only when a
// partition the batch wrote may have reached minNumFiles small files
// (table::AutoCompactTracker counts the sink's own small files since the last check;
// another writer's commit makes it check again).
//
// Long streams: the sink keeps one table::DeltaLog for its life, so each batch reads only
// the commits made since the previous one (its own is installed without a read), and the
// checkpoint every delta.checkpointInterval commits is written on the log's background
// thread (the batch does not wait for it; stopping the query waits for the last one).
//
// Ownership: owned by its query; shares the FileSystem. Thread safety: the query thread.
// Failure: Delta's error classes (schema mismatch, concurrent transaction, ...).

#include <future>
#include <map>
#include <string>
#include <vector>

#include "spate/io/file_system.h"
#include "spate/stream/source.h"
#include "spate/table/delta_compaction.h"
#include "spate/table/delta_log.h"

namespace spate::connectors {

struct DeltaSinkOptions {
  std::string path;
  std::vector<std::string> partition_by;
  /// Writer options (mergeSchema, compression, userMetadata, ...).
  std::map<std::string, std::string> options;
  std::string time_zone_id = "UTC";
  std::string default_codec = "snappy";
  /// Progress description: "DeltaSink[<table name or path>]".
  std::string display_name;
  /// Auto-compaction settings (from the session's spark.databricks.delta.autoCompact.*).
  table::AutoCompactConfig auto_compact;
  /// How the table's checkpoints are written (spark.databricks.delta.checkpoint.*).
  table::CheckpointOptions checkpoint;
};

class DeltaSink final : public stream::Sink {
 public:
  DeltaSink(io::FileSystemPtr fs, DeltaSinkOptions options)
      : fs_(std::move(fs)),
        o_(std::move(options)),
        log_(std::make_shared<const table::DeltaLog>(fs_, o_.path)) {
    log_->SetCheckpointOptions(o_.checkpoint);
  }
  std::string Describe() const override {
    return "DeltaSink[" + (o_.display_name.empty() ? o_.path : o_.display_name) + "]";
  }
  /// What the sink was made with (the table path: `checkpoint replay` reads its commits).
  const DeltaSinkOptions& options() const { return o_; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;
  /// Waits for the auto-compaction in flight.
  void Stop() override { WaitForCompaction(); }
  ~DeltaSink() override { WaitForCompaction(); }
  DeltaSink(const DeltaSink&) = delete;
  DeltaSink& operator=(const DeltaSink&) = delete;

 private:
  /// Joins the compaction in flight (if any) and tells the tracker how it ended.
  void WaitForCompaction();
  /// The same, only when it has finished.
  void CollectFinishedCompaction();

  io::FileSystemPtr fs_;
  DeltaSinkOptions o_;
  std::shared_ptr<const table::DeltaLog> log_;
  table::AutoCompactTracker compact_;
  /// The auto-compaction in flight: its committed version (-1: it failed).
  std::future<int64_t> compaction_;
};

}  // namespace spate::connectors
