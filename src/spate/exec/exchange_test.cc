// Copyright spate authors.
#include "spate/exec/exchange.h"

#include <gtest/gtest.h>

#include "spate/base/text_parse.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/physical_plan.h"
#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

// Rows of each output partition of the plan's root.
std::vector<std::vector<std::string>> Partitions(const BoundPlanPtr& plan,
                                                 const ExecOptions& opts) {
  auto physical = Must(CreatePhysicalPlan(plan, opts));
  ExecContext ctx(opts);
  EXPECT_TRUE(ctx.PrepareTree(*physical->root()).ok());
  std::vector<std::vector<std::string>> out;
  for (int p = 0; p < physical->root()->num_partitions(); ++p) {
    std::vector<BatchPtr> batches;
    EXPECT_TRUE(DrainPartition(*physical->root(), p, &ctx, &batches).ok());
    out.push_back(Rows(batches));
  }
  return out;
}

TEST(ExchangeTest, HashRepartitionKeepsEqualKeysTogether) {
  auto in = RangeOf(0, 1000, 1, 3);
  auto key = Call("%", {Col(in, 0), Lit(I(7))});
  auto rep = RepartitionOf(in, 4, {key});
  auto parts = Partitions(rep, Options(2, 3, 64));
  ASSERT_EQ(parts.size(), 4u);
  std::vector<int> owner(7, -1);
  size_t total = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    for (const auto& r : parts[p]) {
      int k = ParseInt32(r).value() % 7;
      if (owner[k] < 0) owner[k] = static_cast<int>(p);
      EXPECT_EQ(owner[k], static_cast<int>(p));
      ++total;
    }
  }
  EXPECT_EQ(total, 1000u);
}

TEST(ExchangeTest, RoundRobinBalances) {
  auto rep = RepartitionOf(RangeOf(0, 1000, 1, 2), 4, {});
  auto parts = Partitions(rep, Options(2, 3, 100));
  ASSERT_EQ(parts.size(), 4u);
  for (const auto& p : parts) EXPECT_EQ(p.size(), 250u);
  EXPECT_EQ(ExecSorted(rep).size(), 1000u);
}

TEST(ExchangeTest, CoalesceMergesAdjacentPartitions) {
  auto rep = RepartitionOf(RangeOf(0, 12, 1, 6), 2, {}, /*shuffle=*/false);
  auto parts = Partitions(rep, Options());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], (std::vector<std::string>{"0", "1", "2", "3", "4", "5"}));
  EXPECT_EQ(parts[1], (std::vector<std::string>{"6", "7", "8", "9", "10", "11"}));
  auto plan = Must(CreatePhysicalPlan(rep, Options()));
  EXPECT_EQ(ExplainString(*plan), "Coalesce 2\n+- Range (0, 12, step=1, splits=6)\n");
  // coalesce cannot add partitions.
  EXPECT_EQ(
      Partitions(RepartitionOf(RangeOf(0, 4, 1, 2), 5, {}, false), Options()).size(), 2u);
}

TEST(ExchangeTest, ExplainNamesPartitioning) {
  auto in = RangeOf(0, 10);
  auto plan = Must(CreatePhysicalPlan(RepartitionOf(in, 5, {Col(in, 0)}), Options()));
  EXPECT_EQ(ExplainString(*plan),
            "Exchange hashpartitioning(id#0L, 5)\n+- Range (0, 10, step=1, splits=2)\n");
  plan = Must(CreatePhysicalPlan(RepartitionOf(in, 0, {}), Options(2, 7)));
  EXPECT_EQ(ExplainString(*plan),
            "Exchange RoundRobinPartitioning(7)\n+- Range (0, 10, step=1, splits=2)\n");
}

TEST(ExchangeTest, ParallelAndSerialRunsGiveSameMultiset) {
  auto in = LocalOf({Attr("k", DataType::String()), Attr("v", DataType::Long())},
                    {{S("x"), I(1)},
                     {S("y"), I(2)},
                     {NullOf(DataType::String()), I(3)},
                     {S("x"), I(4)}},
                    4);
  auto rep = RepartitionOf(in, 3, {Col(in, 0)});
  auto agg = AggregateOf(rep, {{"k", Col(rep, 0)}}, {{"s", "sum", {Col(rep, 1)}}});
  EXPECT_EQ(ExecSorted(agg, Options(2, 3)), ExecSorted(agg, Options(1, 1)));
  EXPECT_EQ(ExecSorted(agg), (std::vector<std::string>{"NULL,3", "x,5", "y,2"}));
}

}  // namespace
}  // namespace spate::exec
