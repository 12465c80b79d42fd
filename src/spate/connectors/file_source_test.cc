// Copyright spate authors.
// The file stream source on its own: which files each offset names (the source log),
// its options, and its behaviour when another process writes the same checkpoint. The
// batch reader is replaced by one that records the files it is given.

#include "spate/connectors/file_source.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <functional>
#include <map>
#include <set>

#include "spate/base/clock.h"
#include "spate/io/file_system.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/status_matchers.h"

namespace spate::connectors {
namespace {

/// Forwards to another FileSystem and calls `after_list(path)` after each List.
class ListHookFileSystem final : public io::ForwardingFileSystem {
 public:
  ListHookFileSystem(io::FileSystemPtr inner,
                     std::function<void(const std::string&)> hook)
      : ForwardingFileSystem(std::move(inner)), after_list_(std::move(hook)) {}
  Result<std::vector<io::FileInfo>> List(const std::string& path,
                                         bool recursive) override {
    auto r = inner_->List(path, recursive);
    after_list_(path);
    return r;
  }

 private:
  std::function<void(const std::string&)> after_list_;
};

constexpr const char* kIn = "/in";
constexpr const char* kLog = "/chk/sources/0";

/// A source over kIn (logging to kLog) whose reader records the files of each batch.
class FileSourceTest : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = std::make_shared<io::MemoryFileSystem>(); }

  /// Lands `name` under kIn; MemoryFileSystem stamps files 1, 2, 3, ... ms in order.
  void Land(const std::string& name, const std::string& text = "{}\n") {
    ASSERT_TRUE(fs_->MakeDirs(io::ParentPath(io::JoinPath(kIn, name))).ok());
    ASSERT_TRUE(fs_->WriteAtomic(io::JoinPath(kIn, name), text).ok());
  }

  Result<stream::SourcePtr> Make(std::map<std::string, std::string> options,
                                 const io::FileSystemPtr& fs = nullptr) {
    FileSourceOptions o;
    o.format = "json";
    o.path = in_;
    o.schema =
        std::make_shared<const Schema>(std::vector<Field>{Field{"id", DataType::Long()}});
    o.options = std::move(options);
    o.reader = [this](const std::vector<std::string>& files,
                      const SchemaPtr& schema) -> Result<DataSourcePtr> {
      read_ = files;
      return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
          schema, std::vector<BatchPtr>{}, "recorded"));
    };
    SPATE_ASSIGN_OR_RETURN(auto factory, MakeFileSourceFactory(std::move(o)));
    stream::SourceContext ctx;
    ctx.fs = fs ? fs : source_fs_ ? source_fs_ : fs_;
    ctx.metadata_path = log_;
    ctx.clock = SystemClock::Get();
    ctx.conf = [](const std::string&, const std::string& dflt) { return dflt; };
    return factory(ctx);
  }

  /// The names of the files batch (start, end] reads, in order.
  std::vector<std::string> Files(stream::Source& s, const std::optional<Json>& start,
                                 const Json& end) {
    read_.clear();
    auto ds = s.GetBatch(start, end);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    std::vector<std::string> names;
    for (const auto& f : read_) names.push_back(io::BaseName(f));
    return names;
  }

  /// Plans the next batch after `start` and returns the files it reads.
  std::vector<std::string> Next(stream::Source& s, std::optional<Json>* start) {
    auto end = s.LatestOffset(*start);
    EXPECT_TRUE(end.ok()) << end.status().ToString();
    if (!end.ok() || !*end || (*start && **end == **start)) return {};
    auto files = Files(s, *start, **end);
    *start = *end;
    return files;
  }

  /// Every path the source log names, with how many entries name it.
  std::map<std::string, int> LoggedPaths() {
    stream::CompactibleLog log(fs_, kLog, 10);
    auto entries = log.AllEntries();
    EXPECT_TRUE(entries.ok());
    std::map<std::string, int> paths;
    for (const auto& e : *entries) paths[e.Find("path")->string_value()]++;
    return paths;
  }

  static Json LogOffset(int64_t n) {
    Json v = Json::Object();
    v.Set("logOffset", Json::Int(n));
    return v;
  }

  /// A source log entry as another process writes it.
  static std::string Entry(const std::string& name, int64_t batch_id) {
    return "v1\n{\"path\":\"file://" + io::JoinPath(kIn, name) +
           "\",\"timestamp\":1,\"batchId\":" + std::to_string(batch_id) + "}";
  }

  std::shared_ptr<io::MemoryFileSystem> fs_;
  io::FileSystemPtr source_fs_;  // the source's files when not fs_
  std::string in_ = kIn, log_ = kLog;
  std::vector<std::string> read_;
};

// Issue 11's race: the source read its log's entries and, in a second listing, its latest
// offset. An entry another process added in between was counted but its files were not
// seen, so this source named them again in the next entry and a batch read them twice.
// Now one listing decides both, and the slower process loses the put-if-absent instead.
TEST_F(FileSourceTest, LogWrittenByAnotherProcessDuringStartIsNotTakenAgain) {
  Land("f0.json");
  Land("f1.json");
  bool injected = false;
  auto hooked = std::make_shared<ListHookFileSystem>(fs_, [&](const std::string& path) {
    if (injected || path != kLog) return;
    injected = true;  // the other process takes f0 right after this listing
    ASSERT_TRUE(fs_->MakeDirs(kLog).ok());
    ASSERT_TRUE(fs_->PutIfAbsent(io::JoinPath(kLog, "0"), Entry("f0.json", 0)).ok());
  });
  auto src = Make({{"maxFilesPerTrigger", "1"}}, hooked);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  ASSERT_TRUE(injected);
  auto end = (*src)->LatestOffset(std::nullopt);
  ASSERT_ERROR_CLASS(end, "CONCURRENT_STREAM_LOG_UPDATE")
      << "took a file another process had taken";
  for (const auto& [path, n] : LoggedPaths()) EXPECT_EQ(n, 1) << path;
}

// The query resumes after an offset another process logged after this source read its
// log (here: that process also deleted the file with cleanSource): the source catches up
// instead of returning an offset behind the start, which would make the next batch read
// the other process's entry again.
TEST_F(FileSourceTest, CatchesUpWithEntriesLoggedAfterItsStart) {
  Land("f0.json");
  ASSERT_TRUE(fs_->MakeDirs(kLog).ok());
  ASSERT_TRUE(fs_->PutIfAbsent(io::JoinPath(kLog, "0"), Entry("f0.json", 0)).ok());
  auto src = Make({});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  Land("f1.json");
  ASSERT_TRUE(fs_->PutIfAbsent(io::JoinPath(kLog, "1"), Entry("f1.json", 1)).ok());
  ASSERT_TRUE(fs_->Delete(io::JoinPath(kIn, "f1.json"), false).ok());
  auto end = (*src)->LatestOffset(LogOffset(1));
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  ASSERT_TRUE(end->has_value());
  EXPECT_EQ((*end)->ToString(), LogOffset(1).ToString()) << "no new data after offset 1";
  Land("f2.json");
  std::optional<Json> start = LogOffset(1);
  EXPECT_EQ(Next(**src, &start), std::vector<std::string>{"f2.json"});
  EXPECT_EQ(start->ToString(), LogOffset(2).ToString());
}

// Spark's unreadFiles (FileStreamSourceSuite "SPARK-20615"-style counts): with
// maxFilesPerTrigger the files one listing found feed the next triggers; the folder is
// listed again only when fewer than 20% of a trigger's files are left.
TEST_F(FileSourceTest, ListsTheFolderOnceForManyRateLimitedTriggers) {
  for (int i = 0; i <= 40; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "f%02d.json", i);
    Land(name);
  }
  int listings = 0;
  auto hooked = std::make_shared<ListHookFileSystem>(fs_, [&](const std::string& path) {
    if (path == kIn) ++listings;
  });
  auto src = Make({{"maxFilesPerTrigger", "10"}}, hooked);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  std::optional<Json> start;
  std::vector<std::string> all;
  for (int b = 0; b < 4; ++b) {
    auto files = Next(**src, &start);
    EXPECT_EQ(files.size(), 10u) << b;
    all.insert(all.end(), files.begin(), files.end());
  }
  EXPECT_EQ(listings, 1);
  // One file was left: under the threshold (2), dropped; the next trigger lists.
  Land("g0.json");
  auto files = Next(**src, &start);
  EXPECT_EQ(listings, 2);
  EXPECT_EQ(files, (std::vector<std::string>{"f40.json", "g0.json"}));
  all.insert(all.end(), files.begin(), files.end());
  EXPECT_TRUE(Next(**src, &start).empty());
  EXPECT_EQ(listings, 3);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 42u);
  for (const auto& [path, n] : LoggedPaths()) EXPECT_EQ(n, 1) << path;

  // A restart (after the log's compaction at batch 9 would apply; here batch 4) reads the
  // same files for the logged batches from the log, and nothing is taken twice.
  auto again = Make({{"maxFilesPerTrigger", "10"}}, hooked);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Files(**again, LogOffset(0), LogOffset(1)).size(), 10u);
  std::optional<Json> resume = LogOffset(4);
  EXPECT_TRUE(Next(**again, &resume).empty());
}

/// The options, on local files whose modification times the tests set.
class FileSourceOptionsTest : public FileSourceTest {
 protected:
  using Batches = std::vector<std::vector<std::string>>;

  void SetUp() override {
    FileSourceTest::SetUp();
    const char* tmp = std::getenv("TMPDIR");
    root_ =
        io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-fsrc-" + stream::RandomUuid());
    source_fs_ = io::LocalFileSystem::Get();
    in_ = io::JoinPath(root_, "in");
    NewCheckpoint();
  }
  void TearDown() override { (void)source_fs_->Delete(root_, true); }

  /// The next Make() starts from an empty checkpoint.
  void NewCheckpoint() {
    log_ = io::JoinPath(root_, "chk-" + std::to_string(checkpoints_++) + "/sources/0");
  }

  /// Lands `name` under in_ with `bytes` bytes, modified at `mtime_ms`.
  void LandAt(const std::string& name, int64_t mtime_ms, size_t bytes = 3) {
    std::string path = io::JoinPath(in_, name);
    ASSERT_TRUE(source_fs_->MakeDirs(io::ParentPath(path)).ok());
    ASSERT_TRUE(source_fs_->WriteAtomic(path, std::string(bytes - 1, ' ') + "\n").ok());
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = mtime_ms / 1000;
    times[0].tv_nsec = times[1].tv_nsec = (mtime_ms % 1000) * 1000000;
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }

  /// The batches planned one after another until there is no new data.
  Batches Drain(stream::Source& s, std::optional<Json>* start) {
    Batches out;
    for (int i = 0; i < 20; ++i) {
      auto files = Next(s, start);
      if (files.empty()) break;
      out.push_back(files);
    }
    return out;
  }
  Batches Drain(stream::Source& s) {
    std::optional<Json> start;
    return Drain(s, &start);
  }

  std::string root_;
  int checkpoints_ = 0;
};

// latestFirst: newest files first (Spark: for a backlog where the latest data matters
// most); default: oldest first. With maxFilesPerTrigger, maxFileAge is ignored (as
// Spark), so the old files still come.
TEST_F(FileSourceOptionsTest, LatestFirst) {
  LandAt("a.json", 1000000);
  LandAt("c.json", 3000000);
  LandAt("b.json", 2000000);
  auto latest =
      Make({{"latestFirst", "true"}, {"maxFilesPerTrigger", "1"}, {"maxFileAge", "1ms"}});
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(Drain(**latest), (Batches{{"c.json"}, {"b.json"}, {"a.json"}}));
  NewCheckpoint();
  auto oldest = Make({{"maxFilesPerTrigger", "2"}});
  ASSERT_TRUE(oldest.ok());
  EXPECT_EQ(Drain(**oldest), (Batches{{"a.json", "b.json"}, {"c.json"}}));
}

// maxBytesPerTrigger: files are taken (oldest first) while their total stays within the
// limit; a batch always takes at least one file, however large. With maxFilesPerTrigger
// too, whichever limit comes first ends the batch.
TEST_F(FileSourceOptionsTest, MaxBytesPerTrigger) {
  LandAt("a.json", 1000000, 10);
  LandAt("b.json", 2000000, 10);
  LandAt("c.json", 3000000, 30);
  LandAt("d.json", 4000000, 5);
  auto src = Make({{"maxBytesPerTrigger", "20"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(Drain(**src), (Batches{{"a.json", "b.json"}, {"c.json"}, {"d.json"}}));
  NewCheckpoint();
  auto both = Make({{"maxBytesPerTrigger", "100"}, {"maxFilesPerTrigger", "3"}});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(Drain(**both), (Batches{{"a.json", "b.json", "c.json"}, {"d.json"}}));
  EXPECT_ERROR_HAS(
      Make({{"maxBytesPerTrigger", "0"}}),
      "Invalid value '0' for option 'maxBytesPerTrigger', must be a positive integer");
  EXPECT_ERROR_HAS(Make({{"maxBytesPerTrigger", "10k"}}),
                   "Invalid value '10k' for option 'maxBytesPerTrigger'");
}

// maxFileAge is measured from the newest file seen, not from now: the first batch takes
// everything; afterwards a file older than (newest seen - maxFileAge) is ignored.
TEST_F(FileSourceOptionsTest, MaxFileAgeFromTheNewestFileSeen) {
  LandAt("a.json", 1000000);
  LandAt("b.json", 10000000);
  auto src = Make({{"maxFileAge", "5s"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  std::optional<Json> start;
  EXPECT_EQ(Drain(**src, &start), (Batches{{"a.json", "b.json"}}));
  LandAt("old.json", 9994000);    // 6 s older than b.json: ignored
  LandAt("young.json", 9996000);  // 4 s older: taken
  EXPECT_EQ(Drain(**src, &start), (Batches{{"young.json"}}));
  NewCheckpoint();
  auto ms = Make({{"maxFileAge", "100"}});  // a bare number is milliseconds
  ASSERT_TRUE(ms.ok());
  start.reset();
  EXPECT_EQ(Drain(**ms, &start),
            (Batches{{"a.json", "old.json", "young.json", "b.json"}}));
  LandAt("late.json", 9999000);  // 1 s older than the newest: beyond 100 ms
  EXPECT_EQ(Drain(**ms, &start), Batches{});
}

// fileNameOnly: a file is "seen" by its name alone, so the same name in another folder
// is not new; by default the full path decides.
TEST_F(FileSourceOptionsTest, FileNameOnly) {
  LandAt("x/data.json", 1000000);
  auto by_name = Make({{"fileNameOnly", "true"}});
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  std::optional<Json> start;
  EXPECT_EQ(Drain(**by_name, &start), (Batches{{"data.json"}}));
  LandAt("y/data.json", 2000000);
  LandAt("y/other.json", 2000000);
  EXPECT_EQ(Drain(**by_name, &start), (Batches{{"other.json"}}));
  NewCheckpoint();
  auto by_path = Make({});
  ASSERT_TRUE(by_path.ok());
  EXPECT_EQ(Drain(**by_path), (Batches{{"data.json", "data.json", "other.json"}}));
}

// cleanSource=delete removes a batch's files when the batch is committed (Commit), never
// at planning or reading, so a replay after a crash still finds them.
TEST_F(FileSourceOptionsTest, CleanSourceDeleteAfterCommit) {
  LandAt("a.json", 1000000);
  LandAt("b.json", 2000000);
  auto src = Make({{"cleanSource", "delete"}, {"maxFilesPerTrigger", "1"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  std::optional<Json> start;
  EXPECT_EQ(Next(**src, &start), std::vector<std::string>{"a.json"});
  auto exists = [&](const std::string& name) {
    return *source_fs_->Exists(io::JoinPath(in_, name));
  };
  EXPECT_TRUE(exists("a.json")) << "deleted before the batch was committed";
  ASSERT_TRUE((*src)->Commit(*start).ok());
  EXPECT_FALSE(exists("a.json"));
  EXPECT_TRUE(exists("b.json"));
  auto end = (*src)->LatestOffset(start);  // plans b.json: still there until its commit
  ASSERT_TRUE(end.ok() && *end);
  EXPECT_EQ(Files(**src, start, **end), std::vector<std::string>{"b.json"});
  EXPECT_TRUE(exists("b.json"));
  ASSERT_TRUE((*src)->Commit(**end).ok());
  EXPECT_FALSE(exists("b.json"));
  EXPECT_ERROR_HAS(Make({{"cleanSource", "remove"}}),
                   "Invalid mode for clean source option remove");
  EXPECT_ERROR_HAS(Make({{"cleanSource", "archive"}}),
                   "Archive mode must be used with 'sourceArchiveDir' option")
      << "needs sourceArchiveDir";
}

}  // namespace
}  // namespace spate::connectors
