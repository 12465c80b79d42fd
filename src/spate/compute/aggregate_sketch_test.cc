// Copyright spate authors.
// bitmap_*_agg, count_min_sketch and histogram_numeric (aggregate_sketch.cc): Spark's
// bytes and bins, and partial states that merge to what one pass gives (expected values
// are real Spark 4.2's, also checked by tests/differential/cases/sketches.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/compute/aggregate.h"

namespace spate {
namespace {

std::string Hex(std::string_view b) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : b) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

ColumnPtr Longs(const std::vector<int64_t>& v) {
  std::vector<Value> values;
  for (int64_t x : v) values.push_back(Value::Long(x));
  return ColumnFromValues(DataType::Long(), values);
}

BoundExprPtr Lit(Value v) { return MakeLiteral(std::move(v)); }

AggregateFunctionPtr Make(const std::string& name,
                          const std::vector<BoundExprPtr>& args) {
  auto fn = MakeAggregate(name, args, false, false);
  EXPECT_TRUE(fn.ok()) << fn.status().ToString();
  return fn.ok() ? *fn : nullptr;
}

/// Finalize after one pass over `parts` (one accumulator) and after a partial per part
/// merged in order into a final accumulator: both results, row 0.
std::pair<Value, Value> OnePassAndTwoPhase(const AggregateFunction& fn,
                                           const std::vector<ColumnPtr>& parts) {
  EvalContext ctx;
  auto one = fn.MakeAccumulator();
  one->Resize(1);
  auto merged = fn.MakeAccumulator();
  merged->Resize(1);
  for (const auto& p : parts) {
    std::vector<uint32_t> gid(static_cast<size_t>(p->length()), 0);
    EXPECT_TRUE(one->Update({p}, gid.data(), p->length(), ctx).ok());
    auto partial = fn.MakeAccumulator();
    partial->Resize(1);
    EXPECT_TRUE(partial->Update({p}, gid.data(), p->length(), ctx).ok());
    uint32_t g0 = 0;
    EXPECT_TRUE(merged->Merge(partial->State(), &g0, 1, ctx).ok());
  }
  return {(*one->Finalize(ctx))->GetValue(0), (*merged->Finalize(ctx))->GetValue(0)};
}

TEST(AggregateSketchTest, CountMinSketchBytesAsSpark) {
  auto x = MakeColumnRef(0, DataType::Long(), true, "col");
  auto fn = Make("count_min_sketch", {x, Lit(Value::Double(0.5)), Lit(Value::Double(0.5)),
                                      Lit(Value::Int(1))});
  ASSERT_TRUE(fn);
  auto [one, two] = OnePassAndTwoPhase(*fn, {Longs({1, 2}), Longs({1})});
  // SELECT hex(count_min_sketch(col, 0.5d, 0.5d, 1)) FROM VALUES (1), (2), (1)
  EXPECT_EQ(
      Hex(one.str()),
      "0000000100000000000000030000000100000004000000005D8D6AB9000000000000000000000000"
      "0000000200000000000000010000000000000000");
  EXPECT_EQ(one.str(), two.str());
  // A BIGINT seed keeps its low 32 bits.
  auto long_seed =
      Make("count_min_sketch", {x, Lit(Value::Double(0.5)), Lit(Value::Double(0.5)),
                                Lit(Value::Long(1111111111111111111LL))});
  ASSERT_TRUE(long_seed);
  auto [l1, l2] = OnePassAndTwoPhase(*long_seed, {Longs({1, 2, 1})});
  EXPECT_EQ(Hex(l1.str()).substr(40, 16), "0000000044078BA1");
}

TEST(AggregateSketchTest, CountMinSketchArgumentErrors) {
  auto x = MakeColumnRef(0, DataType::Long(), true, "col");
  auto d = [](double v) { return Lit(Value::Double(v)); };
  auto err = [&](const std::vector<BoundExprPtr>& args) {
    auto fn = MakeAggregate("count_min_sketch", args, false, false);
    return fn.ok() ? std::string("ok") : fn.status().error_class();
  };
  EXPECT_EQ(err({x, d(0), d(0.5), Lit(Value::Int(1))}),
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE");
  EXPECT_EQ(err({x, d(0.5), d(1), Lit(Value::Int(1))}),
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE");
  EXPECT_EQ(err({x, d(0.5), d(0.5), Lit(Value::Byte(1))}),
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  EXPECT_EQ(err({x, d(0.5), d(0.5), Lit(Value::Null(DataType::Int()))}),
            "DATATYPE_MISMATCH.UNEXPECTED_NULL");
  EXPECT_EQ(err({x, d(0.5), d(0.5)}), "REQUIRED_PARAMETER_NOT_FOUND");
  EXPECT_EQ(err({MakeColumnRef(0, DataType::Double(), true, "d"), d(0.5), d(0.5),
                 Lit(Value::Int(1))}),
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
}

TEST(AggregateSketchTest, BitmapsMergeAndReject) {
  auto x = MakeColumnRef(0, DataType::Long(), true, "col");
  auto fn = Make("bitmap_construct_agg", {x});
  ASSERT_TRUE(fn);
  auto [one, two] = OnePassAndTwoPhase(*fn, {Longs({1, 2}), Longs({3, 32767})});
  ASSERT_EQ(one.str().size(), 4096u);
  EXPECT_EQ(Hex(one.str().substr(0, 2)), "0E00");
  EXPECT_EQ(static_cast<unsigned char>(one.str()[4095]), 0x80);
  EXPECT_EQ(one.str(), two.str());

  EvalContext ctx;
  auto acc = fn->MakeAccumulator();
  acc->Resize(1);
  uint32_t g0 = 0;
  auto st = acc->Update({Longs({32768})}, &g0, 1, ctx);
  EXPECT_EQ(st.error_class(), "INVALID_BITMAP_POSITION");

  // bitmap_and_agg: a short bitmap counts as zeros beyond its end.
  auto b = MakeColumnRef(0, DataType::Binary(), true, "b");
  auto and_fn = Make("bitmap_and_agg", {b});
  ASSERT_TRUE(and_fn);
  auto bins = ColumnFromValues(DataType::Binary(),
                               {Value::Binary("\xF0\xFF"), Value::Binary("\x70")});
  auto [a1, a2] = OnePassAndTwoPhase(*and_fn, {bins});
  EXPECT_EQ(Hex(a1.str().substr(0, 3)), "700000");
  EXPECT_EQ(a1.str(), a2.str());
  EXPECT_FALSE(MakeAggregate("bitmap_or_agg", {x}, false, false).ok());
}

TEST(AggregateSketchTest, HistogramBinsAsSpark) {
  auto x = MakeColumnRef(0, DataType::Long(), true, "col");
  auto fn = Make("histogram_numeric", {x, Lit(Value::Int(3))});
  ASSERT_TRUE(fn);
  // One pass over 1..9, and partials of 1..4 and 5..9 merged (Spark's two partitions of
  // VALUES (1), ..., (9) under local[2]): [2, 5, 8] with heights 3, 4, 2.
  auto [one, two] =
      OnePassAndTwoPhase(*fn, {Longs({1, 2, 3, 4}), Longs({5, 6, 7, 8, 9})});
  EXPECT_EQ(one.ToString(), "[{2, 3.0}, {4, 2.0}, {7, 4.0}]");
  EXPECT_EQ(two.ToString(), "[{2, 3.0}, {5, 4.0}, {8, 2.0}]");
  // Fewer values than bins: exact.
  auto [e, e2] = OnePassAndTwoPhase(*fn, {Longs({10, 0}), Longs({2})});
  EXPECT_EQ(e.ToString(), "[{0, 1.0}, {2, 1.0}, {10, 1.0}]");
  EXPECT_EQ(e2.ToString(), e.ToString());
  EXPECT_EQ(MakeAggregate("histogram_numeric", {x, Lit(Value::Int(1))}, false, false)
                .status()
                .error_class(),
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE");
}

TEST(AggregateSketchTest, NoGroupsGiveEmptyStateAndResult) {
  auto x = MakeColumnRef(0, DataType::Long(), true, "x");
  auto b = MakeColumnRef(0, DataType::Binary(), true, "b");
  EvalContext ctx;
  for (const auto& fn :
       {Make("bitmap_construct_agg", {x}), Make("bitmap_or_agg", {b}),
        Make("bitmap_and_agg", {b}), Make("histogram_numeric", {x, Lit(Value::Int(4))}),
        Make("count_min_sketch", {x, Lit(Value::Double(0.1)), Lit(Value::Double(0.9)),
                                  Lit(Value::Int(0))})}) {
    ASSERT_TRUE(fn);
    auto acc = fn->MakeAccumulator();
    acc->Resize(0);
    for (const auto& col : acc->State()) EXPECT_EQ(col->length(), 0);
    EXPECT_EQ((*acc->Finalize(ctx))->length(), 0);
  }
}

}  // namespace
}  // namespace spate
