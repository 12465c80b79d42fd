// Copyright spate authors.
#include "spate/state/row_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "spate/columnar/builder.h"
#include "spate/testing/status_matchers.h"

namespace spate::state {
namespace {

using int128 = __int128;

struct Rows {
  SchemaPtr schema;
  std::vector<ColumnPtr> columns;
  int64_t n = 0;
};

Rows MakeRows(std::vector<Field> fields,
              const std::vector<std::vector<Value>>& by_column) {
  Rows r;
  r.schema = std::make_shared<const Schema>(std::move(fields));
  for (int f = 0; f < r.schema->num_fields(); ++f) {
    r.columns.push_back(ColumnFromValues(r.schema->field(f).type, by_column[f]));
  }
  r.n = r.columns.empty() ? 0 : r.columns[0]->length();
  return r;
}

/// Encodes every row, decodes them into a batch and checks each value.
void ExpectRoundTrip(const Rows& rows, bool normalize = false) {
  RowCodec codec(rows.schema, normalize);
  std::vector<const Column*> cols;
  for (const auto& c : rows.columns) cols.push_back(c.get());
  RowBatchBuilder builder(codec);
  for (int64_t i = 0; i < rows.n; ++i) {
    std::string bytes;
    codec.Encode(cols, i, &bytes);
    ASSERT_TRUE(builder.Append(bytes).ok()) << "row " << i;
  }
  EXPECT_EQ(builder.num_rows(), rows.n);
  auto batch = builder.Finish();
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ((*batch)->num_rows(), rows.n);
  EXPECT_EQ(builder.num_rows(), 0);
  for (int f = 0; f < rows.schema->num_fields(); ++f) {
    const Column& got = *(*batch)->column(f);
    EXPECT_TRUE(got.type()->Equals(*rows.columns[f]->type()));
    EXPECT_EQ(got.null_count(), rows.columns[f]->null_count()) << "field " << f;
    for (int64_t i = 0; i < rows.n; ++i) {
      EXPECT_EQ(got.GetValue(i), rows.columns[f]->GetValue(i))
          << "field " << f << " row " << i << ": " << got.GetValue(i).ToString() << " vs "
          << rows.columns[f]->GetValue(i).ToString();
    }
  }
}

TEST(RowCodecTest, PrimitivesRoundTripWithNulls) {
  auto ym = DataType::YearMonthInterval();
  auto dt = DataType::DayTimeInterval();
  Rows rows = MakeRows(
      {{"b", DataType::Boolean()},
       {"i8", DataType::Byte()},
       {"i16", DataType::Short()},
       {"i32", DataType::Int()},
       {"i64", DataType::Long()},
       {"f", DataType::Float()},
       {"d", DataType::Double()},
       {"s", DataType::String()},
       {"bin", DataType::Binary()},
       {"date", DataType::Date()},
       {"ts", DataType::Timestamp()},
       {"ntz", DataType::TimestampNtz()},
       {"ym", ym},
       {"dt", dt},
       {"v", DataType::Null()}},
      {{Value::Boolean(true), Value::Null(DataType::Boolean()), Value::Boolean(false)},
       {Value::Byte(-128), Value::Byte(127), Value::Null(DataType::Byte())},
       {Value::Short(-32768), Value::Null(DataType::Short()), Value::Short(7)},
       {Value::Int(std::numeric_limits<int32_t>::min()), Value::Int(0),
        Value::Null(DataType::Int())},
       {Value::Long(std::numeric_limits<int64_t>::max()), Value::Null(DataType::Long()),
        Value::Long(-1)},
       {Value::Float(1.5f), Value::Float(-0.0f), Value::Null(DataType::Float())},
       {Value::Double(std::numeric_limits<double>::infinity()), Value::Double(-2.25),
        Value::Double(std::nan(""))},
       {Value::String(""), Value::String("héllo wörld"), Value::Null(DataType::String())},
       {Value::Binary(std::string("\0\1\xff", 3)), Value::Null(DataType::Binary()),
        Value::Binary(std::string(300, 'x'))},
       {Value::Date(-719162), Value::Date(20000), Value::Null(DataType::Date())},
       {Value::Timestamp(-1), Value::Null(DataType::Timestamp()),
        Value::Timestamp(1700000000123456)},
       {Value::TimestampNtz(0), Value::TimestampNtz(-62135596800000000),
        Value::Null(DataType::TimestampNtz())},
       {Value::FromI64(ym, -14), Value::Null(ym), Value::FromI64(ym, 1200)},
       {Value::FromI64(dt, 86400000000LL), Value::FromI64(dt, -1), Value::Null(dt)},
       {Value(), Value(), Value()}});
  ExpectRoundTrip(rows);
}

TEST(RowCodecTest, DecimalsOfEveryPrecision) {
  int128 big = 1;
  for (int i = 0; i < 37; ++i) big *= 10;
  big = big * 9 + 12345;  // 38 digits
  Rows rows =
      MakeRows({{"d1", DataType::Decimal(1, 0)},
                {"d18", DataType::Decimal(18, 4)},
                {"d19", DataType::Decimal(19, 2)},
                {"d38", DataType::Decimal(38, 10)}},
               {{Value::Decimal(9, 1, 0), Value::Decimal(-9, 1, 0),
                 Value::Null(DataType::Decimal(1, 0))},
                {Value::Decimal(999999999999999999LL, 18, 4),
                 Value::Decimal(-999999999999999999LL, 18, 4), Value::Decimal(0, 18, 4)},
                {Value::Decimal(int128(std::numeric_limits<int64_t>::max()) * 5, 19, 2),
                 Value::Null(DataType::Decimal(19, 2)), Value::Decimal(-1, 19, 2)},
                {Value::Decimal(big, 38, 10), Value::Decimal(-big, 38, 10),
                 Value::Null(DataType::Decimal(38, 10))}});
  ExpectRoundTrip(rows);
}

TEST(RowCodecTest, NestedTypesWithNullsAtEveryLevel) {
  auto inner = DataType::Struct({{"x", DataType::Int()}, {"y", DataType::String()}});
  auto arr = DataType::Array(DataType::Long());
  auto arr_of_struct = DataType::Array(inner);
  auto map = DataType::Map(DataType::String(), DataType::Array(DataType::Double()));
  auto nested = DataType::Struct({{"a", arr}, {"m", map}, {"s", inner}});
  auto arr_t = DataType::Array(DataType::Double());
  Rows rows = MakeRows(
      {{"st", inner},
       {"arr", arr},
       {"aos", arr_of_struct},
       {"map", map},
       {"deep", nested}},
      {{Value::Struct(inner, {Value::Int(1), Value::String("a")}),
        Value::Struct(inner,
                      {Value::Null(DataType::Int()), Value::Null(DataType::String())}),
        Value::Null(inner)},
       {Value::Array(DataType::Long(),
                     {Value::Long(1), Value::Null(DataType::Long()), Value::Long(3)}),
        Value::Array(DataType::Long(), {}), Value::Null(arr)},
       {Value::Array(inner, {Value::Null(inner),
                             Value::Struct(inner, {Value::Int(5), Value::String("z")})}),
        Value::Null(arr_of_struct), Value::Array(inner, {})},
       {Value::Map(
            map, {Value::String("k1"), Value::String("k2")},
            {Value::Array(DataType::Double(), {Value::Double(1.0)}), Value::Null(arr_t)}),
        Value::Null(map), Value::Map(map, {}, {})},
       {Value::Struct(
            nested,
            {Value::Null(arr),
             Value::Map(
                 map, {Value::String("q")},
                 {Value::Array(DataType::Double(), {Value::Null(DataType::Double())})}),
             Value::Struct(inner, {Value::Int(-7), Value::Null(DataType::String())})}),
        Value::Null(nested),
        Value::Struct(nested, {Value::Array(DataType::Long(), {Value::Long(9)}),
                               Value::Null(map), Value::Null(inner)})}});
  ExpectRoundTrip(rows);
}

TEST(RowCodecTest, EmptySchemaAndManyFields) {
  ExpectRoundTrip(MakeRows({}, {}));
  std::vector<Field> fields;
  std::vector<std::vector<Value>> cols;
  for (int f = 0; f < 19; ++f) {
    fields.push_back({"c" + std::to_string(f), DataType::Int()});
    cols.push_back(
        {f % 3 == 0 ? Value::Null(DataType::Int()) : Value::Int(f), Value::Int(-f)});
  }
  ExpectRoundTrip(MakeRows(fields, cols));
}

TEST(RowCodecTest, NormalizeFloatsMakesEqualKeysEqualBytes) {
  Rows rows = MakeRows({{"d", DataType::Double()}, {"f", DataType::Float()}},
                       {{Value::Double(0.0), Value::Double(-0.0),
                         Value::Double(std::nan("1")), Value::Double(-std::nan("2"))},
                        {Value::Float(0.0f), Value::Float(-0.0f),
                         Value::Float(std::nanf("3")), Value::Float(-std::nanf("4"))}});
  std::vector<const Column*> cols{rows.columns[0].get(), rows.columns[1].get()};
  RowCodec keys(rows.schema, /*normalize_floats=*/true);
  RowCodec values(rows.schema, /*normalize_floats=*/false);
  std::string k[4], v[4];
  for (int i = 0; i < 4; ++i) {
    keys.Encode(cols, i, &k[i]);
    values.Encode(cols, i, &v[i]);
  }
  EXPECT_EQ(k[0], k[1]);
  EXPECT_EQ(k[2], k[3]);
  EXPECT_NE(k[0], k[2]);
  EXPECT_NE(v[0], v[1]);  // values keep -0.0
  RowBatchBuilder b(values);
  ASSERT_TRUE(b.Append(v[1]).ok());
  auto batch = b.Finish();
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(std::signbit((*batch)->column(0)->raw_values<double>()[0]));
}

TEST(RowCodecTest, MalformedInputIsAnErrorAndLeavesTheBuilderConsistent) {
  auto inner = DataType::Struct({{"x", DataType::Int()}, {"s", DataType::String()}});
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long()},
                         {"tags", DataType::Array(DataType::String())},
                         {"st", inner}});
  RowCodec codec(schema);
  auto tags = ColumnFromValues(
      DataType::Array(DataType::String()),
      {Value::Array(DataType::String(), {Value::String("abc"), Value::String("de")})});
  auto id = ColumnFromValues(DataType::Long(), {Value::Long(42)});
  auto st = ColumnFromValues(inner,
                             {Value::Struct(inner, {Value::Int(1), Value::String("q")})});
  std::string good;
  codec.Encode({id.get(), tags.get(), st.get()}, 0, &good);

  RowBatchBuilder b(codec);
  ASSERT_TRUE(b.Append(good).ok());
  // Every strict prefix is malformed.
  for (size_t n = 0; n < good.size(); ++n) {
    Status s = b.Append(std::string_view(good).substr(0, n));
    EXPECT_ERROR_HAS(s, "malformed encoded state row (" + std::to_string(n) + " bytes)")
        << "prefix " << n;
  }
  EXPECT_ERROR_HAS(
      b.Append(good + "x"),  // trailing bytes
      "malformed encoded state row (" + std::to_string(good.size() + 1) + " bytes)");
  std::string huge_count = good.substr(0, 9);  // null bits + id
  huge_count.push_back('\xff');
  huge_count.append("\xff\xff\xff\xff\xff\xff\xff\x7f");
  EXPECT_ERROR_HAS(b.Append(huge_count), "malformed encoded state row (18 bytes)");
  ASSERT_TRUE(b.Append(good).ok());
  EXPECT_EQ(b.num_rows(), 2);
  auto batch = b.Finish();
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)->column(1)->length(), 2);
  EXPECT_EQ((*batch)->column(1)->child(0)->length(), 4);
  EXPECT_EQ((*batch)->column(2)->child(1)->length(), 2);
  EXPECT_EQ((*batch)->GetRow(1)[1].ToString(), "[abc, de]");
}

}  // namespace
}  // namespace spate::state
