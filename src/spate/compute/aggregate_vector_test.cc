// Copyright spate authors.
// vector_sum / vector_avg (aggregate_vector.cc): Spark 4.2's single-precision running sum
// and mean, its merge of partial states, skipped NULLs and dimension errors (expected
// values are real Spark's; tests/differential/cases/vector_aggregates.py compares more).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/compute/aggregate.h"

namespace spate {
namespace {

using Vec = std::optional<std::vector<std::optional<float>>>;

ColumnPtr Vectors(const std::vector<Vec>& rows) {
  auto type = DataType::Array(DataType::Float(), true);
  std::vector<Value> values;
  for (const Vec& r : rows) {
    if (!r) {
      values.push_back(Value::Null(type));
      continue;
    }
    std::vector<Value> elems;
    for (const auto& x : *r) {
      elems.push_back(x ? Value::Float(*x) : Value::Null(DataType::Float()));
    }
    values.push_back(Value::ArrayOf(type, std::move(elems)));
  }
  return ColumnFromValues(type, values);
}

AggregateFunctionPtr Make(const std::string& name) {
  auto fn = MakeAggregate(
      name, {MakeColumnRef(0, DataType::Array(DataType::Float(), true), true, "v")},
      false, false);
  EXPECT_TRUE(fn.ok()) << fn.status().ToString();
  return fn.ok() ? *fn : nullptr;
}

/// Each part updates its own partial accumulator; the partials merge in order into a
/// final one (as Spark's partial and final aggregates): the result of group 0.
Result<Value> TwoPhase(const std::string& name, const std::vector<ColumnPtr>& parts) {
  auto fn = Make(name);
  EvalContext ctx;
  auto final_acc = fn->MakeAccumulator();
  final_acc->Resize(1);
  for (const auto& p : parts) {
    auto partial = fn->MakeAccumulator();
    partial->Resize(1);
    std::vector<uint32_t> gid(static_cast<size_t>(p->length()), 0);
    SPATE_RETURN_IF_ERROR(partial->Update({p}, gid.data(), p->length(), ctx));
    uint32_t g0 = 0;
    SPATE_RETURN_IF_ERROR(final_acc->Merge(partial->State(), &g0, 1, ctx));
  }
  SPATE_ASSIGN_OR_RETURN(auto out, final_acc->Finalize(ctx));
  return out->GetValue(0);
}

std::vector<float> Floats(const Value& v) {
  std::vector<float> out;
  for (const Value& e : v.items()) out.push_back(static_cast<float>(e.f64()));
  return out;
}

// One float per row, as single-element vectors.
ColumnPtr Column1(const std::vector<float>& xs) {
  std::vector<Vec> rows;
  for (float x : xs) rows.push_back(std::vector<std::optional<float>>{x});
  return Vectors(rows);
}

TEST(AggregateVectorTest, SumIsFloatAccumulation) {
  // SELECT vector_sum(v) over 16777216, 1, 1 in one partition: [16777216.0] (a double
  // accumulator would give 16777218).
  auto one = TwoPhase("vector_sum", {Column1({16777216.0f, 1.0f, 1.0f})});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(Floats(*one), std::vector<float>{16777216.0f});
  // range(0, 4, 1, 2): partials 16777216 and 2 add to 16777218.
  auto two =
      TwoPhase("vector_sum", {Column1({16777216.0f, 1.0f}), Column1({1.0f, 1.0f})});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(Floats(*two), std::vector<float>{16777218.0f});
}

TEST(AggregateVectorTest, AvgIsSparksRunningMean) {
  auto a = TwoPhase("vector_avg", {Column1({16777216.0f, 1.0f, 1.0f, 1.0f})});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Floats(*a), std::vector<float>{4194304.5f});
  auto b = TwoPhase("vector_avg", {Column1({0.1f, 0.3f, 0.6f})});
  EXPECT_EQ(Floats(*b), std::vector<float>{0.3333333730697632f});
  auto c = TwoPhase("vector_avg", {Column1({0.6f, 0.3f, 0.1f})});
  EXPECT_EQ(Floats(*c), std::vector<float>{0.3333333432674408f});
  // The difference overflows in float: 3e38, 3e38, -3e38 averages to -inf.
  auto d = TwoPhase("vector_avg", {Column1({3e38f, 3e38f, -3e38f})});
  EXPECT_EQ(Floats(*d), std::vector<float>{-std::numeric_limits<float>::infinity()});
}

TEST(AggregateVectorTest, AvgMergesWithFloatWeights) {
  // range(0, 3, 1, 2) over 3e38, -3e38, -3e38: partials (3e38, 1) and (-3e38, 2).
  auto a = TwoPhase("vector_avg", {Column1({3e38f}), Column1({-3e38f, -3e38f})});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Floats(*a), std::vector<float>{-1.0000000694406173e+38f});
  auto b = TwoPhase("vector_avg", {Column1({0.6f}), Column1({0.3f, 0.1f})});
  EXPECT_EQ(Floats(*b), std::vector<float>{0.3333333730697632f});
  auto c = TwoPhase("vector_avg", {Column1({3e38f, 3e38f}), Column1({-3e38f, -3e38f})});
  EXPECT_EQ(Floats(*c), std::vector<float>{0.0f});
}

TEST(AggregateVectorTest, FirstVectorIsCopied) {
  auto s = TwoPhase("vector_avg", {Column1({-0.0f})});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(std::signbit(Floats(*s)[0]));
  auto t = TwoPhase("vector_avg", {Column1({-0.0f, -0.0f})});
  EXPECT_FALSE(std::signbit(Floats(*t)[0]));
  auto u = TwoPhase("vector_sum", {Column1({-0.0f, -0.0f})});
  EXPECT_TRUE(std::signbit(Floats(*u)[0]));
}

TEST(AggregateVectorTest, NullVectorsAndNullElementsAreSkipped) {
  using V = std::vector<std::optional<float>>;
  auto rows =
      Vectors({V{1.0f, std::nullopt}, std::nullopt, V{3.0f, 4.0f}, V{5.0f, 6.0f}});
  for (const char* name : {"vector_sum", "vector_avg"}) {
    auto r = TwoPhase(name, {rows});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Floats(*r), (std::string(name) == "vector_sum" ? std::vector<float>{8, 10}
                                                             : std::vector<float>{4, 5}));
    // Nothing to add: NULL, also through a partial state of an empty part.
    auto none = TwoPhase(name, {Vectors({V{std::nullopt}}), Vectors({})});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->is_null());
  }
  // Empty vectors add up to an empty vector.
  auto empty = TwoPhase("vector_sum", {Vectors({V{}, V{}})});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->is_null());
  EXPECT_TRUE(empty->items().empty());
}

TEST(AggregateVectorTest, DimensionMismatchNamesTheGroupsLengthFirst) {
  using V = std::vector<std::optional<float>>;
  auto r = TwoPhase("vector_avg", {Vectors({V{1.0f}, std::nullopt, V{2.0f, 3.0f}})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().ToString(),
      "[VECTOR_DIMENSION_MISMATCH] Vectors passed to `vector_avg` must have the same "
      "dimension, but got 1 and 2. SQLSTATE: 22000");
  // Between partial states: the merged state's length first.
  auto m =
      TwoPhase("vector_sum", {Vectors({V{1.0f, 2.0f, 3.0f}}), Vectors({V{1.0f, 2.0f}})});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().ToString().find("got 3 and 2"), std::string::npos);
}

TEST(AggregateVectorTest, ArgumentsAsSpark) {
  auto dbl = MakeAggregate(
      "vector_sum",
      {MakeColumnRef(0, DataType::Array(DataType::Double(), true), true, "v")}, false,
      false);
  ASSERT_FALSE(dbl.ok());
  EXPECT_NE(dbl.status().ToString().find("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
            std::string::npos);
  EXPECT_NE(dbl.status().ToString().find("requires the \"ARRAY<FLOAT>\" type"),
            std::string::npos);
  auto none = MakeAggregate("vector_avg", {}, false, false);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().ToString().find("WRONG_NUM_ARGS"), std::string::npos);
  EXPECT_TRUE(IsAggregateName("vector_sum"));
  EXPECT_TRUE(IsAggregateName("vector_avg"));
}

}  // namespace
}  // namespace spate
