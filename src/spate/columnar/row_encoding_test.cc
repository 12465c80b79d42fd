// Copyright spate authors.
#include "spate/columnar/row_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "spate/columnar/builder.h"

namespace spate {
namespace {

// The columnar encoder must give, row by row, exactly the bytes of EncodeValue (state
// stores persist these keys, so the format may not drift).
void ExpectSameAsRowWise(const std::vector<ColumnPtr>& cols, int64_t n) {
  std::vector<const Column*> raw;
  for (const auto& c : cols) raw.push_back(c.get());
  RowEncoder enc;
  enc.Encode(raw, n);
  for (int64_t i = 0; i < n; ++i) {
    std::string expected;
    bool any_null = false;
    for (const Column* c : raw) {
      EncodeValue(*c, i, &expected);
      any_null = any_null || c->IsNull(i);
    }
    ASSERT_EQ(enc.key(i), expected) << "row " << i;
    ASSERT_EQ(enc.any_null(i), any_null) << "row " << i;
  }
}

TEST(RowEncoderTest, ColumnarEncodingEqualsRowWise) {
  std::mt19937 rng(7);
  const int64_t n = 500;
  auto maybe_null = [&](Value v, const DataTypePtr& t) {
    return rng() % 5 == 0 ? Value::Null(t) : std::move(v);
  };
  std::vector<Value> ints, longs, doubles, strings, bools, decimals, nulls, structs;
  auto inner = DataType::Struct({{"a", DataType::Int()}, {"s", DataType::String()}});
  auto outer = DataType::Struct({{"x", inner}, {"d", DataType::Double()}});
  const double specials[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN(), 1.5};
  for (int64_t i = 0; i < n; ++i) {
    ints.push_back(
        maybe_null(Value::Int(static_cast<int32_t>(rng() % 7)), DataType::Int()));
    longs.push_back(Value::Long(static_cast<int64_t>(rng())));
    doubles.push_back(maybe_null(Value::Double(specials[rng() % 5]), DataType::Double()));
    strings.push_back(maybe_null(Value::String(std::string(rng() % 9, 'a' + rng() % 3)),
                                 DataType::String()));
    bools.push_back(maybe_null(Value::Boolean(rng() % 2), DataType::Boolean()));
    decimals.push_back(maybe_null(Value::Decimal(static_cast<int64_t>(rng()) - 5, 20, 2),
                                  DataType::Decimal(20, 2)));
    nulls.push_back(Value::Null(DataType::Null()));
    Value in = maybe_null(
        Value::Struct(inner, {maybe_null(Value::Int(i), DataType::Int()),
                              maybe_null(Value::String("k"), DataType::String())}),
        inner);
    structs.push_back(maybe_null(
        Value::Struct(outer, {in, Value::Double(specials[rng() % 5])}), outer));
  }
  std::vector<ColumnPtr> cols = {ColumnFromValues(DataType::Int(), ints),
                                 ColumnFromValues(DataType::Long(), longs),
                                 ColumnFromValues(DataType::Double(), doubles),
                                 ColumnFromValues(DataType::String(), strings),
                                 ColumnFromValues(DataType::Boolean(), bools),
                                 ColumnFromValues(DataType::Decimal(20, 2), decimals),
                                 ColumnFromValues(DataType::Null(), nulls),
                                 ColumnFromValues(outer, structs)};
  ExpectSameAsRowWise(cols, n);
  for (const auto& c : cols) ExpectSameAsRowWise({c}, n);
  ExpectSameAsRowWise({}, n);
}

TEST(RowEncoderTest, NestedArraysTakeTheRowWisePath) {
  auto arr = DataType::Array(DataType::Int());
  std::vector<Value> v = {Value::Array(DataType::Int(), {Value::Int(1), Value::Int(2)}),
                          Value::Null(arr), Value::Array(DataType::Int(), {})};
  ExpectSameAsRowWise(
      {ColumnFromValues(arr, v),
       ColumnFromValues(DataType::Int(),
                        {Value::Int(1), Value::Null(DataType::Int()), Value::Int(3)})},
      3);
}

TEST(RowEncoderTest, EqualKeysEncodeEqually) {
  // -0.0 == 0.0 and NaN == NaN for grouping (Spark's normalization).
  auto c = ColumnFromValues(
      DataType::Double(), {Value::Double(0.0), Value::Double(-0.0),
                           Value::Double(std::nan("1")), Value::Double(-std::nan("2"))});
  RowEncoder enc;
  enc.Encode({c.get()}, 4);
  EXPECT_EQ(enc.key(0), enc.key(1));
  EXPECT_EQ(enc.key(2), enc.key(3));
}

}  // namespace
}  // namespace spate
