// Copyright spate authors.
// Long-lived Delta logs (issue 18): the cached snapshot is advanced by the new commits
// only (log files read per commit counted, not timed), background checkpoints, and log
// cleanup by delta.logRetentionDuration.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>

#include "spate/columnar/builder.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/table/delta_compaction.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_source.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"
#include "spate/testing/status_matchers.h"

namespace spate::table {
namespace {

using io::CountingFileSystem;

SchemaPtr IdSchema() {
  return std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
}

BatchPtr Ids(int64_t start, int64_t n) {
  std::vector<Value> ids;
  for (int64_t i = start; i < start + n; ++i) ids.push_back(Value::Long(i));
  return Batch::Make(IdSchema(), {ColumnFromValues(DataType::Long(), ids)}, n);
}

/// Creates the table (version 0, one real file) with `props`.
void CreateTable(const io::FileSystemPtr& fs, const std::string& path,
                 std::map<std::string, std::string> props, NowFn now = SystemNow()) {
  DeltaWriteOptions o;
  o.mode = "append";
  o.options = std::move(props);
  auto r = WriteBatches(fs, path, {Ids(0, 3)}, o, std::move(now));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

/// An append of `batch` through `log` (null: the writer opens its own), as the sink
/// writes.
Result<DeltaWriteResult> Append(const io::FileSystemPtr& fs, const std::string& path,
                                const std::shared_ptr<const DeltaLog>& log,
                                BatchPtr batch) {
  DeltaWriteOptions o;
  o.mode = "append";
  o.log = log;
  return WriteBatches(fs, path, {std::move(batch)}, o);
}

/// One cheap commit: a fake add (and optionally a remove of `remove`).
Result<CommitResult> CommitFake(const std::shared_ptr<const DeltaLog>& log, int64_t i,
                                const AddFile* remove = nullptr, bool async = false) {
  SPATE_ASSIGN_OR_RETURN(auto snap, log->Latest());
  OptimisticTransaction txn(log, snap);
  txn.set_async_checkpoint(async);
  AddFile f;
  f.path = "fake-" + std::to_string(i) + ".parquet";
  f.size = 10 + i;
  f.data_change = true;
  std::vector<Action> actions{Action::Of(f)};
  if (remove) {
    txn.ReadFiles({*remove});
    RemoveFile r;
    r.path = remove->path;
    r.deletion_timestamp = log->NowMs();
    r.data_change = true;
    actions.push_back(Action::Of(r));
  }
  CommitInfo ci;
  ci.operation = "WRITE";
  return txn.Commit(std::move(actions), ci);
}

std::vector<std::string> Paths(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& f : s.files()) out.push_back(f.path);
  return out;
}

TEST(DeltaLogCacheTest, FiveThousandCommitsReadOnlyNewCommits) {
  auto counting = std::make_shared<CountingFileSystem>(
      std::make_shared<io::MemoryFileSystem>(), "/_delta_log/");
  io::FileSystemPtr fs = counting;
  // Checkpoints every 1000 commits keep the test fast; their cost is counted apart.
  CreateTable(fs, "/t", {{"delta.checkpointInterval", "1000"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/t");
  ASSERT_TRUE(log->Latest().ok());  // the one full load (listing + replay)
  counting->Take();
  constexpr int kCommits = 5000;
  int64_t max_ops = 0, lists = 0;
  for (int i = 1; i < kCommits; ++i) {
    auto r = CommitFake(log, i);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->version, i);
    auto c = counting->Take();
    if (i % 1000 == 0) continue;  // checkpoint commits: the checkpoint and cleanup
    max_ops = std::max(max_ops, c.total());
    lists += c.lists;
  }
  // Per commit: stat of the cached tail, one failed open probing for a newer commit,
  // the stat of our own commit: a constant, whatever the log's length.
  EXPECT_LE(max_ops, 4);
  EXPECT_EQ(lists, 0);
  auto latest = log->Latest().value();
  EXPECT_EQ(latest->version(), kCommits - 1);
  EXPECT_EQ(latest->files().size(),
            static_cast<size_t>(kCommits));  // 4999 fakes + 1 real
  // A fresh load (checkpoint 4000 + 999 commits) sees the same table.
  auto fresh = DeltaLog(fs, "/t").Latest().value();
  EXPECT_EQ(fresh->checkpoint_version().value(), 4000);
  EXPECT_EQ(Paths(*fresh), Paths(*latest));

  // Another writer commits 7 times: this log reads exactly those 7 commits (+ the probe
  // past them, the tail stats).
  auto other = std::make_shared<const DeltaLog>(fs, "/t");
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(CommitFake(other, 10000 + i).ok());
  counting->Take();
  auto updated = log->Latest().value();
  auto c = counting->Take();
  EXPECT_EQ(updated->version(), kCommits - 1 + 7);
  EXPECT_EQ(c.lists, 0);
  EXPECT_EQ(c.opens, 7 + 1);
  EXPECT_LE(c.stats, 2);
  EXPECT_EQ(updated->files().size(), static_cast<size_t>(kCommits + 7));
}

TEST(DeltaLogCacheTest, ConflictCheckReadsOnlyTheWinners) {
  auto counting = std::make_shared<CountingFileSystem>(
      std::make_shared<io::MemoryFileSystem>(), "/_delta_log/");
  io::FileSystemPtr fs = counting;
  CreateTable(fs, "/w", {{"delta.checkpointInterval", "1000"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/w");
  for (int i = 1; i <= 200; ++i) ASSERT_TRUE(CommitFake(log, i).ok());
  // A transaction reads version 200; three blind appends win 201..203.
  auto snap = log->Latest().value();
  OptimisticTransaction txn(log, snap);
  auto other = std::make_shared<const DeltaLog>(fs, "/w");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(CommitFake(other, 500 + i).ok());
  counting->Take();
  AddFile f;
  f.path = "late.parquet";
  CommitInfo ci;
  ci.operation = "WRITE";
  auto r = txn.Commit({Action::Of(f)}, ci);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 204);
  EXPECT_EQ(r->attempts, 2);
  auto c = counting->Take();
  EXPECT_EQ(c.lists, 0);
  EXPECT_EQ(c.opens, 3 + 1);  // the three winners and the probe past them
}

TEST(DeltaLogCacheTest, IncrementalSnapshotsMatchAFreshLoad) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/r", {{"delta.checkpointInterval", "7"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/r");
  // Adds and removes over more commits than the snapshot chain bound, with some
  // snapshots never materialized.
  for (int i = 1; i <= 3 * kMaxSnapshotChain + 5; ++i) {
    auto snap = log->Latest().value();
    const AddFile* victim = nullptr;
    AddFile copy;
    if (i % 3 == 0 && !snap->files().empty()) {
      copy = snap->files()[static_cast<size_t>(i) % snap->files().size()];
      victim = &copy;
    }
    ASSERT_TRUE(CommitFake(log, i, victim).ok());
    if (i % 17 == 0) {
      auto fresh = DeltaLog(fs, "/r").Latest().value();
      auto cached = log->Latest().value();
      ASSERT_EQ(cached->version(), fresh->version());
      EXPECT_EQ(Paths(*cached), Paths(*fresh)) << "version " << fresh->version();
      EXPECT_EQ(cached->tombstones().size(), fresh->tombstones().size());
    }
  }
  // A metadata change by another writer reaches the cached snapshot.
  DeltaWriteOptions o;
  o.mode = "append";
  o.options["mergeSchema"] = "true";
  auto wide = Batch::Make(
      std::make_shared<const Schema>(std::vector<Field>{
          {"id", DataType::Long(), true, ""}, {"extra", DataType::String(), true, ""}}),
      {ColumnFromValues(DataType::Long(), {Value::Long(1)}),
       ColumnFromValues(DataType::String(), {Value::String("x")})},
      1);
  ASSERT_TRUE(WriteBatches(fs, "/r", {wide}, o).ok());
  EXPECT_EQ(log->Latest().value()->schema()->num_fields(), 2);
}

// A long stream of one-file batches compacted every kSmall batches (the streaming sink
// with auto-compaction): the tombstones of the compacted files pile up (a week's worth
// in Delta), but a batch's work — Latest() and files(), the sink's compaction check —
// copies only the active files, never the tombstones. Counted, not timed.
TEST(DeltaLogCacheTest, PerCommitWorkDoesNotGrowWithTombstones) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/s", {{"delta.checkpointInterval", "1000000"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/s");
  constexpr int kSmall = 20;
  const int commits = kMaxTombstoneChain + 500;
  int64_t max_files = 0, tombstone_builds = 0;
  std::vector<std::string> removed;
  for (int i = 1; i <= commits; ++i) {
    auto snap = log->Latest().value();
    OptimisticTransaction txn(log, snap);
    std::vector<Action> actions;
    if (i % kSmall == 0) {
      // Compaction: every active file replaced by one.
      for (const auto& f : snap->files()) {
        RemoveFile r;
        r.path = f.path;
        r.deletion_timestamp = log->NowMs();
        r.data_change = false;
        r.size = f.size;
        actions.push_back(Action::Of(r));
        removed.push_back(f.path);
      }
      txn.ReadWholeTable();
    }
    AddFile f;
    // Now and then a file removed earlier comes back (no tombstone any more).
    f.path = i % 97 == 0 && !removed.empty()
                 ? removed[static_cast<size_t>(i) % removed.size()]
                 : "f-" + std::to_string(i) + ".parquet";
    f.size = 10;
    actions.push_back(Action::Of(f));
    CommitInfo ci;
    ci.operation = i % kSmall == 0 ? "OPTIMIZE" : "STREAMING UPDATE";
    auto before = Snapshot::ProcessMaterializeStats();
    ASSERT_TRUE(txn.Commit(std::move(actions), ci).ok());
    auto latest = log->Latest().value();
    EXPECT_LE(latest->files().size(), static_cast<size_t>(kSmall + 2));
    auto after = Snapshot::ProcessMaterializeStats();
    max_files = std::max(max_files, after.files - before.files);
    if (after.tombstones != before.tombstones) ++tombstone_builds;
  }
  // Thousands of tombstones, yet a commit copied at most the few active files; the
  // tombstone set was built only when the chain of unbuilt ones reached its bound.
  auto latest = log->Latest().value();
  EXPECT_GT(latest->tombstones().size(), static_cast<size_t>(commits / 2));
  EXPECT_LE(max_files, 2 * (kSmall + 2));
  EXPECT_EQ(tombstone_builds, commits / kMaxTombstoneChain);
  // The incrementally built tombstones equal a fresh load's (from a checkpoint written
  // from the cached snapshot, then from the JSON commits alone).
  auto paths = [](const TombstoneList& v) {
    std::vector<std::string> out;
    for (const auto& r : v) out.push_back(r.path);
    return out;
  };
  auto fresh = DeltaLog(fs, "/s").Latest().value();
  EXPECT_EQ(paths(fresh->tombstones()), paths(latest->tombstones()));
  ASSERT_TRUE(log->WriteCheckpoint(*latest).ok());
  auto from_checkpoint = DeltaLog(fs, "/s").Latest().value();
  ASSERT_EQ(from_checkpoint->checkpoint_version().value(), latest->version());
  EXPECT_EQ(paths(from_checkpoint->tombstones()), paths(latest->tombstones()));
  EXPECT_EQ(Paths(*from_checkpoint), Paths(*latest));
  for (const auto& r : from_checkpoint->tombstones()) {
    EXPECT_FALSE(r.data_change);
    EXPECT_EQ(r.size.value_or(-1), 10);
    ASSERT_TRUE(r.deletion_timestamp.has_value());
  }
}

// The streaming sink's auto-compaction bookkeeping: the full check (a pass over the
// active files) runs about twice per minNumFiles writes instead of after every write,
// and compacts at the same versions as a check after every write would.
TEST(DeltaLogCacheTest, AutoCompactTrackerChecksOnlyWhenMinNumFilesIsReachable) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  AutoCompactConfig config;
  config.enabled = true;
  config.min_num_files = 10;
  auto compactions = [&](const std::string& path, bool track, int64_t* checks,
                         int64_t* files_built_between_checks) {
    CreateTable(fs, path, {});
    auto log = std::make_shared<const DeltaLog>(fs, path);
    AutoCompactTracker tracker;
    std::vector<int64_t> versions;
    for (int i = 1; i <= 100; ++i) {
      if (i == 55) {  // another writer's append: the bound is unknown again
        DeltaWriteOptions other;
        other.mode = "append";
        EXPECT_TRUE(WriteBatches(fs, path, {Ids(1000, 1)}, other).ok());
      }
      auto w = Append(fs, path, log, Ids(i * 10, 1));
      EXPECT_TRUE(w.ok()) << w.status().ToString();
      if (!w.ok()) return versions;
      const auto before = Snapshot::ThreadMaterializeStats();
      if (!track || tracker.AfterWrite(*w, config)) {
        auto c = MaybeAutoCompact(fs, path, config, w->partitions_written, "UTC",
                                  "snappy", log, track ? &tracker : nullptr);
        EXPECT_TRUE(c.ok()) << c.status().ToString();
        if (c.ok() && c->has_value()) versions.push_back(**c);
      } else {
        *files_built_between_checks +=
            Snapshot::ThreadMaterializeStats().files - before.files;
      }
    }
    *checks = tracker.checks_due();
    EXPECT_EQ(log->Latest().value()->files().size() < 12, true);
    return versions;
  };
  int64_t checks = 0, between = 0, unused = 0, unused2 = 0;
  auto tracked = compactions("/tracked", true, &checks, &between);
  auto every = compactions("/every", false, &unused, &unused2);
  EXPECT_EQ(tracked, every);
  EXPECT_GE(tracked.size(), 9u);
  EXPECT_LE(checks, 100 / 4);
  EXPECT_EQ(between, 0);  // writes without a check built no file list
}

// Which files auto-compaction picks, as delta-spark 4.4 (observed on real Spark: 16
// appends of one ~equal-sized file with autoCompact.minNumFiles 5, each followed by the
// sink's check). Files smaller than minFileSize (default maxFileSize / 2) are packed; a
// partition is due at minNumFiles files of at most minFileSize (all files when unset):
//   - defaults: OPTIMIZE at versions 5, 10, 15, each re-packing the previous output with
//     the 4 new files (it is below 64 MB);
//   - minFileSize between one file and a compaction's output: versions 5, 11, 17, each
//     packing only the 5 new files (the outputs are neither picked nor counted), so one
//     compaction's bytes stay bounded however long the stream runs;
//   - maxFileSize 2.8 files (minFileSize 1.4): bins of two, at 5, 8, 10, 13, 16, 19, 22.
TEST(DeltaLogCacheTest, AutoCompactPicksFilesAsDelta) {
  struct Optimize {
    int64_t version;
    std::set<std::string> removed, added;
  };
  auto run = [](const std::string& path, AutoCompactConfig config, int64_t* one_file) {
    auto fs = std::make_shared<io::MemoryFileSystem>();
    std::shared_ptr<const DeltaLog> log;
    AutoCompactTracker tracker;
    std::vector<Optimize> out;
    for (int i = 0; i < 16; ++i) {
      auto w = Append(fs, path, log, Ids(i * 1000, 1000));
      EXPECT_TRUE(w.ok()) << w.status().ToString();
      if (!w.ok()) return out;
      if (!log) log = std::make_shared<const DeltaLog>(fs, path);
      if (i == 0) {
        *one_file = w->file_sizes.at(0);
        if (config.max_file_size == 0) config.max_file_size = *one_file * 28 / 10;
        if (config.min_file_size == 0) config.min_file_size = *one_file * 2;
      }
      if (!tracker.AfterWrite(*w, config)) continue;
      auto c = MaybeAutoCompact(fs, path, config, w->partitions_written, "UTC", "snappy",
                                log, &tracker);
      EXPECT_TRUE(c.ok()) << c.status().ToString();
      if (!c.ok() || !c->has_value()) continue;
      Optimize opt{**c, {}, {}};
      auto actions = log->ReadCommit(**c);
      EXPECT_TRUE(actions.ok());
      if (!actions.ok()) continue;
      for (const auto& a : *actions) {
        if (a.kind == Action::Kind::kRemove) opt.removed.insert(a.remove.path);
        if (a.kind == Action::Kind::kAdd) opt.added.insert(a.add.path);
      }
      out.push_back(std::move(opt));
    }
    return out;
  };
  auto versions = [](const std::vector<Optimize>& v) {
    std::vector<int64_t> out;
    for (const auto& o : v) out.push_back(o.version);
    return out;
  };
  int64_t one = 0;
  AutoCompactConfig config;
  config.enabled = true;
  config.min_num_files = 5;

  auto defaults = run("/d", config, &one);
  EXPECT_EQ(versions(defaults), (std::vector<int64_t>{5, 10, 15}));
  for (size_t k = 1; k < defaults.size(); ++k) {
    EXPECT_EQ(defaults[k].removed.size(), 5u);
    // The previous compaction's output is re-packed.
    EXPECT_EQ(defaults[k].removed.count(*defaults[k - 1].added.begin()), 1u);
  }

  AutoCompactConfig bounded = config;
  bounded.min_file_size = 0;  // run(): twice one file
  auto b = run("/b", bounded, &one);
  EXPECT_EQ(versions(b), (std::vector<int64_t>{5, 11, 17}));
  for (size_t k = 0; k < b.size(); ++k) {
    EXPECT_EQ(b[k].removed.size(), 5u);
    for (size_t j = 0; j < k; ++j)
      for (const auto& added : b[j].added) EXPECT_EQ(b[k].removed.count(added), 0u);
  }

  AutoCompactConfig pairs = config;
  pairs.max_file_size = 0;  // run(): 2.8 files; minFileSize unset: 1.4 files
  auto p = run("/p", pairs, &one);
  EXPECT_EQ(versions(p), (std::vector<int64_t>{5, 8, 10, 13, 16, 19, 22}));
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].removed.size(), 4u);  // [1,1] [1,1]; the fifth file alone is left
  EXPECT_EQ(p[0].added.size(), 2u);
  for (size_t k = 1; k < p.size(); ++k) EXPECT_EQ(p[k].removed.size(), 2u);
}

TEST(DeltaLogCacheTest, ReplacedTableIsLoadedAfresh) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/x", {});
  auto log = std::make_shared<const DeltaLog>(fs, "/x");
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(CommitFake(log, i).ok());
  EXPECT_EQ(log->Latest().value()->files().size(), 4u);
  // The table is deleted and written again (same version numbers, new files).
  ASSERT_TRUE(fs->Delete("/x", true).ok());
  CreateTable(fs, "/x", {});
  auto again = log->Latest().value();
  EXPECT_EQ(again->version(), 0);
  EXPECT_EQ(again->files().size(), 1u);
}

TEST(DeltaLogCacheTest, BackgroundCheckpointIsReadable) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/b", {});
  auto log = std::make_shared<const DeltaLog>(fs, "/b");
  for (int i = 1; i <= 25; ++i)
    ASSERT_TRUE(CommitFake(log, i, nullptr, /*async=*/true).ok());
  ASSERT_TRUE(log->WaitForBackgroundCheckpoints().ok());
  EXPECT_TRUE(
      fs->Exists("/b/_delta_log/00000000000000000020.checkpoint.parquet").value());
  auto last = Json::Parse(fs->ReadAll("/b/_delta_log/_last_checkpoint").value()).value();
  EXPECT_EQ(last.GetInt("version").value(), 20);
  EXPECT_EQ(last.GetInt("numOfAddFiles").value(), 21);
  auto fresh = DeltaLog(fs, "/b").Latest().value();
  EXPECT_EQ(fresh->checkpoint_version().value(), 20);
  EXPECT_EQ(fresh->files().size(), 26u);
  // A DeltaLog destroyed with a checkpoint queued finishes it.
  {
    auto short_lived = std::make_shared<const DeltaLog>(fs, "/b");
    for (int i = 26; i <= 30; ++i)
      ASSERT_TRUE(CommitFake(short_lived, i, nullptr, /*async=*/true).ok());
  }
  EXPECT_TRUE(
      fs->Exists("/b/_delta_log/00000000000000000030.checkpoint.parquet").value());
}

// Pacing (CheckpointOptions::paced_above_bytes): once checkpoints are at least that
// large, a checkpoint is written at an interval multiple only when the commit bytes since
// the last one reach its size; below it, every delta.checkpointInterval as Delta.
TEST(DeltaLogCacheTest, CheckpointsArePacedByTheirSize) {
  auto pad = [](int64_t v) {
    std::string s = std::to_string(v);
    return std::string(20 - s.size(), '0') + s;
  };
  for (const bool async : {false, true}) {
    for (const int64_t paced_above :
         {int64_t{0}, int64_t{-1}, CheckpointOptions{}.paced_above_bytes}) {
      SCOPED_TRACE(::testing::Message() << "async " << async << " paced " << paced_above);
      auto fs = std::make_shared<io::MemoryFileSystem>();
      CreateTable(fs, "/p", {});
      auto log = std::make_shared<const DeltaLog>(fs, "/p");
      CheckpointOptions opt;
      opt.paced_above_bytes = paced_above;
      log->SetCheckpointOptions(opt);
      // The rule, from the files on disk: commit bytes since the last checkpoint against
      // that checkpoint's size.
      int64_t checkpoint_bytes = -1, since = 0, written = 0, skipped = 0, last = -1;
      for (int v = 1; v <= 300; ++v) {
        ASSERT_TRUE(CommitFake(log, v, nullptr, async).ok());
        ASSERT_TRUE(log->WaitForBackgroundCheckpoints().ok());
        since += fs->Stat("/p/_delta_log/" + pad(v) + ".json").value().size;
        const std::string cp = "/p/_delta_log/" + pad(v) + ".checkpoint.parquet";
        const bool exists = fs->Exists(cp).value();
        if (v % 10 != 0) {
          EXPECT_FALSE(exists) << v;
          continue;
        }
        const bool paced =
            paced_above >= 0 && checkpoint_bytes >= paced_above && checkpoint_bytes >= 0;
        const bool expected = !paced || since >= checkpoint_bytes;
        EXPECT_EQ(exists, expected)
            << "version " << v << ": " << since << " commit bytes since a checkpoint of "
            << checkpoint_bytes;
        if (!exists) {
          ++skipped;
          continue;
        }
        ++written;
        last = v;
        since = 0;
        checkpoint_bytes = fs->Stat(cp).value().size;
        auto info = Json::Parse(fs->ReadAll("/p/_delta_log/_last_checkpoint").value());
        EXPECT_EQ(info.value().GetInt("version").value(), v);
        EXPECT_EQ(info.value().GetInt("sizeInBytes").value(), checkpoint_bytes);
      }
      if (paced_above == 0) {
        // A fake commit is a few hundred bytes, a checkpoint of tens of files several KB.
        EXPECT_GT(skipped, 10);
        EXPECT_GE(written, 2);
      } else {
        EXPECT_EQ(skipped, 0);  // small checkpoints: every interval, as Delta
        EXPECT_EQ(written, 30);
      }
      // A reader starts from the paced checkpoint and replays the commits after it.
      auto fresh = DeltaLog(fs, "/p").Latest().value();
      EXPECT_EQ(fresh->version(), 300);
      EXPECT_EQ(fresh->checkpoint_version().value(), last);
      EXPECT_EQ(fresh->files().size(), 301u);
    }
  }
}

// A checkpoint larger than one written chunk (16,384 rows) reads back whole.
TEST(DeltaLogCacheTest, LargeCheckpointReadsBack) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/big", {});
  auto log = std::make_shared<const DeltaLog>(fs, "/big");
  OptimisticTransaction txn(log, log->Latest().value());
  std::vector<Action> adds;
  for (int i = 0; i < 20000; ++i) {
    AddFile f;
    f.path = "k=" + std::to_string(i % 7) + "/part-" + std::to_string(i) + ".parquet";
    f.partition_values = {
        {"k", i % 11 == 0 ? std::nullopt : std::optional<std::string>("x")}};
    f.size = i;
    f.stats = "{\"numRecords\":" + std::to_string(i) + "}";
    if (i % 5 == 0) f.tags = std::map<std::string, std::string>{{"t", "v"}};
    adds.push_back(Action::Of(f));
  }
  CommitInfo ci;
  ci.operation = "WRITE";
  ASSERT_TRUE(txn.Commit(std::move(adds), ci).ok());
  auto snap = log->Latest().value();
  ASSERT_TRUE(log->WriteCheckpoint(*snap).ok());
  auto fresh = DeltaLog(fs, "/big").Latest().value();
  EXPECT_EQ(fresh->checkpoint_version().value(), 1);
  ASSERT_EQ(fresh->files().size(), 20001u);
  for (size_t i = 0; i < fresh->files().size(); i += 997) {
    const AddFile& a = fresh->files()[i];
    const AddFile& b = snap->files()[i];
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.stats, b.stats);
    EXPECT_EQ(a.partition_values, b.partition_values);
    EXPECT_EQ(a.tags, b.tags);
    EXPECT_FALSE(a.data_change);
  }
}

// Log cleanup with a controlled clock: commit times come from commitInfo.timestamp.
TEST(DeltaLogCacheTest, LogCleanupKeepsEveryRetainedVersionReadable) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  const int64_t day = 86400000;
  int64_t clock = 1000 * day + 12 * 3600 * 1000;  // noon
  NowFn now = [&] { return clock; };
  CreateTable(fs, "/c", {{"delta.logRetentionDuration", "interval 30 days"}}, now);
  auto log = std::make_shared<const DeltaLog>(fs, "/c", now);
  // Versions 1..24 sixty days ago, 25..35 today; checkpoints at 10, 20, 30.
  for (int i = 1; i <= 35; ++i) {
    if (i == 25) clock += 60 * day;
    ASSERT_TRUE(CommitFake(log, i).ok());
  }
  // The checkpoint at 30 ran the cleanup: the oldest retained version is 25, the newest
  // checkpoint at or before it is 20, so versions below 20 are gone.
  for (int v = 0; v < 20; ++v) EXPECT_FALSE(fs->Exists(log->CommitPath(v)).value()) << v;
  EXPECT_FALSE(
      fs->Exists("/c/_delta_log/00000000000000000010.checkpoint.parquet").value());
  EXPECT_TRUE(
      fs->Exists("/c/_delta_log/00000000000000000020.checkpoint.parquet").value());
  DeltaLog reader(fs, "/c", now);
  for (int64_t v = 20; v <= 35; ++v) {
    auto s = reader.At(v);
    ASSERT_TRUE(s.ok()) << v << ": " << s.status().ToString();
    EXPECT_EQ((*s)->files().size(), static_cast<size_t>(v + 1));
  }
  auto old = reader.At(19);
  ASSERT_ERROR_CLASS(old, "DELTA_VERSION_NOT_FOUND");
  EXPECT_ERROR_HAS(old, "20");
  EXPECT_EQ(reader.Latest().value()->files().size(), 36u);
  // Timestamps still resolve over the retained commits (25..35 share one clock value,
  // made monotonic: 25 is at `clock`); before the oldest listed commit they fail.
  EXPECT_EQ(reader.VersionAtTimestamp(clock).value(), 25);
  EXPECT_EQ(reader.VersionAtTimestamp(clock + 10).value(), 35);
  auto before = reader.VersionAtTimestamp(day);
  ASSERT_ERROR_CLASS(before, "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");

  // delta.enableExpiredLogCleanup=false keeps everything.
  CreateTable(fs, "/k",
              {{"delta.logRetentionDuration", "interval 1 day"},
               {"delta.enableExpiredLogCleanup", "false"}},
              now);
  auto keep = std::make_shared<const DeltaLog>(fs, "/k", now);
  for (int i = 1; i <= 10; ++i) ASSERT_TRUE(CommitFake(keep, i).ok());
  clock += 10 * day;
  for (int i = 11; i <= 20; ++i) ASSERT_TRUE(CommitFake(keep, i).ok());
  EXPECT_TRUE(fs->Exists(keep->CommitPath(0)).value());
  EXPECT_EQ(keep->CleanUpExpiredLogs(*keep->Latest().value()).value(), 0);
}

// Batch appends and reads (WriteBatches / OpenSnapshot without a log of their own) go
// through the process's DeltaLog of the table: on a table of many commits each append
// touches a constant number of log files, and sees other writers' commits and a
// replaced table.
TEST(DeltaLogCacheTest, BatchAppendsThroughTheProcessLogReadOnlyNewCommits) {
  DeltaLog::ClearProcessCache();
  auto counting = std::make_shared<CountingFileSystem>(
      std::make_shared<io::MemoryFileSystem>(), "/_delta_log/");
  io::FileSystemPtr fs = counting;
  DeltaWriteOptions append;
  append.mode = "append";
  append.options = {{"delta.checkpointInterval", "1000"}};
  constexpr int kCommits = 2000;
  int64_t max_ops = 0, lists = 0;
  for (int i = 0; i < kCommits; ++i) {
    counting->Take();
    auto r = WriteBatches(fs, "/w", {Ids(i, 1)}, append);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->version, i);
    auto c = counting->Take();
    if (i <= 1 || i % 1000 == 0) continue;  // the first load; checkpoint commits
    max_ops = std::max(max_ops, c.total());
    lists += c.lists;
  }
  // Per append: the cached tail's stat, the probe for a newer commit, our commit's
  // put-if-absent and stat: a constant, whatever the log's length (a fresh log per
  // append would list the log and read the checkpoint and up to 999 commits).
  EXPECT_LE(max_ops, 5);
  EXPECT_EQ(lists, 0);
  // A read of the latest version: the tail's stat and one probe.
  auto read = OpenSnapshot(fs, "/w", {});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)->version(), kCommits - 1);
  EXPECT_EQ((*read)->files().size(), static_cast<size_t>(kCommits));
  EXPECT_LE(counting->Take().total(), 2);

  // Another writer's 3 commits: the next append reads exactly those.
  auto other = std::make_shared<const DeltaLog>(fs, "/w");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(CommitFake(other, 50000 + i).ok());
  counting->Take();
  auto r = WriteBatches(fs, "/w", {Ids(-1, 1)}, append);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, kCommits + 3);
  auto c = counting->Take();
  EXPECT_EQ(c.lists, 0);
  EXPECT_LE(c.opens, 3 + 1 + 1);  // the winners, the probe past them, our commit
  EXPECT_EQ(OpenSnapshot(fs, "/w", {}).value()->files().size(),
            static_cast<size_t>(kCommits + 4));

  // The table deleted and written again: the process's log loads it afresh.
  ASSERT_TRUE(fs->Delete("/w", true).ok());
  DeltaWriteOptions create;
  create.mode = "append";
  ASSERT_TRUE(WriteBatches(fs, "/w", {Ids(0, 2)}, create, SystemNow()).ok());  // own log
  auto again = WriteBatches(fs, "/w", {Ids(2, 1)}, append);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->version, 1);
  auto snap = OpenSnapshot(fs, "/w", {}).value();
  EXPECT_EQ(snap->version(), 1);
  EXPECT_EQ(snap->files().size(), 2u);
  DeltaLog::ClearProcessCache();
}

}  // namespace
}  // namespace spate::table
