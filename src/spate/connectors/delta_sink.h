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
// that readers of the table skip, so the live files stay bounded. The compaction runs on
// the query thread between batches, so it never races the sink's own appends; when it
// loses to another writer (a concurrent removal of a file it compacts) the batch stays
// committed and the compaction is retried after the next batch. The check itself (a
// pass over the table's active files) runs only when a partition the batch wrote may
// have reached minNumFiles small files (table::AutoCompactTracker counts the sink's own
// small files since the last check; another writer's commit makes it check again).
//
// Long streams: the sink keeps one table::DeltaLog for its life, so each batch reads only
// the commits made since the previous one (its own is installed without a read), and the
// checkpoint every delta.checkpointInterval commits is written on the log's background
// thread (the batch does not wait for it; stopping the query waits for the last one).
//
// Ownership: owned by its query; shares the FileSystem. Thread safety: the query thread.
// Failure: Delta's error classes (schema mismatch, concurrent transaction, ...).

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

 private:
  io::FileSystemPtr fs_;
  DeltaSinkOptions o_;
  std::shared_ptr<const table::DeltaLog> log_;
  table::AutoCompactTracker compact_;
};

}  // namespace spate::connectors
