// Copyright spate authors.
#pragma once

// `spate checkpoint describe DIR`: what a streaming checkpoint holds, read with the
// runtime's own readers (OffsetSeqLog, CommitLog, ReadStreamMetadata, CompactibleLog,
// state::ReadStateSchema, state::DescribeStateStore) — the query id; every batch with
// its offsets, commit, watermarks, timestamp and pinned confs; the sources with their
// committed and latest offsets (and the file source's log of files seen); the state
// operators with their partitions, store versions, rows and bytes.
//
// Read-only: nothing under the checkpoint is created or changed (state stores are loaded
// into memory or a temporary RocksDB folder). Confs are shown redacted (base/redact.h).
//
// Thread safety: pure functions over the file system. Failure: a folder without
// metadata, offsets or commits is SPATE_STREAMING_INVALID naming it; a corrupt log file
// fails with the log's error naming the file; a state store that cannot be loaded is
// described with its error (the rest of the description stays useful).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/json.h"
#include "spate/io/file_system.h"
#include "spate/state/state_store.h"
#include "spate/stream/checkpoint.h"

namespace spate::stream {

struct CheckpointDescription {
  struct Batch {
    int64_t batch_id = 0;
    /// offsets/<N>; nullopt when only commits/<N> is left (offsets purged).
    std::optional<OffsetSeq> offsets;
    /// nextBatchWatermarkMs of commits/<N>; nullopt while the batch is not committed.
    std::optional<int64_t> next_watermark_ms;
    bool committed() const { return next_watermark_ms.has_value(); }
  };
  struct Source {
    int index = 0;
    /// End offset of the last committed batch / of the latest planned batch.
    std::optional<Json> committed_offset, latest_offset;
    /// sources/<i>/: the file source's log of files seen (nullopt when absent).
    std::optional<int64_t> log_latest_batch;
    int64_t log_entries = 0;
    bool has_log = false;
    std::optional<std::string> log_error;
  };
  struct Operator {
    int64_t operator_id = 0;
    std::optional<state::StateSchemas> schemas;
    int num_partitions = 0;
    std::vector<state::StoreDescription> stores;
    int64_t num_rows() const;
    int64_t memory_used_bytes() const;
    int64_t bytes_on_disk() const;
  };

  std::string dir;
  std::optional<std::string> query_id;
  std::vector<Batch> batches;  // ascending ids
  std::optional<int64_t> last_committed_batch;
  std::vector<Source> sources;
  /// "memory" or "rocksdb", from the pinned spark.sql.streaming.stateStore.providerClass.
  std::string state_provider = "memory";
  /// The state store conf pinned in the offsets log (provider, codec, RocksDB settings).
  state::StateStoreConf state_conf;
  std::vector<Operator> operators;

  /// The --json document (docs/observability.md).
  Json ToJson() const;
  /// The text `spate checkpoint describe` prints.
  std::string ToText() const;
};

/// With `load_stores` false, stores are listed (versions, files, bytes) but not loaded:
/// loaded_version and the row counts stay empty (the statestore reader loads the one
/// version it reads itself).
Result<CheckpointDescription> DescribeCheckpoint(const io::FileSystemPtr& fs,
                                                 const std::string& dir,
                                                 bool load_stores = true);

}  // namespace spate::stream
