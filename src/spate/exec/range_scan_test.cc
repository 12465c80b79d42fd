// Copyright spate authors.
#include "spate/exec/range_scan.h"

#include <gtest/gtest.h>

#include "spate/exec/test_plans.h"
#include "spate/testing/status_matchers.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

TEST(RangeScanTest, ProducesEndExclusiveValuesInOrder) {
  EXPECT_EQ(Exec(RangeOf(0, 5)), (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(Exec(RangeOf(3, 10, 3)), (std::vector<std::string>{"3", "6", "9"}));
}

TEST(RangeScanTest, NegativeStepCountsDown) {
  EXPECT_EQ(Exec(RangeOf(5, 0, -2)), (std::vector<std::string>{"5", "3", "1"}));
  EXPECT_EQ(Exec(RangeOf(-1, -4, -1)), (std::vector<std::string>{"-1", "-2", "-3"}));
}

TEST(RangeScanTest, EmptyWhenStepPointsAway) {
  EXPECT_TRUE(Exec(RangeOf(0, 5, -1)).empty());
  EXPECT_TRUE(Exec(RangeOf(5, 5)).empty());
}

TEST(RangeScanTest, StepZeroIsAnError) {
  auto r = Collect(RangeOf(0, 5, 0), Options());
  EXPECT_ERROR_HAS(r, "the step must not be 0");
}

TEST(RangeScanTest, SplitsAndBatchSize) {
  auto plan = Must(CreatePhysicalPlan(RangeOf(0, 103, 1, 4), Options(2, 3, 10)));
  ExecOptions opts = Options(2, 3, 10);
  auto batches = Must(Execute(*plan, opts));
  EXPECT_EQ(NumRows(batches), 103);
  for (const auto& b : batches) EXPECT_LE(b->num_rows(), 10);
  std::vector<std::string> rows = Rows(batches);
  for (int i = 0; i < 103; ++i) EXPECT_EQ(rows[i], std::to_string(i));
  EXPECT_EQ(ExplainString(*plan), "Range (0, 103, step=1, splits=4)\n");
}

TEST(RangeScanTest, DefaultSplitsIsParallelism) {
  auto plan = Must(CreatePhysicalPlan(RangeOf(0, 10), Options(3, 2)));
  EXPECT_EQ(ExplainString(*plan), "Range (0, 10, step=1, splits=3)\n");
}

TEST(RangeScanTest, OneRowAndLocalRelation) {
  auto one = Node(BoundKind::kOneRow);
  auto proj = ProjectOf(one, {{"x", Lit(Value::Int(7))}});
  EXPECT_EQ(Exec(proj), (std::vector<std::string>{"7"}));
  auto local =
      LocalOf({Attr("a", DataType::Long()), Attr("b", DataType::String())},
              {{I(1), S("x")}, {I(2), NullOf(DataType::String())}, {I(3), S("z")}}, 3);
  EXPECT_EQ(Exec(local), (std::vector<std::string>{"1,x", "2,NULL", "3,z"}));
  auto empty = LocalOf({Attr("a", DataType::Long())}, {});
  EXPECT_TRUE(Exec(empty).empty());
}

}  // namespace
}  // namespace spate::exec
