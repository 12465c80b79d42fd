// Copyright spate authors.
// TIMESTAMPADD / TIMESTAMPDIFF (timestamp_add_diff.cc): the expected values are Spark
// 4.2's (tests/differential/cases/timestamp_units.py runs the same against it).

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "spate/compute/datetime_functions.h"
#include "spate/compute/function_registry.h"
#include "spate/testing/status_matchers.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {
namespace {

// Wall-clock "yyyy-MM-dd HH:mm:ss" as micros (the value of a TIMESTAMP_NTZ).
int64_t Local(const std::string& text) {
  int64_t days = DaysFromCivil(std::stoll(text.substr(0, 4)),
                               static_cast<unsigned>(std::stoi(text.substr(5, 2))),
                               static_cast<unsigned>(std::stoi(text.substr(8, 2))));
  int64_t seconds = std::stoll(text.substr(11, 2)) * 3600 +
                    std::stoll(text.substr(14, 2)) * 60 + std::stoll(text.substr(17, 2));
  return days * kMicrosPerDay + seconds * kMicrosPerSecond;
}

// The instant of wall-clock `text` in `zone` (a TIMESTAMP literal read in that zone).
Value Ts(const std::string& text, const std::string& zone = "UTC") {
  return Value::Timestamp(TimeZone::Lookup(zone)->LocalToUtcMicros(Local(text)));
}

// A TIMESTAMP shown in `zone`, with its offset: "2024-03-10 12:00:00 -07:00".
std::string Show(const Value& v, const std::string& zone = "UTC") {
  if (v.is_null()) return "NULL";
  int64_t offset = TimeZone::Lookup(zone)->OffsetSeconds(v.i64());
  std::string sign = offset < 0 ? "-" : "+";
  int64_t a = offset < 0 ? -offset : offset;
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%02d:%02d", static_cast<int>(a / 3600),
                static_cast<int>(a / 60 % 60));
  return FormatTimestampMicros(v.i64(), offset) + " " + sign + buf;
}

Result<BoundExprPtr> Resolve(const char* call, const std::string& unit, const Value& a,
                             const Value& b) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(call);
  if (r == nullptr) return Status::Internal("not registered");
  return (*r)({MakeLiteral(Value::String(unit)), MakeLiteral(a), MakeLiteral(b)},
              ResolveContext{});
}

Result<Value> Eval(const char* call, const std::string& unit, const Value& a,
                   const Value& b, const std::string& zone = "UTC") {
  SPATE_ASSIGN_OR_RETURN(BoundExprPtr e, Resolve(call, unit, a, b));
  EvalContext ctx;
  ctx.time_zone_id = zone;
  ctx.time_zone = TimeZone::Lookup(zone);
  auto batch = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr c, e->Evaluate(*batch, ctx));
  return c->GetValue(0);
}

std::string Add(const std::string& unit, int64_t n, const Value& ts,
                const std::string& zone = "UTC") {
  auto v = Eval(kTimestampAddCall, unit, Value::Long(n), ts, zone);
  if (!v.ok()) return v.status().error_class();
  if (v->type()->id() == TypeId::kTimestampNtz)
    return v->is_null() ? "NULL" : FormatTimestampMicros(v->i64());
  return Show(*v, zone);
}

std::string Diff(const std::string& unit, const Value& start, const Value& end,
                 const std::string& zone = "UTC") {
  auto v = Eval(kTimestampDiffCall, unit, start, end, zone);
  if (!v.ok()) return v.status().error_class();
  return v->is_null() ? "NULL" : std::to_string(v->i64());
}

TEST(TimestampAddTest, EveryUnit) {
  Value ts = Ts("2024-01-31 10:00:00");
  EXPECT_EQ(Add("MICROSECOND", 1, ts), "2024-01-31 10:00:00.000001 +00:00");
  EXPECT_EQ(Add("MILLISECOND", 1500, ts), "2024-01-31 10:00:01.5 +00:00");
  EXPECT_EQ(Add("SECOND", 3600, ts), "2024-01-31 11:00:00 +00:00");
  EXPECT_EQ(Add("MINUTE", 90, ts), "2024-01-31 11:30:00 +00:00");
  EXPECT_EQ(Add("hour", 2, ts), "2024-01-31 12:00:00 +00:00");
  EXPECT_EQ(Add("DAY", -1, ts), "2024-01-30 10:00:00 +00:00");
  EXPECT_EQ(Add("DayOfYear", 1, ts), "2024-02-01 10:00:00 +00:00");
  EXPECT_EQ(Add("WEEK", 1, ts), "2024-02-07 10:00:00 +00:00");
  // Month ends clamp, as add_months.
  EXPECT_EQ(Add("MONTH", 1, ts), "2024-02-29 10:00:00 +00:00");
  EXPECT_EQ(Add("QUARTER", 1, Ts("2023-11-30 10:00:00")), "2024-02-29 10:00:00 +00:00");
  EXPECT_EQ(Add("YEAR", 1, Ts("2024-02-29 10:00:00")), "2025-02-28 10:00:00 +00:00");
  EXPECT_EQ(Add("MONTH", -13, Ts("2024-03-31 23:59:59")), "2023-02-28 23:59:59 +00:00");
}

TEST(TimestampAddTest, NtzAddsInUtcWhateverTheSessionZone) {
  Value ntz = Value::TimestampNtz(Local("2024-03-09 02:30:00"));
  EXPECT_EQ(Add("DAY", 1, ntz, "America/Los_Angeles"), "2024-03-10 02:30:00");
  EXPECT_EQ(Add("HOUR", 1, Value::TimestampNtz(Local("2024-03-10 01:30:00")),
                "America/Los_Angeles"),
            "2024-03-10 02:30:00");
  EXPECT_EQ(Add("MONTH", 1, Value::TimestampNtz(Local("2024-01-31 10:00:00"))),
            "2024-02-29 10:00:00");
}

TEST(TimestampAddTest, CalendarUnitsKeepTheWallClockAcrossDst) {
  const std::string la = "America/Los_Angeles";
  // DAY / WEEK / MONTH keep the local time; HOUR adds a duration.
  EXPECT_EQ(Add("DAY", 1, Ts("2024-03-09 12:00:00", la), la),
            "2024-03-10 12:00:00 -07:00");
  EXPECT_EQ(Add("HOUR", 24, Ts("2024-03-09 12:00:00", la), la),
            "2024-03-10 13:00:00 -07:00");
  EXPECT_EQ(Add("WEEK", 1, Ts("2024-03-09 12:00:00", la), la),
            "2024-03-16 12:00:00 -07:00");
  // A local time in the spring-forward gap moves forward by the gap.
  EXPECT_EQ(Add("DAY", 1, Ts("2024-03-09 02:30:00", la), la),
            "2024-03-10 03:30:00 -07:00");
  EXPECT_EQ(Add("MONTH", 1, Ts("2024-02-10 02:30:00", la), la),
            "2024-03-10 03:30:00 -07:00");
  // In the fall-back overlap the timestamp's own offset is kept when it is valid there,
  // else the earlier one.
  Value pdt = Value::Timestamp(Local("2024-11-03 08:30:00"));  // 01:30 -07:00
  Value pst = Value::Timestamp(Local("2024-11-03 09:30:00"));  // 01:30 -08:00
  EXPECT_EQ(Add("DAY", 1, Ts("2024-11-02 01:30:00", la), la),
            "2024-11-03 01:30:00 -07:00");
  EXPECT_EQ(Add("DAY", -1, Ts("2024-11-04 01:30:00", la), la),
            "2024-11-03 01:30:00 -08:00");
  EXPECT_EQ(Add("DAY", 0, pst, la), "2024-11-03 01:30:00 -08:00");
  EXPECT_EQ(Add("MONTH", 0, pdt, la), "2024-11-03 01:30:00 -07:00");
  EXPECT_EQ(Add("HOUR", 1, pdt, la), "2024-11-03 01:30:00 -08:00");
}

TEST(TimestampAddTest, OverflowIsDatetimeOverflow) {
  Value ts = Ts("2024-01-31 10:00:00");
  EXPECT_EQ(Add("YEAR", 300000, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("MONTH", int64_t{1} << 31, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("MONTH", INT64_MAX, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("DAY", int64_t{1} << 31, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("WEEK", INT64_MIN, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("MICROSECOND", INT64_MAX, ts), "DATETIME_OVERFLOW");
  EXPECT_EQ(Add("HOUR", INT64_MAX / 1000, ts), "DATETIME_OVERFLOW");
  // The last day before the end of the range is still one.
  auto last = Eval(kTimestampAddCall, "DAY", Value::Long(106751991), Value::Timestamp(0));
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->i64(), 106751991 * kMicrosPerDay);
  EXPECT_EQ(Add("DAY", 106751992, Value::Timestamp(0)), "DATETIME_OVERFLOW");
  auto v = Eval(kTimestampAddCall, "year", Value::Long(300000), ts);
  EXPECT_ERROR_HAS(v, "add 300000L year to TIMESTAMP '2024-01-31 10:00:00'");
}

TEST(TimestampAddTest, TypesAndNulls) {
  auto e = Resolve(kTimestampAddCall, "HOUR", Value::Int(1), Value::Date(0));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->type()->id(), TypeId::kTimestamp);
  EXPECT_EQ((*e)->ToString(),
            "timestampadd(HOUR, cast(1 as bigint), cast(1970-01-01 as timestamp))");
  e = Resolve(kTimestampAddCall, "HOUR", Value::Int(1), Value::TimestampNtz(0));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->type()->id(), TypeId::kTimestampNtz);
  EXPECT_EQ(Add("HOUR", 1, Value::Date(0)), "1970-01-01 01:00:00 +00:00");
  auto bad =
      Resolve(kTimestampAddCall, "HOUR", Value::Boolean(true), Value::Timestamp(0));
  EXPECT_ERROR_CLASS(bad, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  EXPECT_ERROR_HAS(bad, "The first parameter requires the \"BIGINT\" type");
  bad = Resolve(kTimestampAddCall, "HOUR", Value::Int(1), Value::Int(5));
  EXPECT_ERROR_HAS(bad,
                   "The second parameter requires the "
                   "\"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\" type");
  auto null =
      Eval(kTimestampAddCall, "HOUR", Value::Null(DataType::Long()), Value::Timestamp(0));
  ASSERT_TRUE(null.ok());
  EXPECT_TRUE(null->is_null());
}

TEST(TimestampAddTest, UnknownUnitFailsOnlyOnARow) {
  EXPECT_EQ(Add("FOO", 1, Value::Timestamp(0)), "INVALID_PARAMETER_VALUE.DATETIME_UNIT");
  auto v = Eval(kTimestampAddCall, "'DAY'", Value::Long(1), Value::Timestamp(0));
  EXPECT_ERROR_HAS(v, "in `TIMESTAMPADD` is invalid");
  EXPECT_ERROR_HAS(v, "but got the string literal ''DAY''");
  auto null =
      Eval(kTimestampAddCall, "FOO", Value::Long(1), Value::Null(DataType::Timestamp()));
  ASSERT_TRUE(null.ok()) << null.status().ToString();
  EXPECT_TRUE(null->is_null());
}

TEST(TimestampDiffTest, WholeUnitsTruncatedTowardZero) {
  EXPECT_EQ(Diff("HOUR", Ts("2024-01-31 10:00:00"), Ts("2024-02-01 10:00:00")), "24");
  EXPECT_EQ(Diff("SECOND", Ts("2024-01-01 00:00:00"), Ts("2024-01-01 00:00:02")), "2");
  Value a = Value::Timestamp(Local("2024-01-01 00:00:00") + 900000);
  Value b = Value::Timestamp(Local("2024-01-01 00:00:02") + 100000);
  EXPECT_EQ(Diff("SECOND", a, b), "1");
  EXPECT_EQ(Diff("SECOND", b, a), "-1");
  EXPECT_EQ(Diff("MILLISECOND", Value::Timestamp(900), Value::Timestamp(2000)), "1");
  EXPECT_EQ(Diff("MICROSECOND", Value::Timestamp(900), Value::Timestamp(2000)), "1100");
  EXPECT_EQ(Diff("MINUTE", Ts("2024-01-01 00:00:00"), Ts("2024-01-01 01:59:59")), "119");
  EXPECT_EQ(Diff("DAY", Ts("2020-01-01 00:00:00"), Ts("2019-12-25 00:00:00")), "-7");
  EXPECT_EQ(Diff("DAY", Ts("2024-01-01 10:00:00"), Ts("2024-01-03 09:00:00")), "1");
  EXPECT_EQ(Diff("WEEK", Ts("2024-01-01 00:00:00"), Ts("2024-01-14 00:00:00")), "1");
  EXPECT_EQ(Diff("week", Ts("2024-01-14 00:00:00"), Ts("2024-01-01 00:00:00")), "-1");
  EXPECT_EQ(Diff("WEEK", Ts("2024-01-01 10:00:00"), Ts("2024-01-15 09:00:00")), "1");
}

TEST(TimestampDiffTest, MonthsCompareDayAndTimeOfDay) {
  EXPECT_EQ(Diff("MONTH", Ts("2024-01-31 10:00:00"), Ts("2024-02-29 10:00:00")), "0");
  EXPECT_EQ(Diff("MONTH", Ts("2024-01-15 10:00:00"), Ts("2024-02-15 09:00:00")), "0");
  EXPECT_EQ(Diff("MONTH", Ts("2024-01-15 10:00:00"), Ts("2024-02-15 10:00:00")), "1");
  EXPECT_EQ(Diff("MONTH", Ts("2024-03-31 10:00:00"), Ts("2024-02-29 10:00:00")), "-1");
  EXPECT_EQ(Diff("MONTH", Ts("2024-03-31 10:00:00"), Ts("2024-02-29 11:00:00")), "0");
  EXPECT_EQ(Diff("MONTH", Ts("2024-02-29 10:00:00"), Ts("2024-03-31 10:00:00")), "1");
  EXPECT_EQ(Diff("QUARTER", Ts("2020-01-01 00:00:00"), Ts("2020-12-31 00:00:00")), "3");
  EXPECT_EQ(Diff("QUARTER", Ts("2024-01-31 00:00:00"), Ts("2024-04-30 00:00:00")), "0");
  EXPECT_EQ(Diff("YEAR", Ts("2020-02-29 00:00:00"), Ts("2021-02-28 23:59:59")), "0");
  EXPECT_EQ(Diff("YEAR", Ts("2020-02-29 00:00:00"), Ts("2021-03-01 00:00:00")), "1");
  EXPECT_EQ(Diff("YEAR", Ts("2024-02-29 00:00:00"), Ts("2023-02-28 00:00:00")), "-1");
  EXPECT_EQ(Diff("YEAR", Ts("2024-02-29 00:00:00"), Ts("2023-03-01 00:00:00")), "0");
}

TEST(TimestampDiffTest, WallClockOfTheSessionZone) {
  const std::string la = "America/Los_Angeles";
  // The spring-forward day has 23 hours but 24 on the wall clock, as Spark counts.
  EXPECT_EQ(
      Diff("HOUR", Ts("2024-03-10 00:00:00", la), Ts("2024-03-11 00:00:00", la), la),
      "24");
  EXPECT_EQ(Diff("DAY", Ts("2024-03-10 00:30:00", la), Ts("2024-03-11 00:00:00", la), la),
            "0");
  // 01:30 PDT and 01:30 PST an hour later are the same wall-clock time.
  Value pdt = Value::Timestamp(Local("2024-11-03 08:30:00"));
  Value pst = Value::Timestamp(Local("2024-11-03 09:30:00"));
  EXPECT_EQ(Diff("MINUTE", pdt, pst, la), "0");
  EXPECT_EQ(Diff("MINUTE", pdt, pst), "60");
  // TIMESTAMP_NTZ and DATE ends are cast to TIMESTAMP in the session zone.
  EXPECT_EQ(Diff("HOUR", Value::TimestampNtz(Local("2024-03-10 00:00:00")),
                 Value::TimestampNtz(Local("2024-03-11 00:00:00")), la),
            "24");
  EXPECT_EQ(Diff("HOUR", Value::Date(0), Ts("1970-01-02 10:00:00")), "34");
}

TEST(TimestampDiffTest, UnitsAndErrors) {
  Value a = Ts("2020-01-01 00:00:00");
  EXPECT_EQ(Diff("DAYOFYEAR", a, a), "INVALID_PARAMETER_VALUE.DATETIME_UNIT");
  EXPECT_EQ(Diff("FOO", a, a), "INVALID_PARAMETER_VALUE.DATETIME_UNIT");
  EXPECT_EQ(Diff("DAYOFYEAR", Value::Null(DataType::Timestamp()), a), "NULL");
  auto bad = Resolve(kTimestampDiffCall, "HOUR", Value::Int(1), a);
  EXPECT_ERROR_HAS(bad, "The first parameter requires the \"TIMESTAMP\" type");
  bad = Resolve(kTimestampDiffCall, "HOUR", a, Value::Int(1));
  EXPECT_ERROR_HAS(bad, "The second parameter requires the \"TIMESTAMP\" type");
  // Spark counts milliseconds across the whole range; microseconds overflow a BIGINT.
  Value lo =
      Value::Timestamp(Local("1970-01-01 00:00:00") - int64_t{9'000'000'000'000'000'000});
  Value hi = Value::Timestamp(int64_t{9'000'000'000'000'000'000});
  EXPECT_EQ(Diff("MILLISECOND", lo, hi), "18000000000000000");
  EXPECT_EQ(Diff("MICROSECOND", lo, hi), "ARITHMETIC_OVERFLOW");
}

}  // namespace
}  // namespace spate
