// Copyright spate authors.
// `spate checkpoint replay` (api/checkpoint_replay.h) on checkpoints of real runs: a
// stateful aggregation into a Delta table and a filter into a Parquet file sink replay
// every committed batch equal to what the sink committed; an input file changed since
// makes the replay differ (the rows named); a sink without a batch record shows the rows;
// the checkpoint is left unchanged; an uncommitted batch is refused.

#include "spate/api/checkpoint_replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "spate/api/column.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_check.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/stream_test.h"
#include "spate/testing/temp_files.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::SparkSession;
namespace fs = std::filesystem;

SparkSession Spark() {
  static SparkSession s = [] {
    SparkSession x = TestSession("checkpoint-replay-tests");
    x.conf().set("spark.sql.shuffle.partitions", "2");
    return x;
  }();
  return s;
}

struct Job {
  std::string in = MakeTestDir("spate-replay", "in"),
              out = MakeTestDir("spate-replay", "out"),
              chk = MakeTestDir("spate-replay", "chk");
  Job() {
    fs::remove_all(chk);
    fs::remove_all(out);
  }
  void Land(int i, const std::string& rows) {
    std::ofstream(in + "/f" + std::to_string(i) + ".json") << rows;
  }
  DataFrame Src() const {
    return Spark().readStream().schema("k STRING, v LONG").json(in);
  }
  /// `w` started on the job's checkpoint with Trigger.AvailableNow, into `out` (into no
  /// path when `to_out` is false).
  api::StreamingQuery Start(api::DataStreamWriter w, bool to_out = true) const {
    w.option("checkpointLocation", chk).trigger(api::Trigger::AvailableNow());
    return to_out ? w.start(out) : w.start();
  }
  /// The query `start` starts, handed over instead (as the CLI's script does).
  stream::QueryConfig Capture(const std::function<void()>& start) const {
    std::optional<stream::QueryConfig> captured;
    stream::SetQueryStartHook([&](const stream::QueryConfig& c) {
      if (!captured) captured = c;
      return Status::OK();
    });
    try {
      start();
    } catch (const std::exception&) {
    }
    stream::SetQueryStartHook(nullptr);
    EXPECT_TRUE(captured.has_value());
    return *captured;
  }
};

TEST(CheckpointReplay, DeltaSinkAggregation) {
  Job job;
  auto start = [&] {
    return job.Start(
        job.Src().groupBy("k").count().writeStream().format("delta").outputMode(
            "complete"));
  };
  job.Land(0, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"b\",\"v\":2}\n");
  start().awaitTermination();
  job.Land(1, "{\"k\":\"a\",\"v\":3}\n");
  start().awaitTermination();
  auto config = job.Capture([&] { start(); });
  auto before = FileTree(job.chk);
  for (int64_t b : {0, 1}) {
    auto r = api::ReplayBatch(Spark(), config, job.chk, b);
    EXPECT_EQ(r.sink_kind, "delta");
    EXPECT_TRUE(r.sink_version.has_value());
    EXPECT_TRUE(r.equal()) << r.ToText();
    EXPECT_EQ(r.ExitCode(), 0);
  }
  auto r = api::ReplayBatch(Spark(), config, job.chk, 1);
  EXPECT_EQ(r.replayed, (std::vector<std::string>{"a | 2", "b | 1"})) << r.ToText();
  EXPECT_EQ(r.columns, (std::vector<std::string>{"k", "count"}));
  EXPECT_EQ(FileTree(job.chk), before);  // nothing under the checkpoint changed

  // The input of batch 1 changed since: the replay reads it and differs.
  job.Land(1, "{\"k\":\"c\",\"v\":3}\n");
  r = api::ReplayBatch(Spark(), config, job.chk, 1);
  EXPECT_EQ(r.ExitCode(), 1) << r.ToText();
  EXPECT_EQ(r.only_committed, (std::vector<std::string>{"a | 2"}));
  EXPECT_EQ(r.only_replayed, (std::vector<std::string>{"a | 1", "c | 1"}));
  EXPECT_NE(r.ToText().find("- a | 2   (committed, not replayed)"), std::string::npos)
      << r.ToText();
  EXPECT_EQ(r.ToJson().Find("equal")->bool_value(), false);

  // Not a committed batch.
  EXPECT_THROW_CLASS(api::ReplayBatch(Spark(), config, job.chk, 2), api::SparkException,
                     "SPATE_STREAMING_INVALID");
}

TEST(CheckpointReplay, PartitionedDeltaTable) {
  Job job;
  auto start = [&] {
    return job.Start(job.Src().writeStream().format("delta").partitionBy({"k"}));
  };
  job.Land(0, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"b\",\"v\":2}\n");
  start().awaitTermination();
  job.Land(1, "{\"k\":\"a\",\"v\":3}\n{\"v\":4}\n");
  start().awaitTermination();
  auto config = job.Capture([&] { start(); });
  auto r = api::ReplayBatch(Spark(), config, job.chk, 1);
  EXPECT_TRUE(r.equal()) << r.ToText();
  EXPECT_EQ(r.committed, (std::vector<std::string>{"NULL | 4", "a | 3"})) << r.ToText();
}

TEST(CheckpointReplay, FileSinkAndOut) {
  Job job;
  auto start = [&] {
    return job.Start(job.Src().where("v > 1").writeStream().format("parquet"));
  };
  job.Land(0, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"b\",\"v\":2}\n");
  start().awaitTermination();
  job.Land(1, "{\"k\":\"c\",\"v\":3}\n{\"k\":\"d\",\"v\":4}\n");
  start().awaitTermination();
  auto config = job.Capture([&] { start(); });
  const std::string out = MakeTestDir("spate-replay", "rows");
  auto r = api::ReplayBatch(Spark(), config, job.chk, 1, out);
  EXPECT_EQ(r.sink_kind, "files");
  EXPECT_TRUE(r.equal()) << r.ToText();
  EXPECT_EQ(r.committed, (std::vector<std::string>{"c | 3", "d | 4"})) << r.ToText();
  EXPECT_EQ(Spark().read().parquet(out).count(), 2);
  r = api::ReplayBatch(Spark(), config, job.chk, 0);
  EXPECT_EQ(r.committed, (std::vector<std::string>{"b | 2"})) << r.ToText();
}

TEST(CheckpointReplay, StatefulUpdateWithoutABatchRecord) {
  Job job;
  auto start = [&] {
    return job.Start(
        job.Src().groupBy("k").count().writeStream().format("noop").outputMode("update"),
        /*to_out=*/false);
  };
  job.Land(0, "{\"k\":\"a\",\"v\":1}\n");
  start().awaitTermination();
  job.Land(1, "{\"k\":\"a\",\"v\":3}\n{\"k\":\"b\",\"v\":3}\n");
  start().awaitTermination();
  auto config = job.Capture([&] { start(); });
  // Batch 1 runs on state version 1: a's count goes on from batch 0.
  auto r = api::ReplayBatch(Spark(), config, job.chk, 1);
  EXPECT_FALSE(r.compared());
  EXPECT_EQ(r.ExitCode(), 0);
  EXPECT_EQ(r.replayed, (std::vector<std::string>{"a | 2", "b | 1"})) << r.ToText();
  EXPECT_NE(r.ToText().find("the replayed rows are shown, not compared"),
            std::string::npos);
}

// Batch 0 of a Delta source read the snapshot its end offset names: replayed (the
// runtime's crash-restart path) after the source table moved on, it reads that snapshot
// again, not the latest one.
TEST(CheckpointReplay, FirstBatchOfADeltaSourceAfterTheTableMovedOn) {
  Job job;
  const std::string src = MakeTestDir("spate-replay", "src");
  fs::remove_all(src);
  auto append = [&](const std::string& rows) {
    job.Land(0, rows);
    Spark()
        .read()
        .schema("k STRING, v LONG")
        .json(job.in)
        .write()
        .format("delta")
        .mode("append")
        .save(src);
  };
  auto start = [&] {
    return job.Start(
        Spark().readStream().format("delta").load(src).writeStream().format("delta"));
  };
  append("{\"k\":\"a\",\"v\":1}\n");
  start().awaitTermination();
  append("{\"k\":\"b\",\"v\":2}\n");
  start().awaitTermination();
  auto config = job.Capture([&] { start(); });
  for (int64_t b : {0, 1}) {
    auto r = api::ReplayBatch(Spark(), config, job.chk, b);
    EXPECT_TRUE(r.equal()) << r.ToText();
    EXPECT_EQ(r.replayed.size(), 1u) << r.ToText();
  }
}

// The query record names the program that ran the query: here this C++ test binary, which
// replay cannot run again (the error says what is missing).
TEST(CheckpointReplay, RecordedProgramOfACppRun) {
  Job job;
  job.Land(0, "{\"k\":\"a\",\"v\":1}\n");
  job.Start(job.Src().writeStream().format("delta")).awaitTermination();
  auto& lfs = *io::LocalFileSystem::Get();
  auto record = stream::ReadQueryRecord(lfs, job.chk);
  ASSERT_TRUE(record.ok() && record->has_value()) << record.status().ToString();
  ASSERT_TRUE((*record)->program.has_value());
  EXPECT_EQ((*record)->program->kind, "c++");
  EXPECT_EQ((*record)->program->executable, fs::read_symlink("/proc/self/exe").string());
  auto program = stream::RecordedProgram(lfs, job.chk);
  ASSERT_ERROR_CLASS(program, "SPATE_STREAMING_INVALID");
  EXPECT_NE(program.status().ToString().find("compiled program " +
                                             fs::read_symlink("/proc/self/exe").string()),
            std::string::npos)
      << program.status().ToString();
  EXPECT_NE(program.status().ToString().find("--query FILE"), std::string::npos);

  // A program set by the process (as `spate run` and the Python package do) is recorded;
  // a record without a program (an older spate) and no record are named as such.
  stream::QueryProgram p;
  p.kind = "pipeline";
  p.cwd = "/somewhere";
  p.files = {job.in + "/f0.json"};
  p.confs = {{"spark.sql.warehouse.dir", "w"}, {"fs.s3a.secret.key", "s3cr3t"}};
  stream::SetQueryProgram(p);
  job.Land(1, "{\"k\":\"b\",\"v\":1}\n");
  job.Start(job.Src().writeStream().format("delta")).awaitTermination();
  stream::SetQueryProgram(std::nullopt);
  auto again = stream::RecordedProgram(lfs, job.chk);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->kind, "pipeline");
  EXPECT_EQ(again->files, p.files);
  EXPECT_EQ(again->confs[0].second, "w");
  EXPECT_NE(again->confs[1].second, "s3cr3t");  // redacted
  auto text = lfs.ReadAll(stream::QueryRecordPath(job.chk));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find("s3cr3t"), std::string::npos);
  fs::remove(stream::QueryRecordPath(job.chk));
  auto none = stream::RecordedProgram(lfs, job.chk);
  ASSERT_ERROR_HAS(none, "no query record");
}

}  // namespace
}  // namespace spate::testing
