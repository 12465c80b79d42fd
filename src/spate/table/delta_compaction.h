// Copyright spate authors.
#pragma once

// Compaction of a Delta table's small files (Delta's OPTIMIZE bin-packing), shared by
// SQL OPTIMIZE / DeltaTable.optimize() (api/delta_dml.h) and the streaming Delta sink's
// auto-compaction (connectors/delta_sink.h):
//
//   PlanCompaction: per partition, the files smaller than min_file_size, by size, packed
//   into bins of at most max_file_size bytes; a bin of one file is left alone (Delta's
//   OptimizeExecutor.groupFilesIntoBins).
//   CompactFiles: rewrites each bin as one file (per partition value) in one commit whose
//   add and remove actions have dataChange=false: streaming readers of the table skip it,
//   and it conflicts only with a concurrent commit that removes one of its files.
//
// Ownership: functions only. Thread safety: may run concurrently with other writers.
// Failure: Delta's error classes; nothing is committed then (the written files are
// deleted).

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/table/delta_writer.h"

namespace spate::table {

/// Bins of files to rewrite together (each within one partition).
using CompactionBins = std::vector<std::vector<AddFile>>;

/// The bins of `files` (see above); with `min_bin_files`, a partition is compacted only
/// when it holds at least that many small files (auto-compaction's minNumFiles).
CompactionBins PlanCompaction(const std::vector<AddFile>& files, int64_t min_file_size,
                              int64_t max_file_size, int64_t min_bin_files = 0);

/// Rewrites `bins` of `snapshot` in one commit with `options` (operation, parameters,
/// metrics, time zone, codec); sets read_snapshot, remove_files and data_change=false.
/// Up to `parallelism` bins are rewritten at once.
Result<DeltaWriteResult> CompactFiles(io::FileSystemPtr fs, const std::string& table_path,
                                      const SnapshotPtr& snapshot,
                                      const CompactionBins& bins,
                                      DeltaWriteOptions options, int parallelism = 1);

/// Delta's auto-compaction settings: the session conf spark.databricks.delta.autoCompact.
/// enabled when given, else the table property delta.autoOptimize.autoCompact
/// (true / auto / legacy); autoCompact.maxFileSize (default 128 MB), minNumFiles
/// (default 50) and minFileSize (unset by default), as delta-spark 4.4 uses them:
///   - a partition is due once it holds at least minNumFiles counted files: files of at
///     most minFileSize bytes, every file when minFileSize is unset (Delta's
///     AutoCompactPartitionStats counter);
///   - a due partition's files smaller than minFileSize (unset: maxFileSize / 2) are
///     bin-packed into files of at most maxFileSize (Delta's OPTIMIZE with those bounds).
/// So a compaction's output is picked again only while it is smaller than minFileSize:
/// with the default (64 MB) a stream of tiny batches re-packs its growing output every
/// minNumFiles batches until that output reaches 64 MB, as Delta does; a smaller
/// minFileSize bounds what one auto-compaction rewrites.
struct AutoCompactConfig {
  std::optional<bool> enabled;  // the session conf, when set
  int64_t max_file_size = 128LL << 20;
  int64_t min_num_files = 50;
  std::optional<int64_t> min_file_size;  // spark.databricks.delta.autoCompact.minFileSize
  /// Files smaller than this are compacted (minFileSize, else maxFileSize / 2).
  int64_t compact_below() const { return min_file_size.value_or(max_file_size / 2); }
  /// Files of at most this size count toward minNumFiles (minFileSize, else all).
  int64_t count_up_to() const {
    return min_file_size.value_or(std::numeric_limits<int64_t>::max());
  }
};
bool AutoCompactEnabled(const AutoCompactConfig& config, const Metadata& metadata);

/// Auto-compaction's bookkeeping for one writer (the streaming Delta sink): an upper
/// bound of the counted files (AutoCompactConfig::count_up_to) in each partition it
/// wrote, taken from MaybeAutoCompact's last full check and raised by the writer's own
/// commits since. The full check (a pass over the table's active files) is due only when
/// a partition the write touched may have reached minNumFiles, when the partition was
/// never checked, or when another writer committed in between (the bound is then
/// unknown) — so a stream of tiny batches pays for it once per minNumFiles batches, not
/// every batch.
/// Thread safety: one writer's thread.
struct AutoCompactPlan;

class AutoCompactTracker {
 public:
  /// After this writer's commit `w`: true when MaybeAutoCompact should run.
  bool AfterWrite(const DeltaWriteResult& w, const AutoCompactConfig& config);
  /// MaybeAutoCompact's full check of table version `version`: the counted files of each
  /// checked partition (partitions missing here become unknown).
  void Checked(int64_t version, std::map<std::string, int64_t> counted_files);
  /// How many times AfterWrite asked for the full check (tests).
  int64_t checks_due() const { return checks_due_; }
  /// PlanAutoCompact planned `plan` from version `plan.snapshot` and its commit is yet to
  /// come (RunAutoCompact, possibly on another thread, racing this writer's next
  /// commits): the compacted partitions' bounds become what is left after it (counted
  /// files less the counted files it removes, plus one per bin for its outputs), and the
  /// compaction's own commit keeps the bounds once OwnCommitted names its version.
  void Planned(const AutoCompactPlan& plan, const AutoCompactConfig& config);
  /// The planned compaction committed `version` (-1: it did not commit, and every bound
  /// is unknown).
  void OwnCommitted(int64_t version);

 private:
  int64_t version_ = -1;
  std::map<std::string, int64_t> counted_;
  int64_t checks_due_ = 0;
  bool own_pending_ = false;  // a planned compaction's commit not yet passed
  int64_t own_version_ = -1;  // its version once known
};

/// The key AutoCompactTracker uses for a partition.
std::string CompactionPartitionKey(const PartitionValues& pv);

/// After a write: when auto-compaction is enabled for the table, compacts those of
/// `partitions` (the write's; Delta's scope) that hold at least min_num_files counted
/// files (see AutoCompactConfig): their files smaller than compact_below() packed into
/// bins of at most max_file_size, as a commit with operation OPTIMIZE and
/// operationParameters auto=true. Returns the committed version, or nullopt when
/// nothing was compacted. `log` is the writer's cached log (the streaming
/// sink's), so the check costs O(new commits), not a load of the table; null opens one.
/// `tracker` (optional) is told what the check found (see AutoCompactTracker).
Result<std::optional<int64_t>> MaybeAutoCompact(
    io::FileSystemPtr fs, const std::string& table_path, const AutoCompactConfig& config,
    const std::vector<PartitionValues>& partitions, const std::string& time_zone_id,
    const std::string& default_codec, std::shared_ptr<const DeltaLog> log = nullptr,
    AutoCompactTracker* tracker = nullptr);

/// MaybeAutoCompact in two steps, so that a writer can take the rewrite off its critical
/// path (the streaming Delta sink): PlanAutoCompact checks the table and picks the bins
/// on the caller's thread (O(active files) of the written partitions; the tracker is told
/// what it found when nothing is due), RunAutoCompact reads, rewrites and commits them.
/// The commit reads only the compacted files, so it races a writer's blind appends
/// without conflict (Delta's rules); it fails if one of them was removed meanwhile.
struct AutoCompactPlan {
  SnapshotPtr snapshot;
  CompactionBins bins;
  /// Counted files (AutoCompactConfig::count_up_to) of each checked partition at
  /// `snapshot`.
  std::map<std::string, int64_t> counted;
};
Result<std::optional<AutoCompactPlan>> PlanAutoCompact(
    io::FileSystemPtr fs, const std::string& table_path, const AutoCompactConfig& config,
    const std::vector<PartitionValues>& partitions, std::shared_ptr<const DeltaLog> log,
    AutoCompactTracker* tracker = nullptr);
/// The committed version.
Result<int64_t> RunAutoCompact(io::FileSystemPtr fs, const std::string& table_path,
                               const AutoCompactPlan& plan,
                               const std::string& time_zone_id,
                               const std::string& default_codec,
                               std::shared_ptr<const DeltaLog> log);

/// OPTIMIZE's operationMetrics for a compaction commit: numAddedFiles, numRemovedFiles,
/// numAddedBytes, numRemovedBytes, min/p25/p50/p75/maxFileSize of the added files
/// (Delta's FileSizeStats: the p-th percentile is sorted[floor(n * p)]),
/// numDeletionVectorsRemoved
/// (`dvs_removed`: the compacted files' deletion vectors, which the rewrite purges).
std::map<std::string, std::string> OptimizeMetrics(const DeltaWriteResult& w,
                                                   int64_t dvs_removed = 0);

}  // namespace spate::table
