// Copyright spate authors.
// rand/randn/randstr give Spark's values (taken from Spark 4.2 runs): its XORShiftRandom
// seeded with seed + partition index, continued across batches of a partition.

#include <gtest/gtest.h>

#include "spate/compute/function_registry.h"
#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

ColumnPtr Call(const std::string& name, std::vector<BoundExprPtr> args, int64_t rows,
               int partition = 0, int64_t offset = 0) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  EXPECT_NE(r, nullptr);
  auto e = (*r)(std::move(args), ResolveContext{});
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE((*e)->IsNondeterministic());
  EvalContext ctx;
  ctx.partition_id = partition;
  ctx.row_offset = offset;
  auto batch = Batch::Make(std::make_shared<const Schema>(), {}, rows);
  auto c = (*e)->Evaluate(*batch, ctx);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

TEST(RandomFunctionsTest, RandAndRandnAsSpark) {
  auto r = Call("rand", {MakeLiteral(Value::Int(0))}, 4);
  const double* x = r->raw_values<double>();
  EXPECT_EQ(x[0], 0.7604953758285915);
  EXPECT_EQ(x[1], 0.5234194256885571);
  EXPECT_EQ(x[3], 0.3163249920547614);
  auto n = Call("randn", {MakeLiteral(Value::Int(0))}, 2);
  EXPECT_EQ(n->raw_values<double>()[0], 1.6034991609278433);
  EXPECT_EQ(n->raw_values<double>()[1], 0.14416006165776865);
  // Partition 1 of range(6) with seed 42 draws from seed 43.
  auto p1 = Call("rand", {MakeLiteral(Value::Long(42))}, 3, /*partition=*/1);
  EXPECT_EQ(p1->raw_values<double>()[0], 0.8017532427858894);
  // A batch that starts at row 2 of its partition takes the third draw.
  auto later = Call("rand", {MakeLiteral(Value::Long(42))}, 1, 0, /*offset=*/2);
  EXPECT_EQ(later->raw_values<double>()[0], 0.8325259388871524);
}

TEST(RandomFunctionsTest, RandstrAndUniform) {
  auto s = Call("randstr", {MakeLiteral(Value::Int(12)), MakeLiteral(Value::Int(7))}, 1);
  EXPECT_EQ(s->GetView(0), "6Ogz59i3TI1A");
  auto u = Call("uniform",
                {MakeLiteral(Value::Int(0)), MakeLiteral(Value::Int(10)),
                 MakeLiteral(Value::Int(0))},
                1);
  EXPECT_EQ(u->GetValue(0).i64(), 7);
}

TEST(RandomFunctionsTest, SeedMustBeFoldable) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar("rand");
  auto e = (*r)({MakeColumnRef(0, DataType::Long(), false, "id#0L")}, ResolveContext{});
  ASSERT_ERROR_CLASS(e, "SEED_EXPRESSION_IS_UNFOLDABLE");
}

}  // namespace
}  // namespace spate
