// Copyright spate authors.
// Stream-stream joins end to end (StreamTest DSL over two MemoryStreams): inner joins
// with and without watermarks, left/right/full outer and left semi joins with range
// conditions and watermarked keys, state cleanup, late rows, one-side conditions, Spark's
// errors and progress. Every DSL suite runs as is and with a restart after each check,
// against both state store providers. Expected rows follow Spark's
// StreamingSymmetricHashJoinExec (the differential suite checks the same queries against
// real Spark).

#include <gtest/gtest.h>

#include <cstdlib>
#include <tuple>

#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/state_data_source.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::MemoryStream;
using api::SparkSession;
namespace F = api::functions;

SparkSession Spark() {
  static SparkSession s = TestSession("stream-join-tests");
  return s;
}

Value I(int32_t v) { return Value::Int(v); }
Value S(const std::string& v) { return Value::String(v); }
Value N() { return Value(); }
// 2026-01-01 12:00 UTC + `minutes`.
Value T(int minutes) {
  return Value::Timestamp((1767225600LL + 12 * 3600 + minutes * 60LL) * 1000000LL);
}

// (restart after every check, state store provider [+ "Format<n>":
// spate.streaming.join.stateFormatVersion n — 1: the join state in Spark's four stores,
// 2: one entry per key; else the default, 3: one entry per key without the key columns
// in the rows])
class StreamJoinTest : public ::testing::TestWithParam<std::tuple<RunMode, std::string>> {
 protected:
  void SetUp() override {
    Spark().conf().set("spark.sql.streaming.stateStore.providerClass", provider());
    if (!format().empty())
      Spark().conf().set("spate.streaming.join.stateFormatVersion", format());
  }
  void TearDown() override {
    Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
    Spark().conf().unset("spate.streaming.join.stateFormatVersion");
  }
  RunMode restart() const { return std::get<0>(GetParam()); }
  // The n of a "Format<n>" suffix, or "".
  std::string format() const {
    const std::string& p = std::get<1>(GetParam());
    const size_t at = p.find("Format");
    return at == std::string::npos ? "" : p.substr(at + 6);
  }
  std::string provider() const {
    const std::string& p = std::get<1>(GetParam());
    return StateStoreProviderClass(p.substr(0, p.find("Format")));
  }
};

// The join operator's progress in the last batch that ran.
std::optional<stream::StateOperatorProgress> JoinProgress(const api::StreamingQuery& q) {
  auto p = q.lastProgress();
  if (!p || p->state_operators.empty()) return std::nullopt;
  return p->state_operators[0];
}

StreamTest::Action StateRows(int64_t rows) {
  return StreamTest::AssertOnQuery(
      [rows](const api::StreamingQuery& q) {
        auto j = JoinProgress(q);
        return j && j->operator_name == "symmetricHashJoin" && j->num_rows_total == rows;
      },
      std::to_string(rows) + " rows in the join state");
}

TEST_P(StreamJoinTest, InnerJoinWithoutWatermarkMatchesAcrossBatches) {
  MemoryStream a(Spark(), "k INT, av STRING");
  MemoryStream b(Spark(), "k2 INT, bv STRING");
  DataFrame df = a.toDF().join(b.toDF(), F::col("k") == F::col("k2"));
  StreamTest t(Spark(), df);
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(a, {{I(1), S("a1")}, {I(2), S("a2")}}),
             StreamTest::CheckNewAnswer({}),
             StreamTest::AddData(b, {{I(1), S("b1")}, {I(3), S("b3")}}),
             StreamTest::CheckNewAnswer({{I(1), S("a1"), I(1), S("b1")}}),
             StreamTest::AddData(a, {{I(3), S("a3")}, {I(1), S("a1x")}}),
             StreamTest::CheckNewAnswer(
                 {{I(3), S("a3"), I(3), S("b3")}, {I(1), S("a1x"), I(1), S("b1")}}),
             StreamTest::AddData(
                 b, {{I(1), S("b1y")}, {Value::Null(DataType::Int()), S("null")}}),
             StreamTest::CheckNewAnswer(
                 {{I(1), S("a1"), I(1), S("b1y")}, {I(1), S("a1x"), I(1), S("b1y")}}),
             // Without a watermark nothing is ever dropped (a NULL key is never stored).
             StateRows(7)},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, InnerJoinBothSidesInOneBatchAndSelfJoin) {
  MemoryStream a(Spark(), "k INT, v STRING");
  DataFrame l = a.toDF().selectExpr("k AS lk", "v AS lv");
  DataFrame r = a.toDF().selectExpr("k AS rk", "v AS rv");
  StreamTest t(Spark(), l.join(r, F::col("lk") == F::col("rk")));
  std::string err = t.Run({StreamTest::StartStream(),
                           StreamTest::AddData(a, {{I(1), S("x")}, {I(1), S("y")}}),
                           StreamTest::CheckNewAnswer({{I(1), S("x"), I(1), S("x")},
                                                       {I(1), S("x"), I(1), S("y")},
                                                       {I(1), S("y"), I(1), S("x")},
                                                       {I(1), S("y"), I(1), S("y")}}),
                           StreamTest::AddData(a, {{I(1), S("z")}}),
                           StreamTest::CheckNewAnswer({{I(1), S("x"), I(1), S("z")},
                                                       {I(1), S("y"), I(1), S("z")},
                                                       {I(1), S("z"), I(1), S("x")},
                                                       {I(1), S("z"), I(1), S("y")},
                                                       {I(1), S("z"), I(1), S("z")}})},
                          restart());
  EXPECT_EQ(err, "");
}

// Course 11.09's view_then_buy: a purchase within five minutes after a view.
DataFrame Views(const MemoryStream& v) {
  return v.toDF().withWatermark("vts", "10 minutes");
}
DataFrame Buys(const MemoryStream& b) {
  return b.toDF().withWatermark("bts", "10 minutes");
}
const char* kWithin5 = "user = buyer AND bts BETWEEN vts AND vts + INTERVAL 5 MINUTES";

TEST_P(StreamJoinTest, InnerRangeJoinDropsStateBehindTheWatermark) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr(kWithin5)));
  std::string err =
      t.Run(
          {StreamTest::StartStream(),
           StreamTest::AddData(v, {{S("u1"), T(0)}, {S("u2"), T(1)}}),
           StreamTest::AddData(b, {{S("u1"), T(3)}, {S("u2"), T(10)}}),
           StreamTest::CheckNewAnswer({{S("u1"), T(0), S("u1"), T(3)}}),
           StreamTest::AddData(b, {{S("u2"), T(4)}}),
           StreamTest::CheckNewAnswer({{S("u2"), T(1), S("u2"), T(4)}}),
           StreamTest::AddData(v, {{S("u3"), T(40)}}),
           StreamTest::AddData(b, {{S("u3"), T(41)}}),
           // Watermark min(12:30, 12:31) = 12:30: views before 12:25 and purchases before
           // 12:30 can match nothing more and are dropped (in the no-data batch).
           StreamTest::CheckNewAnswer({{S("u3"), T(40), S("u3"), T(41)}}), StateRows(2),
           // Late for the purchases' watermark: dropped before the join, counted.
           StreamTest::AddData(b, {{S("u3"), T(20)}, {S("u3"), T(42)}}),
           StreamTest::CheckNewAnswer({{S("u3"), T(40), S("u3"), T(42)}}),
           StreamTest::AssertOnQuery(
               [](const api::StreamingQuery& q) {
                 for (const auto& p : q.recentProgress()) {
                   if (!p.state_operators.empty() &&
                       p.state_operators[0].num_rows_dropped_by_watermark == 1)
                     return true;
                 }
                 return false;
               },
               "one late row counted")},
          restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, LeftOuterEmitsNullsOnceTheWatermarkPasses) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr(kWithin5), "left_outer"));
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(v, {{S("u1"), T(0)}, {S("u2"), T(1)}}),
       StreamTest::AddData(b, {{S("u1"), T(3)}}),
       StreamTest::CheckNewAnswer({{S("u1"), T(0), S("u1"), T(3)}}),
       StreamTest::AddData(v, {{S("u9"), T(30)}}),
       StreamTest::AddData(b, {{S("u9"), T(31)}}),
       // Watermark 12:20: views before 12:15 are final. u1 matched: no NULL row for it.
       StreamTest::CheckNewAnswer(
           {{S("u9"), T(30), S("u9"), T(31)}, {S("u2"), T(1), N(), N()}}),
       StreamTest::AddData(v, {{S("u8"), T(60)}}),
       StreamTest::AddData(b, {{S("u7"), T(61)}}),
       // Watermark 12:50: u9 matched; nothing else is old enough.
       StreamTest::CheckNewAnswer({}), StreamTest::AddData(v, {{S("u6"), T(100)}}),
       StreamTest::AddData(b, {{S("u6"), T(100)}}),
       StreamTest::CheckNewAnswer(
           {{S("u6"), T(100), S("u6"), T(100)}, {S("u8"), T(60), N(), N()}})},
      restart());
  EXPECT_EQ(err, "");
}

// Only fixed-width columns before the event time (one of them NULL in a row): the packed
// layout reads each stored row's event time out of the row's bytes instead of storing it.
TEST_P(StreamJoinTest, LeftOuterWithTheEventTimeAfterFixedWidthColumns) {
  MemoryStream v(Spark(), "uid INT, vts TIMESTAMP");
  MemoryStream b(Spark(), "bid INT, bts TIMESTAMP");
  StreamTest t(
      Spark(),
      Views(v).join(Buys(b),
                    F::expr("uid = bid AND bts BETWEEN vts AND vts + INTERVAL 5 MINUTES"),
                    "left_outer"));
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(v, {{I(1), T(0)}, {I(2), T(1)}, {N(), T(2)}}),
       StreamTest::AddData(b, {{I(1), T(3)}}),
       StreamTest::CheckNewAnswer({{I(1), T(0), I(1), T(3)}}),
       StreamTest::AddData(v, {{I(9), T(30)}}), StreamTest::AddData(b, {{I(9), T(31)}}),
       // Watermark 12:20: views before 12:15 are final; 1 matched, 2 and the NULL key
       // did not.
       StreamTest::CheckNewAnswer(
           {{I(9), T(30), I(9), T(31)}, {I(2), T(1), N(), N()}, {N(), T(2), N(), N()}}),
       StateRows(2)},
      restart());
  EXPECT_EQ(err, "");
}

// Every column of each side is a join key, the event time too: in format 3 the stored
// rows hold no column and are rebuilt from their keys, the outer NULL rows included.
TEST_P(StreamJoinTest, LeftOuterJoinOnEveryColumn) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr("user = buyer AND vts = bts"),
                                      "left_outer"));
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(v, {{S("u1"), T(0)}, {S("u1"), T(0)}, {S("u2"), T(1)}}),
       StreamTest::AddData(b, {{S("u1"), T(0)}}),
       StreamTest::CheckNewAnswer(
           {{S("u1"), T(0), S("u1"), T(0)}, {S("u1"), T(0), S("u1"), T(0)}}),
       StreamTest::AddData(v, {{S("u9"), T(30)}, {N(), T(31)}}),
       StreamTest::AddData(b, {{S("u9"), T(30)}}),
       // Watermark 12:20: the keys before it go; u2 and the NULL user never matched.
       StreamTest::CheckNewAnswer(
           {{S("u9"), T(30), S("u9"), T(30)}, {S("u2"), T(1), N(), N()}}),
       StreamTest::AddData(v, {{S("u5"), T(60)}}),
       StreamTest::AddData(b, {{S("u6"), T(61)}}),
       // Watermark 12:50: u9 matched; the NULL user did not.
       StreamTest::CheckNewAnswer({{N(), T(31), N(), N()}}), StateRows(2)},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, RightAndFullOuter) {
  for (const char* how : {"right_outer", "full_outer"}) {
    MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
    MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
    const bool full = std::string(how) == "full_outer";
    StreamTest t(Spark(), Views(v).join(Buys(b), F::expr(kWithin5), how));
    Rows evicted = {{N(), N(), S("u5"), T(2)}};
    if (full) evicted.push_back({S("u2"), T(1), N(), N()});
    std::string err = t.Run(
        {StreamTest::StartStream(),
         StreamTest::AddData(v, {{S("u1"), T(0)}, {S("u2"), T(1)}}),
         StreamTest::AddData(b, {{S("u1"), T(3)}, {S("u5"), T(2)}}),
         StreamTest::CheckNewAnswer({{S("u1"), T(0), S("u1"), T(3)}}),
         StreamTest::AddData(v, {{S("u9"), T(40)}}),
         StreamTest::AddData(b, {{S("u9"), T(40)}}), StreamTest::CheckNewAnswer([&] {
           Rows r = evicted;
           r.push_back({S("u9"), T(40), S("u9"), T(40)});
           return r;
         }())},
        restart());
    EXPECT_EQ(err, "") << how;
  }
}

// A purchase 10 to 20 minutes after the view: a purchase is kept only while a view at
// least 10 minutes older can still come, so one newer than the watermark can be dropped
// by the cleanup of its own batch. The right side (cleaned as soon as the views have
// probed it) does not store such a row: an unmatched one goes out with NULLs in its
// own batch, as when it is stored and evicted at the end of the batch.
TEST_P(StreamJoinTest, RightRowsTheirOwnBatchDropsGoOutAtOnce) {
  for (const char* how : {"inner", "right_outer"}) {
    MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
    MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
    StreamTest t(Spark(),
                 Views(v).join(Buys(b),
                               F::expr("user = buyer AND bts BETWEEN vts + INTERVAL 10 "
                                       "MINUTES AND vts + INTERVAL 20 MINUTES"),
                               how));
    const bool outer = std::string(how) == "right_outer";
    Rows dropped;
    if (outer) dropped.push_back({N(), N(), S("u7"), T(35)});
    std::string err = t.Run(
        {StreamTest::StartStream(), StreamTest::AddData(v, {{S("u1"), T(0)}}),
         StreamTest::AddData(b, {{S("u1"), T(15)}}),
         StreamTest::CheckNewAnswer({{S("u1"), T(0), S("u1"), T(15)}}),
         StreamTest::AddData(v, {{S("u9"), T(40)}}),
         StreamTest::AddData(b, {{S("u9"), T(55)}}),
         // Watermark 12:30: the purchase cleanup drops purchases at or before 12:40.
         StreamTest::CheckNewAnswer({{S("u9"), T(40), S("u9"), T(55)}}), StateRows(2),
         // 12:35 is not late (after 12:30) but dropped by its own batch's cleanup.
         StreamTest::AddData(b, {{S("u7"), T(35)}, {S("u9"), T(56)}}),
         StreamTest::CheckNewAnswer([&] {
           Rows r = dropped;
           r.push_back({S("u9"), T(40), S("u9"), T(56)});
           return r;
         }()),
         StateRows(3)},
        restart());
    EXPECT_EQ(err, "") << how;
  }
}

TEST_P(StreamJoinTest, LeftSemiEmitsALeftRowOnce) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr(kWithin5), "left_semi"));
  std::string err =
      t.Run({StreamTest::StartStream(), StreamTest::AddData(v, {{S("u1"), T(0)}}),
             StreamTest::CheckNewAnswer({}),
             StreamTest::AddData(b, {{S("u1"), T(3)}, {S("u1"), T(4)}}),
             StreamTest::CheckNewAnswer({{S("u1"), T(0)}}),
             StreamTest::AddData(b, {{S("u1"), T(2)}}), StreamTest::CheckNewAnswer({}),
             // Matches stored purchases on arrival: emitted at once and never stored.
             StreamTest::AddData(v, {{S("u1"), T(1)}}),
             // The first view left the state when it was emitted: three purchases remain.
             StreamTest::CheckNewAnswer({{S("u1"), T(1)}}), StateRows(3)},
            restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, OneSideConditionOfAnOuterJoinEmitsAtOnce) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(
      Spark(),
      Views(v).join(Buys(b), F::expr(std::string(kWithin5) + " AND user <> 'bot'"),
                    "left_outer"));
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(v, {{S("bot"), T(0)}, {S("u1"), T(0)}}),
       // The bot's view can never match: its NULL row comes now, and it is not stored.
       StreamTest::CheckNewAnswer({{S("bot"), T(0), N(), N()}}), StateRows(1),
       StreamTest::AddData(b, {{S("bot"), T(1)}, {S("u1"), T(1)}}),
       StreamTest::CheckNewAnswer({{S("u1"), T(0), S("u1"), T(1)}})},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, WindowedKeysDropStateByTheKey) {
  // Equal windows: the watermarked window key cleans both sides, outer rows included.
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  DataFrame l =
      Views(v).select(F::col("user"), F::window(F::col("vts"), "10 minutes").alias("vw"));
  DataFrame r =
      Buys(b).select(F::col("buyer"), F::window(F::col("bts"), "10 minutes").alias("bw"));
  DataFrame df = l.join(r, F::expr("user = buyer AND vw = bw"), "left_outer")
                     .selectExpr("user", "CAST(vw.start AS STRING) AS w", "buyer");
  StreamTest t(Spark(), df);
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(v, {{S("u1"), T(1)}, {S("u2"), T(2)}}),
             StreamTest::AddData(b, {{S("u1"), T(9)}}),
             StreamTest::CheckNewAnswer({{S("u1"), S("2026-01-01 12:00:00"), S("u1")}}),
             StreamTest::AddData(v, {{S("u3"), T(30)}}),
             StreamTest::AddData(b, {{S("u3"), T(31)}}),
             StreamTest::CheckNewAnswer({{S("u3"), S("2026-01-01 12:30:00"), S("u3")},
                                         {S("u2"), S("2026-01-01 12:00:00"), N()}}),
             StateRows(2)},
            restart());
  EXPECT_EQ(err, "");
}

// ---- Several stateful operators in one query: each runs with its own input watermark
// (Spark's watermark propagation; the differential suite checks these against Spark).

TEST_P(StreamJoinTest, WindowThenWindowOverWindowTime) {
  MemoryStream input(Spark(), "ts TIMESTAMP, v INT");
  DataFrame df = input.toDF()
                     .withWatermark("ts", "0 seconds")
                     .groupBy(F::window(F::col("ts"), "10 minutes"))
                     .count()
                     .groupBy(F::window(F::expr("window_time(window)"), "20 minutes"))
                     .agg(F::sum(F::col("count")).alias("n"))
                     .selectExpr("CAST(window.start AS STRING) AS start", "n");
  StreamTest t(Spark(), df);
  auto L = [](int64_t v) { return Value::Long(v); };
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{T(1), I(0)}, {T(2), I(0)}, {T(11), I(0)}}),
       // [12:00, 12:10) is final at 12:11 and reaches the 20-minute window, still open.
       StreamTest::CheckAnswer({}), StreamTest::AddData(input, {{T(25), I(0)}}),
       StreamTest::CheckAnswer({{S("2026-01-01 12:00:00"), L(3)}}),
       StreamTest::AddData(input, {{T(50), I(0)}}),
       StreamTest::CheckAnswer(
           {{S("2026-01-01 12:00:00"), L(3)}, {S("2026-01-01 12:20:00"), L(1)}})},
      restart());
  EXPECT_EQ(err, "");
}

TEST_P(StreamJoinTest, AggregationAfterARangeJoin) {
  // The join lets the watermark through held back by its state watermarks (12:30 ->
  // 12:24:59.999): a window of pairs is final only once no pair can join into it.
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  DataFrame df = Views(v)
                     .join(Buys(b), F::expr(kWithin5))
                     .groupBy(F::window(F::col("vts"), "10 minutes"))
                     .count()
                     .selectExpr("CAST(window.start AS STRING) AS start", "count");
  StreamTest t(Spark(), df);
  auto L = [](int64_t n) { return Value::Long(n); };
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(v, {{S("u1"), T(0)}, {S("u2"), T(1)}}),
             StreamTest::AddData(b, {{S("u1"), T(3)}, {S("u2"), T(4)}}),
             StreamTest::CheckAnswer({}), StreamTest::AddData(v, {{S("u3"), T(40)}}),
             StreamTest::AddData(b, {{S("u3"), T(41)}}),
             StreamTest::CheckAnswer({{S("2026-01-01 12:00:00"), L(2)}}),
             StreamTest::AddData(v, {{S("u4"), T(80)}}),
             StreamTest::AddData(b, {{S("u4"), T(80)}}),
             StreamTest::CheckAnswer(
                 {{S("2026-01-01 12:00:00"), L(2)}, {S("2026-01-01 12:40:00"), L(1)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto p = q.lastProgress();
                   return p && p->state_operators.size() == 2 &&
                          p->state_operators[0].operator_name == "stateStoreSave" &&
                          p->state_operators[1].operator_name == "symmetricHashJoin";
                 },
                 "the aggregation is operator 0, the join operator 1")},
            restart());
  EXPECT_EQ(err, "");
}

INSTANTIATE_TEST_SUITE_P(
    Modes, StreamJoinTest,
    ::testing::Combine(::testing::ValuesIn(AllRunModes()),
                       ::testing::Values("memory", "rocksdb", "memoryFormat1",
                                         "rocksdbFormat1", "memoryFormat2")),
    ModeAndProviderName());

// ---- Errors, as Spark raises them when the query starts.

TEST(StreamJoinErrors, SparksRules) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  const DataFrame eq_only =
      v.toDF().join(b.toDF(), F::expr("user = buyer"), "left_outer");
  EXPECT_NE(
      StartError(eq_only, "append")
          .find(
              "Stream-stream LeftOuter join between two streaming DataFrame/Datasets is "
              "not supported without a watermark in the join keys, or a watermark on "
              "the nullable side and an appropriate range condition"),
      std::string::npos);
  // A watermark on the left only does not bound the left rows a right row may match.
  EXPECT_NE(StartError(Views(v).join(b.toDF(), F::expr(kWithin5), "left_outer"), "append")
                .find("Stream-stream LeftOuter join"),
            std::string::npos);
  // The range bounds the left rows against the right's watermark: allowed (the left side
  // has no watermark of its own, so its state is never dropped).
  EXPECT_EQ(StartError(v.toDF().join(Buys(b), F::expr(kWithin5), "full_outer"), "append"),
            "");
  // Spark 4.2 runs an inner stream-stream join in Update mode (its rows are final).
  EXPECT_EQ(StartError(Views(v).join(Buys(b), F::expr(kWithin5)), "update"), "");
  EXPECT_NE(
      StartError(Views(v).join(Buys(b), F::expr(kWithin5), "left_anti"), "append")
          .find("LeftAnti joins with a streaming DataFrame/Dataset on the right are not "
                "supported"),
      std::string::npos);
}

// Without an equality key the first batch fails to plan and the query stops, as Spark's.
TEST(StreamJoinErrors, WithoutEqualityTheQueryFails) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr("vts < bts")));
  std::string err = t.Run(
      {StreamTest::StartStream(), StreamTest::AddData(v, {{S("u1"), T(0)}}),
       StreamTest::ExpectFailure(
           "[_LEGACY_ERROR_TEMP_1181] Stream-stream join without equality predicate is "
           "not supported.")});
  EXPECT_EQ(err, "");
}

TEST(StreamJoinProgress, SymmetricHashJoinWithItsFourStores) {
  MemoryStream v(Spark(), "user STRING, vts TIMESTAMP");
  MemoryStream b(Spark(), "buyer STRING, bts TIMESTAMP");
  Spark().conf().set("spark.sql.shuffle.partitions", "3");
  StreamTest t(Spark(), Views(v).join(Buys(b), F::expr(kWithin5)));
  std::string err =
      t.Run({StreamTest::StartStream(), StreamTest::AddData(v, {{S("u1"), T(0)}}),
             StreamTest::AddData(b, {{S("u1"), T(1)}, {S("u2"), T(1)}}),
             StreamTest::CheckAnswer({{S("u1"), T(0), S("u1"), T(1)}}),
             StreamTest::AssertOnQuery(
                 [](const api::StreamingQuery& q) {
                   auto j = JoinProgress(q);
                   return j && j->operator_name == "symmetricHashJoin" &&
                          j->num_state_store_instances == 12 &&
                          j->num_shuffle_partitions == 3 && j->num_rows_total == 3;
                 },
                 "symmetricHashJoin over 3 partitions x 4 stores holding 3 rows")});
  Spark().conf().unset("spark.sql.shuffle.partitions");
  EXPECT_EQ(err, "");
}

// The join state layout is recorded in state/<op>/_metadata/operator: a checkpoint in
// Spark's four stores — written with spate.streaming.join.stateFormatVersion 1, or by a
// spate that did not record the layout (no joinStateFormat, or no metadata file at all)
// — keeps that layout when it restarts with the default (one entry per key), and its
// stored rows still match; a new checkpoint takes the default.
TEST(StreamJoinStateFormat, ACheckpointKeepsItsLayout) {
  io::FileSystem& fs = *io::LocalFileSystem::Get();
  for (const char* provider : {"memory", "rocksdb"}) {
    for (const char* old : {"recorded", "unrecorded", "no metadata", "format 2", "new"}) {
      SCOPED_TRACE(std::string(provider) + ", " + old);
      const bool fresh = std::string(old) == "new";
      const bool format2 = std::string(old) == "format 2";
      const int format = fresh ? 3 : format2 ? 2 : 1;
      SparkSession spark = Spark().newSession();
      spark.conf().set("spark.sql.streaming.stateStore.providerClass",
                       StateStoreProviderClass(provider));
      spark.conf().set("spark.sql.shuffle.partitions", "2");
      if (!fresh)
        spark.conf().set("spate.streaming.join.stateFormatVersion", format2 ? "2" : "1");
      const char* tmp = std::getenv("TMPDIR");
      const std::string chk = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                           "spate-join-format-" + stream::RandomUuid());
      const std::string state = io::JoinPath(chk, "state");
      MemoryStream a(spark, "k INT, av STRING");
      MemoryStream b(spark, "k2 INT, bv STRING");
      const DataFrame joined = a.toDF().join(b.toDF(), F::col("k") == F::col("k2"));
      auto run = [&](const std::string& name) {
        auto q = joined.writeStream()
                     .format("memory")
                     .queryName(name)
                     .outputMode("append")
                     .option("checkpointLocation", chk)
                     .start();
        q.processAllAvailable();
        return q;
      };
      a.addData({{I(1), S("a1")}, {I(2), S("a2")}});
      run("format_run1").stop();
      auto meta = stream::ReadOperatorMetadata(fs, state, 0);
      ASSERT_TRUE(meta.ok() && meta->has_value());
      EXPECT_EQ((*meta)->join_state_format, format);
      // Format 3 records the columns its rows leave out: k on the left, k2 on the right.
      EXPECT_EQ((*meta)->join_key_columns[0], std::vector<int>(fresh ? 1 : 0, 0));
      EXPECT_EQ((*meta)->join_key_columns[1], std::vector<int>(fresh ? 1 : 0, 0));
      if (std::string(old) == "unrecorded") {
        stream::StateOperatorMetadata m = **meta;
        m.join_state_format = 0;
        ASSERT_TRUE(stream::WriteOperatorMetadata(fs, state, 0, m).ok());
      } else if (std::string(old) == "no metadata") {
        ASSERT_TRUE(fs.Delete(io::JoinPath(state, "0/_metadata/operator"), false).ok());
      }
      spark.conf().unset("spate.streaming.join.stateFormatVersion");
      b.addData({{I(1), S("b1")}, {I(3), S("b3")}});
      auto q = run("format_run2");
      EXPECT_EQ(RowStrings([&] {
                  Rows rows;
                  for (const auto& r : spark.sql("SELECT * FROM format_run2").collect())
                    rows.push_back(r.values());
                  return rows;
                }()),
                (std::vector<std::string>{"[1, a1, 1, b1]"}));
      auto j = JoinProgress(q);
      ASSERT_TRUE(j.has_value());
      EXPECT_EQ(j->num_rows_total, 4);
      EXPECT_EQ(j->num_state_store_instances, 8);
      q.stop();
      meta = stream::ReadOperatorMetadata(fs, state, 0);
      ASSERT_TRUE(meta.ok() && meta->has_value());
      EXPECT_EQ((*meta)->join_state_format, format);
      // Batch 1 committed version 2 of the counts stores only in Spark's layout.
      bool counts_files = false;
      for (const char* part : {"0", "1"}) {
        for (const char* ext : {".delta", ".changelog"}) {
          auto exists = fs.Exists(io::JoinPath(
              state, std::string("0/") + part + "/right-keyToNumValues/2" + ext));
          counts_files |= exists.ok() && *exists;
        }
      }
      EXPECT_EQ(counts_files, format == 1);
      (void)fs.Delete(chk, true);
    }
  }
}

// The article's `attributed`: two Delta tables read with
// readStream.table("bronze.<name>"), their columns qualified by the tables' names as
// Spark's (`clicks.session_id`, `orders_stream.session_id`; the article's
// `orders.session_id` names no table and fails to resolve, as on Spark, unless the stream
// is given that alias).
// Format 3 rebuilds the key columns it recorded from the key bytes: a restart whose join
// keys are no longer those columns (here `abs(k)` for `k`, the same key and value
// schemas) is refused instead of rebuilding wrong rows; the same query restarts.
TEST(StreamJoinStateFormat, KeylessStateRefusesChangedKeyColumns) {
  SparkSession spark = Spark().newSession();
  spark.conf().set("spark.sql.shuffle.partitions", "2");
  const char* tmp = std::getenv("TMPDIR");
  const std::string chk =
      io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-join-keys-" + stream::RandomUuid());
  MemoryStream a(spark, "k INT, av STRING");
  MemoryStream b(spark, "k2 INT, bv STRING");
  auto run = [&](const char* condition, const std::string& name) {
    auto q = a.toDF()
                 .join(b.toDF(), F::expr(condition))
                 .writeStream()
                 .format("memory")
                 .queryName(name)
                 .outputMode("append")
                 .option("checkpointLocation", chk)
                 .start();
    try {
      q.processAllAvailable();
    } catch (const std::exception&) {
      // The failure is read from q.exception().
    }
    return q;
  };
  a.addData({{I(1), S("a1")}});
  auto q = run("k = k2", "keys_run1");
  EXPECT_FALSE(q.exception().has_value());
  q.stop();
  b.addData({{I(1), S("b1")}});
  q = run("abs(k) = k2", "keys_run2");
  ASSERT_TRUE(q.exception().has_value());
  EXPECT_NE(std::string(q.exception()->what()).find("no longer the columns"),
            std::string::npos)
      << q.exception()->what();
  q.stop();
  q = run("k = k2", "keys_run3");
  EXPECT_FALSE(q.exception().has_value());
  q.stop();
  Rows rows;
  for (const auto& r : spark.sql("SELECT * FROM keys_run3").collect())
    rows.push_back(r.values());
  EXPECT_EQ(RowStrings(rows), (std::vector<std::string>{"[1, a1, 1, b1]"}));
  (void)io::LocalFileSystem::Get()->Delete(chk, true);
}

TEST(StreamJoinTableTest, ReadStreamTableQualifiesColumnsByTableName) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                        "spate-join-table-" + stream::RandomUuid());
  SparkSession spark = Spark().newSession();
  spark.conf().set("spark.sql.warehouse.dir", io::JoinPath(root, "wh"));
  spark.sql("CREATE SCHEMA bronze");
  spark.sql(
      "CREATE TABLE bronze.clicks (session_id STRING, click_id STRING, clicked_at "
      "TIMESTAMP) USING DELTA");
  spark.sql(
      "CREATE TABLE bronze.orders_stream (session_id STRING, order_id STRING, "
      "occurred_at TIMESTAMP) USING DELTA");
  spark.sql(
      "INSERT INTO bronze.clicks VALUES ('s1', 'c1', TIMESTAMP'2026-01-01 12:00:00'), "
      "('s2', 'c2', TIMESTAMP'2026-01-01 12:10:00')");
  spark.sql(
      "INSERT INTO bronze.orders_stream VALUES ('s1', 'o1', TIMESTAMP'2026-01-01 "
      "12:30:00'), ('s2', 'o2', TIMESTAMP'2026-01-01 13:30:00')");
  DataFrame clicks =
      spark.readStream().table("bronze.clicks").withWatermark("clicked_at", "30 minutes");
  DataFrame orders = spark.readStream()
                         .table("bronze.orders_stream")
                         .withWatermark("occurred_at", "30 minutes");
  const std::string condition = R"(clicks.session_id = orders.session_id
            and orders.occurred_at between clicks.clicked_at
                                       and clicks.clicked_at + interval 1 hour)";
  EXPECT_THROW_CLASS(clicks.join(orders, F::expr(condition)).columns(),
                     api::SparkException, "UNRESOLVED_COLUMN.WITH_SUGGESTION");
  DataFrame by_table_names = clicks.join(
      orders, F::expr("clicks.session_id = orders_stream.session_id and "
                      "orders_stream.occurred_at between clicks.clicked_at and "
                      "clicks.clicked_at + interval 1 hour"));
  EXPECT_EQ(by_table_names.columns().size(), 6u);
  DataFrame attributed = clicks.join(orders.alias("orders"), F::expr(condition));
  auto q =
      attributed
          .select(F::col("clicks.session_id"), F::col("click_id"), F::col("order_id"))
          .writeStream()
          .format("memory")
          .queryName("attributed_t")
          .option("checkpointLocation", io::JoinPath(root, "chk"))
          .trigger(api::Trigger::AvailableNow())
          .start();
  q.awaitTermination();
  auto rows = spark.sql("SELECT * FROM attributed_t").collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].str() + " " + rows[0][1].str() + " " + rows[0][2].str(),
            "s1 c1 o1");
  (void)io::LocalFileSystem::Get()->Delete(root, true);
}

}  // namespace
}  // namespace spate::testing
