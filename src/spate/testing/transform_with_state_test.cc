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
#include "spate/testing/row_values.h"
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

// 2026-01-01 12:00 UTC + `minutes`.
int64_t Ms(int minutes) { return (1767225600LL + 12 * 3600 + minutes * 60LL) * 1000LL; }
Value T(int minutes) { return Value::Timestamp(Ms(minutes) * 1000); }

Schema Fields(const std::string& ddl) {
  return *api::StructType::fromDDL(ddl).ToSchema();
}

/// Adds `rows` to the running count `count` holds (0 when unset) and returns the sum.
int64_t AddToCount(stream::ValueState& count, size_t rows) {
  int64_t n = count.exists() ? count.get()->at(0).i64() : 0;
  n += static_cast<int64_t>(rows);
  count.update({Value::Long(n)});
  return n;
}

class TwsTest : public ::testing::TestWithParam<std::tuple<RunMode, std::string>> {
 protected:
  void SetUp() override {
    Spark().conf().set("spark.sql.streaming.stateStore.providerClass",
                       StateStoreProviderClass(std::get<1>(GetParam())));
  }
  void TearDown() override {
    Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
  }
  RunMode restart() const { return std::get<0>(GetParam()); }
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
    int64_t n = AddToCount(*count_, rows.size());
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
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState(
              [] { return std::make_unique<CountingProcessor>(); },
              api::StructType::fromDDL(
                  "k STRING, n BIGINT, distinct_list BIGINT, distinct_map BIGINT"),
              "update");
  StreamTest t(Spark(), df, "update");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{S("a"), I(1)}, {S("a"), I(1)}, {S("b"), I(7)}}),
             StreamTest::CheckNewAnswer(
                 {{S("a"), L(2), L(1), L(1)}, {S("b"), L(1), L(1), L(1)}}),
             StreamTest::AddData(input, {{S("a"), I(2)}}),
             StreamTest::CheckNewAnswer({{S("a"), L(3), L(2), L(2)}}),
             StreamTest::AddData(input, {{S("b"), I(7)}, {S("c"), I(0)}}),
             StreamTest::CheckNewAnswer(
                 {{S("b"), L(2), L(1), L(1)}, {S("c"), L(1), L(1), L(1)}}),
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
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow&,
                                            const std::vector<ProcessorRow>& rows,
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
  std::vector<ProcessorRow> handleExpiredTimer(
      const ProcessorRow& key, const TimerValues& tv,
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
  DataFrame df =
      input.toDF()
          .withWatermark("ts", "0 seconds")
          .groupBy(std::vector<std::string>{"user"})
          .transformWithState([] { return std::make_unique<SessionProcessor>(); },
                              api::StructType::fromDDL(
                                  "user STRING, events BIGINT, closed_at_minute BIGINT"),
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
       StreamTest::CheckAnswer(
           {{S("u1"), L(2), L(7)}, {S("u2"), L(1), L(8)}, {S("u3"), L(2), L(17)}})},
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
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const TimerValues& tv) override {
    const bool had = last_->exists();
    last_->update({rows.back()[1]});
    handle_->registerTimer(tv.current_processing_time_ms + 10'000);
    return {{key[0], S(had ? "again" : "first")}};
  }
  std::vector<ProcessorRow> handleExpiredTimer(const ProcessorRow& key,
                                               const TimerValues&,
                                               const stream::ExpiredTimerInfo&) override {
    return {{key[0], S(last_->exists() ? "reminder" : "reminder, forgotten")}};
  }

 private:
  StatefulProcessorHandle* handle_ = nullptr;
  std::optional<stream::ValueState> last_;
};

TEST_P(TwsTest, ProcessingTimeTimersAndTtl) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState([] { return std::make_unique<ReminderProcessor>(); },
                              api::StructType::fromDDL("k STRING, what STRING"), "append",
                              "ProcessingTime");
  StreamTest t(Spark(), df);
  auto clock = std::make_shared<ManualClock>(1'000'000);
  std::string err = t.Run(
      {StreamTest::StartStream(stream::Trigger::ProcessingTime(1000), clock),
       // Parked on the clock after the first (empty) trigger: a's row must not reach it,
       // or batch 0 runs at the start time and b's row joins the next trigger before the
       // clock moves (a race seen on a loaded machine).
       StreamTest::AdvanceClock(0), StreamTest::AddData(input, {{S("a"), I(1)}}),
       StreamTest::AdvanceClock(1000), StreamTest::CheckNewAnswer({{S("a"), S("first")}}),
       // 12 s later a's timer is due: it fires in the batch of b's row.
       StreamTest::AddData(input, {{S("b"), I(2)}}), StreamTest::AdvanceClock(12'000),
       StreamTest::CheckNewAnswer({{S("b"), S("first")}, {S("a"), S("reminder")}}),
       // 30 s after a's update its value's TTL (25 s) has passed: a reads as new.
       StreamTest::AddData(input, {{S("a"), I(3)}}), StreamTest::AdvanceClock(20'000),
       StreamTest::CheckNewAnswer({{S("a"), S("first")}, {S("b"), S("reminder")}})},
      // Without restarts: a restarted run takes its first trigger at once, before the
      // clock moves, so the batches would fall differently (the state itself survives
      // restarts, as the other suites check).
      false);
  EXPECT_EQ(err, "");
}

// flatMapGroupsWithState: a session per user, closed by an event-time timeout 5 minutes
// after its last event once the watermark passes (the classic GroupState example).
TEST_P(TwsTest, FlatMapGroupsWithStateEventTimeTimeout) {
  MemoryStream input(Spark(), "user STRING, ts TIMESTAMP");
  stream::GroupStateFunction fn =
      [](const ProcessorRow& key, const std::vector<ProcessorRow>& rows,
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
  DataFrame df =
      input.toDF()
          .withWatermark("ts", "0 seconds")
          .groupBy(std::vector<std::string>{"user"})
          .flatMapGroupsWithState(
              fn,
              api::StructType::fromDDL("user STRING, events BIGINT, by_watermark BIGINT"),
              api::StructType::fromDDL("n BIGINT"), "append", "EventTimeTimeout");
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
  stream::GroupStateFunction fn =
      [](const ProcessorRow&, const std::vector<ProcessorRow>&, stream::GroupState&) {
        return std::vector<ProcessorRow>{};
      };
  auto fm = [&](const std::string& mode, const std::string& timeout) {
    return input.toDF()
        .groupBy(std::vector<std::string>{"k"})
        .flatMapGroupsWithState(fn, api::StructType::fromDDL("k STRING"),
                                api::StructType::fromDDL("n BIGINT"), mode, timeout);
  };
  EXPECT_NE(
      StartError(fm("update", "NoTimeout"), "append")
          .find(
              "flatMapGroupsWithState in update mode is not supported with Append output "
              "mode on a streaming DataFrame/Dataset"),
      std::string::npos);
  EXPECT_NE(
      StartError(fm("append", "EventTimeTimeout"), "append")
          .find("Watermark must be specified in the query using "
                "'[Dataset/DataFrame].withWatermark()' for using event-time timeout"),
      std::string::npos);
  EXPECT_EQ(StartError(fm("update", "ProcessingTimeTimeout"), "update"), "");
}

// A GroupState function's count: the state plus the key's new rows.
int64_t CountInto(const std::vector<ProcessorRow>& rows, stream::GroupState& state) {
  int64_t n = state.exists() ? state.get()[0].i64() : 0;
  n += static_cast<int64_t>(rows.size());
  state.update({Value::Long(n)});
  return n;
}

// CountingProcessor whose count starts from an initial state row (k, n).
class InitialCountProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle& h, stream::OutputMode, stream::TimeMode) override {
    count_.emplace(h.getValueState("count", Fields("n BIGINT")));
  }
  void handleInitialState(const ProcessorRow& key, const ProcessorRow& row,
                          const TimerValues&) override {
    EXPECT_EQ(key[0].ToString(), row[0].ToString()) << "the whole row, key first";
    count_->update({row[1]});
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const TimerValues&) override {
    int64_t n = AddToCount(*count_, rows.size());
    return {{key[0], Value::Long(n)}};
  }

 private:
  std::optional<stream::ValueState> count_;
};

// The initial state applies in the first batch only: a restart (after every check when
// restart()) does not apply it again.
TEST_P(TwsTest, InitialStateSeedsTheFirstBatchOnly) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame init = Spark().createDataFrame(
      {{S("a"), L(10)}, {S("z"), L(5)}}, api::StructType::fromDDL("k STRING, n BIGINT"));
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState([] { return std::make_unique<InitialCountProcessor>(); },
                              api::StructType::fromDDL("k STRING, n BIGINT"), "update",
                              "None", init.groupBy(std::vector<std::string>{"k"}));
  StreamTest t(Spark(), df, "update");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{S("a"), I(1)}, {S("b"), I(1)}}),
             // z has state but no rows: transformWithState does not call it.
             StreamTest::CheckNewAnswer({{S("a"), L(11)}, {S("b"), L(1)}}),
             StreamTest::AddData(input, {{S("z"), I(1)}, {S("a"), I(1)}}),
             StreamTest::CheckNewAnswer({{S("z"), L(6)}, {S("a"), L(12)}}),
             StreamTest::AddData(input, {{S("a"), I(1)}}),
             StreamTest::CheckNewAnswer({{S("a"), L(13)}})},
            restart());
  EXPECT_EQ(err, "");
}

// flatMapGroupsWithState: the initial row is the state; a key found only there is called
// with no rows (unless skipEmittingInitialStateKeys).
TEST_P(TwsTest, FlatMapGroupsWithStateInitialState) {
  for (bool skip : {false, true}) {
    Spark().conf().set(
        "spark.sql.streaming.flatMapGroupsWithState.skipEmittingInitialStateKeys",
        skip ? "true" : "false");
    MemoryStream input(Spark(), "k STRING, v INT");
    stream::GroupStateFunction fn =
        [](const ProcessorRow& key, const std::vector<ProcessorRow>& rows,
           stream::GroupState& state) -> std::vector<ProcessorRow> {
      return {{key[0], Value::Long(CountInto(rows, state))}};
    };
    // Extra columns are ignored; the state's column is found by name and cast.
    DataFrame init =
        Spark().createDataFrame({{S("x"), S("a"), I(10)}, {S("y"), S("z"), I(5)}},
                                api::StructType::fromDDL("note STRING, k STRING, n INT"));
    DataFrame df = input.toDF()
                       .groupBy(std::vector<std::string>{"k"})
                       .flatMapGroupsWithState(
                           fn, api::StructType::fromDDL("k STRING, n BIGINT"),
                           api::StructType::fromDDL("n BIGINT"), "update", "NoTimeout",
                           init.groupBy(std::vector<std::string>{"k"}));
    StreamTest t(Spark(), df, "update");
    std::vector<std::vector<Value>> first = {{S("a"), L(11)}};
    if (!skip) first.push_back({S("z"), L(5)});
    std::string err = t.Run(
        {StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), I(1)}}),
         StreamTest::CheckNewAnswer(first), StreamTest::AddData(input, {{S("z"), I(1)}}),
         StreamTest::CheckNewAnswer({{S("z"), L(6)}})},
        restart());
    EXPECT_EQ(err, "") << "skipEmittingInitialStateKeys=" << skip;
  }
  Spark().conf().unset(
      "spark.sql.streaming.flatMapGroupsWithState.skipEmittingInitialStateKeys");
}

// mapGroupsWithState: one row per call, Update mode.
TEST_P(TwsTest, MapGroupsWithStateCountsPerKey) {
  MemoryStream input(Spark(), "k STRING, v INT");
  api::GroupedData::MapGroupsFunction fn = [](const ProcessorRow& key,
                                              const std::vector<ProcessorRow>& rows,
                                              stream::GroupState& state) -> ProcessorRow {
    return {key[0], Value::Long(CountInto(rows, state))};
  };
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .mapGroupsWithState(fn, api::StructType::fromDDL("k STRING, n BIGINT"),
                              api::StructType::fromDDL("n BIGINT"));
  StreamTest t(Spark(), df, "update");
  std::string err =
      t.Run({StreamTest::StartStream(),
             StreamTest::AddData(input, {{S("a"), I(1)}, {S("a"), I(2)}, {S("b"), I(1)}}),
             StreamTest::CheckNewAnswer({{S("a"), L(2)}, {S("b"), L(1)}}),
             StreamTest::AddData(input, {{S("b"), I(1)}}),
             StreamTest::CheckNewAnswer({{S("b"), L(2)}})},
            restart());
  EXPECT_EQ(err, "");
}

TEST(TwsErrors, InitialStateAndMapGroupsRules) {
  MemoryStream input(Spark(), "k STRING, v INT");
  auto grouped = input.toDF().groupBy(std::vector<std::string>{"k"});
  // Two initial rows for one key: Spark's error for each API.
  DataFrame dup = Spark().createDataFrame({{S("a"), L(1)}, {S("a"), L(2)}},
                                          api::StructType::fromDDL("k STRING, n BIGINT"));
  DataFrame tws =
      grouped.transformWithState([] { return std::make_unique<InitialCountProcessor>(); },
                                 api::StructType::fromDDL("k STRING, n BIGINT"), "update",
                                 "None", dup.groupBy(std::vector<std::string>{"k"}));
  StreamTest t(Spark(), tws, "update");
  EXPECT_EQ(
      t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("b"), I(1)}}),
             StreamTest::ExpectFailure(
                 "[STATEFUL_PROCESSOR_CANNOT_REINITIALIZE_STATE_ON_KEY] Cannot "
                 "re-initialize "
                 "state on the same grouping key during initial state handling for "
                 "stateful processor. Invalid grouping key=a.")}),
      "");
  stream::GroupStateFunction fn =
      [](const ProcessorRow&, const std::vector<ProcessorRow>&, stream::GroupState&) {
        return std::vector<ProcessorRow>{};
      };
  DataFrame fm = grouped.flatMapGroupsWithState(
      fn, api::StructType::fromDDL("k STRING"), api::StructType::fromDDL("n BIGINT"),
      "update", "NoTimeout", dup.groupBy(std::vector<std::string>{"k"}));
  StreamTest t2(Spark(), fm, "update");
  EXPECT_EQ(
      t2.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("b"), I(1)}}),
              StreamTest::ExpectFailure("The initial state provided contained multiple "
                                        "rows(state) with the same key.")}),
      "");
  // The initial state must be a batch DataFrame with the input's key types.
  auto expect_throw = [](const std::function<void()>& f, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "expected: " << text;
    } catch (const api::SparkException& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_throw(
      [&] {
        grouped.flatMapGroupsWithState(fn, api::StructType::fromDDL("k STRING"),
                                       api::StructType::fromDDL("n BIGINT"), "update",
                                       "NoTimeout", grouped);
      },
      "Non-streaming DataFrame/Dataset is not supported as the initial state");
  DataFrame int_keys = Spark().createDataFrame(
      {{I(1), L(1)}}, api::StructType::fromDDL("k INT, n BIGINT"));
  expect_throw(
      [&] {
        grouped.transformWithState(
            [] { return std::make_unique<InitialCountProcessor>(); },
            api::StructType::fromDDL("k STRING, n BIGINT"), "update", "None",
            int_keys.groupBy(std::vector<std::string>{"k"}));
      },
      "The initial state's grouping keys (int) must have the types of the input's "
      "grouping keys "
      "(string)");
  // mapGroupsWithState: Update only, no aggregation.
  api::GroupedData::MapGroupsFunction one =
      [](const ProcessorRow& key, const std::vector<ProcessorRow>&,
         stream::GroupState&) -> ProcessorRow { return {key[0]}; };
  DataFrame mg = grouped.mapGroupsWithState(one, api::StructType::fromDDL("k STRING"),
                                            api::StructType::fromDDL("n BIGINT"));
  EXPECT_NE(StartError(mg, "append")
                .find("mapGroupsWithState is not supported with Append output mode on a "
                      "streaming DataFrame/Dataset"),
            std::string::npos);
  EXPECT_NE(
      StartError(mg.groupBy(std::vector<std::string>{"k"}).count(), "update")
          .find("mapGroupsWithState is not supported with aggregation on a streaming "
                "DataFrame/Dataset"),
      std::string::npos);
  EXPECT_EQ(StartError(mg, "update"), "");
}

// Declares one state variable of `kind` ('v', 'l', 'm') with a TTL of `ttl_ms`; with
// `catch_refusal` it catches Spark's refusal and counts the key's rows without state.
class TtlDeclaringProcessor final : public StatefulProcessor {
 public:
  TtlDeclaringProcessor(char kind, int64_t ttl_ms, bool catch_refusal = false)
      : kind_(kind), ttl_ms_(ttl_ms), catch_(catch_refusal) {}
  void init(StatefulProcessorHandle& h, stream::OutputMode, stream::TimeMode) override {
    try {
      const stream::TTLConfig ttl{ttl_ms_};
      if (kind_ == 'v') h.getValueState("cnt", Fields("n BIGINT"), ttl);
      if (kind_ == 'l') h.getListState("lst", Fields("n BIGINT"), ttl);
      if (kind_ == 'm') h.getMapState("mp", Fields("k STRING"), Fields("n BIGINT"), ttl);
    } catch (const stream::StateVariableError& e) {
      if (!catch_) throw;
      refused_ = e.status().error_class();
    }
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const TimerValues&) override {
    return {{key[0], S(refused_.empty() ? "declared" : refused_)}};
  }

 private:
  char kind_;
  int64_t ttl_ms_;
  bool catch_;
  std::string refused_;
};

// Spark's StatefulProcessorHandle refuses a TTL outside processing time, and a negative
// one, when the variable is declared; the query fails with that error itself
// (STREAM_FAILED's cause). A TTL of 0 is Spark's TTLConfig.NONE: accepted in every mode.
TEST(TwsErrors, TtlOnlyInProcessingTime) {
  struct Case {
    char kind;
    const char* time_mode;
    int64_t ttl;
    std::string error;  // "" : the query runs
  };
  const std::string mode_error =
      "[STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL] Cannot use TTL for ";
  const std::vector<Case> cases = {
      {'v', "None", 60000,
       mode_error + "state=cnt in timeMode=NoTime, use TimeMode.ProcessingTime() "
                    "instead. SQLSTATE: 42802"},
      {'l', "None", 60000,
       mode_error + "state=lst in timeMode=NoTime, use TimeMode.ProcessingTime() "
                    "instead. SQLSTATE: 42802"},
      {'m', "None", -5,
       mode_error + "state=mp in timeMode=NoTime, use TimeMode.ProcessingTime() instead. "
                    "SQLSTATE: 42802"},
      {'v', "EventTime", 60000,
       mode_error + "state=cnt in timeMode=EventTime, use TimeMode.ProcessingTime() "
                    "instead. SQLSTATE: 42802"},
      {'m', "ProcessingTime", -5,
       "[STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE] TTL duration must be greater "
       "than zero for State "
       "store operation=update on state=mp. SQLSTATE: 42802"},
      {'v', "None", 0, ""},
      {'l', "EventTime", 0, ""},
      {'v', "ProcessingTime", 60000, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(1, c.kind) + " " + c.time_mode + " " +
                 std::to_string(c.ttl));
    MemoryStream input(Spark(), "k STRING, ts TIMESTAMP");
    DataFrame in = input.toDF();
    if (std::string(c.time_mode) == "EventTime") in = in.withWatermark("ts", "1 minute");
    const char kind = c.kind;
    const int64_t ttl = c.ttl;
    DataFrame df =
        in.groupBy(std::vector<std::string>{"k"})
            .transformWithState(
                [kind, ttl] {
                  return std::make_unique<TtlDeclaringProcessor>(kind, ttl);
                },
                api::StructType::fromDDL("k STRING, what STRING"), "update", c.time_mode);
    StreamTest t(Spark(), df, "update");
    if (c.error.empty()) {
      EXPECT_EQ(
          t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), T(0)}}),
                 StreamTest::CheckNewAnswer({{S("a"), S("declared")}})}),
          "");
    } else {
      // Not wrapped in the user function error: the refusal is the failure itself.
      EXPECT_EQ(
          t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), T(0)}}),
                 StreamTest::ExpectFailure("terminated with exception: " + c.error)}),
          "");
    }
  }
  // A processor may catch the refusal (Spark's is an exception too) and run on.
  MemoryStream input(Spark(), "k STRING, ts TIMESTAMP");
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState(
              [] { return std::make_unique<TtlDeclaringProcessor>('v', 1000, true); },
              api::StructType::fromDDL("k STRING, what STRING"), "update", "None");
  StreamTest t(Spark(), df, "update");
  EXPECT_EQ(
      t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), T(0)}}),
             StreamTest::CheckNewAnswer(
                 {{S("a"), S("STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL")}})}),
      "");
  // A batch query declares its variables through the same handle.
  DataFrame batch = Spark().createDataFrame(
      {{S("a"), T(0)}}, api::StructType::fromDDL("k STRING, ts TIMESTAMP"));
  try {
    batch.groupBy(std::vector<std::string>{"k"})
        .transformWithState(
            [] { return std::make_unique<TtlDeclaringProcessor>('v', 1000); },
            api::StructType::fromDDL("k STRING, what STRING"), "update", "None")
        .collect();
    ADD_FAILURE() << "a batch query declared a TTL in time mode None";
  } catch (const api::SparkException& e) {
    EXPECT_EQ(e.getErrorClass(), "STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL")
        << e.what();
  }
}

// A batch query with an initial state: handleInitialState, then the rows.
TEST(TwsBatch, ABatchQueryAppliesTheInitialState) {
  DataFrame in = Spark().createDataFrame({{S("a"), I(1)}, {S("b"), I(1)}},
                                         api::StructType::fromDDL("k STRING, v INT"));
  DataFrame init = Spark().createDataFrame(
      {{S("a"), L(10)}}, api::StructType::fromDDL("k STRING, n BIGINT"));
  DataFrame df =
      in.groupBy(std::vector<std::string>{"k"})
          .transformWithState([] { return std::make_unique<InitialCountProcessor>(); },
                              api::StructType::fromDDL("k STRING, n BIGINT"), "append",
                              "None", init.groupBy(std::vector<std::string>{"k"}));
  auto rows = df.orderBy("k").collect();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].toString(), "Row(k='a', n=11)");
  EXPECT_EQ(rows[1].toString(), "Row(k='b', n=1)");
}

INSTANTIATE_TEST_SUITE_P(Modes, TwsTest,
                         ::testing::Combine(::testing::ValuesIn(AllRunModes()),
                                            ::testing::Values("memory", "rocksdb")),
                         ModeAndProviderName());

class ThrowingProcessor final : public StatefulProcessor {
 public:
  void init(StatefulProcessorHandle&, stream::OutputMode, stream::TimeMode) override {}
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow&,
                                            const std::vector<ProcessorRow>&,
                                            const TimerValues&) override {
    throw std::runtime_error("bad row");
  }
};

TEST(TwsErrors, ProcessorErrorsFailTheQuery) {
  MemoryStream input(Spark(), "k STRING, v INT");
  DataFrame df =
      input.toDF()
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState([] { return std::make_unique<ThrowingProcessor>(); },
                              api::StructType::fromDDL("k STRING"), "append");
  StreamTest t(Spark(), df);
  std::string err =
      t.Run({StreamTest::StartStream(), StreamTest::AddData(input, {{S("a"), I(1)}}),
             StreamTest::ExpectFailure(
                 "[TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR] An error occurred in "
                 "the user-defined function handleInputRows of the "
                 "StatefulProcessor. Reason: bad row.")});
  EXPECT_EQ(err, "");
  try {
    input.toDF()
        .groupBy(std::vector<std::string>{"k"})
        .transformWithState([] { return std::make_unique<ThrowingProcessor>(); },
                            api::StructType::fromDDL("k STRING"), "append", "sometimes");
    ADD_FAILURE() << "an unknown time mode";
  } catch (const api::SparkException& e) {
    EXPECT_EQ(e.getErrorClass(), "STATEFUL_PROCESSOR_UNKNOWN_TIME_MODE");
  }
}

TEST(TwsBatch, ABatchQueryRunsTheProcessorWithEmptyState) {
  DataFrame in = Spark().createDataFrame({{S("a"), I(1)}, {S("a"), I(2)}, {S("b"), I(1)}},
                                         api::StructType::fromDDL("k STRING, v INT"));
  DataFrame df =
      in.groupBy(std::vector<std::string>{"k"})
          .transformWithState(
              [] { return std::make_unique<CountingProcessor>(); },
              api::StructType::fromDDL(
                  "k STRING, n BIGINT, distinct_list BIGINT, distinct_map BIGINT"),
              "append");
  auto rows = df.orderBy("k").collect();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].toString(), "Row(k='a', n=2, distinct_list=2, distinct_map=2)");
  EXPECT_EQ(rows[1].toString(), "Row(k='b', n=1, distinct_list=1, distinct_map=1)");
}

}  // namespace
}  // namespace spate::testing
