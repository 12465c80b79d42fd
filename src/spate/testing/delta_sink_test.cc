// Copyright spate authors.
// The streaming Delta sink's auto-compaction off the batches' critical path (issue 18):
// the rewrite runs on the sink's thread while the next batches commit.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

// Holds the first read of a table data file (only a compaction reads them here: the
// stream's source is a MemoryStream) until Release(); gives up after a minute, so that a
// sink that waits for its compaction fails the test instead of hanging it.
class GateFileSystem final : public io::ForwardingFileSystem {
 public:
  using io::ForwardingFileSystem::ForwardingFileSystem;
  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(
      const std::string& path) override {
    if (path.ends_with(".parquet") && path.find("_delta_log") == std::string::npos) {
      std::unique_lock<std::mutex> l(mu_);
      if (!held_once_) {
        held_once_ = true;
        holding_ = true;
        cv_.notify_all();
        if (!cv_.wait_for(l, std::chrono::seconds(60), [&] { return released_; }))
          gave_up_ = true;
        holding_ = false;
      }
    }
    return ForwardingFileSystem::OpenForRead(path);
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  bool holding() {
    std::lock_guard<std::mutex> l(mu_);
    return holding_;
  }
  bool gave_up() {
    std::lock_guard<std::mutex> l(mu_);
    return gave_up_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_once_ = false, holding_ = false, released_ = false, gave_up_ = false;
};

std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(DeltaSinkAutoCompaction, BatchesCommitWhileTheCompactionRuns) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                       "spate-delta-sink-" + stream::RandomUuid());
  const std::string table = io::JoinPath(dir, "t");
  auto spark = TestSession("delta-sink-tests").newSession();
  spark.conf().set("spark.databricks.delta.autoCompact.enabled", "true");
  spark.conf().set("spark.databricks.delta.autoCompact.minNumFiles", "3");
  auto gate = std::make_shared<GateFileSystem>(io::LocalFileSystem::Get());
  api::MemoryStream input(spark, "a INT");
  auto q = input.toDF()
               .writeStream()
               .format("delta")
               .option("checkpointLocation", io::JoinPath(dir, "chk"))
               .fileSystem(gate)
               .start(table);
  for (int i = 1; i <= 3; ++i) {
    input.addData({{Value::Int(i)}});
    q.processAllAvailable();
  }
  // Batch 2 (the third file) made the partition due: its compaction is held at the gate,
  // and the next batch commits meanwhile.
  input.addData({{Value::Int(4)}});
  q.processAllAvailable();
  EXPECT_TRUE(gate->holding());
  EXPECT_FALSE(gate->gave_up());
  gate->Release();
  q.stop();  // waits for the compaction
  // Versions 0-2 the first three batches, 3 the fourth, 4 the compaction of the first
  // three files (it landed after the batch that ran beside it).
  const std::string log = io::JoinPath(table, "_delta_log");
  EXPECT_NE(ReadText(io::JoinPath(log, "00000000000000000003.json"))
                .find("\"operation\":\"STREAMING UPDATE\""),
            std::string::npos);
  const std::string optimize = ReadText(io::JoinPath(log, "00000000000000000004.json"));
  EXPECT_NE(optimize.find("\"operation\":\"OPTIMIZE\""), std::string::npos);
  EXPECT_NE(optimize.find("\"numRemovedFiles\":\"3\""), std::string::npos) << optimize;
  auto rows = spark.read()
                  .format("delta")
                  .load(table)
                  .orderBy(std::vector<std::string>{"a"})
                  .collect();
  ASSERT_EQ(rows.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(rows[i].values()[0], Value::Int(i + 1));
  (void)io::LocalFileSystem::Get()->Delete(dir, true);
}

}  // namespace
}  // namespace spate::testing
