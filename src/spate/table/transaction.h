// Copyright spate authors.
#pragma once

// OptimisticTransaction: one atomic change to a Delta table (Delta's
// OptimisticTransactionImpl). It starts from a snapshot (the read version; none for a
// new table), records what it read (the whole table, specific files, txn app ids), and
// Commit() writes the actions as the next version with put-if-absent. When another writer
// won that version, the winning commits are read and checked with Delta's conflict rules
// (WriteSerializable isolation):
//
//   winner changed the protocol (or created the table we also create) ->
//   ProtocolChangedException
//                                   (DELTA_PROTOCOL_CHANGED)
//   winner changed the metadata    -> MetadataChangedException (DELTA_METADATA_CHANGED)
//   winner added data files (not a blind append) while we read the table
//                                   -> ConcurrentAppendException
//                                   (DELTA_CONCURRENT_APPEND)
//   winner removed a file we read (any file: we read the whole table)
//                                  -> ConcurrentDeleteReadException
//   (DELTA_CONCURRENT_DELETE_READ) winner removed a file we remove ->
//   ConcurrentDeleteDeleteException
//                                   (DELTA_CONCURRENT_DELETE_DELETE)
//   winner wrote a txn for an appId we read -> ConcurrentTransactionException
//                                   (DELTA_CONCURRENT_TRANSACTION)
//
// otherwise the commit is retried at the next free version (blind appends never
// conflict with each other). The winners are read by opening the commit files after the
// version we tried until one is missing (O(winners), no listing). After a successful
// commit at a multiple of delta.checkpointInterval (default 10) a Parquet checkpoint is
// written (inline, or on the log's background thread with set_async_checkpoint) and the
// expired log cleaned up (DeltaLog::CleanUpExpiredLogs).
//
// Ownership: shares the DeltaLog and snapshot. Thread safety: one thread per
// transaction; any number of transactions (threads or processes) may race on one table.
// Failure: conflict errors above; I/O errors; a transaction commits at most once.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spate/table/delta_log.h"

namespace spate::table {

struct CommitResult {
  int64_t version = -1;
  int attempts = 1;
};

class OptimisticTransaction {
 public:
  /// `snapshot`: the state this transaction reads (nullptr: the table does not exist
  /// yet).
  OptimisticTransaction(std::shared_ptr<const DeltaLog> log, SnapshotPtr snapshot);

  const SnapshotPtr& snapshot() const { return snapshot_; }
  int64_t read_version() const { return snapshot_ ? snapshot_->version() : -1; }
  const DeltaLog& log() const { return *log_; }

  /// Reads: the whole table (overwrite), the partitions matching a filter (replaceWhere),
  /// specific files, a txn version. Concurrent data changes conflict only with what
  /// was read: files added in other partitions do not, and removals only of the files
  /// read (ReadFiles), or of any file after ReadWholeTable.
  void ReadWholeTable() { read_whole_table_ = true; }
  using PartitionFilter = std::function<bool(const PartitionValues&)>;
  void ReadPartitions(PartitionFilter filter) {
    read_filters_.push_back(std::move(filter));
  }
  void ReadFiles(const std::vector<AddFile>& files);
  /// The latest txn version for `app_id` in the read snapshot; records the read.
  std::optional<int64_t> TxnVersion(const std::string& app_id);

  /// Changes carried by the commit (besides the file actions given to Commit).
  void UpdateMetadata(Metadata m) { new_metadata_ = std::move(m); }
  void UpdateProtocol(Protocol p) { new_protocol_ = std::move(p); }
  void SetTransaction(const std::string& app_id, int64_t version);

  /// Commits `actions` (add/remove/...) with `info` (operation, operationParameters,
  /// operationMetrics; timestamp, readVersion, isolationLevel, isBlindAppend,
  /// engineInfo and txnId are filled in). Returns the committed version.
  Result<CommitResult> Commit(std::vector<Action> actions, CommitInfo info);

  /// Maximum commit attempts before DELTA_MAX_COMMIT_RETRIES_EXCEEDED.
  void set_max_attempts(int n) { max_attempts_ = n; }
  /// Post-commit checkpoints on the log's background thread (the commit does not wait
  /// for them; DeltaLog::CheckpointInBackground) instead of inline.
  void set_async_checkpoint(bool on) { async_checkpoint_ = on; }
  /// How the post-commit checkpoint is written (default: the log's checkpoint_options()).
  void set_checkpoint_options(CheckpointOptions o) { checkpoint_options_ = std::move(o); }

 private:
  Status CheckConflicts(const CommitEntry& winner, const std::vector<Action>& ours) const;

  std::shared_ptr<const DeltaLog> log_;
  SnapshotPtr snapshot_;
  bool ReadsPartition(const PartitionValues& pv) const;

  bool read_whole_table_ = false;
  std::vector<PartitionFilter> read_filters_;
  std::set<std::string> read_files_;
  std::set<std::string> read_app_ids_;
  std::optional<Metadata> new_metadata_;
  std::optional<Protocol> new_protocol_;
  std::vector<::spate::table::SetTransaction> txns_;
  bool committed_ = false;
  int max_attempts_ = 1000;
  bool async_checkpoint_ = false;
  std::optional<CheckpointOptions> checkpoint_options_;
};

/// delta.checkpointInterval of a table (default 10).
int CheckpointInterval(const Metadata& m);

}  // namespace spate::table
