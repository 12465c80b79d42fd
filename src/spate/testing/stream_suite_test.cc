// Copyright spate authors.
// The streaming runtime end to end through the public API: the StreamTest DSL over a
// MemoryStream (every suite also runs with a restart after each check), file sources and
// the file sink, triggers, progress, listeners, checkpoint recovery and errors.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/connectors/file_sink.h"
#include "spate/connectors/memory.h"
#include "spate/connectors/rate.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/streaming_query.h"
#include "spate/testing/row_values.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::MemoryStream;
using api::SparkSession;

SparkSession Spark() {
  static SparkSession s = TestSession("stream-tests");
  return s;
}

class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ =
        io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-stream-" + stream::RandomUuid());
    (void)io::LocalFileSystem::Get()->MakeDirs(path_);
  }
  ~TempDir() { (void)io::LocalFileSystem::Get()->Delete(path_, true); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const {
    return io::JoinPath(path_, name);
  }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& text) {
  (void)io::LocalFileSystem::Get()->MakeDirs(io::ParentPath(path));
  ASSERT_TRUE(io::LocalFileSystem::Get()->WriteAtomic(path, text).ok());
}

std::string ReadFile(const std::string& path) {
  auto r = io::LocalFileSystem::Get()->ReadAll(path);
  return r.ok() ? *r : "";
}

/// `df` run to the end of its input (Trigger.AvailableNow) on checkpoint `chk` into a
/// `format` sink at `path` ("": a sink without a path), once the run is over.
api::StreamingQuery RunAvailableNow(const DataFrame& df, const std::string& format,
                                    const std::string& chk,
                                    const std::string& path = "") {
  api::DataStreamWriter w = df.writeStream();
  w.format(format)
      .option("checkpointLocation", chk)
      .trigger(api::Trigger::AvailableNow());
  auto q = path.empty() ? w.start() : w.start(path);
  q.awaitTermination();
  return q;
}

/// `df` into a noop sink, triggered every second by `clock`.
api::StreamingQuery StartOnClock(const DataFrame& df,
                                 const std::shared_ptr<ManualClock>& clock) {
  return df.writeStream()
      .format("noop")
      .trigger(api::Trigger::ProcessingTime(1000))
      .clock(clock)
      .start();
}

/// Moves `clock` to `at` while `q` sleeps, so that its next trigger runs at `at`, and
/// waits until that trigger is over (the query sleeps towards the one after it).
void TriggerAt(const api::StreamingQuery& q, ManualClock& clock, int64_t at) {
  const auto& impl = q.impl();
  ASSERT_TRUE(impl->WaitFor([&] { return clock.IsWaiting(); }, 30000)) << at;
  clock.Set(at);
  ASSERT_TRUE(impl->WaitFor([&] { return clock.IsWaitingFor(at + 1000); }, 30000)) << at;
}

/// A DSL suite that must pass as is and with a restart after every check.
class StreamDslTest : public ::testing::TestWithParam<RunMode> {};

TEST_P(StreamDslTest, MapAndFilterAcrossRestarts) {
  MemoryStream input(Spark(), "a INT");
  DataFrame df = input.toDF().where("a % 2 = 1").selectExpr("a * 10 AS b");
  StreamTest t(Spark(), df);
  std::string err = t.Run(
      {StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}, {I(2)}, {I(3)}}),
       StreamTest::CheckAnswer({{I(10)}, {I(30)}}), StreamTest::AddData(input, {{I(5)}}),
       StreamTest::CheckNewAnswer({{I(50)}}), StreamTest::StopStream(),
       StreamTest::AddData(input, {{I(7)}, {I(8)}}), StreamTest::StartStream(),
       StreamTest::CheckNewAnswer({{I(70)}}),
       StreamTest::CheckAnswer({{I(10)}, {I(30)}, {I(50)}, {I(70)}})},
      GetParam());
  EXPECT_EQ(err, "");
}

TEST_P(StreamDslTest, ProcessingTimeWithManualClock) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF());
  auto clock = std::make_shared<ManualClock>(0);
  std::string err =
      t.Run({StreamTest::StartStream(stream::Trigger::ProcessingTime(10), clock),
             StreamTest::AddData(input, {{I(1)}}), StreamTest::AdvanceClock(10),
             StreamTest::CheckAnswer({{I(1)}}), StreamTest::AddData(input, {{I(2)}}),
             StreamTest::AdvanceClock(10), StreamTest::CheckNewAnswer({{I(2)}}),
             StreamTest::AddData(input, {{I(3)}}), StreamTest::AdvanceClock(10),
             StreamTest::CheckLastBatch({{I(3)}})},
            GetParam());
  EXPECT_EQ(err, "");
}

TEST_P(StreamDslTest, StreamStaticJoin) {
  MemoryStream input(Spark(), "k INT, v STRING");
  DataFrame dim =
      Spark().createDataFrame({{I(1), S("one")}, {I(2), S("two")}}, "k INT, name STRING");
  DataFrame df = input.toDF().join(dim, "k").select("k", "v", "name");
  StreamTest t(Spark(), df);
  std::string err = t.Run({StreamTest::StartStream(),
                           StreamTest::AddData(input, {{I(1), S("a")}, {I(3), S("c")}}),
                           StreamTest::CheckAnswer({{I(1), S("a"), S("one")}}),
                           StreamTest::AddData(input, {{I(2), S("b")}}),
                           StreamTest::CheckNewAnswer({{I(2), S("b"), S("two")}})},
                          GetParam());
  EXPECT_EQ(err, "");
}

// The static side is read again every batch (rows appended to the Delta table between
// batches join the next batch) and, being small, broadcast: the streaming side is not
// shuffled (BroadcastHashJoin in the batch's plan). Over the threshold it is shuffled.
TEST_P(StreamDslTest, StreamStaticJoinRereadsAndBroadcastsTheStaticSide) {
  TempDir dir;
  const std::string table = dir / "dim";
  Spark()
      .createDataFrame({{I(1), S("one")}}, "k INT, name STRING")
      .write()
      .format("delta")
      .save(table);
  MemoryStream input(Spark(), "k INT, v STRING");
  DataFrame df = input.toDF()
                     .join(Spark().read().format("delta").load(table), "k", "left_outer")
                     .select("k", "v", "name");
  auto plan_has = [](const std::string& what) {
    return [what](const api::StreamingQuery& q) {
      return q.explainString().find(what) != std::string::npos;
    };
  };
  StreamTest t(Spark(), df);
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{I(1), S("a")}, {I(2), S("b")}}),
             StreamTest::CheckAnswer({{I(1), S("a"), S("one")},
                                      {I(2), S("b"), Value::Null(DataType::String())}}),
             StreamTest::AssertOnQuery(plan_has("BroadcastHashJoin"),
                                       "a broadcast of the static side"),
             StreamTest::Execute(
                 [&](StreamTest::Context&) {
                   Spark()
                       .createDataFrame({{I(2), S("two")}}, "k INT, name STRING")
                       .write()
                       .format("delta")
                       .mode("append")
                       .save(table);
                 },
                 "append to the static table"),
             StreamTest::AddData(input, {{I(2), S("c")}}),
             StreamTest::CheckNewAnswer({{I(2), S("c"), S("two")}})},
            GetParam());
  EXPECT_EQ(err, "");
  Spark().conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  MemoryStream input2(Spark(), "k INT, v STRING");
  StreamTest t2(Spark(),
                input2.toDF().join(Spark().read().format("delta").load(table), "k"));
  err = t2.Run(
      {StreamTest::StartStream(), StreamTest::AddData(input2, {{I(1), S("a")}}),
       StreamTest::CheckAnswer({{I(1), S("a"), S("one")}}),
       StreamTest::AssertOnQuery(plan_has("ShuffledHashJoin"), "a shuffled join")});
  Spark().conf().unset("spark.sql.autoBroadcastJoinThreshold");
  EXPECT_EQ(err, "");
}

INSTANTIATE_TEST_SUITE_P(Modes, StreamDslTest, ::testing::ValuesIn(AllRunModes()),
                         [](const auto& info) { return RunModeName(info.param); });

// Spark's runStressTest: a random sequence of AddData / CheckAnswer / StopStream /
// StartStream over one query; ends with every row exactly once.
TEST(StreamTest, RandomStress) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF().selectExpr("a + 1 AS b"));
  std::mt19937 rng(42);
  std::vector<StreamTest::Action> actions{StreamTest::StartStream()};
  bool running = true;
  int next = 0;
  Rows expected;
  auto add = [&] {
    Rows rows;
    int n = std::uniform_int_distribution<int>(0, 9)(rng);
    for (int i = 0; i < n; ++i) {
      rows.push_back({I(next)});
      expected.push_back({I(next + 1)});
      ++next;
    }
    actions.push_back(StreamTest::AddData(input, rows));
  };
  for (int i = 0; i < 100; ++i) {
    int r = std::uniform_int_distribution<int>(0, 99)(rng);
    if (!running) {
      if (r < 70) {
        add();
      } else {
        actions.push_back(StreamTest::StartStream());
        running = true;
      }
    } else if (r < 10) {
      actions.push_back(StreamTest::CheckAnswer(expected));
    } else if (r < 70) {
      add();
    } else {
      actions.push_back(StreamTest::CheckAnswer(expected));
      actions.push_back(StreamTest::StopStream());
      running = false;
    }
  }
  if (!running) actions.push_back(StreamTest::StartStream());
  actions.push_back(StreamTest::CheckAnswer(expected));
  EXPECT_EQ(t.Run(actions), "");
}

TEST(StreamTest, ReplaysUncommittedBatchOnSameOffsets) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF());
  std::string err =
      t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}}),
             StreamTest::CheckAnswer({{I(1)}}), StreamTest::AddData(input, {{I(2)}}),
             StreamTest::CheckAnswer({{I(1)}, {I(2)}}), StreamTest::StopStream(),
             StreamTest::Execute([](StreamTest::Context& c) {
               // Simulate a crash between the sink and the commit log: drop commits/1.
               (void)io::LocalFileSystem::Get()->Delete(
                   io::JoinPath(c.checkpoint, "commits/1"), false);
               std::lock_guard<std::mutex> lock(c.sink->mu);
               c.sink->latest = 0;  // the sink "lost" batch 1 too
               c.sink->batches.pop_back();
             }),
             StreamTest::StartStream(),
             // Batch 1 is run again with exactly offsets/1: the same single row.
             StreamTest::CheckAnswer({{I(1)}, {I(2)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && p->batch_id == 1 && p->num_input_rows == 1;
                 },
                 "batch 1 replayed"),
             StreamTest::AddData(input, {{I(3)}}), StreamTest::CheckNewAnswer({{I(3)}})});
  EXPECT_EQ(err, "");
  // The checkpoint has Spark's layout and contents.
  std::string off0 = ReadFile(io::JoinPath(t.checkpoint(), "offsets/0"));
  EXPECT_EQ(off0.rfind("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":", 0), 0u)
      << off0;
  EXPECT_NE(off0.find("\"spark.sql.shuffle.partitions\":"), std::string::npos);
  EXPECT_EQ(off0.substr(off0.rfind('\n') + 1), "0");
  EXPECT_EQ(ReadFile(io::JoinPath(t.checkpoint(), "commits/2")),
            "v1\n{\"nextBatchWatermarkMs\":0}");
  EXPECT_EQ(ReadFile(io::JoinPath(t.checkpoint(), "metadata")).rfind("{\"id\":\"", 0),
            0u);
}

TEST(StreamTest, IdStableRunIdNew) {
  TempDir dir;
  MemoryStream input(Spark(), "a INT");
  auto start = [&] {
    return input.toDF()
        .writeStream()
        .format("noop")
        .option("checkpointLocation", dir / "chk")
        .start();
  };
  auto q1 = start();
  input.addData({{I(1)}});
  q1.processAllAvailable();
  std::string id = q1.id(), run = q1.runId();
  EXPECT_TRUE(q1.isActive());
  // A second start on the same checkpoint while the first runs: CONCURRENT_QUERY.
  try {
    start();
    ADD_FAILURE() << "expected CONCURRENT_QUERY";
  } catch (const api::SparkException& e) {
    EXPECT_EQ(e.getErrorClass(), "CONCURRENT_QUERY");
  }
  q1.stop();
  EXPECT_FALSE(q1.isActive());
  auto q2 = start();
  EXPECT_EQ(q2.id(), id);
  EXPECT_NE(q2.runId(), run);
  q2.stop();
}

TEST(StreamTest, ConcurrentStreamLogUpdate) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF());
  std::string err = t.Run(
      {StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}}),
       StreamTest::CheckAnswer({{I(1)}}), StreamTest::Execute([](StreamTest::Context& c) {
         // Another writer already wrote offsets/1.
         WriteFile(io::JoinPath(c.checkpoint, "offsets/1"), "v1\n{}\n5");
       }),
       StreamTest::AddData(input, {{I(2)}}),
       StreamTest::ExpectFailure("CONCURRENT_STREAM_LOG_UPDATE")});
  EXPECT_EQ(err, "");
}

TEST(StreamTest, CorruptOffsetsFileNamesTheFile) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF());
  std::string err =
      t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}}),
             StreamTest::CheckAnswer({{I(1)}}), StreamTest::StopStream(),
             StreamTest::Execute([](StreamTest::Context& c) {
               WriteFile(io::JoinPath(c.checkpoint, "offsets/0"), "v1\n{\"batchWat");
             }),
             StreamTest::StartStream(), StreamTest::ExpectFailure("offsets/0")});
  EXPECT_EQ(err, "");
}

/// The local file system with one injected failure: the first PutIfAbsent of a path
/// ending in `fail_suffix` returns an I/O error (a full disk, a failed fsync).
class FailOnceFileSystem final : public io::FileSystem {
 public:
  explicit FailOnceFileSystem(std::string fail_suffix)
      : suffix_(std::move(fail_suffix)) {}
  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(
      const std::string& p) override {
    return L()->OpenForRead(p);
  }
  Result<std::unique_ptr<io::WritableFile>> Create(const std::string& p) override {
    return L()->Create(p);
  }
  Result<std::vector<io::FileInfo>> List(const std::string& p, bool r) override {
    return L()->List(p, r);
  }
  Result<io::FileInfo> Stat(const std::string& p) override { return L()->Stat(p); }
  Result<bool> Exists(const std::string& p) override { return L()->Exists(p); }
  Status MakeDirs(const std::string& p) override { return L()->MakeDirs(p); }
  Status Rename(const std::string& a, const std::string& b) override {
    return L()->Rename(a, b);
  }
  Status Delete(const std::string& p, bool r) override { return L()->Delete(p, r); }
  Status WriteAtomic(const std::string& p, std::string_view d) override {
    return L()->WriteAtomic(p, d);
  }
  Status PutIfAbsent(const std::string& p, std::string_view d) override {
    if (!failed_ && p.size() >= suffix_.size() &&
        p.compare(p.size() - suffix_.size(), suffix_.size(), suffix_) == 0) {
      failed_ = true;
      return Status::IOError("No space left on device: " + p);
    }
    return L()->PutIfAbsent(p, d);
  }

 private:
  static const std::shared_ptr<io::LocalFileSystem>& L() {
    return io::LocalFileSystem::Get();
  }
  std::string suffix_;
  std::atomic<bool> failed_{false};
};

TEST(StreamTest, IoErrorOnCommitLogFailsThenRecovers) {
  TempDir dir;
  std::string out = dir / "out", chk = dir / "chk";
  MemoryStream input(Spark(), "a INT");
  auto faulty = std::make_shared<FailOnceFileSystem>("/commits/1");
  auto q = input.toDF()
               .writeStream()
               .format("parquet")
               .option("checkpointLocation", chk)
               .fileSystem(faulty)
               .start(out);
  input.addData({{I(1)}});
  q.processAllAvailable();
  input.addData({{I(2)}});
  try {
    q.awaitTermination();
    ADD_FAILURE() << "expected the injected I/O error";
  } catch (const api::StreamingQueryException& e) {
    EXPECT_NE(std::string(e.what()).find("commits/1"), std::string::npos) << e.what();
  }
  // Restart: batch 1 is replayed; its files were committed by the sink already, so the
  // sink skips it and the output has each row once.
  auto q2 = input.toDF()
                .writeStream()
                .format("parquet")
                .option("checkpointLocation", chk)
                .start(out);
  input.addData({{I(3)}});
  q2.processAllAvailable();
  q2.stop();
  auto rows = Spark().read().parquet(out).orderBy("a").collect();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2][0].ToString(), "3");
}

TEST(StreamTest, QueryChangesAcrossRestarts) {
  TempDir dir;
  std::string chk = dir / "chk";
  MemoryStream a(Spark(), "v INT"), b(Spark(), "v INT");
  auto q = a.toDF()
               .writeStream()
               .format("memory")
               .queryName("changes")
               .option("checkpointLocation", chk)
               .start();
  a.addData({{I(1)}, {I(2)}});
  q.processAllAvailable();
  q.stop();
  // A filter and the trigger may change: the query continues after batch 0. (The data is
  // added first: AvailableNow fixes what is available when the query starts.)
  a.addData({{I(3)}, {I(1)}});
  auto q2 = a.toDF()
                .where("v > 2")
                .writeStream()
                .format("memory")
                .queryName("changes2")
                .option("checkpointLocation", chk)
                .trigger(api::Trigger::AvailableNow())
                .start();
  q2.awaitTermination();
  EXPECT_EQ(Spark().sql("SELECT count(*) FROM changes2").collect()[0][0].ToString(), "1");
  // A different set of sources cannot continue this checkpoint.
  auto q3 = a.toDF()
                .union_(b.toDF())
                .writeStream()
                .format("memory")
                .queryName("changes3")
                .option("checkpointLocation", chk)
                .start();
  try {
    q3.awaitTermination();
    ADD_FAILURE() << "expected a failure";
  } catch (const api::StreamingQueryException& e) {
    EXPECT_NE(std::string(e.what()).find("There are [1] sources in the checkpoint "
                                         "offsets and now there are [2] sources "
                                         "requested by the query. Cannot continue."),
              std::string::npos)
        << e.what();
  }
}

TEST(StreamTest, PurgesBeyondMinBatchesToRetain) {
  Spark().conf().set("spark.sql.streaming.minBatchesToRetain", "2");
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF());
  std::vector<StreamTest::Action> actions{StreamTest::StartStream()};
  Rows all;
  for (int i = 0; i < 5; ++i) {
    actions.push_back(StreamTest::AddData(input, {{I(i)}}));
    all.push_back({I(i)});
    actions.push_back(StreamTest::CheckAnswer(all));
  }
  std::string err = t.Run(actions);
  Spark().conf().unset("spark.sql.streaming.minBatchesToRetain");
  EXPECT_EQ(err, "");
  auto fs = io::LocalFileSystem::Get();
  EXPECT_FALSE(*fs->Exists(io::JoinPath(t.checkpoint(), "offsets/0")));
  EXPECT_FALSE(*fs->Exists(io::JoinPath(t.checkpoint(), "offsets/1")));
  EXPECT_TRUE(*fs->Exists(io::JoinPath(t.checkpoint(), "offsets/2")));
  EXPECT_TRUE(*fs->Exists(io::JoinPath(t.checkpoint(), "offsets/4")));
}

TEST(StreamTest, RefusedQueriesAndActions) {
  MemoryStream input(Spark(), "a INT");
  DataFrame df = input.toDF();
  EXPECT_TRUE(df.isStreaming());
  EXPECT_TRUE(df.selectExpr("a + 1").isStreaming());
  EXPECT_FALSE(Spark().range(3).isStreaming());
  auto expect_class = [](const std::function<void()>& fn, const std::string& cls,
                         const std::string& text = "") {
    try {
      fn();
      ADD_FAILURE() << "expected " << cls;
    } catch (const api::SparkException& e) {
      EXPECT_EQ(e.getErrorClass(), cls) << e.what();
      if (!text.empty())
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_class(
      [&] { df.show(); }, "_LEGACY_ERROR_TEMP_3102",
      "Queries with streaming sources must be executed with writeStream.start()");
  expect_class([&] { df.collect(); }, "_LEGACY_ERROR_TEMP_3102");
  expect_class([&] { df.count(); }, "_LEGACY_ERROR_TEMP_3102");
  expect_class([&] { df.write(); }, "CALL_ON_STREAMING_DATASET_UNSUPPORTED");
  expect_class([&] { Spark().range(3).writeStream(); }, "WRITE_STREAM_NOT_ALLOWED");
  expect_class(
      [&] {
        df.writeStream().format("memory").queryName("x").outputMode("complete").start();
      },
      "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
      "Invalid streaming output mode: complete");
  expect_class([&] { df.writeStream().outputMode("sideways"); },
               "STREAMING_OUTPUT_MODE.INVALID");
  MemoryStream other(Spark(), "a INT");
  expect_class(
      [&] {
        df.groupBy("a")
            .count()
            .groupBy("count")
            .count()
            .writeStream()
            .format("memory")
            .outputMode("update")
            .queryName("y")
            .start();
      },
      "_LEGACY_ERROR_TEMP_3102", "Multiple streaming aggregations are not supported");
  expect_class([&] { df.orderBy("a").writeStream().format("noop").start(); },
               "_LEGACY_ERROR_TEMP_3102", "Sorting");
  expect_class([&] { df.writeStream().format("parquet").start("/tmp/never"); },
               "SPATE_STREAMING_INVALID", "checkpointLocation must be specified");
  expect_class(
      [&] {
        df.writeStream()
            .format("noop")
            .trigger(api::Trigger::Continuous("1 second"))
            .start();
      },
      "SPATE_STREAMING_UNSUPPORTED", "Continuous");
  expect_class([&] { Spark().readStream().json("/tmp/x"); }, "SPATE_STREAMING_INVALID",
               "Schema must be specified");
}

TEST(StreamTest, MemorySinkIsAQueryableView) {
  MemoryStream input(Spark(), "a INT");
  auto q = input.toDF()
               .selectExpr("a", "a * 2 AS b")
               .writeStream()
               .format("memory")
               .queryName("doubled")
               .start();
  EXPECT_EQ(q.explainString(), "No physical plan. Waiting for data.");
  input.addData({{I(1)}, {I(2)}});
  q.processAllAvailable();
  auto rows = Spark().sql("SELECT sum(b) FROM doubled").collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].ToString(), "6");
  input.addData({{I(3)}});
  q.processAllAvailable();
  EXPECT_EQ(Spark().sql("SELECT count(*) FROM doubled").collect()[0][0].ToString(), "3");
  std::string plan = q.explainString();
  EXPECT_EQ(plan.rfind("== Physical Plan ==\n", 0), 0u) << plan;
  EXPECT_NE(plan.find("(a#"), std::string::npos) << plan;
  q.stop();
}

TEST(StreamTest, ConsoleSinkPrintsBatches) {
  MemoryStream input(Spark(), "a INT, s STRING");
  ::testing::internal::CaptureStdout();
  auto q = input.toDF().writeStream().format("console").option("numRows", "1").start();
  input.addData({{I(1), S("x")}, {I(2), S("y")}});
  q.processAllAvailable();
  q.stop();
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out,
            "-------------------------------------------\n"
            "Batch: 0\n"
            "-------------------------------------------\n"
            "+---+---+\n"
            "|  a|  s|\n"
            "+---+---+\n"
            "|  1|  x|\n"
            "+---+---+\n"
            "only showing top 1 row\n\n");
}

// foreachBatch / foreach may run without a checkpointLocation (Spark's
// SOURCES_ALLOW_ONE_TIME_QUERY): a temporary checkpoint is used.
TEST(StreamTest, ForeachBatchWithoutCheckpointLocation) {
  MemoryStream input(Spark(), "a INT");
  std::atomic<int64_t> rows{0};
  auto q =
      input.toDF()
          .writeStream()
          .foreachBatch([&](const DataFrame& batch, int64_t) { rows += batch.count(); })
          .start();
  input.addData({{I(1)}, {I(2)}, {I(3)}});
  q.processAllAvailable();
  q.stop();
  EXPECT_EQ(rows.load(), 3);
  EXPECT_FALSE(q.exception());
}

TEST(StreamTest, ForeachBatchAndForeach) {
  TempDir dir;
  MemoryStream input(Spark(), "a INT");
  std::vector<std::pair<int64_t, int64_t>> seen;  // (batch id, count)
  std::mutex mu;
  auto q = input.toDF()
               .writeStream()
               .foreachBatch([&](const DataFrame& batch, int64_t id) {
                 EXPECT_FALSE(batch.isStreaming());
                 int64_t n = batch.count();
                 EXPECT_EQ(static_cast<int64_t>(batch.collect().size()), n);
                 std::lock_guard<std::mutex> lock(mu);
                 seen.emplace_back(id, n);
               })
               .option("checkpointLocation", dir / "chk")
               .start();
  input.addData({{I(1)}, {I(2)}});
  q.processAllAvailable();
  input.addData({{I(3)}});
  q.processAllAvailable();
  // The batch ran twice inside the function (count(), then collect()): numInputRows
  // counts its rows once.
  EXPECT_EQ(q.lastProgress()->num_input_rows, 1);
  q.stop();
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {1, 1}}));

  struct Writer : api::ForeachWriter {
    std::vector<std::string> events;
    bool open(int64_t p, int64_t e) override {
      events.push_back("open " + std::to_string(p) + " " + std::to_string(e));
      return true;
    }
    void process(const api::Row& r) override {
      events.push_back("row " + r[0].ToString());
    }
    void close(const std::optional<std::string>& err) override {
      events.emplace_back(err ? "error" : "close");
    }
  };
  auto w = std::make_shared<Writer>();
  MemoryStream input2(Spark(), "a INT");
  auto q2 = input2.toDF()
                .writeStream()
                .foreach (w)
                .option("checkpointLocation", dir / "chk2")
                .start();
  input2.addData({{I(7)}});
  q2.processAllAvailable();
  q2.stop();
  EXPECT_EQ(w->events, (std::vector<std::string>{"open 0 0", "row 7", "close"}));
}

TEST(StreamTest, ForeachBatchFailureStopsTheQuery) {
  TempDir dir;
  MemoryStream input(Spark(), "a INT");
  auto q = input.toDF()
               .writeStream()
               .foreachBatch(
                   [](const DataFrame&, int64_t) { throw std::runtime_error("boom"); })
               .option("checkpointLocation", dir / "chk")
               .start();
  input.addData({{I(1)}});
  try {
    q.awaitTermination();
    ADD_FAILURE() << "expected a failure";
  } catch (const api::StreamingQueryException& e) {
    EXPECT_EQ(e.getErrorClass(), "STREAM_FAILED");
    std::string what = e.what();
    EXPECT_NE(what.find("Query [id = " + q.id() + ", runId = " + q.runId() +
                        "] terminated with exception"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("boom"), std::string::npos);
  }
  EXPECT_FALSE(q.isActive());
  ASSERT_TRUE(q.exception().has_value());
  // The failed batch was not committed: offsets/0 without commits/0.
  EXPECT_TRUE(*io::LocalFileSystem::Get()->Exists(dir / "chk/offsets/0"));
  EXPECT_FALSE(*io::LocalFileSystem::Get()->Exists(dir / "chk/commits/0"));
}

class RecordingListener : public api::StreamingQueryListener {
 public:
  void onQueryStarted(const stream::QueryStartedEvent& e) override {
    Add("started " + e.id);
  }
  void onQueryProgress(const stream::QueryProgressEvent& e) override {
    Add("progress " + std::to_string(e.progress.batch_id));
  }
  void onQueryIdle(const stream::QueryIdleEvent&) override { idle++; }
  void onQueryTerminated(const stream::QueryTerminatedEvent& e) override {
    Add(std::string("terminated ") + (e.exception ? "error" : "ok"));
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  std::atomic<int> idle{0};

 private:
  void Add(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::string> events_;
};

TEST(StreamTest, ListenersAndProgress) {
  Spark().streams().resetTerminated();
  auto listener = std::make_shared<RecordingListener>();
  Spark().streams().addListener(listener);
  MemoryStream input(Spark(), "a INT");
  auto q = input.toDF().writeStream().format("noop").queryName("progress_q").start();
  EXPECT_EQ(q.name(), std::optional<std::string>("progress_q"));
  EXPECT_TRUE(Spark().streams().get(q.id()).has_value());
  input.addData({{I(1)}, {I(2)}, {I(3)}});
  q.processAllAvailable();
  auto p = q.lastProgress();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->batch_id, 0);
  EXPECT_EQ(p->num_input_rows, 3);
  EXPECT_EQ(p->name, std::optional<std::string>("progress_q"));
  EXPECT_EQ(p->sink.num_output_rows, 3);
  ASSERT_EQ(p->sources.size(), 1u);
  EXPECT_EQ(p->sources[0].description, "MemoryStream[a]");
  EXPECT_FALSE(p->sources[0].start_offset.has_value());
  EXPECT_EQ(p->sources[0].end_offset->ToString(), "0");
  for (const char* k : {"addBatch", "commitOffsets", "getBatch", "latestOffset",
                        "queryPlanning", "triggerExecution", "walCommit"}) {
    EXPECT_TRUE(p->duration_ms.count(k)) << k;
  }
  std::string json = p->json();
  EXPECT_EQ(json.rfind("{\"id\":\"" + q.id() + "\",\"runId\":\"" + q.runId() +
                           "\",\"name\":\"progress_q\",\"timestamp\":\"",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find("\"stateOperators\":[],\"sources\":[{\"description\":"
                      "\"MemoryStream[a]\",\"startOffset\":null,\"endOffset\":0,"
                      "\"latestOffset\":null,\"numInputRows\":3"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"sink\":{\"description\":\"NoopSink\",\"numOutputRows\":3}}"),
            std::string::npos)
      << json;
  EXPECT_EQ(q.status().json(),
            "{\"message\":\"Waiting for data to "
            "arrive\",\"isDataAvailable\":false,\"isTriggerActive\":false}");
  input.addData({{I(4)}});
  q.processAllAvailable();
  // A trigger that found no data before the first batch may have added a progress without
  // a batch (Spark's idle report); the batches are the progresses with addBatch.
  std::vector<int64_t> batches;
  for (const auto& rp : q.recentProgress())
    if (rp.duration_ms.count("addBatch")) batches.push_back(rp.batch_id);
  EXPECT_EQ(batches, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(q.lastProgress()->sources[0].start_offset->ToString(), "0");
  q.stop();
  EXPECT_TRUE(Spark().streams().awaitAnyTermination(1.0));
  Spark().streams().resetTerminated();
  Spark().streams().removeListener(listener);
  auto ev = listener->Events();
  // Listeners get a progress per batch only (idle triggers are idle events, below).
  EXPECT_EQ(ev, (std::vector<std::string>{"started " + q.id(), "progress 0", "progress 1",
                                          "terminated ok"}));
  EXPECT_TRUE(Spark().streams().active().empty());
}

// spark.sql.streaming.noDataProgressEventInterval is a time conf: "3s" is 3000 ms (read
// as a bare number or not at all, it would be 3 ms or the 10 s default).
TEST(StreamTest, NoDataProgressIntervalIsATimeConf) {
  auto session = Spark().newSession();
  session.conf().set("spark.sql.streaming.noDataProgressEventInterval", "3s");
  MemoryStream input(session, "a INT");
  auto clock = std::make_shared<ManualClock>(0);
  auto q = StartOnClock(input.toDF(), clock);
  auto impl = q.impl();
  auto trigger_at = [&](int64_t at) { TriggerAt(q, *clock, at); };
  ASSERT_TRUE(impl->WaitFor([&] { return clock->IsWaitingFor(1000); }, 30000));
  EXPECT_EQ(q.recentProgress().size(), 1u);  // the run's first report
  trigger_at(1000);
  trigger_at(2000);
  EXPECT_EQ(q.recentProgress().size(), 1u) << "within 3 s of the last report";
  trigger_at(3000);
  EXPECT_EQ(q.recentProgress().size(), 2u) << "3 s after the last report";
  q.stop();
}

// Spark 4.2's idle reporting (ProgressReporter.updateIdleness, checked against real
// Spark): a trigger without a batch adds a progress to recentProgress at most once per
// noDataProgressEventInterval counted from the last report or executed batch, with the
// next batch id; listeners get no progress for it, and an idle event except for the run's
// first report. After a batch, the idle progress keeps its state operators (per-batch
// counts zeroed), the watermark alone and 0 output rows.
TEST(StreamTest, IdleTriggersReportAsSpark) {
  auto listener = std::make_shared<RecordingListener>();
  Spark().streams().addListener(listener);
  MemoryStream input(Spark(), "a INT, ts TIMESTAMP");
  auto clock = std::make_shared<ManualClock>(0);
  auto q = StartOnClock(
      input.toDF().withWatermark("ts", "1 minute").dropDuplicates({"a", "ts"}), clock);
  auto impl = q.impl();
  auto trigger_at = [&](int64_t at) { TriggerAt(q, *clock, at); };
  auto summary = [&] {
    std::vector<std::string> out;
    for (const auto& p : q.recentProgress())
      out.push_back(std::to_string(p.batch_id) + ":" + std::to_string(p.num_input_rows) +
                    ":" + std::to_string(p.sink.num_output_rows) + ":" +
                    std::to_string(p.state_operators.size()));
    return out;
  };
  auto batches = [&] {
    int n = 0;
    for (const auto& p : q.recentProgress()) n += p.duration_ms.count("addBatch") ? 1 : 0;
    return n;
  };
  // The trigger at 0 found nothing: the run's first report, without an idle event.
  ASSERT_TRUE(impl->WaitFor([&] { return clock->IsWaitingFor(1000); }, 30000));
  EXPECT_EQ(summary(), (std::vector<std::string>{"0:0:-1:0"}));
  trigger_at(1000);  // within the interval: nothing
  EXPECT_EQ(summary().size(), 1u);
  trigger_at(10000);  // the interval passed: a report and an idle event
  EXPECT_EQ(summary(), (std::vector<std::string>{"0:0:-1:0", "0:0:-1:0"}));
  EXPECT_EQ(listener->idle.load(), 1);
  const Value ts = Value::Timestamp(1767226200LL * 1000000LL);  // 2026-01-01 00:10:00
  input.addData({{I(1), ts}, {I(1), ts}});
  trigger_at(11000);  // batch 0
  ASSERT_EQ(batches(), 1);
  trigger_at(12000);  // a no-data batch if the moved watermark lets the operator evict
  const int64_t last_batch_ms = batches() == 2 ? 12000 : 11000;
  const auto after_batches = summary();
  trigger_at(last_batch_ms + 9000);
  EXPECT_EQ(summary(), after_batches) << "no report within the interval after a batch";
  trigger_at(last_batch_ms + 10000);
  auto all = q.recentProgress();
  ASSERT_EQ(all.size(), after_batches.size() + 1);
  const auto& idle = all.back();
  EXPECT_EQ(idle.batch_id, all[all.size() - 2].batch_id + 1);
  EXPECT_EQ(idle.num_input_rows, 0);
  EXPECT_EQ(idle.sink.num_output_rows, 0);
  ASSERT_EQ(idle.state_operators.size(), 1u);
  EXPECT_EQ(idle.state_operators[0].num_rows_total, 1);
  EXPECT_EQ(idle.state_operators[0].num_rows_updated, 0);
  EXPECT_EQ(idle.event_time.size(), 1u);
  EXPECT_EQ(idle.event_time.count("watermark"), 1u);
  EXPECT_FALSE(idle.duration_ms.count("addBatch"));
  EXPECT_EQ(listener->idle.load(), 2);
  q.stop();
  Spark().streams().removeListener(listener);
  int progress_events = 0;
  for (const auto& e : listener->Events()) progress_events += e.rfind("progress", 0) == 0;
  EXPECT_EQ(progress_events, batches());
}

TEST(StreamTest, RatePerMicroBatchSource) {
  auto df = Spark()
                .readStream()
                .format("rate-micro-batch")
                .option("rowsPerBatch", 3)
                .option("startTimestamp", 1000)
                .option("advanceMillisPerBatch", 300)
                .load();
  EXPECT_EQ(df.schema().simpleString(), "struct<timestamp:timestamp,value:bigint>");
  auto q = df.selectExpr("value", "unix_millis(timestamp) AS ms")
               .writeStream()
               .format("memory")
               .queryName("rmb")
               .trigger(api::Trigger::Once())
               .start();
  q.awaitTermination();
  auto rows = Spark().sql("SELECT value, ms FROM rmb ORDER BY value").collect();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].toString(), "Row(value=0, ms=1000)");
  EXPECT_EQ(rows[1].toString(), "Row(value=1, ms=1100)");
  EXPECT_EQ(rows[2].toString(), "Row(value=2, ms=1200)");
  EXPECT_EQ(q.lastProgress()->sources[0].end_offset->ToString(),
            "{\"offset\":3,\"timestamp\":1300}");
}

TEST(StreamTest, RatePerMicroBatchAvailableNowRuns) {
  TempDir dir;
  auto run = [&] {
    return RunAvailableNow(
        Spark().readStream().format("rate-micro-batch").option("rowsPerBatch", 4).load(),
        "noop", dir / "chk");
  };
  auto q1 = run();
  ASSERT_EQ(q1.recentProgress().size(), 1u);
  EXPECT_EQ(q1.lastProgress()->num_input_rows, 4);
  auto q2 = run();
  ASSERT_EQ(q2.recentProgress().size(), 1u);
  EXPECT_EQ(q2.lastProgress()->batch_id, 1);
  EXPECT_EQ(q2.lastProgress()->sources[0].start_offset->ToString(),
            "{\"offset\":4,\"timestamp\":1000}");
}

TEST(StreamTest, RateSourceFollowsTheClock) {
  EXPECT_EQ(connectors::RateValueAtSecond(4, 10, 4), 20);
  EXPECT_EQ(connectors::RateValueAtSecond(6, 10, 4), 40);
  TempDir dir;
  auto clock = std::make_shared<ManualClock>(100000);
  auto q = Spark()
               .readStream()
               .format("rate")
               .option("rowsPerSecond", 5)
               .load()
               .writeStream()
               .format("memory")
               .queryName("rate_q")
               .trigger(api::Trigger::ProcessingTime(1000))
               .clock(clock)
               .start();
  auto impl = q.impl();
  ASSERT_TRUE(impl->WaitFor([&] { return clock->IsWaiting(); }, 10000));
  clock->Advance(2000);
  ASSERT_TRUE(impl->WaitFor([&] { return impl->last_committed_batch() >= 0; }, 10000));
  q.stop();
  auto rows = Spark()
                  .sql(
                      "SELECT count(*), min(value), max(value), "
                      "min(unix_millis(timestamp)) FROM rate_q")
                  .collect();
  EXPECT_EQ(
      rows[0].toString(),
      "Row(count(1)=10, min(value)=0, max(value)=9, min(unix_millis(timestamp))=100000)");
}

TEST(StreamTest, SocketSource) {
  int server = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(server, 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  int port = ntohs(addr.sin_port);
  int client = -1;
  std::thread acceptor([&] { client = accept(server, nullptr, nullptr); });
  auto q = Spark()
               .readStream()
               .format("socket")
               .option("host", "127.0.0.1")
               .option("port", port)
               .load()
               .writeStream()
               .format("memory")
               .queryName("socket_q")
               .start();
  acceptor.join();
  ASSERT_GE(client, 0);
  const char* text = "hello world\nsecond line\n";
  ASSERT_EQ(write(client, text, std::strlen(text)),
            static_cast<ssize_t>(std::strlen(text)));
  auto impl = q.impl();
  ASSERT_TRUE(impl->WaitFor(
      [&] {
        return impl->last_committed_batch() >= 0 &&
               Spark().sql("SELECT count(*) FROM socket_q").collect()[0][0].ToString() ==
                   "2";
      },
      10000));
  q.stop();
  close(client);
  close(server);
  EXPECT_EQ(
      Spark().sql("SELECT value FROM socket_q ORDER BY value").collect()[0].toString(),
      "Row(value='hello world')");
}

// ---- files

void LandJson(const std::string& dir, int batch, int n, int start) {
  std::string text;
  for (int i = start; i < start + n; ++i) {
    text += "{\"event_id\":" + std::to_string(i) + ",\"kind\":\"" +
            (i % 3 == 0 ? "buy" : "view") + "\"}\n";
  }
  WriteFile(io::JoinPath(dir, "batch_" + std::to_string(batch) + "/part-0.json"), text);
}

/// A stream of the JSON files LandJson writes under `dir` (the tutorial's bronze input).
DataFrame LandedJson(const std::string& dir) {
  return Spark()
      .readStream()
      .schema("event_id LONG, kind STRING")
      .option("recursiveFileLookup", "true")
      .option("pathGlobFilter", "*.json")
      .json(dir);
}

int64_t CountSinkRows(const std::string& out) {
  auto files = connectors::SinkLogFiles(*io::LocalFileSystem::Get(), out);
  if (!files.ok() || !files->has_value() || (*files)->empty()) return 0;
  return Spark().read().parquet(**files).count();
}

TEST(FileStreamTest, TutorialAvailableNowIntoFiles) {
  TempDir dir;
  std::string src = dir / "landing", out = dir / "bronze", chk = dir / "_cp/bronze";
  auto run = [&] { return RunAvailableNow(LandedJson(src), "parquet", chk, out); };
  LandJson(src, 1, 500, 0);
  auto q1 = run();
  EXPECT_EQ(CountSinkRows(out), 500);
  ASSERT_TRUE(q1.lastProgress().has_value());
  EXPECT_EQ(q1.lastProgress()->batch_id, 0);
  EXPECT_EQ(q1.lastProgress()->num_input_rows, 500);
  LandJson(src, 2, 500, 500);
  auto q2 = run();
  EXPECT_EQ(q2.lastProgress()->batch_id, 1);
  EXPECT_EQ(q2.lastProgress()->num_input_rows, 500);
  EXPECT_EQ(CountSinkRows(out), 1000);
  auto q3 = run();
  // Nothing new: no batch; as Spark, the run reports one progress without rows (the
  // next batch id, the same start and end offsets, no sink rows).
  ASSERT_TRUE(q3.lastProgress().has_value());
  EXPECT_EQ(q3.recentProgress().size(), 1u);
  EXPECT_EQ(q3.lastProgress()->batch_id, 2);
  EXPECT_EQ(q3.lastProgress()->num_input_rows, 0);
  EXPECT_EQ(q3.lastProgress()->sink.num_output_rows, -1);
  EXPECT_EQ(q3.lastProgress()->duration_ms.count("addBatch"), 0u);
  EXPECT_EQ(CountSinkRows(out), 1000);
  // The checkpoint: offsets/1 names logOffset 1, the source log lists batch_2's file.
  std::string off1 = ReadFile(chk + "/offsets/1");
  EXPECT_EQ(off1.substr(off1.rfind('\n') + 1), "{\"logOffset\":1}");
  std::string log1 = ReadFile(chk + "/sources/0/1");
  EXPECT_EQ(
      log1.rfind(
          "v1\n{\"path\":\"file://" + src + "/batch_2/part-0.json\",\"timestamp\":", 0),
      0u)
      << log1;
  EXPECT_NE(log1.find(",\"batchId\":1}"), std::string::npos);
  std::string meta = ReadFile(out + "/_spark_metadata/0");
  EXPECT_EQ(meta.rfind("v1\n{\"path\":\"file://" + out + "/part-", 0), 0u) << meta;
  EXPECT_NE(meta.find("\"isDir\":false,\"modificationTime\":"), std::string::npos);
  EXPECT_NE(
      meta.find("\"blockReplication\":1,\"blockSize\":33554432,\"action\":\"add\"}"),
      std::string::npos);
}

TEST(FileStreamTest, MaxFilesPerTriggerSplitsAvailableNow) {
  TempDir dir;
  std::string src = dir / "in";
  for (int b = 0; b < 5; ++b) LandJson(src, b, 10, b * 10);
  MemoryStream dummy(Spark(), "a INT");
  auto q = Spark()
               .readStream()
               .schema("event_id LONG, kind STRING")
               .option("maxFilesPerTrigger", 2)
               .json(src)
               .writeStream()
               .format("memory")
               .queryName("mfpt")
               .trigger(api::Trigger::AvailableNow())
               .start();
  q.awaitTermination();
  auto progress = q.recentProgress();
  ASSERT_EQ(progress.size(), 3u);
  EXPECT_EQ(progress[0].num_input_rows, 20);
  EXPECT_EQ(progress[1].num_input_rows, 20);
  EXPECT_EQ(progress[2].num_input_rows, 10);
  EXPECT_EQ(
      Spark().sql("SELECT count(DISTINCT event_id) FROM mfpt").collect()[0][0].ToString(),
      "50");
  // Trigger.Once ignores the rate limit: one batch with everything.
  auto once = Spark()
                  .readStream()
                  .schema("event_id LONG, kind STRING")
                  .option("maxFilesPerTrigger", 2)
                  .json(src)
                  .writeStream()
                  .format("noop")
                  .trigger(api::Trigger::Once())
                  .start();
  once.awaitTermination();
  ASSERT_EQ(once.recentProgress().size(), 1u);
  EXPECT_EQ(once.lastProgress()->num_input_rows, 50);
}

TEST(FileStreamTest, CleanSourceDeleteAndArchive) {
  TempDir dir;
  std::string src = dir / "in";
  LandJson(src, 0, 3, 0);
  RunAvailableNow(Spark()
                      .readStream()
                      .schema("event_id LONG, kind STRING")
                      .option("cleanSource", "archive")
                      .option("sourceArchiveDir", dir / "archive")
                      .json(src),
                  "noop", dir / "chk");
  auto fs = io::LocalFileSystem::Get();
  EXPECT_FALSE(*fs->Exists(src + "/batch_0/part-0.json"));
  EXPECT_TRUE(*fs->Exists(dir / ("archive" + src + "/batch_0/part-0.json")));
}

TEST(FileStreamTest, ParquetSinkPartitionByAndReplaySkipsCommittedBatch) {
  TempDir dir;
  std::string src = dir / "in", out = dir / "out", chk = dir / "chk";
  LandJson(src, 0, 6, 0);
  auto start = [&] {
    return Spark()
        .readStream()
        .schema("event_id LONG, kind STRING")
        .json(src)
        .writeStream()
        .format("parquet")
        .partitionBy({"kind"})
        .option("checkpointLocation", chk)
        .trigger(api::Trigger::AvailableNow())
        .start(out);
  };
  start().awaitTermination();
  EXPECT_TRUE(*io::LocalFileSystem::Get()->Exists(out + "/kind=buy"));
  EXPECT_EQ(CountSinkRows(out), 6);
  // The batch reader sees the committed files only, with the partition column back; a
  // stray file (a crashed batch's leftover) is not read.
  Spark().range(5).write().mode("overwrite").parquet(dir / "stray");
  auto stray = io::LocalFileSystem::Get()->List(dir / "stray", false);
  ASSERT_TRUE(stray.ok());
  for (const auto& f : *stray) {
    if (io::BaseName(f.path).rfind("part-", 0) == 0) {
      ASSERT_TRUE(io::LocalFileSystem::Get()
                      ->Rename(f.path, out + "/kind=buy/part-99999-stray.parquet")
                      .ok());
    }
  }
  EXPECT_EQ(Spark().read().parquet(out).where("kind = 'buy'").count(), 2);
  EXPECT_EQ(Spark().read().parquet(out).count(), 6);
  EXPECT_EQ(Spark().read().parquet(out).schema().simpleString(),
            "struct<event_id:bigint,kind:string>");
  // A crash after the sink committed batch 0 but before commits/0: the replay is skipped
  // by the sink (its log already has batch 0).
  ASSERT_TRUE(io::LocalFileSystem::Get()->Delete(chk + "/commits/0", false).ok());
  auto q = start();
  q.awaitTermination();
  EXPECT_EQ(CountSinkRows(out), 6);
  ASSERT_TRUE(q.lastProgress().has_value());
  EXPECT_EQ(q.lastProgress()->batch_id, 0);
  EXPECT_EQ(q.lastProgress()->sink.num_output_rows, 0);
  EXPECT_TRUE(*io::LocalFileSystem::Get()->Exists(chk + "/commits/0"));
}

// A checkpoint as Spark 3.5 writes it for a file source query (hand-made from Spark's
// formats, with Spark's "file:/..." paths): the query continues with batch 1 and reads
// only the file Spark had not taken.
TEST(FileStreamTest, ContinuesASparkCheckpoint) {
  TempDir dir;
  std::string src = dir / "in", chk = dir / "chk";
  WriteFile(src + "/a.json", "{\"id\":1}\n");
  WriteFile(src + "/b.json", "{\"id\":2}\n");
  WriteFile(chk + "/metadata", "{\"id\":\"0f5f2a35-3c84-4d8c-9d22-8f8b2c8a7f11\"}");
  WriteFile(chk + "/offsets/0",
            "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1700000000000,\"conf\":{"
            "\"spark.sql.streaming."
            "stateStore.providerClass\":\"org.apache.spark.sql.execution.streaming.state."
            "HDFSBackedStateStoreProvider\","
            "\"spark.sql.streaming.join.stateFormatVersion\":\"2\",\"spark.sql.streaming."
            "stateStore.compression.codec\":"
            "\"lz4\",\"spark.sql.streaming.stateStore.rocksdb.formatVersion\":\"5\","
            "\"spark.sql.streaming.statefulOperator."
            "useStrictDistribution\":\"true\",\"spark.sql.streaming."
            "flatMapGroupsWithState.stateFormatVersion\":\"2\","
            "\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\",\"spark.sql."
            "streaming.aggregation.stateFormatVersion\":"
            "\"2\",\"spark.sql.shuffle.partitions\":\"200\"}}\n{\"logOffset\":0}");
  WriteFile(chk + "/commits/0", "v1\n{\"nextBatchWatermarkMs\":0}");
  WriteFile(chk + "/sources/0/0",
            "v1\n{\"path\":\"file:" + src +
                "/a.json\",\"timestamp\":1700000000000,\"batchId\":0}");
  auto q = Spark()
               .readStream()
               .schema("id LONG")
               .json(src)
               .writeStream()
               .format("memory")
               .queryName("from_spark")
               .option("checkpointLocation", chk)
               .trigger(api::Trigger::AvailableNow())
               .start();
  q.awaitTermination();
  EXPECT_EQ(q.id(), "0f5f2a35-3c84-4d8c-9d22-8f8b2c8a7f11");
  ASSERT_TRUE(q.lastProgress().has_value());
  EXPECT_EQ(q.lastProgress()->batch_id, 1);
  EXPECT_EQ(q.lastProgress()->sources[0].start_offset->ToString(), "{\"logOffset\":0}");
  EXPECT_EQ(q.lastProgress()->sources[0].end_offset->ToString(), "{\"logOffset\":1}");
  auto rows = Spark().sql("SELECT id FROM from_spark").collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].ToString(), "2");
  // The confs pinned by Spark's offsets/0 are carried into offsets/1.
  EXPECT_NE(ReadFile(chk + "/offsets/1").find("\"spark.sql.shuffle.partitions\":\"200\""),
            std::string::npos);
}

TEST(FileStreamTest, CompactedAndCleanedLogs) {
  TempDir dir;
  std::string src = dir / "in", out = dir / "out", chk = dir / "chk";
  for (const char* k : {"spark.sql.streaming.fileSource.log.compactInterval",
                        "spark.sql.streaming.fileSink.log.compactInterval"})
    Spark().conf().set(k, "2");
  // A bare number is milliseconds (Spark's timeConf), an interval has a unit.
  Spark().conf().set("spark.sql.streaming.fileSource.log.cleanupDelay", "0");
  Spark().conf().set("spark.sql.streaming.fileSink.log.cleanupDelay", "0 ms");
  auto run = [&] {
    Spark()
        .readStream()
        .schema("event_id LONG, kind STRING")
        .option("maxFilesPerTrigger", 1)
        .json(src)
        .writeStream()
        .format("parquet")
        .option("checkpointLocation", chk)
        .trigger(api::Trigger::AvailableNow())
        .start(out)
        .awaitTermination();
  };
  for (int b = 0; b < 5; ++b) LandJson(src, b, 2, b * 2);
  run();
  LandJson(src, 5, 2, 10);
  run();  // restart: the source log is read back from its compact file
  for (const char* k : {"spark.sql.streaming.fileSource.log.compactInterval",
                        "spark.sql.streaming.fileSink.log.compactInterval",
                        "spark.sql.streaming.fileSource.log.cleanupDelay",
                        "spark.sql.streaming.fileSink.log.cleanupDelay"})
    Spark().conf().unset(k);
  EXPECT_EQ(Spark().read().parquet(out).count(), 12);
  EXPECT_EQ(Spark().read().parquet(out).select("event_id").distinct().count(), 12);
  auto fs = io::LocalFileSystem::Get();
  EXPECT_TRUE(*fs->Exists(chk + "/sources/0/5.compact"));
  EXPECT_FALSE(*fs->Exists(chk + "/sources/0/0"));
  EXPECT_TRUE(*fs->Exists(out + "/_spark_metadata/5.compact"));
  EXPECT_FALSE(*fs->Exists(out + "/_spark_metadata/1.compact"));
}

TEST(FileStreamTest, PartitionFoldersBecomeColumns) {
  TempDir dir;
  std::string src = dir / "in";
  WriteFile(src + "/day=2024-01-01/a.json", "{\"id\":1}\n{\"id\":2}\n");
  WriteFile(src + "/day=2024-01-02/b.json", "{\"id\":3}\n");
  auto q = Spark()
               .readStream()
               .schema("id LONG, day DATE")
               .json(src)
               .writeStream()
               .format("memory")
               .queryName("parts")
               .trigger(api::Trigger::AvailableNow())
               .start();
  q.awaitTermination();
  auto rows =
      Spark().sql("SELECT id, CAST(day AS STRING) FROM parts ORDER BY id").collect();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1].ToString(), "2024-01-01");
  EXPECT_EQ(rows[2][1].ToString(), "2024-01-02");
}

TEST(FileStreamTest, JsonAndCsvSinksRoundTrip) {
  TempDir dir;
  for (const std::string fmt : {"json", "csv"}) {
    MemoryStream input(Spark(), "a INT, s STRING");
    auto w = input.toDF().writeStream().format(fmt).option("checkpointLocation",
                                                           dir / (fmt + "_chk"));
    if (fmt == "csv") w.option("header", "true");
    auto q = w.start(dir / fmt);
    input.addData({{I(1), S("x")}, {I(2), S("y")}});
    q.processAllAvailable();
    input.addData({{I(3), S("z")}});
    q.processAllAvailable();
    q.stop();
    auto r = Spark().read().format(fmt).schema("a INT, s STRING");
    if (fmt == "csv") r.option("header", "true");
    EXPECT_EQ(r.load(dir / fmt).orderBy("a").collect().size(), 3u) << fmt;
    EXPECT_TRUE(*io::LocalFileSystem::Get()->Exists(dir / (fmt + "/_spark_metadata/1")));
  }
}

// ---- Delta

TEST(DeltaStreamTest, TutorialAvailableNowIntoTable) {
  TempDir dir;
  std::string src = dir / "landing", chk = dir / "_cp/bronze";
  auto run = [&] {
    auto q = LandedJson(src)
                 .writeStream()
                 .option("checkpointLocation", chk)
                 .trigger(api::Trigger::AvailableNow())
                 .toTable("events_bronze");
    q.awaitTermination();
    return q;
  };
  LandJson(src, 1, 500, 0);
  auto q1 = run();
  EXPECT_EQ(Spark().table("events_bronze").count(), 500);
  EXPECT_EQ(q1.lastProgress()->sink.description,
            "DeltaSink[spark_catalog.default.events_bronze]");
  LandJson(src, 2, 500, 500);
  auto q2 = run();
  EXPECT_EQ(q2.lastProgress()->batch_id, 1);
  EXPECT_EQ(q2.lastProgress()->num_input_rows, 500);
  EXPECT_EQ(q2.lastProgress()->sink.num_output_rows, 500);
  EXPECT_EQ(Spark().table("events_bronze").count(), 1000);
  auto q3 = run();
  ASSERT_TRUE(q3.lastProgress().has_value());  // Spark's progress without a batch
  EXPECT_EQ(q3.lastProgress()->batch_id, 2);
  EXPECT_EQ(q3.lastProgress()->num_input_rows, 0);
  EXPECT_EQ(Spark().table("events_bronze").count(), 1000);
  Spark().sql("DROP TABLE events_bronze");
}

TEST(DeltaStreamTest, CommitCarriesTxnAndReplayIsSkipped) {
  TempDir dir;
  std::string out = dir / "table", chk = dir / "chk";
  MemoryStream input(Spark(), "a INT");
  auto start = [&] {
    return input.toDF()
        .writeStream()
        .format("delta")
        .option("checkpointLocation", chk)
        .start(out);
  };
  auto q = start();
  input.addData({{I(1)}, {I(2)}});
  q.processAllAvailable();
  q.stop();
  std::string commit0 = ReadFile(out + "/_delta_log/00000000000000000000.json");
  EXPECT_NE(commit0.find("\"operation\":\"STREAMING UPDATE\""), std::string::npos)
      << commit0;
  EXPECT_NE(commit0.find("\"txn\":{\"appId\":\"" + q.id() + "\",\"version\":0"),
            std::string::npos)
      << commit0;
  EXPECT_NE(commit0.find("\"outputMode\":\"Append\""), std::string::npos) << commit0;
  EXPECT_NE(commit0.find("\"epochId\":\"0\""), std::string::npos) << commit0;
  // Crash between the Delta commit and commits/0: the replay commits nothing.
  ASSERT_TRUE(io::LocalFileSystem::Get()->Delete(chk + "/commits/0", false).ok());
  auto q2 = start();
  q2.processAllAvailable();
  EXPECT_EQ(q2.lastProgress()->batch_id, 0);
  EXPECT_EQ(q2.lastProgress()->sink.num_output_rows, 0);
  EXPECT_FALSE(
      *io::LocalFileSystem::Get()->Exists(out + "/_delta_log/00000000000000000001.json"));
  input.addData({{I(3)}});
  q2.processAllAvailable();
  q2.stop();
  EXPECT_EQ(Spark().read().format("delta").load(out).count(), 3);
  EXPECT_NE(ReadFile(out + "/_delta_log/00000000000000000001.json").find("\"version\":1"),
            std::string::npos);
}

TEST(DeltaStreamTest, SourceReadsCommitsInOrder) {
  TempDir dir;
  std::string src = dir / "src", chk = dir / "chk";
  auto append = [&](int from, int n) {
    Rows rows;
    for (int i = from; i < from + n; ++i)
      rows.push_back({L(i), S(i % 2 ? "odd" : "even")});
    Spark()
        .createDataFrame(rows, "id BIGINT, p STRING")
        .write()
        .format("delta")
        .mode("append")
        .partitionBy({"p"})
        .save(src);
  };
  append(0, 4);  // version 0 (two files: one per partition)
  append(4, 4);  // version 1
  auto run = [&](const std::map<std::string, std::string>& opts) {
    auto q = Spark()
                 .readStream()
                 .format("delta")
                 .options(opts)
                 .load(src)
                 .writeStream()
                 .format("memory")
                 .queryName("delta_src")
                 .option("checkpointLocation", chk)
                 .trigger(api::Trigger::AvailableNow())
                 .start();
    q.awaitTermination();
    return q;
  };
  auto q1 = run({{"maxFilesPerTrigger", "1"}});
  // The snapshot at version 1 (4 files), one file per batch.
  EXPECT_EQ(q1.recentProgress().size(), 4u);
  EXPECT_EQ(Spark()
                .sql("SELECT count(*), sum(id), count(DISTINCT p) FROM delta_src")
                .collect()[0]
                .toString(),
            "Row(count(1)=8, sum(id)=28, count(DISTINCT p)=2)");
  std::string off = q1.lastProgress()->sources[0].end_offset->ToString();
  EXPECT_NE(off.find("\"sourceVersion\":1,\"reservoirId\":\""), std::string::npos) << off;
  EXPECT_NE(off.find("\"reservoirVersion\":1,\"index\":3,\"isStartingVersion\":true}"),
            std::string::npos)
      << off;
  append(8, 2);  // version 2
  auto q2 = run({});
  ASSERT_EQ(q2.recentProgress().size(), 1u);
  EXPECT_EQ(q2.lastProgress()->num_input_rows, 2);
  // An overwrite removes files: the source refuses it unless told to skip change commits.
  Spark()
      .createDataFrame({{L(100), S("x")}}, "id BIGINT, p STRING")
      .write()
      .format("delta")
      .mode("overwrite")
      .save(src);
  try {
    run({});
    ADD_FAILURE() << "expected DELTA_SOURCE_TABLE_IGNORE_CHANGES";
  } catch (const api::StreamingQueryException& e) {
    EXPECT_NE(std::string(e.what()).find("DELTA_SOURCE_TABLE_IGNORE_CHANGES"),
              std::string::npos)
        << e.what();
  }
  append(200, 1);  // version 4
  auto q3 = run({{"skipChangeCommits", "true"}});
  EXPECT_EQ(q3.lastProgress()->num_input_rows, 1);
  // startingVersion: only the changes from that version on.
  TempDir dir2;
  auto q4 = Spark()
                .readStream()
                .format("delta")
                .option("startingVersion", "2")
                .load(src)
                .writeStream()
                .format("memory")
                .queryName("delta_from2")
                .option("checkpointLocation", dir2 / "chk")
                .option("skipChangeCommits", "true")
                .trigger(api::Trigger::AvailableNow())
                .start();
  try {
    q4.awaitTermination();
  } catch (const api::StreamingQueryException& e) {
    EXPECT_NE(std::string(e.what()).find("DELTA_SOURCE_TABLE_IGNORE_CHANGES"),
              std::string::npos)
        << e.what();
  }
  auto q5 = Spark()
                .readStream()
                .format("delta")
                .option("startingVersion", "4")
                .load(src)
                .writeStream()
                .format("memory")
                .queryName("delta_from4")
                .option("checkpointLocation", dir2 / "chk4")
                .trigger(api::Trigger::AvailableNow())
                .start();
  q5.awaitTermination();
  EXPECT_EQ(Spark().sql("SELECT count(*) FROM delta_from4").collect()[0][0].ToString(),
            "1");
}

// A commit that rewrites files (here an overwrite of one partition: remove + add) as the
// three options treat it, as Delta does: by default the query fails; skipChangeCommits
// skips the commit; ignoreChanges emits the rewritten file's rows again (all of them, the
// unchanged ones too) and ignores the remove.
TEST(DeltaStreamTest, IgnoreChangesReEmitsRewrittenFiles) {
  TempDir dir;
  std::string src = dir / "src";
  auto write = [&](const Rows& rows, const std::string& mode,
                   const std::map<std::string, std::string>& opts) {
    Spark()
        .createDataFrame(rows, "id BIGINT, p STRING")
        .write()
        .format("delta")
        .mode(mode)
        .options(opts)
        .partitionBy({"p"})
        .save(src);
  };
  write({{L(0), S("even")}, {L(1), S("odd")}, {L(3), S("odd")}}, "append", {});  // v0
  // v1 rewrites the odd partition: 1 stays, 3 becomes 5.
  write({{L(1), S("odd")}, {L(5), S("odd")}}, "overwrite",
        {{"replaceWhere", "p = 'odd'"}});
  write({{L(10), S("even")}}, "append", {});  // v2
  int run = 0;
  auto ids_from_v1 = [&](const std::string& option) {
    std::string name = "delta_changes_" + std::to_string(run++);
    auto reader = Spark().readStream().format("delta").option("startingVersion", "1");
    if (!option.empty()) reader.option(option, "true");
    auto q = reader.load(src)
                 .writeStream()
                 .format("memory")
                 .queryName(name)
                 .option("checkpointLocation", dir / name)
                 .trigger(api::Trigger::AvailableNow())
                 .start();
    q.awaitTermination();
    std::string ids;
    for (const auto& row :
         Spark().sql("SELECT id FROM " + name + " ORDER BY id").collect())
      ids += (ids.empty() ? "" : ",") + row[0].ToString();
    return ids;
  };
  EXPECT_EQ(ids_from_v1("ignoreChanges"), "1,5,10");
  EXPECT_EQ(ids_from_v1("skipChangeCommits"), "10");
  for (const char* option : {"", "ignoreDeletes"}) {
    try {
      ids_from_v1(option);
      ADD_FAILURE() << "expected DELTA_SOURCE_TABLE_IGNORE_CHANGES with '" << option
                    << "'";
    } catch (const api::StreamingQueryException& e) {
      EXPECT_NE(std::string(e.what()).find("DELTA_SOURCE_TABLE_IGNORE_CHANGES"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(DeltaStreamTest, TableToTable) {
  TempDir dir;
  Spark()
      .createDataFrame({{L(1)}, {L(2)}}, "id BIGINT")
      .write()
      .format("delta")
      .mode("overwrite")
      .save(dir / "bronze");
  auto q = Spark()
               .readStream()
               .format("delta")
               .load(dir / "bronze")
               .selectExpr("id * 10 AS id10")
               .writeStream()
               .format("delta")
               .option("checkpointLocation", dir / "chk")
               .trigger(api::Trigger::AvailableNow())
               .start(dir / "silver");
  q.awaitTermination();
  EXPECT_EQ(Spark().read().format("delta").load(dir / "silver").count(), 2);
  EXPECT_EQ(q.lastProgress()->sources[0].description,
            "DeltaSource[file://" + (dir / "bronze") + "]");
}

}  // namespace
}  // namespace spate::testing
