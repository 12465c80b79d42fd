// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"

namespace spate {
namespace {

TEST(ColumnTest, BuildersProduceArrowLayout) {
  FixedWidthBuilder<int64_t> b(DataType::Long());
  b.Append(1);
  b.AppendNull();
  b.Append(3);
  ColumnPtr c = b.Finish();
  ASSERT_EQ(c->length(), 3);
  EXPECT_EQ(c->null_count(), 1);
  EXPECT_TRUE(c->IsValid(0));
  EXPECT_TRUE(c->IsNull(1));
  EXPECT_EQ(c->raw_values<int64_t>()[2], 3);
  ASSERT_NE(c->validity_bits(), nullptr);
  EXPECT_EQ(c->validity_bits()[0], 0b101);
}

TEST(ColumnTest, FixedWidthBuilderKeepsValuesAcrossRepeatedGrowth) {
  // The builder writes within capacity() ahead of size(); growing must keep those bytes.
  auto col = ColumnFromValues(DataType::Long(), [] {
    std::vector<Value> v;
    for (int64_t i = 0; i < 5000; ++i) v.push_back(Value::Long(i));
    return v;
  }());
  ASSERT_EQ(col->length(), 5000);
  for (int64_t i = 0; i < 5000; ++i) ASSERT_EQ(col->GetValue(i).i64(), i) << "row " << i;
}

TEST(ColumnTest, NoValidityBufferWithoutNulls) {
  StringBuilder b;
  b.Append("a");
  b.Append("bc");
  ColumnPtr c = b.Finish();
  EXPECT_EQ(c->validity(), nullptr);
  EXPECT_EQ(c->GetView(1), "bc");
  EXPECT_EQ(c->offsets()[2], 3);
}

TEST(ColumnTest, NestedValuesRoundTrip) {
  auto type =
      DataType::Struct({Field{"tags", DataType::Array(DataType::String())},
                        Field{"m", DataType::Map(DataType::String(), DataType::Int())}});
  std::vector<Value> vals;
  vals.push_back(Value::Struct(
      type, {Value::ArrayOf(type->fields()[0].type,
                            {Value::String("x"), Value::Null(DataType::String())}),
             Value::Map(type->fields()[1].type, {Value::String("a")}, {Value::Int(1)})}));
  vals.push_back(Value::Null(type));
  ColumnPtr c = ColumnFromValues(type, vals);
  EXPECT_EQ(c->GetValue(0).ToString(), "{[x, NULL], {a -> 1}}");
  EXPECT_TRUE(c->GetValue(1).is_null());
  int32_t idx[] = {1, 0, -1, 0};
  ColumnPtr t = Take(*c, idx, 4);
  EXPECT_EQ(t->GetValue(1), vals[0]);
  EXPECT_EQ(t->GetValue(3).ToString(), "{[x, NULL], {a -> 1}}");
  EXPECT_TRUE(t->IsNull(2));
  ColumnPtr cat = Concat({c, t});
  EXPECT_EQ(cat->length(), 6);
  EXPECT_EQ(cat->GetValue(5), vals[0]);
}

TEST(ColumnTest, ConstantColumn) {
  ColumnPtr c = MakeConstantColumn(Value::String("ab"), 3);
  EXPECT_EQ(c->GetView(2), "ab");
  ColumnPtr n = MakeConstantColumn(Value::Null(DataType::Int()), 2);
  EXPECT_EQ(n->null_count(), 2);
}

TEST(ColumnTest, MemoryIsTracked) {
  auto tracker = std::make_shared<MemoryTracker>("q");
  {
    ScopedMemoryTracker scope(tracker);
    auto buf = Buffer::Allocate(1000);
    EXPECT_GE(tracker->current(), 1000);
  }
  EXPECT_EQ(tracker->current(), 0);
  EXPECT_GE(tracker->peak(), 1000);
}

}  // namespace
}  // namespace spate
