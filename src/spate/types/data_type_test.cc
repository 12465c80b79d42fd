// Copyright spate authors.
#include "spate/types/data_type.h"

#include <gtest/gtest.h>

#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/value.h"

namespace spate {
namespace {

TEST(DataTypeTest, SparkNames) {
  auto t = DataType::Struct({Field{"a", DataType::Int()},
                             Field{"b", DataType::Array(DataType::Decimal(10, 2))}});
  EXPECT_EQ(t->SimpleString(), "struct<a:int,b:array<decimal(10,2)>>");
  EXPECT_EQ(t->Sql(), "STRUCT<a: INT, b: ARRAY<DECIMAL(10,2)>>");
  EXPECT_EQ(DataType::Long()->TypeName(), "long");
  EXPECT_EQ(DataType::Long()->SimpleString(), "bigint");
}

TEST(DataTypeTest, TreeString) {
  Schema s({Field{"id", DataType::Long(), false},
            Field{"w", DataType::Struct({Field{"start", DataType::Timestamp()}})},
            Field{"m", DataType::Map(DataType::String(), DataType::Int())}});
  EXPECT_EQ(s.TreeString(),
            "root\n"
            " |-- id: long (nullable = false)\n"
            " |-- w: struct (nullable = true)\n"
            " |    |-- start: timestamp (nullable = true)\n"
            " |-- m: map (nullable = true)\n"
            " |    |-- key: string\n"
            " |    |-- value: integer (valueContainsNull = true)\n");
}

TEST(FormatTest, JavaDoubleStrings) {
  EXPECT_EQ(FormatDouble(1.0), "1.0");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e7), "1.0E7");
  EXPECT_EQ(FormatDouble(1234567.0), "1234567.0");
  EXPECT_EQ(FormatDouble(0.001), "0.001");
  EXPECT_EQ(FormatDouble(0.0001), "1.0E-4");
  EXPECT_EQ(FormatDouble(-2.5e-5), "-2.5E-5");
  EXPECT_EQ(FormatDouble(123.456), "123.456");
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
}

// The calendar rules agree with the day numbers of DaysFromCivil: a leap year has 366
// days, a month ends where the next one starts, and no other date is valid.
TEST(CalendarTest, RulesMatchDayNumbers) {
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(0));
  EXPECT_TRUE(IsLeapYear(-4));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(-1));
  EXPECT_EQ(DaysInMonth(2023, 2), 28);
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_FALSE(ValidDate(2024, 0, 1));
  EXPECT_FALSE(ValidDate(2024, 13, 1));
  EXPECT_FALSE(ValidDate(2024, 1, 0));
  for (int64_t y = -801; y <= 2401; ++y) {
    EXPECT_EQ(IsLeapYear(y), DaysFromCivil(y + 1, 1, 1) - DaysFromCivil(y, 1, 1) == 366)
        << y;
    for (int m = 1; m <= 12; ++m) {
      int64_t next = m == 12 ? DaysFromCivil(y + 1, 1, 1)
                             : DaysFromCivil(y, static_cast<unsigned>(m + 1), 1);
      int64_t length = next - DaysFromCivil(y, static_cast<unsigned>(m), 1);
      ASSERT_EQ(DaysInMonth(y, m), length) << y << "-" << m;
      EXPECT_TRUE(ValidDate(y, m, static_cast<int>(length)));
      EXPECT_FALSE(ValidDate(y, m, static_cast<int>(length) + 1));
    }
  }
}

TEST(FormatTest, DatesAndTimestamps) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(DaysFromCivil(2024, 2, 29)), "2024-02-29");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(DaysFromCivil(-44, 3, 15)), "-0044-03-15");
  EXPECT_EQ(FormatDate(DaysFromCivil(10000, 1, 1)), "+10000-01-01");
  EXPECT_EQ(FormatTimestampMicros(1'500'000), "1970-01-01 00:00:01.5");
  EXPECT_EQ(FormatTimestampMicros(-1), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(12345, 2), "123.45");
  EXPECT_EQ(
      FormatDayTimeInterval(600'000'000, IntervalField::kMinute, IntervalField::kMinute),
      "INTERVAL '10' MINUTE");
  EXPECT_EQ(
      FormatDayTimeInterval(90'061'000'000, IntervalField::kDay, IntervalField::kSecond),
      "INTERVAL '1 01:01:01' DAY TO SECOND");
}

}  // namespace
}  // namespace spate
