// Copyright spate authors.
#pragma once

// DeltaLog: one Delta table's transaction log (`<table>/_delta_log/`), read into
// Snapshots and appended to by OptimisticTransaction (transaction.h).
//
// Reading (log replay, PROTOCOL.md "Action Reconciliation"): the newest complete
// checkpoint at or below the wanted version (`_last_checkpoint` when it is valid, else
// found by listing — a corrupt or empty `_last_checkpoint` is ignored), then every JSON
// commit after it, in order; versions must be contiguous. The latest protocol and
// metaData win; add/remove reconcile on (path, deletion-vector id); txn keeps the latest
// version per appId; removes are tombstones. Classic single-file and multi-part Parquet
// checkpoints are read (V2/UUID checkpoints are not: tables that need them declare the
// v2Checkpoint reader feature and are refused).
//
// Features: spate reads and writes protocol (1, 1..2) and tables-features protocols
// (3, 7) whose features it has (appendOnly, invariants, timestampNtz); anything else
// (deletionVectors, columnMapping, v2Checkpoint, typeWidening, ...) is refused with
// DELTA_UNSUPPORTED_FEATURES_FOR_READ / DELTA_INVALID_PROTOCOL_VERSION rather than read
// wrongly.
//
// Ownership: a DeltaLog shares the FileSystem; Snapshots are immutable and shared.
// Thread safety: every method may be called concurrently; a Snapshot is immutable.
// Failure: missing log -> DELTA_MISSING_DELTA_TABLE style NotFound; corrupt commit or
// checkpoint files -> kDataCorruption naming the file; gaps -> DELTA_VERSIONS_NOT_CONTIGUOUS.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/table/actions.h"

namespace spate::table {

/// spate's engineInfo / version.
inline constexpr const char* kEngineInfo = "spate/0.1.0";

/// Milliseconds since the epoch; injectable so tests control commit timestamps.
using NowFn = std::function<int64_t()>;
NowFn SystemNow();

class Snapshot {
 public:
  int64_t version() const { return version_; }
  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  /// The full table schema (data and partition columns, in schemaString order).
  const SchemaPtr& schema() const { return schema_; }
  /// Active files sorted by path.
  const std::vector<AddFile>& files() const { return files_; }
  const std::vector<RemoveFile>& tombstones() const { return tombstones_; }
  /// appId -> latest txn.
  const std::map<std::string, SetTransaction>& transactions() const { return txns_; }
  /// domain -> domainMetadata action body ({"domain","configuration","removed":false}).
  const std::map<std::string, Json>& domain_metadata() const { return domains_; }
  /// The latest txn version of `app_id`, or nullopt.
  std::optional<int64_t> TxnVersion(const std::string& app_id) const;
  /// The commit timestamp of this version (commitInfo.timestamp, else the commit file's
  /// modification time).
  int64_t timestamp_ms() const { return timestamp_ms_; }
  const std::string& table_path() const { return table_path_; }
  /// The version of the checkpoint the state was loaded from (nullopt: pure JSON replay).
  std::optional<int64_t> checkpoint_version() const { return checkpoint_version_; }
  /// Absolute file system path of an add's data file.
  std::string DataFilePath(const AddFile& add) const;
  int64_t total_size_bytes() const;

  /// A snapshot built directly (tests, the first commit).
  struct Builder;

 private:
  friend class DeltaLog;
  friend struct Builder;
  int64_t version_ = -1;
  Protocol protocol_;
  Metadata metadata_;
  SchemaPtr schema_;
  std::vector<AddFile> files_;
  std::vector<RemoveFile> tombstones_;
  std::map<std::string, SetTransaction> txns_;
  std::map<std::string, Json> domains_;
  int64_t timestamp_ms_ = 0;
  std::string table_path_;
  std::optional<int64_t> checkpoint_version_;
};
using SnapshotPtr = std::shared_ptr<const Snapshot>;

/// One commit's actions (for streaming sources and history).
struct CommitEntry {
  int64_t version = 0;
  int64_t timestamp_ms = 0;  // commitInfo.timestamp, else file mtime
  std::vector<Action> actions;
};

/// The file changes of one commit (for streaming sources): data files added and removed,
/// and whether the table's metadata or protocol changed in it.
struct FileChanges {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  bool metadata_changed = false;
  bool protocol_changed = false;
  /// commitInfo.operation ("WRITE", "STREAMING UPDATE", "DELETE", ...), "" when absent.
  std::string operation;
};

/// Checks that spate can read (and with `for_write`, write) a table with this protocol
/// and metadata; the error names the unsupported features.
Status CheckSupported(const Protocol& p, const Metadata* m, bool for_write);

class DeltaLog {
 public:
  DeltaLog(io::FileSystemPtr fs, std::string table_path, NowFn now = SystemNow());

  const std::string& table_path() const { return table_path_; }
  const std::string& log_path() const { return log_path_; }
  const io::FileSystemPtr& fs() const { return fs_; }
  int64_t NowMs() const { return now_(); }

  /// "<log>/00000000000000000007.json".
  std::string CommitPath(int64_t version) const;

  /// True when the log holds at least one commit or checkpoint.
  Result<bool> TableExists() const;
  /// The latest version, or -1 for a table with no commits.
  Result<int64_t> LatestVersion() const;
  /// The latest snapshot. NotFound (DELTA_MISSING_DELTA_TABLE) without a log.
  Result<SnapshotPtr> Latest() const;
  /// The snapshot at `version` (time travel).
  Result<SnapshotPtr> At(int64_t version) const;
  /// The latest version whose commit timestamp is <= `timestamp_ms`
  /// (DELTA_TIMESTAMP_GREATER_THAN_COMMIT past the last commit, an error before the first).
  Result<int64_t> VersionAtTimestamp(int64_t timestamp_ms) const;

  /// The actions of one commit file.
  Result<std::vector<Action>> ReadCommit(int64_t version) const;
  /// Commits with version in [start, end] (end = -1: to the latest), in order.
  Result<std::vector<CommitEntry>> ReadCommits(int64_t start, int64_t end = -1) const;
  /// The file changes of the commits with version in (after_version, end] (end = -1: to
  /// the latest), in version order. For a streaming source: adds are the new data.
  Result<std::vector<FileChanges>> ChangesSince(int64_t after_version, int64_t end = -1) const;
  /// The newest `limit` commits' commitInfo (limit <= 0: all), newest first.
  Result<std::vector<CommitEntry>> History(int limit = 0) const;

  /// Writes a classic single-file Parquet checkpoint of `snapshot` and `_last_checkpoint`.
  Status WriteCheckpoint(const Snapshot& snapshot) const;

  /// Writes `actions` as version `version` with put-if-absent; kAlreadyExists when a
  /// concurrent writer took the version.
  Status WriteCommitFile(int64_t version, const std::vector<Action>& actions) const;

  struct Listing;

 private:
  Result<Listing> List() const;
  Result<SnapshotPtr> Load(int64_t version) const;

  io::FileSystemPtr fs_;
  std::string table_path_;
  std::string log_path_;
  NowFn now_;
};

/// A duration table property (Delta's "interval 7 days" form) in milliseconds.
int64_t RetentionMs(const Metadata& m, const std::string& key, int64_t fallback);

/// Reads one checkpoint Parquet file's rows as actions (for tests and tools).
Result<std::vector<Action>> ReadCheckpointFile(const io::FileSystemPtr& fs,
                                               const std::string& path);

/// Parses a commit file's text as the log replay does and folds it into a snapshot-like
/// state; used by the log fuzzer. Returns the number of active files.
Result<int64_t> ReplayForTest(const std::vector<std::string>& commits);

}  // namespace spate::table
