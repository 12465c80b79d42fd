// Copyright spate authors.
#pragma once

// OptimisticTransaction: one atomic change to a Delta table (Delta's
// OptimisticTransactionImpl). It starts from a snapshot (the read version; none for a
// new table), records what it read (the whole table, partitions, specific files, txn app
// ids), and Commit() writes the actions as the next version with put-if-absent. When
// another writer won that version, the winning commits are read and checked with Delta's
// ConflictChecker rules at OSS Delta's isolation level, Serializable (SnapshotIsolation
// for a commit whose file actions change no data, such as OPTIMIZE), in Delta's order:
//
//   winner changed the protocol while we change it too, or dropped a feature
//                          -> DELTA_PROTOCOL_CHANGED (a protocol we cannot write: the
//                             error of CheckSupported)
//   winner changed the metadata -> DELTA_METADATA_CHANGED
//   winner wrote a txn for an appId we read -> DELTA_CONCURRENT_TRANSACTION
//   winner added files (blind appends too) where we read: the whole table, any file of
//   an unpartitioned table, a partition we read (unless we are a blind append or run
//   as SnapshotIsolation)  -> DELTA_CONCURRENT_APPEND
//   winner removed a file we read (a compaction's removal too), or any file after
//   ReadWholeTable         -> DELTA_CONCURRENT_DELETE_READ
//   winner removed a file we remove -> DELTA_CONCURRENT_DELETE_DELETE
//
// The three file conflicts carry delta-spark 4.4's subclass (.WITH_PARTITION_HINT with
// the partition `[p=a, q=b]`, else .WITHOUT_HINT) and its parameters (the winner's
// operation and version, the table name or delta.`path`). Otherwise the commit is retried
// at the next free version (blind appends never conflict with each other). The winners
// are read by opening the commit files after the version we tried until one is missing
// (O(winners), no listing). After a successful commit at a multiple of
// delta.checkpointInterval (default 10) a Parquet checkpoint is written (inline, or on
// the log's background thread with set_async_checkpoint) and the expired log cleaned up
// (DeltaLog::CleanUpExpiredLogs).
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

  /// Reads: the whole table (overwrite), the partitions matching a filter (replaceWhere,
  /// a DML's partition conjuncts), specific files (a DML's pruned scan), a txn version.
  /// Concurrent data changes conflict only with what was read: files added in other
  /// partitions of a partitioned table do not, and removals only of the files read
  /// (ReadFiles), or of any file after ReadWholeTable.
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
  Status CheckConflicts(const CommitEntry& winner, const std::vector<Action>& ours,
                        bool snapshot_isolation, bool blind) const;
  Status FileConflict(const char* error_class, const CommitEntry& winner,
                      const PartitionValues* partition) const;
  std::optional<std::string> PartitionHint(const PartitionValues& pv) const;
  /// The table in conflict messages: the metadata's name, else delta.`file:<path>`
  /// (Delta names a catalog table by its qualified name).
  std::string TableNameOrPath() const;

  std::shared_ptr<const DeltaLog> log_;
  SnapshotPtr snapshot_;
  bool ReadsPartition(const PartitionValues& pv) const;

  bool read_whole_table_ = false;
  std::vector<PartitionFilter> read_filters_;
  std::map<std::string, PartitionValues> read_files_;  // path -> its partition
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
