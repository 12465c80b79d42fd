// Copyright spate authors.
#include "spate/exec/executor.h"

#include <gtest/gtest.h>

#include <thread>

#include "spate/exec/physical_plan.h"
#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

BoundPlanPtr MixedPlan() {
  auto in = RangeOf(0, 5000, 1, 3);
  auto key = Call("%", {Col(in, 0), Lit(I(13))});
  auto proj = ProjectOf(in, {{"k", key}, {"", Col(in, 0)}});
  auto agg = AggregateOf(proj, {{"k", Col(proj, 0)}},
                         {{"n", "count", {}}, {"s", "sum", {Col(proj, 1)}}});
  auto other = LocalOf(
      {Attr("k", DataType::Long()), Attr("name", DataType::String())},
      {{I(1), S("one")}, {I(2), S("two")}, {I(12), S("twelve")}, {I(99), S("none")}}, 2);
  auto j = JoinOf(agg, other, sql::JoinType::kLeftOuter, {Col(agg, 0)}, {Col(other, 0)});
  return SortOf(j, {Key(Col(j, 0))});
}

TEST(ExecutorTest, MemoryTrackingReturnsToZero) {
  auto tracker = std::make_shared<MemoryTracker>("query");
  ExecOptions opts = Options();
  opts.memory = tracker;
  {
    auto batches = Must(Collect(MixedPlan(), opts));
    EXPECT_EQ(NumRows(batches), 13);
    EXPECT_GT(tracker->current(), 0);
    EXPECT_GT(tracker->peak(), 0);
  }
  EXPECT_EQ(tracker->current(), 0);
  {
    auto w =
        Must(Collect(AggregateOf(RangeOf(0, 100'000), {}, {{"n", "count", {}}}), opts));
    EXPECT_EQ(Rows(w), (std::vector<std::string>{"100000"}));
  }
  EXPECT_EQ(tracker->current(), 0);
}

TEST(ExecutorTest, ParallelAndSerialAgreeAndSortedOrderKept) {
  auto plan = MixedPlan();
  auto parallel = Exec(plan, Options(2, 3, 100));
  auto serial = Exec(plan, Options(1, 1, 8192));
  EXPECT_EQ(parallel, serial);
  ASSERT_EQ(parallel.size(), 13u);
  EXPECT_EQ(parallel[1], "1,385,961345,1,one");
  EXPECT_EQ(parallel[3], "3,385,962115,NULL,NULL");
}

TEST(ExecutorTest, PlanRunsConcurrently) {
  auto physical = Must(CreatePhysicalPlan(MixedPlan(), Options()));
  auto expected = Rows(Must(Execute(*physical, Options())));
  std::vector<std::vector<std::string>> results(3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back(
        [&, t] { results[t] = Rows(Must(Execute(*physical, Options(2, 3, 50)))); });
  }
  for (auto& th : threads) th.join();
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

TEST(ExecutorTest, ExplainDrawsTree) {
  auto physical = Must(CreatePhysicalPlan(MixedPlan(), Options()));
  std::string text = ExplainString(*physical);
  EXPECT_EQ(text.rfind("Sort [", 0), 0u) << text;
  EXPECT_NE(text.find("+- ShuffledHashJoin ["), std::string::npos) << text;
  EXPECT_NE(text.find("   :- Exchange hashpartitioning("), std::string::npos) << text;
  EXPECT_NE(text.find("   :  +- HashAggregate(keys=["), std::string::npos) << text;
  EXPECT_NE(text.find("   +- Exchange hashpartitioning("), std::string::npos) << text;
  EXPECT_EQ(physical->schema()->num_fields(), 5);
}

}  // namespace
}  // namespace spate::exec
