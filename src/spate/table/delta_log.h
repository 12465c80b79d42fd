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
// checkpoints are read, and V2 checkpoints (a UUID-named JSON or Parquet top-level file
// whose sidecar actions name Parquet files in _delta_log/_sidecars).
//
// Features: spate reads and writes protocol (1, 1..2) and tables-features protocols
// (3, 7) whose features it has (see CheckSupported); anything else is refused with
// DELTA_UNSUPPORTED_FEATURES_FOR_READ / DELTA_INVALID_PROTOCOL_VERSION rather than read
// wrongly.
//
// Snapshot cache (Delta's DeltaLog.update): a DeltaLog object keeps the latest snapshot
// it loaded. Latest() then checks that the cached version's commit file is still the one
// it read (same size and modification time; otherwise the table was replaced and is
// loaded afresh) and reads only the commits after it, found by opening
// <version+1>.json, <version+2>.json, ... until one is missing (no listing), so a
// long-lived DeltaLog (the streaming sink and source, a transaction's conflict check)
// pays O(new commits) per call, not O(commits in the log). A snapshot built that way
// shares its predecessor's file list and materializes its own (files()) on first use;
// the chain of unmaterialized snapshots is bounded (kMaxSnapshotChain). Tombstones are
// kept apart (tombstones() builds them on first use from the snapshot's own removes and
// the nearest ancestor that built them), so the per-commit cost does not depend on how
// many removes the retention keeps.
// A fresh DeltaLog object starts with an empty cache: its first Latest() lists the log
// and loads from the newest checkpoint, as before.
//
// Checkpoints (classic single-file or multi-part Parquet, or V2 with sidecars, plus
// `_last_checkpoint`; WriteCheckpoint) are written by
// OptimisticTransaction after commits at multiples of delta.checkpointInterval, either
// inline or, with CheckpointInBackground, on one background thread per DeltaLog object
// (the newest pending snapshot wins; the destructor finishes the pending one). After a
// checkpoint the expired log is cleaned up as Delta's MetadataCleanup does
// (CleanUpExpiredLogs).
//
// Ownership: a DeltaLog shares the FileSystem; Snapshots are immutable and shared.
// Copies of a DeltaLog share one cache and background checkpoint thread.
// Thread safety: every method may be called concurrently; a Snapshot is immutable.
// Failure: missing log -> DELTA_MISSING_DELTA_TABLE style NotFound; corrupt commit or
// checkpoint files -> kDataCorruption naming the file; gaps ->
// DELTA_VERSIONS_NOT_CONTIGUOUS.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/table/actions.h"
#include "spate/table/tombstone_list.h"

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
  /// Active files sorted by path (materialized on first use for a snapshot built from
  /// its predecessor by DeltaLog::Latest; thread safe). O(active files + commits since
  /// the last materialized ancestor): the tombstones are not touched.
  const std::vector<AddFile>& files() const {
    Materialize();
    return files_;
  }
  /// The tombstones (remove actions not followed by an add of the same file; their
  /// `stats` dropped), sorted by path, without those deleted more than
  /// delta.deletedFileRetentionDuration (default 1 week) before this version's commit
  /// time (Delta's log replay drops them too). Kept apart from the active files: a
  /// snapshot built from its predecessor records only its own commits' removes, and the
  /// whole set is built on first use (checkpoints, VACUUM) from the nearest ancestor that
  /// built it — so a batch that never asks for them (the streaming sink's) pays nothing
  /// for the tombstones a week of compactions leaves. Held compactly (TombstoneList: ~40
  /// bytes plus the path per entry); iterating yields RemoveFile values.
  const TombstoneList& tombstones() const;
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

  /// Process-wide counts of entries copied while materializing snapshots (tests assert
  /// that a batch's work does not grow with the table's history).
  struct MaterializeStats {
    int64_t files = 0;       // active-file entries built by files()
    int64_t tombstones = 0;  // tombstone entries built by tombstones()
  };
  static MaterializeStats ProcessMaterializeStats();
  /// The same counts for entries built on the calling thread: a batch's own work, not
  /// the background checkpoint writer's (which reads the snapshots it writes).
  static MaterializeStats ThreadMaterializeStats();

  /// The tombstone set of one snapshot: the removes of its own commits over its parent's
  /// node, or (once built) the whole sorted set. Defined in delta_log.cc.
  struct TombstoneNode;

 private:
  friend class DeltaLog;
  friend struct SnapshotApply;
  void Materialize() const;
  /// Tombstones deleted before this (commit time - deletedFileRetentionDuration) expire.
  int64_t TombstoneCutoff() const;
  int64_t version_ = -1;
  Protocol protocol_;
  Metadata metadata_;
  SchemaPtr schema_;
  std::map<std::string, SetTransaction> txns_;
  std::map<std::string, Json> domains_;
  int64_t timestamp_ms_ = 0;
  std::string table_path_;
  std::optional<int64_t> checkpoint_version_;
  // The commit file of version_ as read (size, mtime; -1: unknown, never reused).
  int64_t tail_size_ = -1, tail_mtime_ = -1;
  // Lazy file list: base_'s files with pending_ (add/remove actions, in commit order)
  // applied. Materialize() builds files_/tombstones_ once, then drops base_/pending_.
  mutable std::atomic<bool> materialized_{true};
  mutable std::shared_ptr<const Snapshot> base_;
  mutable std::vector<Action> pending_;
  int chain_ = 0;  // unmaterialized ancestors when built
  mutable std::vector<AddFile> files_;
  // Never null once built by DeltaLog (owned by this snapshot alone; descendants' nodes
  // point to it).
  std::shared_ptr<TombstoneNode> tombs_;
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

/// How checkpoints are written (Delta's session confs; the table's
/// delta.checkpointPolicy chooses classic or V2).
struct CheckpointOptions {
  /// spark.databricks.delta.checkpoint.partSize: a checkpoint of more file actions (adds
  /// plus unexpired removes) than this is split into ceil(actions / partSize) parts
  /// (classic: multi-part files <v>.checkpoint.<i>.<n>.parquet; V2: that many sidecars).
  /// 0 = unset: one classic file; 50,000 actions per sidecar for V2.
  int64_t part_size = 0;
  /// spark.databricks.delta.checkpointV2.topLevelFileFormat: "json" (default) or
  /// "parquet", the format of a V2 checkpoint's UUID-named top-level file.
  std::string v2_top_level_format = "json";
  /// spate.delta.checkpoint.pacedAboveBytes (spate's, not Delta's): once the last
  /// checkpoint this log wrote is at least this many bytes, a commit at a multiple of
  /// delta.checkpointInterval writes the next checkpoint only when the commit files
  /// written through this log since the last one add up to at least that checkpoint's
  /// size. A reader then replays at most about a checkpoint's worth of commit bytes, and
  /// the checkpoint work per commit is bounded by the commit's own size, however large
  /// the table's state grows (a stream of tiny batches against a table of many files or
  /// tombstones otherwise writes its whole state every ten commits). Below it (the
  /// default 256 KiB is several thousand file actions), a checkpoint every interval, as
  /// delta-spark; -1 never paces. Delta's readers need no checkpoint at any given
  /// version: the format is unchanged.
  int64_t paced_above_bytes = int64_t{256} << 10;
};

/// True when the table writes V2 checkpoints (delta.checkpointPolicy = 'v2').
bool UsesV2Checkpoints(const Metadata& m);

/// Checks that spate can read (and with `for_write`, write) a table with this protocol
/// and metadata; the error names the unsupported features.
Status CheckSupported(const Protocol& p, const Metadata* m, bool for_write);

/// How many tables DeltaLog::ForTable keeps (least recently used dropped first).
inline constexpr size_t kProcessLogCacheSize = 32;

/// How many snapshots built from their predecessor may share an unmaterialized file
/// list before Latest() materializes one (bounds memory and materialization depth).
inline constexpr int kMaxSnapshotChain = 64;

/// How many snapshots may record only their own removes over an ancestor whose tombstone
/// set was never built (a reader that never checkpoints) before Latest() builds one
/// (bounds the memory of the chain; amortized O(tombstones / this) per commit).
inline constexpr int kMaxTombstoneChain = 4096;

class DeltaLog {
 public:
  DeltaLog(io::FileSystemPtr fs, std::string table_path, NowFn now = SystemNow());
  ~DeltaLog();
  /// The process's DeltaLog of a table (Delta's DeltaLog.forTable): one object per
  /// (file system, table path), kept in a process-wide cache of the kProcessLogCacheSize
  /// most recently used tables, so batch reads and writes of a table reuse its cached
  /// snapshot and pay O(new commits), not O(table), per operation. Other writers'
  /// commits are read on the next Latest(); a replaced table (its cached tail commit
  /// changed or gone) is loaded afresh. System clock.
  static std::shared_ptr<const DeltaLog> ForTable(const io::FileSystemPtr& fs,
                                                  const std::string& table_path);
  /// Drops every process-cached DeltaLog (tests).
  static void ClearProcessCache();
  DeltaLog(const DeltaLog&) = default;
  DeltaLog& operator=(const DeltaLog&) = default;

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
  /// The latest snapshot. NotFound (DELTA_MISSING_DELTA_TABLE) without a log. Updates
  /// the cached snapshot with the commits after it (see the header comment).
  Result<SnapshotPtr> Latest() const;
  /// The snapshot at `version` (time travel; the cached one when it is that version).
  Result<SnapshotPtr> At(int64_t version) const;
  /// The cached snapshot (nullptr before the first Latest()).
  SnapshotPtr Cached() const;
  /// Tells the cache that `actions` were committed as `version` by this process: when
  /// the cached snapshot is version - 1 it advances without reading the file back.
  void InstallCommit(int64_t version, const std::vector<Action>& actions) const;
  /// Commits [start, ...] read by opening consecutive files until one is missing (no
  /// listing): the winners a conflict check needs.
  Result<std::vector<CommitEntry>> ReadCommitsFrom(int64_t start) const;
  /// The latest version whose commit timestamp is <= `timestamp_ms`
  /// (DELTA_TIMESTAMP_GREATER_THAN_COMMIT past the last commit, an error before the
  /// first).
  Result<int64_t> VersionAtTimestamp(int64_t timestamp_ms) const;

  /// The actions of one commit file.
  Result<std::vector<Action>> ReadCommit(int64_t version) const;
  /// Commits with version in [start, end] (end = -1: to the latest), in order.
  Result<std::vector<CommitEntry>> ReadCommits(int64_t start, int64_t end = -1) const;
  /// The file changes of the commits with version in (after_version, end] (end = -1: to
  /// the latest), in version order. For a streaming source: adds are the new data.
  Result<std::vector<FileChanges>> ChangesSince(int64_t after_version,
                                                int64_t end = -1) const;
  /// The newest `limit` commits' commitInfo (limit <= 0: all), newest first.
  Result<std::vector<CommitEntry>> History(int limit = 0) const;

  /// Writes a checkpoint of `snapshot` and `_last_checkpoint`, as delta-spark does:
  /// classic (one Parquet file, or multi-part with options.part_size) or, for a table
  /// with delta.checkpointPolicy = 'v2', a V2 checkpoint (sidecars in
  /// _delta_log/_sidecars and a UUID-named top-level file). Every file is written under a
  /// temporary name and renamed, `_last_checkpoint` last, so a reader never sees a
  /// partial checkpoint.
  Status WriteCheckpoint(const Snapshot& snapshot,
                         const CheckpointOptions& options) const;
  /// With this log's checkpoint_options().
  Status WriteCheckpoint(const Snapshot& snapshot) const;
  /// Whether the commit `version`, just written through this log, should be followed by
  /// a checkpoint: at a multiple of `interval` (delta.checkpointInterval), unless paced
  /// (CheckpointOptions::paced_above_bytes). A true answer starts the next count of
  /// commit bytes.
  bool CheckpointDue(int64_t version, int interval,
                     const CheckpointOptions& options) const;
  /// WriteCheckpoint then CleanUpExpiredLogs, on this log's background thread; returns
  /// at once. A newer snapshot queued before the thread starts it replaces an older one.
  void CheckpointInBackground(SnapshotPtr snapshot,
                              const CheckpointOptions& options) const;
  void CheckpointInBackground(SnapshotPtr snapshot) const;
  /// The checkpoint options of this log (shared by its copies; default:
  /// CheckpointOptions{}).
  CheckpointOptions checkpoint_options() const;
  void SetCheckpointOptions(CheckpointOptions options) const;
  /// Waits until no background checkpoint is queued or running; returns the status of
  /// the last one (OK when none ran).
  Status WaitForBackgroundCheckpoints() const;
  /// Delta's MetadataCleanup, when delta.enableExpiredLogCleanup (default true): with
  /// cutoff = now - delta.logRetentionDuration (default 30 days) truncated to the UTC
  /// day, deletes the commit and checkpoint files (and .crc files) of versions below
  /// the newest checkpoint C that is at or before the oldest retained version (the
  /// first commit made at or after the cutoff; a commit's time is its
  /// commitInfo.timestamp, else its file's modification time — Delta without in-commit
  /// timestamps uses the modification time, which a writer's clock makes the same) and
  /// at or before `snapshot`'s version, so
  /// every version >= C stays readable (time travel to C works, before C fails with
  /// DELTA_VERSION_NOT_FOUND). Returns the number of files deleted. A call with the same
  /// cutoff as an earlier one (of this object) that found its oldest retained commit
  /// returns 0 at once: nothing more can expire until the cutoff moves to the next day,
  /// so a checkpoint every few commits does not list the log every time.
  Result<int64_t> CleanUpExpiredLogs(const Snapshot& snapshot) const;

  /// Writes `actions` as version `version` with put-if-absent; kAlreadyExists when a
  /// concurrent writer took the version.
  Status WriteCommitFile(int64_t version, const std::vector<Action>& actions) const;

  struct Listing;

 private:
  Result<Listing> List() const;
  Result<SnapshotPtr> Load(int64_t version) const;
  /// The cached snapshot advanced to the latest commit; nullptr when the cache cannot be
  /// used (empty, or its tail commit file changed).
  Result<SnapshotPtr> UpdateCached(const SnapshotPtr& cached) const;
  /// WriteCheckpoint's work; returns the bytes written (every part, sidecar and the V2
  /// top-level file).
  Result<int64_t> WriteCheckpointFiles(const Snapshot& snapshot,
                                       const CheckpointOptions& options) const;

  struct Cache;
  io::FileSystemPtr fs_;
  std::string table_path_;
  std::string log_path_;
  NowFn now_;
  std::shared_ptr<Cache> cache_;
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
