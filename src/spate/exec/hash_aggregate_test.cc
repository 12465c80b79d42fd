// Copyright spate authors.
#include "spate/exec/hash_aggregate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "spate/exec/physical_plan.h"
#include "spate/exec/planner.h"
#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

std::vector<std::string> ExecWith(const BoundPlanPtr& plan, const ExecOptions& opts,
                                  PlannerOptions popts) {
  PhysicalOpPtr root = Must(Planner(opts, popts).Plan(plan));
  PhysicalPlan physical(root);
  return Sorted(Rows(Must(Execute(physical, opts))));
}

BoundPlanPtr KeyValueRows() {
  return LocalOf({Attr("k", DataType::String()), Attr("v", DataType::Long())},
                 {{S("a"), I(1)},
                  {S("b"), I(2)},
                  {S("a"), I(3)},
                  {NullOf(DataType::String()), I(4)},
                  {S("b"), NullL()},
                  {NullOf(DataType::String()), I(6)},
                  {S("c"), I(7)},
                  {S("a"), I(1)}},
                 3);
}

TEST(HashAggregateTest, GroupsByStringKeyWithNullGroup) {
  auto in = KeyValueRows();
  auto agg = AggregateOf(in, {{"k", Col(in, 0)}},
                         {{"cnt", "count", {}},
                          {"c", "count", {Col(in, 1)}},
                          {"s", "sum", {Col(in, 1)}},
                          {"mn", "min", {Col(in, 1)}},
                          {"mx", "max", {Col(in, 1)}}});
  EXPECT_EQ(ExecSorted(agg), (std::vector<std::string>{"NULL,2,2,10,4,6", "a,3,3,5,1,3",
                                                       "b,2,1,2,2,2", "c,1,1,7,7,7"}));
}

TEST(HashAggregateTest, IntegerKeyFastPathWithNulls) {
  auto in = LocalOf({Attr("k", DataType::Int()), Attr("v", DataType::Long())},
                    {{I32(1), I(10)},
                     {NullOf(DataType::Int()), I(1)},
                     {I32(2), I(20)},
                     {I32(1), I(5)},
                     {NullOf(DataType::Int()), I(2)},
                     {I32(-7), I(0)}},
                    2);
  auto agg = AggregateOf(in, {{"k", Col(in, 0)}},
                         {{"s", "sum", {Col(in, 1)}}, {"n", "count", {}}});
  EXPECT_EQ(ExecSorted(agg),
            (std::vector<std::string>{"-7,0,1", "1,15,2", "2,20,1", "NULL,3,2"}));
}

TEST(HashAggregateTest, GlobalAggregateOverEmptyInputReturnsOneRow) {
  auto in = FilterOf(RangeOf(0, 100), Lit(Value::Boolean(false)));
  auto agg = AggregateOf(
      in, {},
      {{"n", "count", {}}, {"s", "sum", {Col(in, 0)}}, {"m", "max", {Col(in, 0)}}});
  EXPECT_EQ(Exec(agg), (std::vector<std::string>{"0,NULL,NULL"}));
  auto grouped = AggregateOf(in, {{"k", Col(in, 0)}}, {{"n", "count", {}}});
  EXPECT_TRUE(Exec(grouped).empty());
  auto empty_local = LocalOf({Attr("x", DataType::Long())}, {});
  auto agg2 = AggregateOf(empty_local, {},
                          {{"n", "count", {}}, {"a", "avg", {Col(empty_local, 0)}}});
  EXPECT_EQ(Exec(agg2), (std::vector<std::string>{"0,NULL"}));
  EXPECT_EQ(Exec(agg2, Options(1, 1)), (std::vector<std::string>{"0,NULL"}));
}

TEST(HashAggregateTest, GlobalAggregate) {
  auto in = RangeOf(1, 101, 1, 4);
  auto agg = AggregateOf(
      in, {},
      {{"n", "count", {}}, {"s", "sum", {Col(in, 0)}}, {"a", "avg", {Col(in, 0)}}});
  EXPECT_EQ(Exec(agg), (std::vector<std::string>{"100,5050,50.5"}));
}

TEST(HashAggregateTest, FilterClauseRestrictsOneCall) {
  auto in = RangeOf(0, 10);
  auto even = Call("=", {Call("%", {Col(in, 0), Lit(I(2))}), Lit(I(0))});
  auto big = Call(">", {Col(in, 0), Lit(I(100))});
  auto key = Call("%", {Col(in, 0), Lit(I(3))});
  AggSpec even_sum{"se", "sum", {Col(in, 0)}, false, even};
  AggSpec none{"sn", "count", {}, false, big};
  auto agg = AggregateOf(in, {{"k", key}}, {{"s", "sum", {Col(in, 0)}}, even_sum, none});
  // k=0: 0,3,6,9 ; k=1: 1,4,7 ; k=2: 2,5,8
  EXPECT_EQ(ExecSorted(agg),
            (std::vector<std::string>{"0,18,6,0", "1,12,4,0", "2,15,10,0"}));
}

TEST(HashAggregateTest, DistinctAggregateRunsSinglePhase) {
  auto in = KeyValueRows();
  AggSpec dc{"dc", "count", {Col(in, 1)}, true};
  AggSpec ds{"ds", "sum", {Col(in, 1)}, true};
  auto agg = AggregateOf(in, {{"k", Col(in, 0)}}, {dc, ds, {"n", "count", {}}});
  EXPECT_EQ(ExecSorted(agg),
            (std::vector<std::string>{"NULL,2,10,2", "a,2,4,3", "b,1,2,2", "c,1,7,1"}));
  auto plan = Must(CreatePhysicalPlan(agg, Options()));
  std::string text = ExplainString(*plan);
  EXPECT_EQ(text.find("partial_"), std::string::npos) << text;
  auto global = AggregateOf(in, {}, {dc, {"n", "count", {}}});
  EXPECT_EQ(Exec(global), (std::vector<std::string>{"6,8"}));
}

TEST(HashAggregateTest, TwoPhaseAndSinglePhaseAgree) {
  auto in = RangeOf(0, 20'000, 1, 3);
  auto key = Call("%", {Col(in, 0), Lit(I(37))});
  auto agg = AggregateOf(in, {{"k", key}},
                         {{"n", "count", {}},
                          {"s", "sum", {Col(in, 0)}},
                          {"mn", "min", {Col(in, 0)}},
                          {"mx", "max", {Col(in, 0)}},
                          {"a", "avg", {Col(in, 0)}},
                          {"f", "first", {Col(in, 0)}}});
  auto two = ExecWith(agg, Options(2, 3, 1000), {});
  auto one = ExecWith(agg, Options(2, 3, 1000), {.force_single_phase_aggregate = true});
  EXPECT_EQ(two.size(), 37u);
  EXPECT_EQ(two, one);
  auto serial = ExecWith(agg, Options(1, 1, 1000), {});
  EXPECT_EQ(two, serial);
}

TEST(HashAggregateTest, StringMinMaxFirstLastTwoPhase) {
  auto in = KeyValueRows();
  auto agg = AggregateOf(in, {{"v", Col(in, 1)}},
                         {{"mn", "min", {Col(in, 0)}},
                          {"n", "count", {}},
                          {"mx", "max", {Col(in, 0)}},
                          {"s", "sum", {Col(in, 1)}}});
  EXPECT_EQ(ExecSorted(agg), (std::vector<std::string>{
                                 "1,a,2,a,2", "2,b,1,b,2", "3,a,1,a,3", "4,NULL,1,NULL,4",
                                 "6,NULL,1,NULL,6", "7,c,1,c,7", "NULL,b,1,b,NULL"}));
  EXPECT_EQ(ExecSorted(agg, Options(2, 3)), ExecSorted(agg, Options(1, 1)));
}

TEST(HashAggregateTest, MultipleKeysAndNoAggregates) {
  auto in = LocalOf({Attr("a", DataType::Long()), Attr("b", DataType::String())},
                    {{I(1), S("x")},
                     {I(1), S("x")},
                     {I(1), S("y")},
                     {NullL(), S("x")},
                     {NullL(), S("x")}},
                    2);
  auto agg = AggregateOf(in, {{"a", Col(in, 0)}, {"b", Col(in, 1)}}, {});
  EXPECT_EQ(ExecSorted(agg), (std::vector<std::string>{"1,x", "1,y", "NULL,x"}));
}

TEST(HashAggregateTest, ExplainShowsBothPhases) {
  auto in = RangeOf(0, 10'000'000, 1, 2);
  auto proj =
      ProjectOf(in, {{"k", Call("%", {Col(in, 0), Lit(I(10))})}, {"", Col(in, 0)}});
  auto agg =
      AggregateOf(proj, {{"", Col(proj, 0)}},
                  {{"cnt", "count", {Lit(Value::Int(1))}}, {"s", "sum", {Col(proj, 1)}}});
  auto plan = Must(CreatePhysicalPlan(agg, Options(2, 2)));
  std::string k = proj->output[0].Label();
  EXPECT_EQ(ExplainString(*plan),
            "HashAggregate(keys=[" + k +
                "], functions=[count(1), sum(id#0L)])\n"
                "+- Exchange hashpartitioning(" +
                k +
                ", 2)\n"
                "   +- HashAggregate(keys=[" +
                k +
                "], functions=[partial_count(1), partial_sum(id#0L)])\n"
                "      +- Project [(id#0L % 10) AS " +
                k +
                ", id#0L]\n"
                "         +- Range (0, 10000000, step=1, splits=2)\n");
  EXPECT_EQ(ExecSorted(AggregateOf(proj, {{"", Col(proj, 0)}}, {{"n", "count", {}}}),
                       Options(2, 2))
                .size(),
            10u);
}

// The headline benchmark: range(10M) grouped by id % 10. Prints rows/s.
TEST(HashAggregateTest, TenMillionRowsGroupedByModulo) {
  const int64_t n = 10'000'000;
  for (int threads : {1, 2}) {
    auto in = RangeOf(0, n, 1, threads);
    auto key = Call("%", {Col(in, 0), Lit(I(10))});
    auto agg =
        AggregateOf(in, {{"k", key}}, {{"cnt", "count", {}}, {"s", "sum", {Col(in, 0)}}});
    ExecOptions opts = Options(threads, threads);
    auto plan = Must(CreatePhysicalPlan(agg, opts));
    double best = 1e9;
    std::vector<std::string> rows;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      auto batches = Must(Execute(*plan, opts));
      double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, secs);
      rows = Sorted(Rows(batches));
    }
    std::vector<std::string> expected;
    for (int64_t k = 0; k < 10; ++k) {
      // ids k, k+10, ..., count n/10, sum = k*(n/10) + 10 * (0 + 1 + ... + (n/10 - 1))
      int64_t m = n / 10;
      int64_t sum = k * m + 10 * (m * (m - 1) / 2);
      expected.push_back(std::to_string(k) + "," + std::to_string(m) + "," +
                         std::to_string(sum));
    }
    EXPECT_EQ(rows, expected);
    std::printf(
        "[ perf ] range(10M) GROUP BY id %% 10, count+sum, %d thread(s): %.1f ms, %.1f M "
        "rows/s\n",
        threads, best * 1e3, n / best / 1e6);
  }
}

}  // namespace
}  // namespace spate::exec
