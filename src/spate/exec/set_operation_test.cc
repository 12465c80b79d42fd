// Copyright spate authors.
#include "spate/exec/set_operation.h"

#include <gtest/gtest.h>

#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT
using sql::SetOpKind;

BoundPlanPtr L() {
  return LocalOf({Attr("a", DataType::Long()), Attr("b", DataType::String())},
                 {{I(1), S("x")},
                  {I(1), S("x")},
                  {I(1), S("x")},
                  {I(2), S("y")},
                  {NullL(), S("n")},
                  {NullL(), S("n")},
                  {I(3), NullOf(DataType::String())}},
                 3);
}
BoundPlanPtr R() {
  return LocalOf({Attr("c", DataType::Long()), Attr("d", DataType::String())},
                 {{I(1), S("x")},
                  {I(1), S("x")},
                  {NullL(), S("n")},
                  {I(3), NullOf(DataType::String())},
                  {I(4), S("z")}},
                 2);
}

TEST(SetOperationTest, IntersectDistinct) {
  EXPECT_EQ(ExecSorted(SetOpOf(L(), R(), SetOpKind::kIntersect, false)),
            (std::vector<std::string>{"1,x", "3,NULL", "NULL,n"}));
}

TEST(SetOperationTest, IntersectAll) {
  EXPECT_EQ(ExecSorted(SetOpOf(L(), R(), SetOpKind::kIntersect, true)),
            (std::vector<std::string>{"1,x", "1,x", "3,NULL", "NULL,n"}));
}

TEST(SetOperationTest, ExceptDistinct) {
  EXPECT_EQ(ExecSorted(SetOpOf(L(), R(), SetOpKind::kExcept, false)),
            (std::vector<std::string>{"2,y"}));
  EXPECT_EQ(ExecSorted(SetOpOf(R(), L(), SetOpKind::kExcept, false)),
            (std::vector<std::string>{"4,z"}));
}

TEST(SetOperationTest, ExceptAll) {
  EXPECT_EQ(ExecSorted(SetOpOf(L(), R(), SetOpKind::kExcept, true)),
            (std::vector<std::string>{"1,x", "2,y", "NULL,n"}));
}

TEST(SetOperationTest, EmptySidesAndSerialRun) {
  auto empty = FilterOf(R(), Lit(Value::Boolean(false)));
  EXPECT_TRUE(ExecSorted(SetOpOf(L(), empty, SetOpKind::kIntersect, true)).empty());
  EXPECT_EQ(ExecSorted(SetOpOf(L(), empty, SetOpKind::kExcept, true)).size(), 7u);
  EXPECT_EQ(ExecSorted(SetOpOf(L(), empty, SetOpKind::kExcept, false)).size(), 4u);
  for (bool all : {false, true}) {
    for (auto kind : {SetOpKind::kIntersect, SetOpKind::kExcept}) {
      auto p = SetOpOf(L(), R(), kind, all);
      EXPECT_EQ(ExecSorted(p, Options(2, 3)), ExecSorted(p, Options(1, 1)));
    }
  }
}

}  // namespace
}  // namespace spate::exec
