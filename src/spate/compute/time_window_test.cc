// Copyright spate authors.
#include "spate/compute/time_window.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/compute/generators.h"
#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

constexpr int64_t kMinute = 60'000'000;

BatchPtr TimesBatch(const std::vector<Value>& ts) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field{"ts", DataType::Timestamp(), true}});
  return Batch::Make(schema, {ColumnFromValues(DataType::Timestamp(), ts)},
                     static_cast<int64_t>(ts.size()));
}

TEST(TimeWindowTest, TumblingWindowOfEachRow) {
  auto batch =
      TimesBatch({Value::Timestamp(7 * kMinute), Value::Timestamp(-3 * kMinute),
                  Value::Null(DataType::Timestamp()), Value::Timestamp(10 * kMinute)});
  auto ts = MakeColumnRef(0, DataType::Timestamp(), true, "ts#0");
  auto w = MakeTimeWindowExpr(ts, {5 * kMinute, 5 * kMinute, 0}, 0, "window(ts)");
  EvalContext ctx;
  auto col = w->Evaluate(*batch, ctx);
  ASSERT_TRUE(col.ok());
  const Column& s = *(*col)->child(0);
  const Column& e = *(*col)->child(1);
  EXPECT_EQ(s.raw_values<int64_t>()[0], 5 * kMinute);
  EXPECT_EQ(e.raw_values<int64_t>()[0], 10 * kMinute);
  EXPECT_EQ(s.raw_values<int64_t>()[1], -5 * kMinute);  // floor, not truncation
  EXPECT_TRUE(s.IsNull(2));
  EXPECT_EQ(s.raw_values<int64_t>()[3], 10 * kMinute);  // start inclusive
}

TEST(TimeWindowTest, SlidingWindowsFilterOverEstimates) {
  auto batch =
      TimesBatch({Value::Timestamp(5 * kMinute), Value::Null(DataType::Timestamp())});
  auto ts = MakeColumnRef(0, DataType::Timestamp(), true, "ts#0");
  // window 12m, slide 5m, start 2m at 00:05: [23:57, 00:09) and [00:02, 00:14) ([23:52,
  // 00:04) is dropped).
  TimeWindowParams p{12 * kMinute, 5 * kMinute, 2 * kMinute};
  EXPECT_EQ(p.overlapping(), 3);
  auto rows = RunTimeWindowGenerator(*ts, p, WindowStructType(DataType::Timestamp()),
                                     *batch, EvalContext{});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->input_rows.size(), 2u);
  const Column& s = *rows->columns[0]->child(0);
  EXPECT_EQ(s.raw_values<int64_t>()[0], 2 * kMinute);
  EXPECT_EQ(s.raw_values<int64_t>()[1], -3 * kMinute);
}

TEST(TimeWindowTest, WindowTimeIsEndMinusOneMicro) {
  auto st = WindowStructType(DataType::Timestamp());
  auto v = Value::Struct(st, {Value::Timestamp(0), Value::Timestamp(5 * kMinute)});
  auto wt = MakeWindowTimeExpr(MakeLiteral(v));
  ASSERT_TRUE(wt.ok());
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  auto col = (*wt)->Evaluate(*one, EvalContext{});
  ASSERT_TRUE(col.ok());
  EXPECT_EQ((*col)->raw_values<int64_t>()[0], 5 * kMinute - 1);
  EXPECT_ERROR_CLASS(MakeWindowTimeExpr(MakeLiteral(Value::Int(1))),
                     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
}

}  // namespace
}  // namespace spate
