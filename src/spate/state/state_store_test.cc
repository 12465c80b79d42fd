// Copyright spate authors.
#include "spate/state/state_store.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "spate/base/text_parse.h"
#include "spate/io/file_system.h"
#include "spate/state/state_file.h"
#include "spate/testing/status_matchers.h"

namespace spate::state {
namespace {

using KV = std::map<std::string, std::string>;

// --- Crash test child: when SPATE_STATE_CRASH_CHILD=<provider> is set, this binary
// commits versions from SPATE_STATE_CRASH_START on under SPATE_STATE_CRASH_ROOT forever,
// printing each committed version, until the parent kills it with SIGKILL. ---

/// The changes of version v (made by batch v-1): 40 keys of 200 bytes, an overwrite of
/// "hot", and the removal of the keys of version v-3.
void ApplyVersion(int64_t v, const std::function<void(std::string, std::string)>& put,
                  const std::function<void(std::string)>& remove) {
  for (int i = 0; i < 40; ++i) {
    put("v" + std::to_string(v) + "-" + std::to_string(i),
        std::string(200, static_cast<char>('a' + (v + i) % 26)));
  }
  put("hot", "version " + std::to_string(v));
  if (v > 3) {
    for (int i = 0; i < 40; ++i)
      remove("v" + std::to_string(v - 3) + "-" + std::to_string(i));
  }
}

KV ExpectedState(int64_t version) {
  KV kv;
  for (int64_t v = 1; v <= version; ++v) {
    ApplyVersion(
        v, [&](std::string k, std::string val) { kv[k] = std::move(val); },
        [&](std::string k) { kv.erase(k); });
  }
  return kv;
}

StateStoreConf CrashConf(const std::string& provider) {
  StateStoreConf conf;
  conf.provider = provider;
  conf.min_deltas_for_snapshot = 3;
  conf.min_versions_to_retain = 4;
  return conf;
}

StateStoreId CrashId(const std::string& root) {
  StateStoreId id;
  id.root = root;
  return id;
}

[[maybe_unused]] const int kCrashChild = [] {
  const char* provider = std::getenv("SPATE_STATE_CRASH_CHILD");
  if (provider == nullptr) return 0;
  auto p = CreateStateStoreProvider(CrashId(std::getenv("SPATE_STATE_CRASH_ROOT")),
                                    CrashConf(provider), io::LocalFileSystem::Get());
  if (!p.ok()) _exit(2);
  for (int64_t v = std::atoll(std::getenv("SPATE_STATE_CRASH_START"));; ++v) {
    auto s = (*p)->GetStore(v);
    if (!s.ok()) _exit(3);
    StateStore* st = *s;
    ApplyVersion(
        v + 1, [&](std::string k, std::string val) { st->Put(k, val); },
        [&](std::string k) { st->Remove(k); });
    if (!st->Commit().ok() || !(*p)->DoMaintenance().ok()) _exit(4);
    std::printf("%lld\n", static_cast<long long>(v + 1));
    std::fflush(stdout);
  }
}();

struct ProviderCase {
  std::string provider;
  std::string incremental;  // file suffix written by every commit
  std::string base;         // file suffix written by maintenance
};

class StateStoreTest : public ::testing::TestWithParam<ProviderCase> {
 protected:
  StateStoreTest() : fs_(std::make_shared<io::MemoryFileSystem>()) {
    id_.root = "/chk/state";
    id_.operator_id = 1;
    id_.partition = 3;
    conf_.provider = GetParam().provider;
    conf_.min_deltas_for_snapshot = 3;
    conf_.min_versions_to_retain = 5;
  }

  std::unique_ptr<StateStoreProvider> NewProvider() {
    auto p = CreateStateStoreProvider(id_, conf_, fs_);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return std::move(p).value();
  }

  static KV Contents(StateStore* s) {
    KV kv;
    s->ForEach([&](std::string_view k, std::string_view v) { kv[std::string(k)] = v; });
    return kv;
  }

  /// Commits versions 1..n on `p`: version v puts k<v> = "v<v>", overwrites k0 and
  /// removes k<v-2>. Returns the contents after each version (index = version).
  std::vector<KV> CommitVersions(StateStoreProvider* p, int n, bool maintenance) {
    std::vector<KV> states(1);
    KV kv;
    for (int v = 1; v <= n; ++v) {
      auto s = p->GetStore(v - 1);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      StateStore* st = *s;
      std::string key = "k" + std::to_string(v);
      st->Put(key, "v" + std::to_string(v));
      st->Put("k0", "overwritten at " + std::to_string(v));
      kv[key] = "v" + std::to_string(v);
      kv["k0"] = "overwritten at " + std::to_string(v);
      if (v > 2) {
        st->Remove("k" + std::to_string(v - 2));
        kv.erase("k" + std::to_string(v - 2));
      }
      EXPECT_TRUE(st->Commit().ok());
      if (maintenance) {
        EXPECT_TRUE(p->DoMaintenance().ok());
      }
      states.push_back(kv);
    }
    return states;
  }

  std::string FilePath(int64_t version, const std::string& suffix) const {
    return id_.Path() + "/" + std::to_string(version) + "." + suffix;
  }
  bool Exists(const std::string& path) { return fs_->Exists(path).ValueOr(false); }

  /// An empty folder under the temp folder, unique to this process, test and provider.
  std::string FreshTempDir(const std::string& what) const {
    auto dir = std::filesystem::temp_directory_path() /
               ("spate-state-" + what + "-" + std::to_string(getpid()) + "-" +
                GetParam().provider);
    std::filesystem::remove_all(dir);
    return dir.string();
  }

  io::FileSystemPtr fs_;
  StateStoreId id_;
  StateStoreConf conf_;
};

TEST_P(StateStoreTest, PutGetRemoveIterate) {
  auto p = NewProvider();
  auto s = p->GetStore(0);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StateStore* st = *s;
  EXPECT_EQ(st->version(), 0);
  EXPECT_FALSE(st->Get("a").has_value());
  st->Put("a", "1");
  st->Put("b", std::string("\0two\0", 5));
  st->Put("", "empty key");
  st->Put("c", "");
  EXPECT_EQ(st->Get("a").value(), "1");
  EXPECT_EQ(st->Get("b").value(), std::string_view("\0two\0", 5));
  EXPECT_EQ(st->Get("").value(), "empty key");
  EXPECT_EQ(st->Get("c").value(), "");
  st->Put("a", "one");
  EXPECT_EQ(st->Get("a").value(), "one");
  st->Remove("c");
  st->Remove("missing");
  EXPECT_FALSE(st->Get("c").has_value());
  EXPECT_EQ(Contents(st),
            (KV{{"a", "one"}, {"b", std::string("\0two\0", 5)}, {"", "empty key"}}));
  EXPECT_EQ(st->metrics().num_keys, 3);
  ASSERT_TRUE(st->Commit().ok());
  EXPECT_TRUE(Exists(FilePath(1, GetParam().incremental)));

  auto s1 = p->GetStore(1);
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ((*s1)->version(), 1);
  EXPECT_EQ((*s1)->Get("a").value(), "one");
  EXPECT_EQ((*s1)->metrics().num_keys, 3);
  EXPECT_GT((*s1)->metrics().memory_used_bytes, 0);
}

TEST_P(StateStoreTest, ManyKeysSurviveGrowthAndCompaction) {
  auto p = NewProvider();
  KV expect;
  for (int v = 0; v < 4; ++v) {
    StateStore* st = *p->GetStore(v);
    for (int i = 0; i < 5000; ++i) {
      std::string k = "key-" + std::to_string(i * 7 + v);
      if (i % 3 == v % 3) {
        st->Remove(k);
        expect.erase(k);
      } else {
        std::string val(static_cast<size_t>(i % 50), static_cast<char>('a' + v));
        st->Put(k, val);
        expect[k] = val;
      }
    }
    ASSERT_TRUE(st->Commit().ok());
  }
  auto reloaded = NewProvider();
  StateStore* st = *reloaded->GetStore(4);
  EXPECT_EQ(Contents(st), expect);
  EXPECT_EQ(st->metrics().num_keys, static_cast<int64_t>(expect.size()));
  for (const auto& [k, v] : expect) ASSERT_EQ(st->Get(k).value(), v) << k;
}

TEST_P(StateStoreTest, AbortDiscardsChanges) {
  auto p = NewProvider();
  StateStore* st = *p->GetStore(0);
  st->Put("a", "1");
  st->Put("b", "2");
  ASSERT_TRUE(st->Commit().ok());
  st = *p->GetStore(1);
  st->Put("a", "changed");
  st->Remove("b");
  st->Put("c", "new");
  st->Put("c", "newer");
  st->Abort();
  st = *p->GetStore(1);
  EXPECT_EQ(Contents(st), (KV{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(st->metrics().num_keys, 2);
  // A GetStore without Abort or Commit discards the open changes as well.
  st->Put("d", "lost");
  st = *p->GetStore(1);
  EXPECT_FALSE(st->Get("d").has_value());
}

TEST_P(StateStoreTest, SameSizeOverwritesAbortAndCommit) {
  auto p = NewProvider();
  StateStore* st = *p->GetStore(0);
  st->Put("a", "1111");
  st->Put("b", "bbbb");
  ASSERT_TRUE(st->Commit().ok());
  for (bool commit : {false, true}) {
    st = *p->GetStore(1);
    st->Put("a", "2222");
    st->Put("a", "3333");
    st->Put("b", "longer value");
    st->Put("b", "longer VALUE");
    st->Remove("a");
    st->Put("a", "4444");
    st->Put("a", "5555");
    EXPECT_EQ(Contents(st), (KV{{"a", "5555"}, {"b", "longer VALUE"}}));
    if (!commit) {
      st->Abort();
      EXPECT_EQ(Contents(*p->GetStore(1)), (KV{{"a", "1111"}, {"b", "bbbb"}}));
    } else {
      ASSERT_TRUE(st->Commit().ok());
    }
  }
  EXPECT_EQ(Contents(*NewProvider()->GetStore(2)),
            (KV{{"a", "5555"}, {"b", "longer VALUE"}}));
  // The replay of version 1 on the same provider undoes the in-place overwrites.
  EXPECT_EQ(Contents(*p->GetStore(1)), (KV{{"a", "1111"}, {"b", "bbbb"}}));
}

TEST_P(StateStoreTest, CommitAndReloadInANewProvider) {
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 6, /*maintenance=*/false);
  p->Close();
  auto restarted = NewProvider();
  for (int v = 6; v >= 0; --v) {
    auto s = restarted->GetStore(v);
    ASSERT_TRUE(s.ok()) << v << ": " << s.status().ToString();
    EXPECT_EQ(Contents(*s), states[v]) << "version " << v;
    EXPECT_EQ((*s)->metrics().num_keys, static_cast<int64_t>(states[v].size()));
  }
}

TEST_P(StateStoreTest, ReplayedVersionOverwritesTheUncommittedLaterOne) {
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 3, false);
  // Batch 3 ran (version 4 written) but its commits/3 is missing: it runs again.
  StateStore* st = *p->GetStore(3);
  st->Put("first run", "x");
  ASSERT_TRUE(st->Commit().ok());
  int64_t misses = st->metrics().custom["loadedMapCacheMissCount"];
  st = *p->GetStore(3);  // replay on the same provider
  EXPECT_EQ(Contents(st), states[3]);
  EXPECT_EQ(st->metrics().num_keys, static_cast<int64_t>(states[3].size()));
  if (GetParam().provider == "memory") {
    // Undone in memory from the last commit's undo log, not reloaded.
    EXPECT_EQ(st->metrics().custom["loadedMapCacheMissCount"], misses);
  }
  st->Put("second run", "y");
  ASSERT_TRUE(st->Commit().ok());
  KV expect = states[3];
  expect["second run"] = "y";
  EXPECT_EQ(Contents(*p->GetStore(4)), expect);
  // And after a restart, replaying once more.
  auto restarted = NewProvider();
  EXPECT_EQ(Contents(*restarted->GetStore(4)), expect);
  st = *restarted->GetStore(3);
  EXPECT_EQ(Contents(st), states[3]);
  st->Put("third run", "z");
  ASSERT_TRUE(st->Commit().ok());
  expect.erase("second run");
  expect["third run"] = "z";
  EXPECT_EQ(Contents(*NewProvider()->GetStore(4)), expect);
}

TEST_P(StateStoreTest, ReplayAfterASnapshotOfTheUncommittedVersion) {
  conf_.min_deltas_for_snapshot = 1;
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 3, true);
  ASSERT_TRUE(Exists(FilePath(3, GetParam().base)));
  StateStore* st = *p->GetStore(2);
  st->Put("replayed", "1");
  ASSERT_TRUE(st->Commit().ok());
  EXPECT_FALSE(Exists(FilePath(3, GetParam().base)));  // the stale snapshot is gone
  KV expect = states[2];
  expect["replayed"] = "1";
  EXPECT_EQ(Contents(*NewProvider()->GetStore(3)), expect);
}

TEST_P(StateStoreTest, SnapshotsAndDeltasLoadEveryVersion) {
  auto p = NewProvider();
  conf_.min_versions_to_retain = 100;
  p = NewProvider();
  auto states = CommitVersions(p.get(), 10, /*maintenance=*/true);
  EXPECT_TRUE(Exists(FilePath(3, GetParam().base)));
  EXPECT_TRUE(Exists(FilePath(6, GetParam().base)));
  EXPECT_TRUE(Exists(FilePath(9, GetParam().base)));
  EXPECT_FALSE(Exists(FilePath(10, GetParam().base)));
  for (int v = 0; v <= 10; ++v) {
    auto fresh = NewProvider();
    auto s = fresh->GetStore(v);
    ASSERT_TRUE(s.ok()) << v << ": " << s.status().ToString();
    EXPECT_EQ(Contents(*s), states[v]) << "version " << v;
    EXPECT_EQ((*s)->metrics().num_keys, static_cast<int64_t>(states[v].size()));
  }
  // A snapshot alone loads its version: the deltas before it are not read.
  for (int v = 1; v <= 9; ++v)
    ASSERT_TRUE(fs_->Delete(FilePath(v, GetParam().incremental)).ok());
  EXPECT_EQ(Contents(*NewProvider()->GetStore(10)), states[10]);
  EXPECT_EQ(Contents(*NewProvider()->GetStore(9)), states[9]);
}

TEST_P(StateStoreTest, PurgeKeepsRetainedVersionsLoadable) {
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 20, /*maintenance=*/true);
  // Retained: 16..20; the newest snapshot at or before 16 is 15.
  for (int v = 1; v < 15; ++v) {
    EXPECT_FALSE(Exists(FilePath(v, GetParam().incremental))) << v;
    EXPECT_FALSE(Exists(FilePath(v, GetParam().base))) << v;
  }
  EXPECT_TRUE(Exists(FilePath(15, GetParam().base)));
  for (int v = 16; v <= 20; ++v) {
    EXPECT_TRUE(Exists(FilePath(v, GetParam().incremental))) << v;
    auto fresh = NewProvider();
    auto s = fresh->GetStore(v);
    ASSERT_TRUE(s.ok()) << v << ": " << s.status().ToString();
    EXPECT_EQ(Contents(*s), states[v]);
  }
  auto old = NewProvider()->GetStore(3);
  ASSERT_ERROR_CLASS(old, "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
}

TEST_P(StateStoreTest, MissingDeltaNamesTheFile) {
  auto p = NewProvider();
  CommitVersions(p.get(), 4, false);
  std::string path = FilePath(3, GetParam().incremental);
  ASSERT_TRUE(fs_->Delete(path).ok());
  auto s = NewProvider()->GetStore(4);
  ASSERT_ERROR_CLASS(s, "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
  // A version that was never written is missing too, never empty state.
  auto never = NewProvider()->GetStore(9);
  ASSERT_ERROR_CLASS(never, "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
  EXPECT_NE(never.status().message().find(path), std::string::npos);
}

void Rewrite(io::FileSystem& fs, const std::string& path,
             const std::function<void(std::string*)>& edit) {
  std::string bytes = fs.ReadAll(path).ValueOr("");
  edit(&bytes);
  ASSERT_TRUE(fs.WriteAtomic(path, bytes).ok());
}

TEST_P(StateStoreTest, CorruptOrTruncatedDeltaNamesTheFile) {
  auto p = NewProvider();
  CommitVersions(p.get(), 3, false);
  std::string path = FilePath(2, GetParam().incremental);
  std::string original = fs_->ReadAll(path).ValueOr("");
  const std::vector<std::function<void(std::string*)>> damages = {
      [](std::string* b) { (*b)[b->size() - 1] ^= 0x20; },  // flipped payload bit
      [](std::string* b) { b->resize(b->size() - 3); },     // torn write
      [](std::string* b) { b->resize(10); },                // torn header
      [](std::string* b) { b->clear(); },                   // empty file
      [](std::string* b) { (*b)[0] = 'X'; },                // not a state file
  };
  for (size_t d = 0; d < damages.size(); ++d) {
    ASSERT_TRUE(fs_->WriteAtomic(path, original).ok());
    Rewrite(*fs_, path, damages[d]);
    auto s = NewProvider()->GetStore(3);
    ASSERT_ERROR_HAS(s, path) << "damage " << d;
    EXPECT_EQ(s.status().error_class().rfind("CANNOT_LOAD_STATE_STORE", 0), 0u)
        << s.status().ToString();
  }
}

TEST_P(StateStoreTest, EveryFlippedBitOfADeltaIsDetected) {
  auto p = NewProvider();
  CommitVersions(p.get(), 2, false);
  std::string path = FilePath(2, GetParam().incremental);
  std::string original = fs_->ReadAll(path).ValueOr("");
  auto reader = NewProvider();
  // Every header byte, and payload bytes at a stride (each load opens a RocksDB).
  for (size_t i = 0; i < original.size(); i += i < 40 ? 1 : 5) {
    std::string bad = original;
    bad[i] ^= static_cast<char>(1 << (i % 8));
    ASSERT_TRUE(fs_->WriteAtomic(path, bad).ok());
    auto s = reader->GetStore(2);
    ASSERT_ERROR_HAS(s, path) << "byte " << i;
  }
  ASSERT_TRUE(fs_->WriteAtomic(path, original).ok());
  EXPECT_TRUE(reader->GetStore(2).ok());
}

TEST_P(StateStoreTest, CorruptSnapshotNamesTheFile) {
  auto p = NewProvider();
  CommitVersions(p.get(), 4, true);
  std::string path = FilePath(3, GetParam().base);
  ASSERT_TRUE(Exists(path));
  Rewrite(*fs_, path, [](std::string* b) { (*b)[b->size() / 2] ^= 1; });
  auto s = NewProvider()->GetStore(4);
  ASSERT_ERROR_HAS(s, path);
  EXPECT_EQ(s.status().error_class().rfind("CANNOT_LOAD_STATE_STORE", 0), 0u);
}

/// A MemoryFileSystem whose WriteAtomic fails while `fail` is set.
class FailingWrites final : public io::FileSystem {
 public:
  bool fail = false;
  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(
      const std::string& p) override {
    return base_.OpenForRead(p);
  }
  Result<std::unique_ptr<io::WritableFile>> Create(const std::string& p) override {
    return base_.Create(p);
  }
  Result<std::vector<io::FileInfo>> List(const std::string& p, bool recursive) override {
    return base_.List(p, recursive);
  }
  Result<io::FileInfo> Stat(const std::string& p) override { return base_.Stat(p); }
  Result<bool> Exists(const std::string& p) override { return base_.Exists(p); }
  Status MakeDirs(const std::string& p) override { return base_.MakeDirs(p); }
  Status Rename(const std::string& a, const std::string& b) override {
    return base_.Rename(a, b);
  }
  Status Delete(const std::string& p, bool recursive) override {
    return base_.Delete(p, recursive);
  }
  Status WriteAtomic(const std::string& p, std::string_view data) override {
    if (fail) return Status::IOError("injected failure writing " + p);
    return base_.WriteAtomic(p, data);
  }
  Status PutIfAbsent(const std::string& p, std::string_view data) override {
    return base_.PutIfAbsent(p, data);
  }

 private:
  io::MemoryFileSystem base_;
};

TEST_P(StateStoreTest, FailedCommitAbortsAndKeepsTheLoadedVersion) {
  auto failing = std::make_shared<FailingWrites>();
  fs_ = failing;
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 2, false);
  StateStore* st = *p->GetStore(2);
  st->Put("lost", "x");
  st->Remove("k2");
  failing->fail = true;
  Status commit = st->Commit();
  EXPECT_EQ(commit.error_class(), "CANNOT_WRITE_STATE_STORE.CANNOT_COMMIT");
  EXPECT_NE(commit.message().find("injected failure"), std::string::npos);
  failing->fail = false;
  EXPECT_EQ(Contents(*p->GetStore(2)), states[2]);
  EXPECT_ERROR_CLASS(
      NewProvider()->GetStore(3),
      "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");  // version 3 was
                                                                     // never written
  st = *p->GetStore(2);
  st->Put("kept", "y");
  ASSERT_TRUE(st->Commit().ok());
  KV expect = states[2];
  expect["kept"] = "y";
  EXPECT_EQ(Contents(*NewProvider()->GetStore(3)), expect);
}

// DoMaintenance on a background thread while batches run on this one: it waits for no
// batch (GetStore waits for it) and snapshots only when no store is open.
TEST_P(StateStoreTest, MaintenanceOnAnotherThread) {
  conf_.min_deltas_for_snapshot = 2;
  conf_.min_versions_to_retain = 3;
  auto p = NewProvider();
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  std::thread maintenance([&] {
    while (!stop) {
      EXPECT_TRUE(p->DoMaintenance().ok());
      ++runs;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  while (runs == 0) std::this_thread::yield();
  auto states = CommitVersions(p.get(), 30, false);
  stop = true;
  maintenance.join();
  for (int v = 28; v <= 30; ++v) {
    EXPECT_EQ(Contents(*NewProvider()->GetStore(v)), states[v]);
  }
  // Whether the background runs found a moment without an open store depends on timing;
  // a few quiet batches then snapshot and purge.
  for (int64_t v = 30; v < 34; ++v) {
    StateStore* st = *p->GetStore(v);
    st->Put("quiet", std::to_string(v));
    ASSERT_TRUE(st->Commit().ok());
    ASSERT_TRUE(p->DoMaintenance().ok());
  }
  EXPECT_FALSE(Exists(FilePath(1, GetParam().incremental)));  // purged
  EXPECT_EQ((*NewProvider()->GetStore(34))->metrics().num_keys,
            static_cast<int64_t>(states[30].size()) + 1);
}

TEST_P(StateStoreTest, NegativeVersionIsAnError) {
  auto s = NewProvider()->GetStore(-1);
  ASSERT_ERROR_CLASS(s, "CANNOT_LOAD_STATE_STORE.UNEXPECTED_VERSION");
}

TEST_P(StateStoreTest, CommitTwiceIsOutOfOrder) {
  auto p = NewProvider();
  StateStore* st = *p->GetStore(0);
  ASSERT_TRUE(st->Commit().ok());
  Status again = st->Commit();
  EXPECT_EQ(again.error_class(), "STATE_STORE_OPERATION_OUT_OF_ORDER");
}

TEST_P(StateStoreTest, StoreNameAndPartitionsAreSeparateFolders) {
  auto p = NewProvider();
  StateStore* st = *p->GetStore(0);
  st->Put("a", "partition 3");
  ASSERT_TRUE(st->Commit().ok());
  StateStoreId other = id_;
  other.store_name = "left-keyToNumValues";
  auto q = std::move(CreateStateStoreProvider(other, conf_, fs_)).value();
  st = *q->GetStore(0);
  st->Put("a", "named store");
  ASSERT_TRUE(st->Commit().ok());
  EXPECT_EQ(other.Path(), "/chk/state/1/3/left-keyToNumValues");
  EXPECT_EQ((*NewProvider()->GetStore(1))->Get("a").value(), "partition 3");
}

TEST_P(StateStoreTest, RestartOnLocalFilesWithoutTheWorkingFolder) {
  namespace fsys = std::filesystem;
  std::string dir = FreshTempDir("restart");
  id_.root = dir + "/state";
  auto local = io::LocalFileSystem::Get();
  std::vector<KV> states;
  {
    auto p = std::move(CreateStateStoreProvider(id_, conf_, local)).value();
    states = CommitVersions(p.get(), 8, true);
    // No Close(): as after kill -9, only the checkpoint files are left to load from.
  }
  auto restarted = std::move(CreateStateStoreProvider(id_, conf_, local)).value();
  for (int v : {8, 5, 7}) {
    auto s = restarted->GetStore(v);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(Contents(*s), states[v]);
  }
  restarted->Close();
  fsys::remove_all(dir);
}

// Kills a committing child process with SIGKILL at random instants; after each kill the
// last version it reported (and the next one, when its commit had landed) must load with
// exactly the expected contents, and the next child replays from the reported version.
TEST_P(StateStoreTest, KilledWhileCommittingLosesNothing) {
  namespace fsys = std::filesystem;
  std::string root = FreshTempDir("crash");
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  ASSERT_GT(n, 0);
  exe[n] = '\0';
  std::mt19937 rng(7);
  int64_t reported = 0;
  int kills = 0, beyond = 0;
  for (int round = 0; round < 6; ++round) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
    env_strings.push_back("SPATE_STATE_CRASH_CHILD=" + GetParam().provider);
    env_strings.push_back("SPATE_STATE_CRASH_ROOT=" + root);
    env_strings.push_back("SPATE_STATE_CRASH_START=" + std::to_string(reported));
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string filter = "--gtest_filter=NONE";
    char* argv[] = {exe, filter.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, exe, &actions, nullptr, argv, envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    // Kill at a random instant after the child's first commit (slow builds start slowly).
    std::string progress;
    char buf[4096];
    pollfd pfd{out[0], POLLIN, 0};
    while (progress.find('\n') == std::string::npos && poll(&pfd, 1, 20000) > 0) {
      ssize_t got = read(out[0], buf, sizeof(buf));
      if (got <= 0) break;
      progress.append(buf, got);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    ++kills;
    for (ssize_t got; (got = read(out[0], buf, sizeof(buf))) > 0;)
      progress.append(buf, got);
    close(out[0]);
    size_t end = progress.rfind('\n');
    if (end != std::string::npos) {
      size_t begin = progress.rfind('\n', end - 1);
      begin = begin == std::string::npos ? 0 : begin + 1;
      reported = ParseInt64(progress.substr(begin, end - begin)).value();
    }
    auto fresh =
        std::move(CreateStateStoreProvider(CrashId(root), CrashConf(GetParam().provider),
                                           io::LocalFileSystem::Get()))
            .value();
    auto s = fresh->GetStore(reported);
    ASSERT_TRUE(s.ok()) << "version " << reported << ": " << s.status().ToString();
    EXPECT_EQ(Contents(*s), ExpectedState(reported)) << "version " << reported;
    // A commit that landed before the kill but was not reported is whole, or absent.
    auto next = fresh->GetStore(reported + 1);
    if (next.ok()) {
      ++beyond;
      EXPECT_EQ(Contents(*next), ExpectedState(reported + 1));
    } else {
      EXPECT_EQ(next.status().error_class(),
                "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
    }
    fresh->Close();
  }
  EXPECT_GE(reported, 6) << "the children committed too few versions";
  std::printf("%d kills, %lld versions committed, %d kills after an unreported commit\n",
              kills, static_cast<long long>(reported), beyond);
  fsys::remove_all(root);
}

TEST_P(StateStoreTest, Metrics) {
  auto p = NewProvider();
  StateStore* st = *p->GetStore(0);
  for (int i = 0; i < 100; ++i) st->Put("key" + std::to_string(i), std::string(20, 'v'));
  for (int i = 0; i < 10; ++i) st->Remove("key" + std::to_string(i));
  StateStoreMetrics m = st->metrics();
  EXPECT_EQ(m.num_keys, 90);
  ASSERT_TRUE(st->Commit().ok());
  m = (*p->GetStore(1))->metrics();
  EXPECT_EQ(m.num_keys, 90);
  if (GetParam().provider == "rocksdb") {
    EXPECT_TRUE(m.custom.count("rocksdbGetLatency"));
    EXPECT_TRUE(m.custom.count("rocksdbPutLatency"));
    EXPECT_TRUE(m.custom.count("rocksdbCommitWriteBatchLatency"));
    EXPECT_EQ(m.custom["rocksdbPutCount"], 100);
  } else {
    EXPECT_EQ(m.custom["loadedMapCacheHitCount"], 1);
    EXPECT_GE(m.memory_used_bytes, 90 * 25);
  }
}

TEST_P(StateStoreTest, BoundedMemoryAndCodecOptions) {
  conf_.extra["boundedMemoryUsage"] = "true";
  conf_.extra["maxMemoryUsageMB"] = "64";
  for (std::string codec : {"zstd", "none", "lz4"}) {
    conf_.compression_codec = codec;
    id_.partition = static_cast<int>(codec.size());
    auto p = NewProvider();
    auto states = CommitVersions(p.get(), 4, true);
    EXPECT_EQ(Contents(*NewProvider()->GetStore(4)), states[4]) << codec;
  }
  conf_.compression_codec = "snappy-ish";
  EXPECT_ERROR_HAS(CreateStateStoreProvider(id_, conf_, fs_),
                   "unsupported state store compression codec 'snappy-ish'");
}

// Settings of the RocksDB provider only.
class RocksDbStateStoreTest : public StateStoreTest {};

TEST_P(RocksDbStateStoreTest, WithoutChangelogCheckpointing) {
  conf_.extra["changelogCheckpointing.enabled"] = "false";
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 3, false);
  for (int v = 1; v <= 3; ++v) EXPECT_TRUE(Exists(FilePath(v, GetParam().base))) << v;
  for (int v = 1; v <= 2; ++v)
    ASSERT_TRUE(fs_->Delete(FilePath(v, GetParam().base)).ok());
  ASSERT_TRUE(fs_->Delete(FilePath(3, GetParam().incremental)).ok());
  EXPECT_EQ(Contents(*NewProvider()->GetStore(3)), states[3]);
}

std::vector<std::string> SstFiles(io::FileSystem& fs, const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& f : fs.List(dir + "/SSTs", false).ValueOr({})) {
    if (f.path.size() > 4 && f.path.substr(f.path.size() - 4) == ".sst")
      out.push_back(f.path);
  }
  return out;
}

TEST_P(RocksDbStateStoreTest, CheckpointsShareSstFilesAndPurgeThem) {
  conf_.min_deltas_for_snapshot = 1;
  conf_.min_versions_to_retain = 2;
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 3, true);
  StateStoreMetrics m = (*p->GetStore(3))->metrics();
  EXPECT_GE(m.custom["rocksdbFilesReused"], 1);  // the SSTs of version 1 and 2
  EXPECT_EQ(m.custom["rocksdbFilesCopied"], 1);  // the flush of version 3
  states = CommitVersions(p.get(), 20, true);
  // Only what the retained checkpoints refer to is left: exactly their SSTs (how many
  // that is depends on how far RocksDB's background compaction got, so it is not fixed).
  std::set<std::string> referenced, left;
  int retained = 0;
  for (const auto& f : fs_->List(id_.Path(), false).ValueOr({})) {
    if (f.path.size() < 11 || f.path.substr(f.path.size() - 11) != ".checkpoint")
      continue;
    ++retained;
    auto file = ReadStateFile(*fs_, f.path, StateFileKind::kCheckpoint, "test");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE(ForEachRecord(file->records, StateFileKind::kCheckpoint, f.path, "test",
                              [&](RecordOp, std::string_view k, std::string_view v) {
                                if (k.rfind("sst:", 0) == 0)
                                  referenced.insert(
                                      std::string(v.substr(v.rfind(' ') + 1)));
                              })
                    .ok());
  }
  for (const auto& path : SstFiles(*fs_, id_.Path())) left.insert(io::BaseName(path));
  EXPECT_EQ(retained, 2);  // versions 19 and 20
  EXPECT_FALSE(left.empty());
  EXPECT_EQ(left, referenced);
  for (int v = 1; v < 20; ++v) (void)fs_->Delete(FilePath(v, "changelog"));
  EXPECT_EQ(Contents(*NewProvider()->GetStore(20)), states[20]);
  EXPECT_EQ(Contents(*NewProvider()->GetStore(19)), states[19]);
}

TEST_P(RocksDbStateStoreTest, DamagedSharedSstNamesTheFile) {
  conf_.min_deltas_for_snapshot = 2;
  auto p = NewProvider();
  CommitVersions(p.get(), 2, true);
  auto ssts = SstFiles(*fs_, id_.Path());
  ASSERT_FALSE(ssts.empty());
  const std::string& sst = ssts[0];
  std::string original = fs_->ReadAll(sst).ValueOr("");
  auto load = [&] { return NewProvider()->GetStore(2).status(); };
  std::string flipped = original;
  flipped[flipped.size() / 2] ^= 4;
  ASSERT_TRUE(fs_->WriteAtomic(sst, flipped).ok());
  Status st = load();
  EXPECT_EQ(st.error_class(), "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED");
  EXPECT_NE(st.message().find(sst), std::string::npos) << st.ToString();
  ASSERT_TRUE(fs_->WriteAtomic(sst, original.substr(0, original.size() - 1)).ok());
  st = load();
  EXPECT_EQ(st.error_class(), "CANNOT_LOAD_STATE_STORE.UNEXPECTED_FILE_SIZE");
  EXPECT_NE(st.message().find(sst), std::string::npos) << st.ToString();
  ASSERT_TRUE(fs_->Delete(sst).ok());
  st = load();
  EXPECT_EQ(st.error_class(),
            "CANNOT_LOAD_STATE_STORE.CANNOT_READ_MISSING_SNAPSHOT_FILE");
  EXPECT_NE(st.message().find(sst), std::string::npos) << st.ToString();
  ASSERT_TRUE(fs_->WriteAtomic(sst, original).ok());
  EXPECT_TRUE(load().ok());
}

TEST_P(RocksDbStateStoreTest, MalformedSettingsAreErrors) {
  for (auto [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"blockCacheSizeMB", "lots"},
                                                        {"writeBufferSizeMB", "0"},
                                                        {"writeBufferCacheRatio", "2"}}) {
    StateStoreConf conf = conf_;
    conf.extra[name] = value;
    auto p = CreateStateStoreProvider(id_, conf, fs_);
    ASSERT_ERROR_HAS(p, name) << name;
  }
}

TEST_P(RocksDbStateStoreTest, RemovesWorkingFoldersOfDeadProcesses) {
  namespace fsys = std::filesystem;
  std::string base = FreshTempDir("work");
  fsys::create_directories(base + "/spate-rocksdb-999999999-abcdef/db");
  conf_.extra["localDir"] = base;
  auto p = NewProvider();
  EXPECT_FALSE(fsys::exists(base + "/spate-rocksdb-999999999-abcdef"));
  size_t mine = 0;
  for (const auto& e : fsys::directory_iterator(base)) {
    mine += e.path().filename().string().rfind(
                "spate-rocksdb-" + std::to_string(getpid()) + "-", 0) == 0;
  }
  EXPECT_EQ(mine, 1u);
  p->Close();
  EXPECT_TRUE(fsys::is_empty(base));
  fsys::remove_all(base);
}

TEST_P(RocksDbStateStoreTest, CreatesAMissingLocalDir) {
  // spark.sql.streaming.stateStore.rocksdb.localDir need not exist yet.
  namespace fsys = std::filesystem;
  std::string top = (fsys::temp_directory_path() /
                     ("spate-state-test-missing-" + std::to_string(getpid())))
                        .string();
  fsys::remove_all(top);
  conf_.extra["localDir"] = top + "/a/b";
  auto p = NewProvider();
  auto states = CommitVersions(p.get(), 2, false);
  auto store = p->GetStore(2);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(Contents(*store), states[2]);
  (*store)->Abort();
  EXPECT_FALSE(fsys::is_empty(top + "/a/b"));
  p->Close();
  EXPECT_TRUE(fsys::is_empty(top + "/a/b"));
  fsys::remove_all(top);
}

INSTANTIATE_TEST_SUITE_P(Providers, StateStoreTest,
                         ::testing::Values(ProviderCase{"memory", "delta", "snapshot"},
                                           ProviderCase{"rocksdb", "changelog",
                                                        "checkpoint"}),
                         [](const auto& info) { return info.param.provider; });
INSTANTIATE_TEST_SUITE_P(Providers, RocksDbStateStoreTest,
                         ::testing::Values(ProviderCase{"rocksdb", "changelog",
                                                        "checkpoint"}),
                         [](const auto& info) { return info.param.provider; });

TEST(StateStoreConfTest, ProviderClassNames) {
  EXPECT_EQ(
      *ParseProviderClass(
          "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"),
      "memory");
  EXPECT_EQ(
      *ParseProviderClass(
          "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"),
      "rocksdb");
  EXPECT_EQ(
      *ParseProviderClass("com.databricks.sql.streaming.state.RocksDBStateStoreProvider"),
      "rocksdb");
  EXPECT_EQ(*ParseProviderClass("RocksDB"), "rocksdb");
  EXPECT_EQ(*ParseProviderClass("memory"), "memory");
  auto bad = ParseProviderClass("com.example.MyProvider");
  ASSERT_ERROR_CLASS(bad, "STATE_STORE_INVALID_PROVIDER");
  EXPECT_NE(bad.status().message().find("com.example.MyProvider"), std::string::npos);
}

TEST(StateStoreConfTest, FromConf) {
  std::map<std::string, std::string> set;
  auto get = [&](const std::string& k, const std::string& d) {
    auto it = set.find(k);
    return it == set.end() ? d : it->second;
  };
  auto c = StateStoreConf::FromConf(get);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->provider, "memory");
  EXPECT_EQ(c->min_deltas_for_snapshot, 10);
  EXPECT_EQ(c->min_versions_to_retain, 100);
  EXPECT_EQ(c->compression_codec, "lz4");
  EXPECT_TRUE(c->extra.empty());
  set["spark.sql.streaming.stateStore.providerClass"] =
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";
  set["spark.sql.streaming.stateStore.minDeltasForSnapshot"] = "5";
  set["spark.sql.streaming.minBatchesToRetain"] = "7";
  set["spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage"] = "true";
  set["spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"] = "true";
  set["spark.sql.streaming.stateStore.rocksdb.localDir"] = "/work/rocks";
  c = StateStoreConf::FromConf(get);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->provider, "rocksdb");
  EXPECT_EQ(c->min_deltas_for_snapshot, 5);
  EXPECT_EQ(c->min_versions_to_retain, 7);
  EXPECT_EQ(c->extra["boundedMemoryUsage"], "true");
  EXPECT_EQ(c->extra["changelogCheckpointing.enabled"], "true");
  EXPECT_EQ(c->extra["localDir"], "/work/rocks");
  set["spark.sql.streaming.minBatchesToRetain"] = "many";
  EXPECT_ERROR_HAS(StateStoreConf::FromConf(get),
                   "spark.sql.streaming.minBatchesToRetain");
}

TEST(StateSchemaTest, WrittenOnceThenChecked) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  Schema key({{"user", DataType::String()},
              {"window", DataType::Struct({{"start", DataType::Timestamp()},
                                           {"end", DataType::Timestamp()}})}});
  Schema value({{"count", DataType::Long(), false}, {"sum", DataType::Double()}});
  ASSERT_TRUE(CheckOrWriteStateSchema(*fs, "/chk/state", 0, key, value).ok());
  auto text = fs->ReadAll("/chk/state/0/_metadata/schema");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"keySchema\""), std::string::npos);
  EXPECT_NE(text->find("timestamp"), std::string::npos);
  // Same types under other names: compatible, as Spark.
  Schema renamed({{"u", DataType::String()},
                  {"w", DataType::Struct({{"s", DataType::Timestamp()},
                                          {"e", DataType::Timestamp()}})}});
  EXPECT_TRUE(CheckOrWriteStateSchema(*fs, "/chk/state", 0, renamed, value).ok());
  // Another operator has its own file.
  EXPECT_TRUE(CheckOrWriteStateSchema(*fs, "/chk/state", 1, value, key).ok());

  Schema other_key({{"user", DataType::Long()}, key.field(1)});
  Status st = CheckOrWriteStateSchema(*fs, "/chk/state", 0, other_key, value);
  EXPECT_EQ(st.error_class(), "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE");
  EXPECT_NE(
      st.message().find("Provided key schema does not match existing state key schema"),
      std::string::npos);
  EXPECT_NE(st.message().find("bigint"), std::string::npos) << st.message();
  Schema fewer_keys({key.field(0)});
  EXPECT_EQ(
      CheckOrWriteStateSchema(*fs, "/chk/state", 0, fewer_keys, value).error_class(),
      "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE");

  Schema more_values({value.field(0), value.field(1), {"avg", DataType::Double()}});
  st = CheckOrWriteStateSchema(*fs, "/chk/state", 0, key, more_values);
  EXPECT_EQ(st.error_class(), "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE");
  EXPECT_NE(st.message().find(
                "Provided value schema does not match existing state value schema"),
            std::string::npos);
  // Nullability: a value stored as NOT NULL may not become nullable.
  Schema nullable_count({{"count", DataType::Long(), true}, value.field(1)});
  EXPECT_EQ(
      CheckOrWriteStateSchema(*fs, "/chk/state", 0, key, nullable_count).error_class(),
      "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE");
  // ... while a nullable one may be declared NOT NULL.
  Schema strict_sum({value.field(0), {"sum", DataType::Double(), false}});
  EXPECT_TRUE(CheckOrWriteStateSchema(*fs, "/chk/state", 0, key, strict_sum).ok());

  ASSERT_TRUE(fs->WriteAtomic("/chk/state/0/_metadata/schema", "{not json").ok());
  st = CheckOrWriteStateSchema(*fs, "/chk/state", 0, key, value);
  EXPECT_EQ(st.error_class().rfind("CANNOT_LOAD_STATE_STORE", 0), 0u);
  EXPECT_NE(st.message().find("/chk/state/0/_metadata/schema"), std::string::npos);
}

}  // namespace
}  // namespace spate::state
