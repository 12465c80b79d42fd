// Copyright spate authors.
// Grouped accumulators with no groups: State() and Finalize() give empty columns (a
// streaming aggregation asks for them on every partition of a batch, including empty
// ones and batches without data; copying from an empty vector's null data() was
// undefined behaviour that UBSan stopped the crash tests' child process on).
#include "spate/compute/aggregate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace spate {
namespace {

TEST(AggregateTest, NoGroupsGiveEmptyStateAndResult) {
  struct Case {
    std::string fn;
    DataTypePtr arg;
  };
  const std::vector<Case> cases = {
      {"count", DataType::Long()},          {"sum", DataType::Long()},
      {"sum", DataType::Double()},          {"sum", DataType::Decimal(10, 2)},
      {"avg", DataType::Long()},            {"avg", DataType::Decimal(10, 2)},
      {"min", DataType::Long()},            {"max", DataType::Double()},
      {"min", DataType::String()},          {"first", DataType::Long()},
      {"last", DataType::String()},         {"collect_list", DataType::Long()},
      {"stddev", DataType::Double()},       {"approx_count_distinct", DataType::Long()},
  };
  EvalContext ctx;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fn + "(" + c.arg->SimpleString() + ")");
    auto fn = MakeAggregate(c.fn, {MakeColumnRef(0, c.arg, true, "x#0")}, false, false);
    ASSERT_TRUE(fn.ok()) << fn.status().ToString();
    for (bool resized : {false, true}) {
      auto acc = (*fn)->MakeAccumulator();
      if (resized) acc->Resize(0);
      auto state = acc->State();
      EXPECT_EQ(state.size(), (*fn)->state_fields().size());
      for (const auto& col : state) EXPECT_EQ(col->length(), 0);
      auto out = acc->Finalize(ctx);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ((*out)->length(), 0);
    }
  }
}

}  // namespace
}  // namespace spate
