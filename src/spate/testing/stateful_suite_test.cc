// Copyright spate authors.
// Stateful streaming end to end through the public API (StreamTest DSL over a
// MemoryStream): streaming aggregations in the three output modes, watermarks and
// event-time windows (late rows, eviction, no-data batches), deduplication, Spark's
// unsupported-operation errors, state schema checks across restarts, progress. Every
// DSL suite runs as is and with a restart after each check, against both state store
// providers.

#include <gtest/gtest.h>

#include <tuple>

#include "spate/api/datetime_functions.h"
#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::MemoryStream;
using api::SparkSession;
namespace F = api::functions;

SparkSession Spark() {
  static SparkSession s = TestSession("stateful-tests");
  return s;
}

Value I(int32_t v) { return Value::Int(v); }
Value L(int64_t v) { return Value::Long(v); }
Value S(const std::string& v) { return Value::String(v); }
Value D(double v) { return Value::Double(v); }
// 2026-01-01 12:00 UTC + `minutes`.
Value T(int minutes, int seconds = 0) {
  return Value::Timestamp((1767225600LL + 12 * 3600 + minutes * 60LL + seconds) *
                          1000000LL);
}
std::string Clock(int minutes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-01-01 %02d:%02d:00", 12 + minutes / 60,
                minutes % 60);
  return buf;
}

// (restart after every check, state store provider)
class StatefulTest : public ::testing::TestWithParam<std::tuple<RunMode, std::string>> {
 protected:
  void SetUp() override {
    Spark().conf().set("spark.sql.streaming.stateStore.providerClass", provider());
  }
  void TearDown() override {
    Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
  }
  RunMode restart() const { return std::get<0>(GetParam()); }
  std::string provider() const {
    return StateStoreProviderClass(std::get<1>(GetParam()));
  }
};

TEST_P(StatefulTest, GlobalCountThroughSelectExprIsARunningTotal) {
  // The bug of issue 12: selectExpr("count(*)") ran per batch (10, 10, 10).
  for (const char* mode : {"complete", "update"}) {
    MemoryStream input(Spark(), "a INT");
    StreamTest t(Spark(), input.toDF().selectExpr("count(*) AS n"), mode);
    Rows ten;
    for (int i = 0; i < 10; ++i) ten.push_back({I(i)});
    std::string err =
        t.Run({StreamTest::StartStream(), StreamTest::AddData(input, ten),
               StreamTest::CheckLastBatch({{L(10)}}), StreamTest::AddData(input, ten),
               StreamTest::CheckLastBatch({{L(20)}}), StreamTest::AddData(input, ten),
               StreamTest::CheckLastBatch({{L(30)}})},
              restart());
    EXPECT_EQ(err, "") << mode;
  }
}

TEST_P(StatefulTest, GroupedAggregateUpdateModeEmitsChangedKeys) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF().groupBy("k").agg(
      F::sum(F::col("v")).alias("s"), F::count(F::col("v")).alias("c"),
      F::min(F::col("v")).alias("lo"), F::max(F::col("v")).alias("hi"),
      F::avg(F::col("v")).alias("mean"));
  StreamTest t(Spark(), df, "update");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{S("a"), I(1)}, {S("b"), I(2)}, {S("a"), I(3)}}),
             StreamTest::CheckLastBatch({{S("a"), L(4), L(2), I(1), I(3), D(2.0)},
                                         {S("b"), L(2), L(1), I(2), I(2), D(2.0)}}),
             StreamTest::AddData(input, {{S("a"), I(5)}}),
             StreamTest::CheckLastBatch({{S("a"), L(9), L(3), I(1), I(5), D(3.0)}}),
             StreamTest::AddData(input, {{S("c"), I(7)}, {S("b"), I(-2)}}),
             StreamTest::CheckLastBatch({{S("c"), L(7), L(1), I(7), I(7), D(7.0)},
                                         {S("b"), L(0), L(2), I(-2), I(2), D(0.0)}})},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, CompleteModeWithSortAndCollectList) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF()
                     .groupBy("k")
                     .agg(F::count(F::lit(1)).alias("n"),
                          F::sort_array(F::collect_set(F::col("v"))).alias("vs"))
                     .orderBy(F::col("n").desc(), F::col("k"))
                     .selectExpr("k", "n", "CAST(vs AS STRING) AS vs");
  StreamTest t(Spark(), df, "complete");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("x"), I(1)}, {S("y"), I(2)}}),
       StreamTest::CheckAnswer({{S("x"), L(1), S("[1]")}, {S("y"), L(1), S("[2]")}}),
       StreamTest::AddData(input, {{S("y"), I(3)}, {S("y"), I(2)}, {S("z"), I(9)}}),
       StreamTest::CheckAnswer({{S("y"), L(3), S("[2, 3]")},
                                {S("x"), L(1), S("[1]")},
                                {S("z"), L(1), S("[9]")}})},
      restart());
  EXPECT_EQ(err, "");
}

// The programming guide's shape: 10-minute windows, a 10-minute watermark, append mode.
DataFrame WindowedCounts(const MemoryStream& input) {
  return input.toDF()
      .withWatermark("ts", "10 minutes")
      .groupBy(F::window(F::col("ts"), "10 minutes"), F::col("word"))
      .count()
      .selectExpr("CAST(window.start AS STRING) AS start", "word", "count");
}

TEST_P(StatefulTest, AppendModeEmitsAWindowOnceTheWatermarkPassesIt) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  StreamTest t(Spark(), WindowedCounts(input), "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{T(7), S("a")}, {T(8), S("b")}}),
             StreamTest::CheckAnswer({}),  // watermark 11:58: nothing final
             StreamTest::AddData(input, {{T(14), S("a")}, {T(25), S("c")}}),
             // watermark 12:15 (a no-data batch evicts): [12:00, 12:10) is final.
             StreamTest::CheckAnswer(
                 {{S(Clock(0)), S("a"), L(1)}, {S(Clock(0)), S("b"), L(1)}}),
             // Late: its window ended before the watermark; dropped and counted.
             StreamTest::AddData(input, {{T(4), S("a")}, {T(26), S("c")}}),
             StreamTest::CheckAnswer(
                 {{S(Clock(0)), S("a"), L(1)}, {S(Clock(0)), S("b"), L(1)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   for (const auto& p : q.recentProgress()) {
                     if (!p.state_operators.empty() &&
                         p.state_operators[0].num_rows_dropped_by_watermark == 1)
                       return true;
                   }
                   return false;
                 },
                 "one late row counted in numRowsDroppedByWatermark"),
             StreamTest::AddData(input, {{T(45), S("d")}}),
             // watermark 12:35: [12:10, 12:20) and [12:20, 12:30) are final.
             StreamTest::CheckAnswer({{S(Clock(0)), S("a"), L(1)},
                                      {S(Clock(0)), S("b"), L(1)},
                                      {S(Clock(10)), S("a"), L(1)},
                                      {S(Clock(20)), S("c"), L(2)}})},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, UpdateModeWithWatermarkEvictsWithoutOutput) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  StreamTest t(Spark(), WindowedCounts(input), "update");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{T(7), S("a")}, {T(8), S("a")}}),
             StreamTest::CheckNewAnswer({{S(Clock(0)), S("a"), L(2)}}),
             StreamTest::AddData(input, {{T(9), S("a")}, {T(31), S("b")}}),
             StreamTest::CheckNewAnswer(
                 {{S(Clock(0)), S("a"), L(3)}, {S(Clock(30)), S("b"), L(1)}}),
             // Watermark 12:21: [12:00, 12:10) was evicted; a row for it is late.
             StreamTest::AddData(input, {{T(5), S("a")}, {T(32), S("b")}}),
             StreamTest::CheckNewAnswer({{S(Clock(30)), S("b"), L(2)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && !p->state_operators.empty() &&
                          p->state_operators[0].num_rows_total == 1 &&
                          p->state_operators[0].operator_name == "stateStoreSave";
                 },
                 "one window left in state")},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, SlidingWindows) {
  MemoryStream input(Spark(), "ts TIMESTAMP, v INT");
  DataFrame df = input.toDF()
                     .withWatermark("ts", "0 seconds")
                     .groupBy(F::window(F::col("ts"), "10 minutes", "5 minutes"))
                     .agg(F::sum(F::col("v")).alias("s"))
                     .selectExpr("CAST(window.start AS STRING) AS start", "s");
  StreamTest t(Spark(), df, "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{T(7), I(1)}, {T(12), I(2)}}),
             // 12:07 is in [12:00, 12:10) and [12:05, 12:15); 12:12 in [12:05, 12:15) and
             // [12:10, 12:20). Watermark 12:12: [12:00, 12:10) is final.
             StreamTest::CheckAnswer({{S(Clock(0)), L(1)}}),
             StreamTest::AddData(input, {{T(30), I(4)}}),
             // Watermark 12:30: every window ending by then.
             StreamTest::CheckAnswer(
                 {{S(Clock(0)), L(1)}, {S(Clock(5)), L(3)}, {S(Clock(10)), L(2)}})},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, DropDuplicatesWithoutWatermarkKeepsEveryKey) {
  MemoryStream input(Spark(), "id INT, v STRING");
  StreamTest t(Spark(), input.toDF().dropDuplicates({"id"}), "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{I(1), S("a")}, {I(2), S("b")}, {I(1), S("c")}}),
             StreamTest::CheckAnswer({{I(1), S("a")}, {I(2), S("b")}}),
             StreamTest::AddData(input, {{I(2), S("x")}, {I(3), S("y")}}),
             StreamTest::CheckNewAnswer({{I(3), S("y")}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && p->state_operators.size() == 1 &&
                          p->state_operators[0].operator_name == "dedupe" &&
                          p->state_operators[0].num_rows_total == 3 &&
                          p->state_operators[0].custom_metrics.at(
                              "numDroppedDuplicateRows") == 1;
                 },
                 "three keys in state, one duplicate dropped")},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, DistinctOnAStream) {
  MemoryStream input(Spark(), "v INT");
  StreamTest t(Spark(), input.toDF().distinct(), "append");
  std::string err = t.Run(
      {StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}, {I(1)}, {I(2)}}),
       StreamTest::CheckAnswer({{I(1)}, {I(2)}}),
       StreamTest::AddData(input, {{I(2)}, {I(3)}}),
       StreamTest::CheckAnswer({{I(1)}, {I(2)}, {I(3)}})},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, DropDuplicatesWithWatermarkEvictsOldKeys) {
  MemoryStream input(Spark(), "id INT, ts TIMESTAMP");
  DataFrame df =
      input.toDF().withWatermark("ts", "5 minutes").dropDuplicates({"id", "ts"});
  StreamTest t(Spark(), df.selectExpr("id", "CAST(ts AS STRING) AS ts"), "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{I(1), T(0)}, {I(1), T(0)}, {I(2), T(10)}}),
             StreamTest::CheckAnswer({{I(1), S(Clock(0))}, {I(2), S(Clock(10))}}),
             // Watermark 12:05: key (1, 12:00) evicted; a row at 12:00 is late anyway.
             StreamTest::AddData(input, {{I(1), T(0)}, {I(3), T(20)}}),
             StreamTest::CheckNewAnswer({{I(3), S(Clock(20))}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   // (2, 12:10) evicted by watermark 12:15 too: only (3, 12:20) stays.
                   return p && p->state_operators.size() == 1 &&
                          p->state_operators[0].num_rows_total == 1;
                 },
                 "evicted keys left the state")},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, DropDuplicatesWithinWatermark) {
  MemoryStream input(Spark(), "id INT, ts TIMESTAMP");
  DataFrame df = input.toDF()
                     .withWatermark("ts", "10 minutes")
                     .dropDuplicatesWithinWatermark({"id"})
                     .selectExpr("id", "CAST(ts AS STRING) AS ts");
  StreamTest t(Spark(), df, "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{I(1), T(0)}, {I(1), T(3)}, {I(2), T(5)}}),
             StreamTest::CheckAnswer({{I(1), S(Clock(0))}, {I(2), S(Clock(5))}}),
             // Watermark 11:55 -> 12:20 after this batch: id 1 (expires 12:10) stays
             // until then.
             StreamTest::AddData(input, {{I(1), T(8)}, {I(9), T(30)}}),
             StreamTest::CheckNewAnswer({{I(9), S(Clock(30))}}),
             // Watermark 12:20: id 1 expired (12:10 <= 12:20) so it is new again.
             StreamTest::AddData(input, {{I(1), T(25)}}),
             StreamTest::CheckNewAnswer({{I(1), S(Clock(25))}})},
            restart());
  EXPECT_EQ(err, "");
}

// Sessions merge across batches: an event between two stored sessions joins them.
DataFrame Sessions(const MemoryStream& input, bool watermark) {
  DataFrame in =
      watermark ? input.toDF().withWatermark("ts", "10 minutes") : input.toDF();
  return in.groupBy(F::col("user"), F::session_window(F::col("ts"), "5 minutes"))
      .count()
      .selectExpr("user", "CAST(session_window.start AS STRING) AS s",
                  "CAST(session_window.end AS STRING) AS e", "count");
}

TEST_P(StatefulTest, SessionWindowsCompleteMode) {
  MemoryStream input(Spark(), "user STRING, ts TIMESTAMP");
  StreamTest t(Spark(), Sessions(input, false), "complete");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("u1"), T(0)}, {S("u1"), T(2)}, {S("u2"), T(1)}}),
       StreamTest::CheckAnswer({{S("u1"), S(Clock(0)), S(Clock(7)), L(2)},
                                {S("u2"), S(Clock(1)), S(Clock(6)), L(1)}}),
       StreamTest::AddData(input, {{S("u1"), T(10)}}),
       StreamTest::CheckAnswer({{S("u1"), S(Clock(0)), S(Clock(7)), L(2)},
                                {S("u1"), S(Clock(10)), S(Clock(15)), L(1)},
                                {S("u2"), S(Clock(1)), S(Clock(6)), L(1)}}),
       StreamTest::AddData(input, {{S("u1"), T(6)}}),
       StreamTest::CheckAnswer({{S("u1"), S(Clock(0)), S(Clock(15)), L(4)},
                                {S("u2"), S(Clock(1)), S(Clock(6)), L(1)}})},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, SessionWindowsAppendModeAfterTheWatermark) {
  MemoryStream input(Spark(), "user STRING, ts TIMESTAMP");
  StreamTest t(Spark(), Sessions(input, true), "append");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("u1"), T(0)}, {S("u1"), T(2)}, {S("u2"), T(1)}}),
       StreamTest::CheckAnswer({}),
       StreamTest::AddData(input, {{S("u1"), T(10)}, {S("u1"), T(6)}}),
       StreamTest::CheckAnswer({}),
       // Watermark 12:30: both sessions are over; u3's is open.
       StreamTest::AddData(input, {{S("u3"), T(40)}}),
       StreamTest::CheckAnswer({{S("u1"), S(Clock(0)), S(Clock(15)), L(4)},
                                {S("u2"), S(Clock(1)), S(Clock(6)), L(1)}}),
       // Late for the closed sessions: dropped.
       StreamTest::AddData(input, {{S("u1"), T(3)}, {S("u3"), T(42)}}),
       StreamTest::AddData(input, {{S("u9"), T(70)}}),
       StreamTest::CheckAnswer({{S("u1"), S(Clock(0)), S(Clock(15)), L(4)},
                                {S("u2"), S(Clock(1)), S(Clock(6)), L(1)},
                                {S("u3"), S(Clock(40)), S(Clock(47)), L(2)}})},
      restart());
  EXPECT_EQ(err, "");
}

// Aggregates whose partial states merge across batches, not only sum and count.
TEST_P(StatefulTest, MergeableAggregatesAcrossBatches) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF().groupBy("k").agg(
      F::first(F::col("v")).alias("f"), F::last(F::col("v")).alias("l"),
      F::stddev_samp(F::col("v")).alias("sd"),
      F::approx_count_distinct(F::col("v")).alias("nd"),
      F::sort_array(F::collect_list(F::col("v"))).alias("all"));
  StreamTest t(Spark(),
               df.selectExpr("k", "f", "l", "round(sd, 6) AS sd", "nd",
                             "CAST(`all` AS STRING) AS vs"),
               "complete");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("a"), I(1)}, {S("a"), I(3)}}),
       StreamTest::CheckAnswer({{S("a"), I(1), I(3), D(1.414214), L(2), S("[1, 3]")}}),
       StreamTest::AddData(input, {{S("a"), I(5)}, {S("a"), I(3)}}),
       StreamTest::CheckAnswer(
           {{S("a"), I(1), I(3), D(1.632993), L(3), S("[1, 3, 3, 5]")}})},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StatefulTest, GlobalLimitAcrossBatches) {
  MemoryStream input(Spark(), "a INT");
  StreamTest t(Spark(), input.toDF().where("a > 0").limit(3), "append");
  std::string err = t.Run(
      {StreamTest::StartStream(), StreamTest::AddData(input, {{I(1)}, {I(-1)}, {I(2)}}),
       StreamTest::CheckAnswer({{I(1)}, {I(2)}}),
       StreamTest::AddData(input, {{I(3)}, {I(4)}}),
       StreamTest::CheckAnswer({{I(1)}, {I(2)}, {I(3)}}),
       StreamTest::AddData(input, {{I(5)}}),
       StreamTest::CheckAnswer({{I(1)}, {I(2)}, {I(3)}}),
       StreamTest::AssertOnQuery(
           [](const api::StreamingQuery& q) {
             auto p = q.lastProgress();
             return p && p->state_operators.size() == 1 &&
                    p->state_operators[0].operator_name == "globalLimit";
           },
           "a globalLimit operator")},
      restart());
  EXPECT_EQ(err, "");
}

// Spark's optimizer moves a filter that does not read the event-time column below
// withWatermark, so the watermark comes from the rows that pass it: the dropped 12:50 row
// does not advance it, and the 12:08 row of the next batch is still on time.
TEST_P(StatefulTest, WatermarkComesFromTheRowsAFilterKeeps) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  DataFrame df =
      input.toDF()
          .withWatermark("ts", "10 minutes")
          .where("word <> 'x'")
          .groupBy(F::window(F::col("ts"), "10 minutes"), F::col("word"))
          .count()
          .selectExpr("CAST(window.start AS STRING) AS start", "word", "count");
  StreamTest t(Spark(), df, "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{T(7), S("a")}, {T(50), S("x")}}),
             StreamTest::CheckAnswer({}),  // watermark 11:57 (12:40 before the filter)
             StreamTest::AddData(input, {{T(8), S("a")}}), StreamTest::CheckAnswer({}),
             StreamTest::AddData(input, {{T(30), S("b")}}),  // watermark 12:20
             StreamTest::CheckAnswer({{S(Clock(0)), S("a"), L(2)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && p->event_time.count("watermark") &&
                          p->event_time.at("watermark") == "2026-01-01T12:20:00.000Z";
                 },
                 "the watermark of the rows the filter keeps")},
            restart());
  EXPECT_EQ(err, "");
}

// One-side conjuncts of a WHERE above a stream-stream join move into that side, so the
// join state keeps only the rows that pass them (Spark's PushPredicateThroughJoin).
TEST_P(StatefulTest, StreamJoinStateKeepsOnlyRowsThatPassOneSideFilters) {
  MemoryStream a(Spark(), "k INT, av STRING");
  MemoryStream b(Spark(), "k2 INT, bv STRING");
  DataFrame df = a.toDF()
                     .join(b.toDF(), F::col("k") == F::col("k2"))
                     .where("av <> 'skip' AND bv <> 'skip' AND av < bv");
  StreamTest t(Spark(), df, "append");
  std::string err =
      t.Run(
          {StreamTest::StartStream(),
           StreamTest::AddData(a, {{I(1), S("a1")}, {I(2), S("skip")}, {I(3), S("a3")}}),
           StreamTest::AddData(b, {{I(1), S("b1")}, {I(2), S("b2")}, {I(3), S("skip")}}),
           StreamTest::CheckAnswer({{I(1), S("a1"), I(1), S("b1")}}),
           StreamTest::AssertOnQuery(
               [](const api::StreamingQuery& q) {
                 auto p = q.lastProgress();
                 return p && p->state_operators.size() == 1 &&
                        p->state_operators[0].num_rows_total == 4;
               },
               "4 rows in the join state (6 without the pushed filters)")},
          restart());
  EXPECT_EQ(err, "");
}

INSTANTIATE_TEST_SUITE_P(Modes, StatefulTest,
                         ::testing::Combine(::testing::ValuesIn(AllRunModes()),
                                            ::testing::Values("memory", "rocksdb")),
                         ModeAndProviderName());

// ---- Errors, as Spark raises them when the query starts.

TEST(StatefulErrors, AppendAggregationWithoutWatermark) {
  MemoryStream input(Spark(), "a INT");
  // Spark 4's class and text (checked against real Spark by the differential suite).
  EXPECT_NE(
      StartError(input.toDF().selectExpr("count(*) AS n"), "append")
          .find("[STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION] Invalid streaming output "
                "mode: append. This output mode is not supported for streaming "
                "aggregations without watermark on streaming DataFrames/DataSets."),
      std::string::npos);
  EXPECT_NE(StartError(input.toDF().groupBy("a").count(), "append")
                .find("STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"),
            std::string::npos);
}

TEST(StatefulErrors, NonTimeWindow) {
  MemoryStream input(Spark(), "k INT, v INT");
  DataFrame df =
      input.toDF().selectExpr("k", "row_number() OVER (PARTITION BY k ORDER BY v) AS rn");
  std::string err = StartError(df, "append");
  EXPECT_NE(err.find("NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"), std::string::npos)
      << err;
  EXPECT_NE(err.find("ROW_NUMBER()"), std::string::npos) << err;
  EXPECT_NE(err.find("`rn`"), std::string::npos) << err;
}

TEST(StatefulErrors, CompleteWithoutAggregationAndSortWithoutIt) {
  MemoryStream input(Spark(), "a INT");
  EXPECT_NE(StartError(input.toDF(), "complete")
                .find("STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"),
            std::string::npos);
  EXPECT_NE(StartError(input.toDF().orderBy("a"), "append")
                .find("Sorting is not supported on streaming DataFrames/Datasets"),
            std::string::npos);
  EXPECT_NE(
      StartError(input.toDF().groupBy("a").count().limit(3), "update")
          .find("Limits are not supported on streaming DataFrames/Datasets in Update "
                "output mode"),
      std::string::npos);
}

TEST(StatefulErrors, DistinctAggregateAndWithinWatermarkWithoutWatermark) {
  MemoryStream input(Spark(), "a INT, b INT");
  EXPECT_NE(
      StartError(input.toDF().groupBy("a").agg(F::countDistinct({F::col("b")})), "update")
          .find("Distinct aggregations are not supported on streaming"),
      std::string::npos);
  EXPECT_NE(StartError(input.toDF().dropDuplicatesWithinWatermark({"a"}), "append")
                .find("dropDuplicatesWithinWatermark is not supported on streaming "
                      "DataFrames/DataSets without watermark"),
            std::string::npos);
}

TEST(StatefulErrors, SinksThatCannotTakeTheOutputMode) {
  MemoryStream input(Spark(), "a INT");
  auto start = [&](const std::string& fmt, const std::string& mode) -> std::string {
    try {
      input.toDF()
          .groupBy("a")
          .count()
          .writeStream()
          .format(fmt)
          .outputMode(mode)
          .option("checkpointLocation", "/tmp/spate-never-" + stream::RandomUuid())
          .start("/tmp/spate-never-out-" + stream::RandomUuid());
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(
      start("json", "complete").find("STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE"),
      std::string::npos);
  EXPECT_NE(start("delta", "update").find("DELTA_UNSUPPORTED_OUTPUT_MODE"),
            std::string::npos);
}

// Two watermarked inputs: the global watermark is the min of the two (the default policy)
// and moves only once both have data. Without restarts: after one, an input that has no
// data in the new run holds the watermark (Spark's WatermarkTracker starts its per-input
// map empty; an input without data counts as 0).
TEST(StatefulWatermarks, MultipleWatermarksTakeTheMinimum) {
  MemoryStream a(Spark(), "ts TIMESTAMP, word STRING");
  MemoryStream b(Spark(), "ts TIMESTAMP, word STRING");
  DataFrame df =
      a.toDF()
          .withWatermark("ts", "10 minutes")
          .unionAll(b.toDF().withWatermark("ts", "20 minutes"))
          .groupBy(F::window(F::col("ts"), "10 minutes"), F::col("word"))
          .count()
          .selectExpr("CAST(window.start AS STRING) AS start", "word", "count");
  StreamTest t(Spark(), df, "append");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(a, {{T(1), S("x")}, {T(40), S("x")}}),
             // Only one input has data: the watermark stays at 0; nothing is final.
             StreamTest::CheckAnswer({}), StreamTest::AddData(b, {{T(35), S("y")}}),
             // min(12:40 - 10 min, 12:35 - 20 min) = 12:15: [12:00, 12:10) is final.
             StreamTest::CheckAnswer({{S(Clock(0)), S("x"), L(1)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && p->event_time.count("watermark") &&
                          p->event_time.at("watermark") == "2026-01-01T12:15:00.000Z";
                 },
                 "watermark 12:15")});
  EXPECT_EQ(err, "");
}

// Trigger.Once runs one batch: the batch that would evict with the new watermark is left
// for the next run (AvailableNow runs it before stopping).
TEST(StatefulTriggers, OnceLeavesTheNoDataBatchForTheNextRun) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  const char* tmp = std::getenv("TMPDIR");
  std::string chk = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                 "spate-stateful-once-" + stream::RandomUuid());
  auto run = [&](stream::Trigger trigger) {
    auto q = WindowedCounts(input)
                 .writeStream()
                 .outputMode("append")
                 .format("memory")
                 .queryName("once_counts")
                 .option("checkpointLocation", chk)
                 .trigger(trigger)
                 .start();
    q.awaitTermination();
    return Spark().sql("SELECT count(*) FROM once_counts").collect()[0][0].ToString();
  };
  input.addData({{T(1), S("a")}, {T(30), S("b")}});
  EXPECT_EQ(run(api::Trigger::Once()), "0");
  // A restart runs no batch without new data (Spark: no last execution to ask).
  EXPECT_EQ(run(api::Trigger::AvailableNow()), "0");
  // The next batch runs with the committed watermark (12:20) and emits [12:00, 12:10).
  input.addData({{T(31), S("c")}});
  EXPECT_EQ(run(api::Trigger::AvailableNow()), "1");
  (void)io::LocalFileSystem::Get()->Delete(chk, true);
}

TEST(StatefulErrors, BadWatermarkDelay) {
  MemoryStream input(Spark(), "ts TIMESTAMP");
  for (const char* delay : {"ten minutes", "-5 minutes"}) {
    try {
      (void)input.toDF().withWatermark("ts", delay).schema();
      ADD_FAILURE() << "delay '" << delay << "' was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(delay), std::string::npos) << e.what();
    }
  }
}

TEST(StatefulErrors, WatermarkOnANonTimestampColumn) {
  MemoryStream input(Spark(), "a INT");
  try {
    auto df = input.toDF().withWatermark("a", "1 minute");
    (void)df.schema();
    FAIL() << "withWatermark on an INT column was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"),
              std::string::npos)
        << e.what();
  }
}

// SQL over a temp view of a stream is a stream (the bug of issue 12), and a streaming
// aggregation written in SQL runs as one.
TEST(StatefulSql, AggregationOverAStreamingTempView) {
  MemoryStream input(Spark(), "k STRING, v INT");
  input.toDF().createOrReplaceTempView("stateful_sql_events");
  DataFrame df =
      Spark().sql("SELECT k, sum(v) AS total FROM stateful_sql_events GROUP BY k");
  ASSERT_TRUE(df.isStreaming());
  StreamTest t(Spark(), df, "complete");
  std::string err = t.Run({StreamTest::StartStream(),
                           StreamTest::AddData(input, {{S("a"), I(1)}, {S("a"), I(2)}}),
                           StreamTest::CheckAnswer({{S("a"), L(3)}}),
                           StreamTest::AddData(input, {{S("b"), I(5)}, {S("a"), I(1)}}),
                           StreamTest::CheckAnswer({{S("a"), L(4)}, {S("b"), L(5)}})},
                          true);
  EXPECT_EQ(err, "");
}

// The SQL WATERMARK clause (Spark 4): windowed counts in append mode written in SQL.
TEST(StatefulSql, WatermarkClauseAndWindowInSql) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  input.toDF().createOrReplaceTempView("stateful_sql_words");
  DataFrame df = Spark().sql(
      "SELECT CAST(window.start AS STRING) AS start, word, count(*) AS n "
      "FROM stateful_sql_words WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS w "
      "GROUP BY window(ts, '10 minutes'), word");
  StreamTest t(Spark(), df, "append");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{T(1), S("a")}, {T(2), S("a")}, {T(30), S("b")}}),
       StreamTest::CheckAnswer({{S(Clock(0)), S("a"), L(2)}})},
      true);
  EXPECT_EQ(err, "");
  // A computed event time needs a name.
  try {
    Spark().sql(
        "SELECT * FROM stateful_sql_words WATERMARK ts + INTERVAL 1 SECOND DELAY OF "
        "INTERVAL 1 MINUTE");
    ADD_FAILURE() << "an unnamed watermark expression was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("REQUIRES_EXPLICIT_NAME_IN_WATERMARK_CLAUSE"),
              std::string::npos)
        << e.what();
  }
}

TEST(StatefulExplain, ShowsTheStatefulOperatorsOfTheLastBatch) {
  MemoryStream input(Spark(), "ts TIMESTAMP, word STRING");
  auto q =
      WindowedCounts(input).writeStream().format("noop").outputMode("update").start();
  input.addData({{T(1), S("a")}});
  q.processAllAvailable();
  std::string plan = q.explainString();
  q.stop();
  EXPECT_NE(plan.find("StateStoreSave [2 keys], state info [ opId = 0"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("EventTimeWatermark ts#"), std::string::npos) << plan;
}

// A restart with other grouping keys or aggregates fails instead of reading wrong state.
TEST(StatefulCheckpoint, ChangedKeysOrAggregatesAreRefused) {
  MemoryStream input(Spark(), "k STRING, j INT, v INT");
  StreamTest t(Spark(), input.toDF().groupBy("k").count(), "update");
  ASSERT_EQ(t.Run({StreamTest::StartStream(),
                   StreamTest::AddData(input, {{S("a"), I(1), I(1)}}),
                   StreamTest::CheckAnswer({{S("a"), L(1)}}), StreamTest::StopStream()}),
            "");
  auto run_on = [&](const DataFrame& df) -> std::string {
    try {
      auto q = df.writeStream()
                   .outputMode("update")
                   .format("memory")
                   .queryName("changed_" + stream::RandomUuid().substr(0, 8))
                   .option("checkpointLocation", t.checkpoint())
                   .start();
      input.addData({{S("b"), I(2), I(2)}});
      q.processAllAvailable();
      q.stop();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  std::string keys = run_on(input.toDF().groupBy("k", "j").count());
  EXPECT_NE(keys.find("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"), std::string::npos)
      << keys;
  std::string values =
      run_on(input.toDF().groupBy("k").agg(F::sum(F::col("v")), F::count(F::col("v"))));
  EXPECT_NE(values.find("STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"), std::string::npos)
      << values;
}

}  // namespace
}  // namespace spate::testing
