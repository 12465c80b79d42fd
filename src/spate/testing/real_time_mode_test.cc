// Copyright spate authors.
// Real-time mode (Trigger.RealTime, issue 17): records reach the sink while the long
// batch is still running, the batch's offsets are logged at its end, the foreach writer
// stays open across the batch's pieces, a restart resumes from the last logged batch, and
// every refusal carries Spark 4.2's error class and message (checked against real Spark
// by tests/differential and by hand: docs/real-time-mode.md).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/stream_test.h"
#include "spate/testing/temp_files.h"

namespace spate::testing {
namespace {

using api::MemoryStream;
using api::SparkSession;

SparkSession Spark() {
  static SparkSession s = [] {
    auto spark = TestSession("real-time-mode-tests");
    // Spark's tests lower the minimum batch duration the same way.
    spark.conf().set("spark.sql.streaming.realTimeMode.minBatchDuration", "100");
    return spark;
  }();
  return s;
}

std::string TempDir(const std::string& what) { return MakeTestDir("spate-rtm", what); }

// Waits (without a time limit of its own: the test's timeout is the limit) until `pred`.
template <typename Pred>
void Eventually(Pred pred) {
  while (!pred()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

int64_t RowCount(SparkSession& spark, const std::string& view) {
  return spark.sql("SELECT count(*) FROM " + view).collect()[0].getLong(0);
}

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(RealTimeMode, RecordsReachTheSinkBeforeTheBatchEnds) {
  auto spark = Spark();
  spark.conf().set("spark.sql.streaming.realTimeMode.allowlistCheck", "false");
  MemoryStream input(spark, "v BIGINT");
  const std::string chk = TempDir("sink");
  // A batch of one hour: nothing is committed while the test runs, yet rows arrive.
  auto q = input.toDF()
               .selectExpr("v * 10 AS v")
               .writeStream()
               .format("memory")
               .queryName("rtm_rows")
               .outputMode("update")
               .option("checkpointLocation", chk)
               .trigger(api::Trigger::RealTime("1 hour"))
               .start();
  for (int i = 1; i <= 3; ++i) {
    input.addData({{Value::Long(i)}});
    Eventually([&] { return RowCount(spark, "rtm_rows") == i; });
  }
  EXPECT_TRUE(q.recentProgress().empty());  // the batch is still open
  auto fs = io::LocalFileSystem::Get();
  EXPECT_FALSE(fs->Exists(io::JoinPath(chk, "offsets/0")).value());
  auto rows = spark.sql("SELECT v FROM rtm_rows ORDER BY v").collect();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].getLong(0), 30);
  q.stop();
  // Stopping ends the batch: its offsets and commit are logged, its progress reported.
  EXPECT_TRUE(fs->Exists(io::JoinPath(chk, "offsets/0")).value());
  EXPECT_TRUE(fs->Exists(io::JoinPath(chk, "commits/0")).value());
  ASSERT_EQ(q.recentProgress().size(), 1u);
  EXPECT_EQ(q.recentProgress()[0].num_input_rows, 3);
  spark.conf().unset("spark.sql.streaming.realTimeMode.allowlistCheck");
}

TEST(RealTimeMode, BatchesCheckpointAtTheirDurationAndRestartResumes) {
  auto spark = Spark();
  spark.conf().set("spark.sql.streaming.realTimeMode.allowlistCheck", "false");
  const std::string chk = TempDir("restart");
  MemoryStream input(spark, "v BIGINT");
  auto start = [&] {
    return input.toDF()
        .writeStream()
        .format("memory")
        .queryName("rtm_restart")
        .outputMode("update")
        .option("checkpointLocation", chk)
        .trigger(api::Trigger::RealTime("150 milliseconds"))
        .start();
  };
  auto q = start();
  input.addData({{Value::Long(1)}, {Value::Long(2)}});
  Eventually([&] {
    int64_t in = 0;
    for (const auto& p : q.recentProgress()) in += p.num_input_rows;
    return in == 2;
  });
  // Batches go on every 150 ms, with or without data.
  Eventually([&] { return q.recentProgress().size() >= 3; });
  q.stop();
  const int64_t logged = q.lastProgress()->batch_id;
  // A restart continues after the last logged batch and does not read rows 1, 2 again.
  auto q2 = start();
  input.addData({{Value::Long(3)}});
  Eventually([&] { return RowCount(spark, "rtm_restart") == 1; });
  q2.stop();
  EXPECT_GT(q2.recentProgress().front().batch_id, logged);
  auto rows = spark.sql("SELECT v FROM rtm_restart").collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].getLong(0), 3);
  spark.conf().unset("spark.sql.streaming.realTimeMode.allowlistCheck");
}

// Records open / process / close calls.
class RecordingWriter final : public api::ForeachWriter {
 public:
  bool open(int64_t partition_id, int64_t epoch_id) override {
    std::lock_guard<std::mutex> l(mu);
    log.push_back("open " + std::to_string(partition_id) + " " +
                  std::to_string(epoch_id));
    return true;
  }
  void process(const api::Row& row) override {
    std::lock_guard<std::mutex> l(mu);
    log.push_back("process " + std::to_string(row.getLong(0)));
    ++processed;
  }
  void close(const std::optional<std::string>& error) override {
    std::lock_guard<std::mutex> l(mu);
    log.push_back(error ? "close " + *error : "close");
  }
  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> l(mu);
    return log;
  }
  std::mutex mu;
  std::vector<std::string> log;
  std::atomic<int> processed{0};
};

TEST(RealTimeMode, ForeachWriterStaysOpenForTheWholeBatch) {
  auto spark = Spark();
  MemoryStream input(spark, "v BIGINT");
  auto writer = std::make_shared<RecordingWriter>();
  auto q = input.toDF()
               .writeStream()
               .foreach (writer)
               .outputMode("update")
               .option("checkpointLocation", TempDir("foreach"))
               .trigger(api::Trigger::RealTime("1 hour"))
               .start();
  for (int i = 1; i <= 3; ++i) {
    input.addData({{Value::Long(i)}});
    Eventually([&] { return writer->processed.load() == i; });
  }
  q.stop();
  EXPECT_EQ(writer->Log(), (std::vector<std::string>{"open 0 0", "process 1", "process 2",
                                                     "process 3", "close"}));
}

TEST(RealTimeMode, RefusedAsSparkRefuses) {
  auto spark = Spark();
  MemoryStream input(spark, "k STRING, v BIGINT");
  const std::string chk = TempDir("errors");
  auto err_start = [&](api::DataFrame df, const std::string& mode, const std::string& dur,
                       const std::string& format) {
    return ErrorOf([&] {
      auto w = df.writeStream()
                   .outputMode(mode)
                   .option("checkpointLocation", chk)
                   .trigger(api::Trigger::RealTime(dur));
      if (format == "foreachBatch") {
        w.foreachBatch([](const api::DataFrame&, int64_t) {});
      } else {
        w.format(format);
        if (format == "memory") w.queryName("rtm_err");
      }
      w.start().stop();
    });
  };
  // Checked at start, in Spark's order.
  struct Refusal {
    const char* mode;
    const char* trigger;
    const char* sink;
    const char* error;
  };
  for (const Refusal& r :
       {Refusal{"append", "5 seconds", "console",
                "[STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED] Streaming "
                "real-time mode has the following limitation: The output mode Append "
                "is not supported. To work around this limitation, set the output "
                "mode to Update. In the future, Append may be supported."},
        Refusal{"update", "50 milliseconds", "console",
                "[INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL] The real-time "
                "trigger interval is set to 50 ms. This is less than the 100 ms "
                "minimum specified by "
                "spark.sql.streaming.realTimeMode.minBatchDuration."},
        Refusal{"update", "5 seconds", "foreachBatch",
                "[STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST] "
                "Streaming real-time mode has the following limitation: The sink(s): "
                "org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink "
                "is not in the sink allowlist for Real-Time Mode."},
        Refusal{"update", "5 seconds", "memory",
                "sources.MemorySink is not in the sink allowlist"}}) {
    std::string err = err_start(input.toDF(), r.mode, r.trigger, r.sink);
    EXPECT_NE(err.find(r.error), std::string::npos) << err;
  }
  EXPECT_EQ(err_start(input.toDF(), "update", "5 seconds", "console"), "");

  // Checked when the first batch is planned: the query fails (STREAM_FAILED).
  auto err_run = [&](const api::DataFrame& df) {
    auto q = df.writeStream()
                 .format("console")
                 .outputMode("update")
                 .option("checkpointLocation", TempDir("run-errors"))
                 .trigger(api::Trigger::RealTime("5 seconds"))
                 .start();
    std::string err = ErrorOf([&] {
      if (!q.awaitTermination(20.0))
        throw std::runtime_error("the query is still running");
    });
    q.stop();
    return err;
  };
  auto rate = spark.readStream().format("rate").load();
  EXPECT_NE(err_run(rate).find(
                "[STREAMING_REAL_TIME_MODE.INPUT_STREAM_NOT_SUPPORTED] Streaming "
                "real-time mode has the following limitation: The input stream "
                "org.apache.spark.sql.execution.streaming.sources."
                "RateStreamMicroBatchStream is not supported in Real-time Mode."),
            std::string::npos);
  EXPECT_NE(
      err_run(input.toDF().groupBy("k").count())
          .find(
              "The operator(s): org.apache.spark.sql.execution.aggregate."
              "HashAggregateExec, org.apache.spark.sql.execution.exchange."
              "ShuffleExchangeExec, org.apache.spark.sql.execution.streaming.operators."
              "stateful.StateStoreRestoreExec, org.apache.spark.sql.execution.streaming."
              "operators.stateful.StateStoreSaveExec are not in the operator allowlist "
              "for Real-Time Mode."),
      std::string::npos);
  EXPECT_NE(
      err_run(input.toDF().dropDuplicates({"k"}))
          .find("The operator(s): org.apache.spark.sql.execution.exchange."
                "ShuffleExchangeExec, org.apache.spark.sql.execution.streaming.operators."
                "stateful.StreamingDeduplicateExec are not in the operator allowlist"),
      std::string::npos);
  auto df = input.toDF();
  EXPECT_NE(
      err_run(df.unionAll(df))
          .find("[STREAMING_REAL_TIME_MODE.IDENTICAL_SOURCES_IN_UNION_NOT_SUPPORTED]"),
      std::string::npos);
}

}  // namespace
}  // namespace spate::testing
