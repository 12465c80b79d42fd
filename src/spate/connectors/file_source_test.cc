// Copyright spate authors.
// The file stream source on its own: which files each offset names (the source log),
// its options, and its behaviour when another process writes the same checkpoint. The
// batch reader is replaced by one that records the files it is given.

#include "spate/connectors/file_source.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <functional>
#include <map>
#include <set>

#include "spate/base/clock.h"
#include "spate/io/file_system.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint.h"

namespace spate::connectors {
namespace {

using stream::JsonValue;

/// Forwards to another FileSystem and calls `after_list(path)` after each List.
class ListHookFileSystem final : public io::FileSystem {
 public:
  ListHookFileSystem(io::FileSystemPtr inner,
                     std::function<void(const std::string&)> hook)
      : inner_(std::move(inner)), after_list_(std::move(hook)) {}
  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(
      const std::string& path) override {
    return inner_->OpenForRead(path);
  }
  Result<std::unique_ptr<io::WritableFile>> Create(const std::string& path) override {
    return inner_->Create(path);
  }
  Result<std::vector<io::FileInfo>> List(const std::string& path,
                                         bool recursive) override {
    auto r = inner_->List(path, recursive);
    after_list_(path);
    return r;
  }
  Result<io::FileInfo> Stat(const std::string& path) override {
    return inner_->Stat(path);
  }
  Result<bool> Exists(const std::string& path) override { return inner_->Exists(path); }
  Status MakeDirs(const std::string& path) override { return inner_->MakeDirs(path); }
  Status Rename(const std::string& from, const std::string& to) override {
    return inner_->Rename(from, to);
  }
  Status Delete(const std::string& path, bool recursive) override {
    return inner_->Delete(path, recursive);
  }
  Status WriteAtomic(const std::string& path, std::string_view data) override {
    return inner_->WriteAtomic(path, data);
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) override {
    return inner_->PutIfAbsent(path, data);
  }

 private:
  io::FileSystemPtr inner_;
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
                                 io::FileSystemPtr fs = nullptr) {
    FileSourceOptions o;
    o.format = "json";
    o.path = kIn;
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
    ctx.fs = fs ? fs : fs_;
    ctx.metadata_path = kLog;
    ctx.clock = SystemClock::Get();
    ctx.conf = [](const std::string&, const std::string& dflt) { return dflt; };
    return factory(ctx);
  }

  /// The names of the files batch (start, end] reads, in order.
  std::vector<std::string> Files(stream::Source& s, const std::optional<JsonValue>& start,
                                 const JsonValue& end) {
    read_.clear();
    auto ds = s.GetBatch(start, end);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    std::vector<std::string> names;
    for (const auto& f : read_) names.push_back(io::BaseName(f));
    return names;
  }

  /// Plans the next batch after `start` and returns the files it reads.
  std::vector<std::string> Next(stream::Source& s, std::optional<JsonValue>* start) {
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

  static JsonValue LogOffset(int64_t n) {
    JsonValue v = JsonValue::Object();
    v.Set("logOffset", JsonValue::Int(n));
    return v;
  }

  /// A source log entry as another process writes it.
  static std::string Entry(const std::string& name, int64_t batch_id) {
    return "v1\n{\"path\":\"file://" + io::JoinPath(kIn, name) +
           "\",\"timestamp\":1,\"batchId\":" + std::to_string(batch_id) + "}";
  }

  std::shared_ptr<io::MemoryFileSystem> fs_;
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
  ASSERT_FALSE(end.ok()) << "took a file another process had taken";
  EXPECT_EQ(end.status().error_class(), "CONCURRENT_STREAM_LOG_UPDATE");
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
  std::optional<JsonValue> start = LogOffset(1);
  EXPECT_EQ(Next(**src, &start), std::vector<std::string>{"f2.json"});
  EXPECT_EQ(start->ToString(), LogOffset(2).ToString());
}

}  // namespace
}  // namespace spate::connectors
