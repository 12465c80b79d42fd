// Copyright spate authors.
// Grouped accumulators with no groups: State() and Finalize() give empty columns (a
// streaming aggregation asks for them on every partition of a batch, including empty
// ones and batches without data; copying from an empty vector's null data() was
// undefined behaviour that UBSan stopped the crash tests' child process on).
#include "spate/compute/aggregate.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"

namespace spate {
namespace {

TEST(AggregateTest, NoGroupsGiveEmptyStateAndResult) {
  struct Case {
    std::string fn;
    DataTypePtr arg;
  };
  const std::vector<Case> cases = {
      {"count", DataType::Long()},
      {"sum", DataType::Long()},
      {"sum", DataType::Double()},
      {"sum", DataType::Decimal(10, 2)},
      {"avg", DataType::Long()},
      {"avg", DataType::Decimal(10, 2)},
      {"min", DataType::Long()},
      {"max", DataType::Double()},
      {"min", DataType::String()},
      {"first", DataType::Long()},
      {"last", DataType::String()},
      {"collect_list", DataType::Long()},
      {"stddev", DataType::Double()},
      {"approx_count_distinct", DataType::Long()},
      {"try_sum", DataType::Long()},
      {"try_avg", DataType::Decimal(38, 0)},
      {"try_sum", DataType::YearMonthInterval()},
      {"listagg", DataType::String()},
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

// try_sum's partial states: a partial that overflowed is a NULL sum, and merging it (or
// merging partials whose total overflows) gives NULL for that group only; sum fails
// under ANSI where try_sum gives NULL.
TEST(AggregateTest, TrySumOverflowThroughPartialStates) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  auto arg = MakeColumnRef(0, DataType::Long(), true, "x#0");
  auto fn = MakeAggregate("try_sum", {arg}, false, false);
  ASSERT_TRUE(fn.ok()) << fn.status().ToString();
  EvalContext ctx;
  auto longs = [](const std::vector<int64_t>& v) {
    std::vector<Value> vals;
    for (int64_t x : v) vals.push_back(Value::Long(x));
    return ColumnFromValues(DataType::Long(), vals);
  };
  // Partial 1: group 0 overflows inside the partial; group 1 holds kMax.
  auto p1 = (*fn)->MakeAccumulator();
  p1->Resize(3);
  uint32_t g1[] = {0, 0, 1, 2};
  ASSERT_TRUE(p1->Update({longs({kMax, 1, kMax, 1})}, g1, 4, ctx).ok());
  // Partial 2: group 1 gets 1 (the merge overflows), group 2 gets 2.
  auto p2 = (*fn)->MakeAccumulator();
  p2->Resize(3);
  uint32_t g2[] = {1, 2};
  ASSERT_TRUE(p2->Update({longs({1, 2})}, g2, 2, ctx).ok());
  auto s1 = p1->State();
  EXPECT_TRUE(s1[0]->IsNull(0));
  EXPECT_FALSE(s1[0]->IsNull(1));
  auto final_acc = (*fn)->MakeAccumulator();
  final_acc->Resize(3);
  uint32_t ids[] = {0, 1, 2};
  ASSERT_TRUE(final_acc->Merge(s1, ids, 3, ctx).ok());
  ASSERT_TRUE(final_acc->Merge(p2->State(), ids, 3, ctx).ok());
  auto out = final_acc->Finalize(ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE((*out)->IsNull(0));
  EXPECT_TRUE((*out)->IsNull(1));
  EXPECT_EQ((*out)->GetValue(2).i64(), 3);

  auto sum = MakeAggregate("sum", {arg}, false, false);
  ASSERT_TRUE(sum.ok());
  auto acc = (*sum)->MakeAccumulator();
  acc->Resize(1);
  uint32_t zero[] = {0, 0};
  ctx.ansi = true;
  EXPECT_EQ(acc->Update({longs({kMax, 1})}, zero, 2, ctx).error_class(),
            "ARITHMETIC_OVERFLOW");
}

// The list states (collect_list, collect_set, mode, median) merged from two partials,
// groups renumbered on the way, finish as one accumulator fed every row.
TEST(AggregateTest, ListStatesMergeAcrossPartials) {
  auto longs = [](const std::vector<std::optional<int64_t>>& v) {
    std::vector<Value> vals;
    for (auto x : v) vals.push_back(x ? Value::Long(*x) : Value::Null(DataType::Long()));
    return ColumnFromValues(DataType::Long(), vals);
  };
  const std::vector<std::optional<int64_t>> a_rows = {5, 1, 5, 3, std::nullopt};
  const std::vector<std::optional<int64_t>> b_rows = {3, 3, 7, 1};
  uint32_t a_gid[] = {0, 1, 0, 1, 2};  // partial A's groups 0, 1, 2 are final 1, 2, 0
  uint32_t a_to_final[] = {1, 2, 0};
  uint32_t b_gid[] = {1, 0, 1, 1};  // partial B's groups 0, 1 are final 0, 2
  uint32_t b_to_final[] = {0, 2};
  EvalContext ctx;
  for (const char* name : {"collect_list", "collect_set", "mode", "median"}) {
    SCOPED_TRACE(name);
    auto fn = MakeAggregate(name, {MakeColumnRef(0, DataType::Long(), true, "x#0")},
                            false, false);
    ASSERT_TRUE(fn.ok()) << fn.status().ToString();
    auto a = (*fn)->MakeAccumulator();
    a->Resize(3);
    ASSERT_TRUE(a->Update({longs(a_rows)}, a_gid, 5, ctx).ok());
    auto b = (*fn)->MakeAccumulator();
    b->Resize(2);
    ASSERT_TRUE(b->Update({longs(b_rows)}, b_gid, 4, ctx).ok());
    auto merged = (*fn)->MakeAccumulator();
    merged->Resize(3);
    ASSERT_TRUE(merged->Merge(a->State(), a_to_final, 3, ctx).ok());
    ASSERT_TRUE(merged->Merge(b->State(), b_to_final, 2, ctx).ok());
    auto got = merged->Finalize(ctx);
    ASSERT_TRUE(got.ok()) << got.status().ToString();

    auto direct = (*fn)->MakeAccumulator();
    direct->Resize(3);
    uint32_t a_final[5], b_final[4];
    for (int i = 0; i < 5; ++i) a_final[i] = a_to_final[a_gid[i]];
    for (int i = 0; i < 4; ++i) b_final[i] = b_to_final[b_gid[i]];
    ASSERT_TRUE(direct->Update({longs(a_rows)}, a_final, 5, ctx).ok());
    ASSERT_TRUE(direct->Update({longs(b_rows)}, b_final, 4, ctx).ok());
    auto want = direct->Finalize(ctx);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_EQ((*got)->length(), 3);
    for (int64_t g = 0; g < 3; ++g) {
      EXPECT_EQ((*got)->GetValue(g).ToString(), (*want)->GetValue(g).ToString()) << g;
    }
  }
}

}  // namespace
}  // namespace spate
