// Copyright spate authors.
#include "spate/compute/hash_functions.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"

namespace spate {
namespace {

// Reference values of Spark's Murmur3_x86_32 / XXH64 with seed 42.
TEST(Murmur3Test, IntsAndLongs) {
  EXPECT_EQ(Murmur3HashInt(1, 42), static_cast<int32_t>(0xdea578e3u));
  EXPECT_EQ(Murmur3HashInt(0, 42), static_cast<int32_t>(0x379fae8fu));
  EXPECT_EQ(Murmur3HashInt(-1, 42), static_cast<int32_t>(0xa0590e3du));
  EXPECT_EQ(Murmur3HashLong(1, 42), static_cast<int32_t>(0x99f0149du));
  EXPECT_EQ(Murmur3HashLong(0, 42), static_cast<int32_t>(0x9c67b85du));
  EXPECT_EQ(Murmur3HashLong(-1, 42), static_cast<int32_t>(0xc8008529u));
}

TEST(Murmur3Test, BytesWithLegacyTail) {
  EXPECT_EQ(Murmur3HashBytes("", 42), 142593372);
  EXPECT_EQ(Murmur3HashBytes("abc", 42), 1322437556);
  EXPECT_EQ(Murmur3HashBytes("hello", 42), static_cast<int32_t>(3286402344u));
  // A 4-byte string hashes like the int with the same little-endian bytes.
  EXPECT_EQ(Murmur3HashBytes(std::string_view("\x01\x00\x00\x00", 4), 42),
            Murmur3HashInt(1, 42));
}

ColumnPtr IntArrayColumn(std::vector<int32_t> items) {
  auto child = ColumnFromValues(DataType::Int(), [&] {
    std::vector<Value> v;
    for (int32_t x : items) v.push_back(Value::Int(x));
    return v;
  }());
  auto off = Buffer::Allocate(8);
  off->mutable_data_as<int32_t>()[0] = 0;
  off->mutable_data_as<int32_t>()[1] = static_cast<int32_t>(items.size());
  return std::make_shared<const Column>(DataType::Array(DataType::Int()), 1, 0, nullptr,
                                        off, nullptr, std::vector<ColumnPtr>{child});
}

// SELECT hash('Spark', array(123), 2) = -1321691492 and
// SELECT xxhash64('Spark', array(123), 2) = 5602566077635097486 (Spark's docs).
TEST(HashColumnTest, SparkDocumentedExamples) {
  std::vector<ColumnPtr> cols{
      ColumnFromValues(DataType::String(), {Value::String("Spark")}),
      IntArrayColumn({123}), ColumnFromValues(DataType::Int(), {Value::Int(2)})};
  int32_t h = 42;
  int64_t x = 42;
  for (const auto& c : cols) {
    Murmur3HashColumn(*c, &h, 1);
    XxHash64Column(*c, &x, 1);
  }
  EXPECT_EQ(h, -1321691492);
  EXPECT_EQ(x, 5602566077635097486LL);
}

TEST(HashColumnTest, NullsKeepTheSeedAndFloatsNormalize) {
  auto ints =
      ColumnFromValues(DataType::Int(), {Value::Int(1), Value::Null(DataType::Int())});
  int32_t h[2] = {42, 42};
  Murmur3HashColumn(*ints, h, 2);
  EXPECT_EQ(h[0], Murmur3HashInt(1, 42));
  EXPECT_EQ(h[1], 42);

  auto d =
      ColumnFromValues(DataType::Double(), {Value::Double(-0.0), Value::Double(0.0)});
  int64_t x[2] = {42, 42};
  XxHash64Column(*d, x, 2);
  EXPECT_EQ(x[0], x[1]);
}

TEST(HashColumnTest, WideDecimalsHashTheirBigEndianBytes) {
  // decimal(20, 0) value 1 hashes as the single byte 0x01 (BigInteger.toByteArray).
  auto dec = ColumnFromValues(DataType::Decimal(20, 0),
                              {Value::Decimal(1, 20, 0), Value::Decimal(-1, 20, 0)});
  int32_t h[2] = {42, 42};
  Murmur3HashColumn(*dec, h, 2);
  EXPECT_EQ(h[0], Murmur3HashBytes(std::string_view("\x01", 1), 42));
  EXPECT_EQ(h[1], Murmur3HashBytes(std::string_view("\xff", 1), 42));
  // decimal(10, 0) hashes as a long.
  auto small = ColumnFromValues(DataType::Decimal(10, 0), {Value::Decimal(7, 10, 0)});
  int32_t s = 42;
  Murmur3HashColumn(*small, &s, 1);
  EXPECT_EQ(s, Murmur3HashLong(7, 42));
}

TEST(XxHash64Test, LongInputsMatchTheStreamingPath) {
  std::string big(100, 'x');
  // Inputs over 32 bytes take the 4-lane path; hashing must be stable and differ by seed.
  EXPECT_NE(XxHash64Bytes(big, 42), XxHash64Bytes(big, 43));
  EXPECT_EQ(XxHash64Int(7, 42),
            XxHash64Bytes(std::string_view("\x07\x00\x00\x00", 4), 42));
  EXPECT_EQ(XxHash64Long(7, 42),
            XxHash64Bytes(std::string_view("\x07\x00\x00\x00\x00\x00\x00\x00", 8), 42));
}

}  // namespace
}  // namespace spate
