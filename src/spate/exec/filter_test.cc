// Copyright spate authors.
#include "spate/exec/filter.h"

#include <gtest/gtest.h>

#include "spate/exec/test_plans.h"
#include "spate/testing/status_matchers.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

TEST(FilterTest, KeepsRowsWhereConditionIsTrue) {
  auto in = RangeOf(0, 20, 1, 3);
  auto f = FilterOf(in, Call(">=", {Col(in, 0), Lit(I(15))}));
  EXPECT_EQ(Exec(f), (std::vector<std::string>{"15", "16", "17", "18", "19"}));
}

TEST(FilterTest, NullConditionDropsRow) {
  auto in = LocalOf({Attr("a", DataType::Long())}, {{I(1)}, {NullL()}, {I(3)}});
  auto f = FilterOf(in, Call(">", {Col(in, 0), Lit(I(0))}));
  EXPECT_EQ(Exec(f), (std::vector<std::string>{"1", "3"}));
}

TEST(FilterTest, AllAndNonePass) {
  auto in = RangeOf(0, 100, 1, 2);
  EXPECT_EQ(Exec(FilterOf(in, Lit(Value::Boolean(true)))).size(), 100u);
  EXPECT_TRUE(Exec(FilterOf(in, Lit(Value::Boolean(false)))).empty());
  EXPECT_TRUE(Exec(FilterOf(in, Lit(Value::Null(DataType::Boolean())))).empty());
}

TEST(FilterTest, FilterThenProjectStreams) {
  auto in = RangeOf(0, 10);
  auto f = FilterOf(in, Call("=", {Call("%", {Col(in, 0), Lit(I(3))}), Lit(I(0))}));
  auto p = ProjectOf(f, {{"x", Call("*", {Col(f, 0), Lit(I(10))})}, {"", Col(f, 0)}});
  EXPECT_EQ(Exec(p), (std::vector<std::string>{"0,0", "30,3", "60,6", "90,9"}));
  auto plan = Must(CreatePhysicalPlan(p, Options()));
  std::string x = p->output[0].Label();
  EXPECT_EQ(ExplainString(*plan), "Project [(id#0L * 10) AS " + x +
                                      ", id#0L]\n"
                                      "+- Filter ((id#0L % 3) = 0)\n"
                                      "   +- Range (0, 10, step=1, splits=2)\n");
}

TEST(FilterTest, ProjectErrorPropagates) {
  auto in = RangeOf(0, 10);
  auto p =
      ProjectOf(in, {{"x", Call("/", {Lit(I(1)), Call("-", {Col(in, 0), Lit(I(5))})})}});
  auto r = Collect(p, Options());
  EXPECT_ERROR_CLASS(r, "DIVIDE_BY_ZERO");
}

}  // namespace
}  // namespace spate::exec
