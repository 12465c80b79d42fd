// Copyright spate authors.
#include "spate/state/state_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace spate::state {
namespace {

using KV = std::map<std::string, std::string>;

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
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().error_class(),
            "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
}

TEST_P(StateStoreTest, MissingDeltaNamesTheFile) {
  auto p = NewProvider();
  CommitVersions(p.get(), 4, false);
  std::string path = FilePath(3, GetParam().incremental);
  ASSERT_TRUE(fs_->Delete(path).ok());
  auto s = NewProvider()->GetStore(4);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().error_class(),
            "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS");
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
  // A version that was never written is missing too, never empty state.
  auto never = NewProvider()->GetStore(9);
  ASSERT_FALSE(never.ok());
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
    ASSERT_FALSE(s.ok()) << "damage " << d;
    EXPECT_EQ(s.status().error_class().rfind("CANNOT_LOAD_STATE_STORE", 0), 0u)
        << s.status().ToString();
    EXPECT_NE(s.status().message().find(path), std::string::npos)
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
    ASSERT_FALSE(s.ok()) << "byte " << i;
    EXPECT_NE(s.status().message().find(path), std::string::npos)
        << s.status().ToString();
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
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().error_class().rfind("CANNOT_LOAD_STATE_STORE", 0), 0u);
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
}

TEST_P(StateStoreTest, NegativeVersionIsAnError) {
  auto s = NewProvider()->GetStore(-1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().error_class(), "CANNOT_LOAD_STATE_STORE.UNEXPECTED_VERSION");
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
  std::string dir =
      (fsys::temp_directory_path() /
       ("spate-state-test-" + std::to_string(getpid()) + "-" + GetParam().provider))
          .string();
  fsys::remove_all(dir);
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
  EXPECT_FALSE(CreateStateStoreProvider(id_, conf_, fs_).ok());
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

TEST_P(RocksDbStateStoreTest, RemovesWorkingFoldersOfDeadProcesses) {
  namespace fsys = std::filesystem;
  std::string base = (fsys::temp_directory_path() /
                      ("spate-state-test-work-" + std::to_string(getpid())))
                         .string();
  fsys::remove_all(base);
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
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().error_class(), "STATE_STORE_INVALID_PROVIDER");
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
  EXPECT_FALSE(StateStoreConf::FromConf(get).ok());
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
