// Copyright spate authors.
// transformWithState end to end (StreamTest DSL): a StatefulProcessor's ValueState,
// ListState and MapState across micro-batches and restarts (both state store providers),
// event-time and processing-time timers, TTL, the processor's errors and a batch query.

#include <gtest/gtest.h>

#include <tuple>

#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/stream/stateful_processor.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::MemoryStream;
using api::SparkSession;
using stream::ProcessorRow;
using stream::StatefulProcessor;
using stream::StatefulProcessorHandle;
using stream::TimerValues;

SparkSession Spark() {
  static SparkSession s = TestSession("tws-tests");
  return s;
}

Value I(int32_t v) { return Value::Int(v); }
Value L(int64_t v) { return Value::Long(v); }
Value S(const std::string& v) { return Value::String(v); }
// 2026-01-01 12:00 UTC + `minutes`.
int64_t Ms(int minutes) { return (1767225600LL + 12 * 3600 + minutes * 60LL) * 1000LL; }
Value T(int minutes) { return Value::Timestamp(Ms(minutes) * 1000); }

Schema Fields(const std::string& ddl) { return *api::StructType::fromDDL(ddl).ToSchema(); }

class TwsTest : public ::testing::TestWithParam<std::tuple<bool, std::string>> {
 protected:
  void SetUp() override {
    Spark().conf().set("spark.sql.streaming.stateStore.providerClass",
                       StateStoreProviderClass(std::get<1>(GetParam())));
  }
  void TearDown() override {
    Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
  }
  bool restart() const { return std::get<0>(GetParam()); }
};

// A running count and the distinct values of each key: ValueState, ListState, MapState.
class CountingProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle& h, stream::OutputMode, stream::TimeMode) override {
    count_.emplace(h.getValueState("count", Fields("n BIGINT")));
    seen_.emplace(h.getListState("seen", Fields("v INT")));
    per_value_.emplace(h.getMapState("perValue", Fields("v INT"), Fields("n BIGINT")));
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const TimerValues&) override {
    int64_t n = count_->exists() ? count_->get()->at(0).i64() : 0;
    n += static_cast<int64_t>(rows.size());
    count_->update({Value::Long(n)});
    for (const auto& r : rows) {
      ProcessorRow v = {r[1]};
      auto c = per_value_->getValue(v);
      if (!c) seen_->appendValue(v);
      per_value_->updateValue(v, {Value::Long((c ? c->at(0).i64() : 0) + 1)});
    }
    const auto distinct = static_cast<int64_t>(seen_->get().size());
    return {{key[0], Value::Long(n), Value::Long(distinct),
             Value::Long(static_cast<int64_t>(per_value_->keys().size()))}};
  }

 private:
  std::optional<stream::ValueState> count_;
  std::optional<stream::ListState> seen_;
  std::optional<stream::MapState> per_value_;
};

TEST_P(TwsTest, ValueListAndMapStateAcrossBatches) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF().groupBy(std::vector<std::string>{"k"}).transformWithState(
      [] { return std::make_unique<CountingProcessor>(); },
      api::StructType::fromDDL("k STRING, n BIGINT, distinct_list BIGINT, distinct_map BIGINT"),
      "update");
  StreamTest t(Spark(), df, "update");
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("a"), I(1)}, {S("a"), I(1)}, {S("b"), I(7)}}),
       StreamTest::CheckNewAnswer({{S("a"), L(2), L(1), L(1)}, {S("b"), L(1), L(1), L(1)}}),
       StreamTest::AddData(input, {{S("a"), I(2)}}),
       StreamTest::CheckNewAnswer({{S("a"), L(3), L(2), L(2)}}),
       StreamTest::AddData(input, {{S("b"), I(7)}, {S("c"), I(0)}}),
       StreamTest::CheckNewAnswer({{S("b"), L(2), L(1), L(1)}, {S("c"), L(1), L(1), L(1)}}),
       StreamTest::AssertOnQuery(
           [](const api::StreamingQuery& q) {
             auto p = q.lastProgress();
             return p && p->state_operators.size() == 1 &&
                    p->state_operators[0].operator_name == "transformWithStateExec";
           },
           "a transformWithStateExec operator")},
      restart());
  EXPECT_EQ(err, "");
}

// Event-time timers: a session closes 5 minutes after its last event, once the watermark
// passes; the expired timer emits the session and clears its state.
class SessionProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle& h, stream::OutputMode, stream::TimeMode) override {
    handle_ = &h;
    events_.emplace(h.getValueState("events", Fields("n BIGINT, last BIGINT")));
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow&, const std::vector<ProcessorRow>& rows,
                                            const TimerValues&) override {
    auto cur = events_->get();
    int64_t n = cur ? cur->at(0).i64() : 0, last = cur ? cur->at(1).i64() : 0;
    for (const auto& r : rows) {
      ++n;
      last = std::max(last, r[1].i64() / 1000);
    }
    for (int64_t t : handle_->listTimers()) handle_->deleteTimer(t);
    handle_->registerTimer(last + 5 * 60 * 1000);
    events_->update({Value::Long(n), Value::Long(last)});
    return {};
  }
  std::vector<ProcessorRow> handleExpiredTimer(const ProcessorRow& key, const TimerValues& tv,
                                               const stream::ExpiredTimerInfo& info) override {
    auto cur = events_->get();
    events_->clear();
    if (!cur) return {};
    (void)tv;
    return {{key[0], cur->at(0), Value::Long((info.expiry_time_ms - Ms(0)) / 60000)}};
  }

 private:
  StatefulProcessorHandle* handle_ = nullptr;
  std::optional<stream::ValueState> events_;
};

TEST_P(TwsTest, EventTimeTimersFireWhenTheWatermarkPasses) {
  MemoryStream input(Spark(), "user STRING, ts TIMESTAMP");
  DataFrame df = input.toDF()
                     .withWatermark("ts", "0 seconds")
                     .groupBy(std::vector<std::string>{"user"})
                     .transformWithState([] { return std::make_unique<SessionProcessor>(); },
                                         api::StructType::fromDDL("user STRING, events BIGINT, closed_at_minute BIGINT"),
                                         "append", "EventTime");
  StreamTest t(Spark(), df);
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("u1"), T(0)}, {S("u1"), T(2)}, {S("u2"), T(3)}}),
       StreamTest::CheckAnswer({}),
       // Watermark 12:10: u1's timer (12:07) and u2's (12:08) fire in the no-data batch.
       StreamTest::AddData(input, {{S("u3"), T(10)}}),
       StreamTest::CheckAnswer({{S("u1"), L(2), L(7)}, {S("u2"), L(1), L(8)}}),
       StreamTest::AddData(input, {{S("u3"), T(12)}, {S("u4"), T(30)}}),
       StreamTest::CheckAnswer({{S("u1"), L(2), L(7)}, {S("u2"), L(1), L(8)}, {S("u3"), L(2), L(17)}})},
      restart());
  EXPECT_EQ(err, "");
}

// Processing-time timers and TTL, on the query's clock.
class ReminderProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle& h, stream::OutputMode, stream::TimeMode) override {
    handle_ = &h;
    last_.emplace(h.getValueState("last", Fields("v INT"), stream::TTLConfig{25'000}));
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key, const std::vector<ProcessorRow>& rows,
                                            const TimerValues& tv) override {
    const bool had = last_->exists();
    last_->update({rows.back()[1]});
    handle_->registerTimer(tv.current_processing_time_ms + 10'000);
    return {{key[0], S(had ? "again" : "first")}};
  }
  std::vector<ProcessorRow> handleExpiredTimer(const ProcessorRow& key, const TimerValues&,
                                               const stream::ExpiredTimerInfo&) override {
    return {{key[0], S(last_->exists() ? "reminder" : "reminder, forgotten")}};
  }

 private:
  StatefulProcessorHandle* handle_ = nullptr;
  std::optional<stream::ValueState> last_;
};

TEST_P(TwsTest, ProcessingTimeTimersAndTtl) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF().groupBy(std::vector<std::string>{"k"}).transformWithState(
      [] { return std::make_unique<ReminderProcessor>(); }, api::StructType::fromDDL("k STRING, what STRING"),
      "append", "ProcessingTime");
  StreamTest t(Spark(), df);
  auto clock = std::make_shared<ManualClock>(1'000'000);
  std::string err = t.Run(
      {StreamTest::StartStream(stream::Trigger::ProcessingTime(1000), clock),
       StreamTest::AddData(input, {{S("a"), I(1)}}), StreamTest::AdvanceClock(1000),
       StreamTest::CheckNewAnswer({{S("a"), S("first")}}),
       // 12 s later a's timer is due: it fires in the batch of b's row.
       StreamTest::AddData(input, {{S("b"), I(2)}}), StreamTest::AdvanceClock(12'000),
       StreamTest::CheckNewAnswer({{S("b"), S("first")}, {S("a"), S("reminder")}}),
       // 30 s after a's update its value's TTL (25 s) has passed: a reads as new.
       StreamTest::AddData(input, {{S("a"), I(3)}}), StreamTest::AdvanceClock(20'000),
       StreamTest::CheckNewAnswer({{S("a"), S("first")}, {S("b"), S("reminder")}})},
      // Without restarts: a restarted run takes its first trigger at once, before the clock
      // moves, so the batches would fall differently (the state itself survives restarts,
      // as the other suites check).
      false);
  EXPECT_EQ(err, "");
}

// flatMapGroupsWithState: a session per user, closed by an event-time timeout 5 minutes after
// its last event once the watermark passes (the classic GroupState example).
TEST_P(TwsTest, FlatMapGroupsWithStateEventTimeTimeout) {
  MemoryStream input(Spark(), "user STRING, ts TIMESTAMP");
  stream::GroupStateFunction fn = [](const ProcessorRow& key, const std::vector<ProcessorRow>& rows,
                                     stream::GroupState& state) -> std::vector<ProcessorRow> {
    if (state.hasTimedOut()) {
      ProcessorRow s = state.get();
      state.remove();
      return {{key[0], s[0], Value::Long(state.getCurrentWatermarkMs() > 0 ? 1 : 0)}};
    }
    int64_t n = state.exists() ? state.get()[0].i64() : 0, last = 0;
    for (const auto& r : rows) {
      ++n;
      last = std::max(last, r[1].i64() / 1000);
    }
    state.update({Value::Long(n)});
    state.setTimeoutTimestamp(last + 5 * 60 * 1000);
    return {};
  };
  DataFrame df = input.toDF()
                     .withWatermark("ts", "0 seconds")
                     .groupBy(std::vector<std::string>{"user"})
                     .flatMapGroupsWithState(fn, api::StructType::fromDDL("user STRING, events BIGINT, by_watermark BIGINT"),
                                             api::StructType::fromDDL("n BIGINT"), "append",
                                             "EventTimeTimeout");
  StreamTest t(Spark(), df);
  std::string err = t.Run(
      {StreamTest::StartStream(),
       StreamTest::AddData(input, {{S("u1"), T(0)}, {S("u1"), T(2)}, {S("u2"), T(3)}}),
       StreamTest::CheckAnswer({}),
       // Watermark 12:10: u1 (timeout 12:07) and u2 (12:08) time out.
       StreamTest::AddData(input, {{S("u3"), T(10)}}),
       StreamTest::CheckAnswer({{S("u1"), L(2), L(1)}, {S("u2"), L(1), L(1)}}),
       StreamTest::AssertOnQuery(
           [](const api::StreamingQuery& q) {
             for (const auto& p : q.recentProgress()) {
               if (!p.state_operators.empty() &&
                   p.state_operators[0].operator_name == "flatMapGroupsWithState")
                 return true;
             }
             return false;
           },
           "a flatMapGroupsWithState operator")},
      restart());
  EXPECT_EQ(err, "");
}

TEST(TwsErrors, FlatMapGroupsWithStateRules) {
  MemoryStream input(Spark(), "k STRING, ts TIMESTAMP");
  stream::GroupStateFunction fn = [](const ProcessorRow&, const std::vector<ProcessorRow>&,
                                     stream::GroupState&) { return std::vector<ProcessorRow>{}; };
  auto fm = [&](const std::string& mode, const std::string& timeout) {
    return input.toDF().groupBy(std::vector<std::string>{"k"}).flatMapGroupsWithState(
        fn, api::StructType::fromDDL("k STRING"), api::StructType::fromDDL("n BIGINT"), mode, timeout);
  };
  EXPECT_NE(StartError(fm("update", "NoTimeout"), "append")
                .find("flatMapGroupsWithState in update mode is not supported with Append output "
                      "mode on a streaming DataFrame/Dataset"),
            std::string::npos);
  EXPECT_NE(StartError(fm("append", "EventTimeTimeout"), "append")
                .find("Watermark must be specified in the query using "
                      "'[Dataset/DataFrame].withWatermark()' for using event-time timeout"),
            std::string::npos);
  EXPECT_EQ(StartError(fm("update", "ProcessingTimeTimeout"), "update"), "");
}

INSTANTIATE_TEST_SUITE_P(Restarts, TwsTest,
                         ::testing::Combine(::testing::Values(false, true),
                                            ::testing::Values("memory", "rocksdb")));

class ThrowingProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle&, stream::OutputMode, stream::TimeMode) override {}
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow&, const std::vector<ProcessorRow>&,
                                            const TimerValues&) override {
    throw std::runtime_error("bad row");
  }
};

TEST(TwsErrors, ProcessorErrorsFailTheQuery) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df = input.toDF().groupBy(std::vector<std::string>{"k"}).transformWithState(
      [] { return std::make_unique<ThrowingProcessor>(); }, api::StructType::fromDDL("k STRING"),
      "append");
  StreamTest t(Spark(), df);
  std::string err = t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), I(1)}}),
                           StreamTest::ExpectFailure(
                               "[TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR] An error occurred in "
                               "the user-defined function handleInputRows of the "
                               "StatefulProcessor. Reason: bad row.")});
  EXPECT_EQ(err, "");
  try {
    input.toDF().groupBy(std::vector<std::string>{"k"}).transformWithState(
        [] { return std::make_unique<ThrowingProcessor>(); }, api::StructType::fromDDL("k STRING"),
        "append", "sometimes");
    ADD_FAILURE() << "an unknown time mode";
  } catch (const api::SparkException& e) {
    EXPECT_EQ(e.getErrorClass(), "STATEFUL_PROCESSOR_UNKNOWN_TIME_MODE");
  }
}

TEST(TwsBatch, ABatchQueryRunsTheProcessorWithEmptyState) {
  DataFrame in = Spark().createDataFrame({{S("a"), I(1)}, {S("a"), I(2)}, {S("b"), I(1)}},
                                         api::StructType::fromDDL("k STRING, v INT"));
  DataFrame df = in.groupBy(std::vector<std::string>{"k"}).transformWithState(
      [] { return std::make_unique<CountingProcessor>(); },
      api::StructType::fromDDL("k STRING, n BIGINT, distinct_list BIGINT, distinct_map BIGINT"),
      "append");
  auto rows = df.orderBy("k").collect();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].toString(), "Row(k='a', n=2, distinct_list=2, distinct_map=2)");
  EXPECT_EQ(rows[1].toString(), "Row(k='b', n=1, distinct_list=1, distinct_map=1)");
}

}  // namespace
}  // namespace spate::testing
