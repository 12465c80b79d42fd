// Copyright spate authors.
#pragma once

// State as a table (Spark 4's state data source): `spark.read.format("statestore")
// .load(checkpoint)` reads the state of one operator's store at one batch, and
// `format("state-metadata")` lists the operators and stores of a checkpoint. Both read
// spate's own checkpoints (docs/state.md) with the runtime's readers
// (DescribeCheckpoint, state::ReadStateSchema, the state store providers); nothing under
// the checkpoint is changed.
//
// statestore options (case-insensitive, as Spark): batchId (default: the last committed
// batch), operatorId (0), storeName ("default"), joinSide ("left" / "right" / "none":
// a stream-stream join's side, read from its keyWithIndexToValue store),
// readChangeFeed + changeStartBatchId / changeEndBatchId (default the last committed),
// snapshotStartBatchId + snapshotPartitionId (both or neither, as Spark: that partition
// only, its state at batchId rebuilt from the base file of version snapshotStartBatchId+1
// — memory: .snapshot, rocksdb: .checkpoint — and the delta / changelog files after it;
// a missing base file is CANNOT_LOAD_STATE_STORE.CANNOT_READ_MISSING_SNAPSHOT_FILE, a
// partition the operator lacks CANNOT_LOAD_STATE_STORE.SNAPSHOT_PARTITION_ID_NOT_FOUND).
// Columns: key (struct of the key schema), value (struct of the value schema),
// partition_id (int); with readChangeFeed: batch_id (long), change_type ("update" /
// "delete"), key, value (NULL for a delete), partition_id.
//
// transformWithState: readRegisteredTimers=true reads the timers; stateVarName one state
// variable (ValueState: key, value; ListState: key, list_element, or list_value with
// flattenCollectionTypes=false; MapState: key, user_map_key, user_map_value, or
// map_value), its schema from the operator's state schema v3 / metadata v2 files
// (tws_state_schema.h).
//
// state-metadata columns: operatorId, operatorName, stateStoreName, numPartitions,
// minBatchId, maxBatchId, operatorProperties (a transformWithState operator's Spark
// properties JSON; NULL for the others).
//
// How values are decoded depends on the operator. The runtime records it in
// state/<operatorId>/_metadata/operator (StateOperatorMetadata, JSON) after each run's
// first commit; for a checkpoint written before that file existed the operator is
// guessed from its schemas and store names (an aggregation's event-time prefix by trying
// both layouts), as docs/state.md says.
//
// Thread safety: pure functions; the state is read eagerly into memory when the source
// is made. Failure: Spark's error classes — STDS_INVALID_OPTION_VALUE,
// STDS_CONFLICT_OPTIONS, STDS_REQUIRED_OPTION_UNSPECIFIED,
// STDS_COMMITTED_BATCH_UNAVAILABLE, STDS_NO_PARTITION_DISCOVERED_IN_STATE_STORE,
// STDS_FAILED_TO_READ_STATE_SCHEMA; a store that cannot be loaded fails with its
// CANNOT_LOAD_STATE_STORE error naming the file.

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/io/file_system.h"

namespace spate::stream {

/// state/<operatorId>/_metadata/operator.
struct StateOperatorMetadata {
  /// Spark's operator name: stateStoreSave, sessionWindowStateStoreSaveExec, dedupe,
  /// dedupeWithinWatermark, globalLimit, symmetricHashJoin, transformWithStateExec.
  std::string operator_name;
  std::vector<std::string> store_names = {"default"};
  int num_partitions = 1;
  /// Bytes before the RowCodec value (an aggregation keyed by an event-time column keeps
  /// its int64 event time first: 8; else 0).
  int value_prefix_bytes = 0;
  /// A stream-stream join's state layout (stream_join.h kJoinStateFormat*); 0: not
  /// recorded (a checkpoint of an older spate: Spark's layout).
  int join_state_format = 0;
  /// Format 3 (stream_join.h kJoinStateFormatKeyless): per side (left, right), per join
  /// key field, the side column rebuilt from the key bytes, or -1 (`joinKeyColumns`).
  std::array<std::vector<int>, 2> join_key_columns;
};

/// Writes (replacing) the operator's metadata file under the state root.
Status WriteOperatorMetadata(io::FileSystem& fs, const std::string& state_root,
                             int64_t operator_id, const StateOperatorMetadata& m);
/// The operator's metadata file; nullopt when there is none (an older checkpoint). A
/// corrupt file is CANNOT_LOAD_STATE_STORE.UNCATEGORIZED naming it.
Result<std::optional<StateOperatorMetadata>> ReadOperatorMetadata(
    io::FileSystem& fs, const std::string& state_root, int64_t operator_id);

/// format("statestore").load(checkpoint) with `options`.
Result<DataSourcePtr> MakeStateStoreSource(
    const io::FileSystemPtr& fs, const std::string& checkpoint,
    const std::map<std::string, std::string>& options);

/// format("state-metadata").load(checkpoint).
Result<DataSourcePtr> MakeStateMetadataSource(const io::FileSystemPtr& fs,
                                              const std::string& checkpoint);

}  // namespace spate::stream
