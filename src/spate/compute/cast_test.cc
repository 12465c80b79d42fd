// Copyright spate authors.
#include "spate/compute/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "spate/columnar/builder.h"
#include "spate/compute/datetime_text.h"
#include "spate/compute/decimal_text.h"
#include "spate/testing/status_matchers.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

// Expected values come from Spark 4's Cast.scala / CastSuiteBase / sql-ref docs: each
// test names the Spark behaviour it pins.

namespace spate {
namespace {

EvalContext Ctx(bool ansi = true) {
  EvalContext ctx;
  ctx.ansi = ansi;
  return ctx;
}

Value Cast(const Value& v, const DataTypePtr& to, CastMode mode = CastMode::kAnsi) {
  Result<Value> r = CastValue(v, to, mode, Ctx(mode != CastMode::kLegacy));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Value();
}

Status CastError(const Value& v, const DataTypePtr& to, CastMode mode = CastMode::kAnsi) {
  Result<Value> r = CastValue(v, to, mode, Ctx(mode != CastMode::kLegacy));
  EXPECT_FALSE(r.ok()) << "expected an error, got " << (r.ok() ? r->ToString() : "");
  return r.status();
}

std::string Param(const Status& st, std::string_view name) {
  for (const auto& p : st.params()) {
    if (p.name == name) return p.value;
  }
  return "<missing " + std::string(name) + ">";
}

// The cast result as text: NULL, or CAST(result AS STRING) in ANSI mode.
std::string Text(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.type()->id() == TypeId::kString) return v.str();
  Result<Value> s = CastValue(v, DataType::String(), CastMode::kAnsi, Ctx());
  return s.ok() ? s->str() : s.status().ToString();
}

std::string CastText(const Value& v, const DataTypePtr& to,
                     CastMode mode = CastMode::kAnsi) {
  return Text(Cast(v, to, mode));
}

Value Str(std::string s) { return Value::String(std::move(s)); }
Value Dec(int128_t unscaled, int p, int s) { return Value::Decimal(unscaled, p, s); }
// Micros of a UTC wall-clock string.
int64_t Utc(const char* s) { return Cast(Str(s), DataType::Timestamp()).i64(); }

Value DayTime(int64_t micros, IntervalField a = IntervalField::kDay,
              IntervalField b = IntervalField::kSecond) {
  return Value::FromI64(DataType::DayTimeInterval(a, b), micros);
}

// ---- numeric narrowing and overflow ---------------------------------------------------

TEST(CastTest, IntToTinyintOverflowsInAnsi) {
  Status st = CastError(Value::Int(128), DataType::Byte());
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "128");
  EXPECT_EQ(Param(st, "sourceType"), "\"INT\"");
  EXPECT_EQ(Param(st, "targetType"), "\"TINYINT\"");
  EXPECT_EQ(st.sql_state(), "22003");
}

TEST(CastTest, IntToTinyintWrapsInLegacy) {
  EXPECT_EQ(Cast(Value::Int(128), DataType::Byte(), CastMode::kLegacy).i64(), -128);
  EXPECT_EQ(Cast(Value::Int(-129), DataType::Byte(), CastMode::kLegacy).i64(), 127);
  EXPECT_EQ(Cast(Value::Int(127), DataType::Byte()).i64(), 127);
}

TEST(CastTest, TryCastOverflowIsNull) {
  EXPECT_TRUE(Cast(Value::Int(128), DataType::Byte(), CastMode::kTry).is_null());
}

TEST(CastTest, LongOverflowValueHasLongSuffix) {
  Status st = CastError(Value::Long(2147483648LL), DataType::Int());
  EXPECT_EQ(Param(st, "value"), "2147483648L");
  EXPECT_EQ(Param(st, "sourceType"), "\"BIGINT\"");
  EXPECT_EQ(Param(st, "targetType"), "\"INT\"");
  EXPECT_EQ(Cast(Value::Long(2147483648LL), DataType::Int(), CastMode::kLegacy).i64(),
            -2147483648LL);
}

TEST(CastTest, ShortAndByteOverflowValuesHaveSuffixes) {
  EXPECT_EQ(Param(CastError(Value::Short(300), DataType::Byte()), "value"), "300S");
  EXPECT_EQ(Param(CastError(Value::Short(300), DataType::Byte()), "sourceType"),
            "\"SMALLINT\"");
}

TEST(CastTest, WideningNeverFails) {
  EXPECT_EQ(Cast(Value::Byte(-5), DataType::Long()).i64(), -5);
  EXPECT_EQ(Cast(Value::Int(-2147483647 - 1), DataType::Long()).i64(), -2147483648LL);
}

TEST(CastTest, DoubleToIntTruncatesTowardZero) {
  EXPECT_EQ(Cast(Value::Double(1.5), DataType::Int()).i64(), 1);
  EXPECT_EQ(Cast(Value::Double(-1.5), DataType::Int()).i64(), -1);
  EXPECT_EQ(Cast(Value::Double(2147483647.9), DataType::Int()).i64(), 2147483647);
}

TEST(CastTest, DoubleNaNToIntOverflowsInAnsiAndIsZeroInLegacy) {
  Status st = CastError(Value::Double(std::nan("")), DataType::Int());
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "NaN");
  EXPECT_EQ(Param(st, "sourceType"), "\"DOUBLE\"");
  EXPECT_EQ(Cast(Value::Double(std::nan("")), DataType::Int(), CastMode::kLegacy).i64(),
            0);
}

TEST(CastTest, DoubleOverflowRendersJavaDoubleWithSuffix) {
  Status st = CastError(Value::Double(1e10), DataType::Int());
  EXPECT_EQ(Param(st, "value"), "1.0E10D");
  Status inf = CastError(Value::Double(INFINITY), DataType::Long());
  EXPECT_EQ(Param(inf, "value"), "Infinity");
}

TEST(CastTest, FloatOverflowValueHasNoSuffix) {
  Status st = CastError(Value::Float(1e10f), DataType::Int());
  EXPECT_EQ(Param(st, "value"), "1.0E10");
  EXPECT_EQ(Param(st, "sourceType"), "\"FLOAT\"");
}

TEST(CastTest, LegacyDoubleToIntegralSaturatesThenWraps) {
  EXPECT_EQ(Cast(Value::Double(INFINITY), DataType::Long(), CastMode::kLegacy).i64(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Cast(Value::Double(-1e300), DataType::Int(), CastMode::kLegacy).i64(),
            std::numeric_limits<int32_t>::min());
  // (byte)(int)300.7 = (byte)300 = 44; (byte)(int)1e10 = (byte)Int.MaxValue = -1.
  EXPECT_EQ(Cast(Value::Double(300.7), DataType::Byte(), CastMode::kLegacy).i64(), 44);
  EXPECT_EQ(Cast(Value::Double(1e10), DataType::Byte(), CastMode::kLegacy).i64(), -1);
}

TEST(CastTest, DoubleToLongAnsiBoundary) {
  // floor(2^63) <= Long.MaxValue.toDouble passes and saturates, as DoubleExactNumeric.
  EXPECT_EQ(Cast(Value::Double(9223372036854775807.0), DataType::Long()).i64(),
            std::numeric_limits<int64_t>::max());
  EXPECT_ERROR_CLASS(
      CastValue(Value::Double(1.9e19), DataType::Long(), CastMode::kAnsi, Ctx()),
      "CAST_OVERFLOW");
}

TEST(CastTest, DecimalToIntTruncates) {
  EXPECT_EQ(Cast(Dec(1299, 4, 2), DataType::Int()).i64(), 12);
  EXPECT_EQ(Cast(Dec(-1299, 4, 2), DataType::Int()).i64(), -12);
}

TEST(CastTest, DecimalToIntOverflow) {
  Status st = CastError(Dec(1234567890100, 13, 2), DataType::Int());
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "12345678901.00BD");
  EXPECT_EQ(Param(st, "sourceType"), "\"DECIMAL(13,2)\"");
  // Legacy: Decimal.toInt = toLong.toInt (wraps).
  EXPECT_EQ(Cast(Dec(1234567890100, 13, 2), DataType::Int(), CastMode::kLegacy).i64(),
            static_cast<int32_t>(12345678901LL));
}

TEST(CastTest, BooleanToNumbers) {
  EXPECT_EQ(Cast(Value::Boolean(true), DataType::Int()).i64(), 1);
  EXPECT_EQ(Cast(Value::Boolean(false), DataType::Long()).i64(), 0);
  EXPECT_EQ(Cast(Value::Boolean(true), DataType::Double()).f64(), 1.0);
  EXPECT_EQ(CastText(Value::Boolean(true), DataType::Decimal(2, 1)), "1.0");
}

TEST(CastTest, IntegralToFloatingRoundsToNearest) {
  EXPECT_EQ(CastText(Value::Int(16777217), DataType::Float()), "1.6777216E7");
  EXPECT_EQ(Cast(Value::Long(9007199254740993LL), DataType::Double()).f64(),
            9007199254740992.0);
}

TEST(CastTest, DecimalToDoubleIsCorrectlyRounded) {
  EXPECT_EQ(Cast(Dec(1, 2, 1), DataType::Double()).f64(), 0.1);
  EXPECT_EQ(CastText(Dec(1, 2, 1), DataType::Float()), "0.1");
  // 0.1 with 30 fraction digits: beyond the fast path.
  int128_t big = 1;
  for (int i = 0; i < 29; ++i) big *= 10;
  EXPECT_EQ(Cast(Dec(big, 38, 30), DataType::Double()).f64(), 0.1);
}

// ---- decimals
// ---------------------------------------------------------------------------

TEST(CastTest, DecimalRescaleRoundsHalfUp) {
  EXPECT_EQ(CastText(Dec(125, 3, 2), DataType::Decimal(2, 1)), "1.3");
  EXPECT_EQ(CastText(Dec(-125, 3, 2), DataType::Decimal(2, 1)), "-1.3");
  EXPECT_EQ(CastText(Dec(124, 3, 2), DataType::Decimal(2, 1)), "1.2");
  EXPECT_EQ(CastText(Dec(15, 2, 1), DataType::Decimal(5, 3)), "1.500");
}

TEST(CastTest, DecimalPrecisionOverflow) {
  Status st = CastError(Dec(12345, 5, 2), DataType::Decimal(4, 2));
  EXPECT_EQ(st.error_class(), "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION");
  EXPECT_EQ(Param(st, "value"), "123.45");
  EXPECT_EQ(Param(st, "precision"), "4");
  EXPECT_EQ(Param(st, "scale"), "2");
  EXPECT_EQ(Param(st, "config"), "\"spark.sql.ansi.enabled\"");
  EXPECT_TRUE(
      Cast(Dec(12345, 5, 2), DataType::Decimal(4, 2), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(Dec(12345, 5, 2), DataType::Decimal(4, 2), CastMode::kTry).is_null());
}

TEST(CastTest, RoundingCanOverflowPrecision) {
  // 9.95 -> decimal(2,1) rounds to 10.0, which needs 3 digits.
  EXPECT_TRUE(Cast(Dec(995, 3, 2), DataType::Decimal(2, 1), CastMode::kLegacy).is_null());
}

TEST(CastTest, IntegralToDecimal) {
  EXPECT_EQ(CastText(Value::Int(42), DataType::Decimal(5, 2)), "42.00");
  Status st = CastError(Value::Int(1000), DataType::Decimal(3, 0));
  EXPECT_EQ(Param(st, "value"), "1000");
  EXPECT_TRUE(
      Cast(Value::Int(1000), DataType::Decimal(3, 0), CastMode::kLegacy).is_null());
}

TEST(CastTest, DoubleToDecimalUsesShortestDigits) {
  // Decimal(0.1D) is BigDecimal("0.1"), not the binary expansion.
  EXPECT_EQ(CastText(Value::Double(0.1), DataType::Decimal(38, 20)),
            "0.10000000000000000000");
  EXPECT_EQ(CastText(Value::Double(1e10), DataType::Decimal(12, 1)), "10000000000.0");
  EXPECT_EQ(CastText(Value::Double(2.5), DataType::Decimal(2, 0)), "3");
  // A float is widened to double first: 0.1f is 0.10000000149011612.
  EXPECT_EQ(CastText(Value::Float(0.1f), DataType::Decimal(20, 17)),
            "0.10000000149011612");
}

TEST(CastTest, DoubleNaNToDecimalIsNullEvenInAnsi) {
  EXPECT_TRUE(Cast(Value::Double(std::nan("")), DataType::Decimal(10, 2)).is_null());
  EXPECT_TRUE(Cast(Value::Double(INFINITY), DataType::Decimal(10, 2)).is_null());
}

TEST(CastTest, BooleanToTooNarrowDecimal) {
  Status st = CastError(Value::Boolean(true), DataType::Decimal(1, 1));
  EXPECT_EQ(st.error_class(), "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION");
  EXPECT_EQ(Param(st, "value"), "1");
}

// ---- string -> numbers ----------------------------------------------------------------

TEST(CastTest, StringToIntTrimsWhitespace) {
  EXPECT_EQ(Cast(Str(" 12 "), DataType::Int()).i64(), 12);
  EXPECT_EQ(Cast(Str("\t-7\n"), DataType::Int()).i64(), -7);
  EXPECT_EQ(Cast(Str("+5"), DataType::Long()).i64(), 5);
}

TEST(CastTest, StringWithFractionToIntFailsInAnsi) {
  Status st = CastError(Str("1.5"), DataType::Int());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "expression"), "'1.5'");
  EXPECT_EQ(Param(st, "sourceType"), "\"STRING\"");
  EXPECT_EQ(Param(st, "targetType"), "\"INT\"");
  EXPECT_EQ(st.sql_state(), "22018");
  EXPECT_EQ(
      st.ToString(),
      "[CAST_INVALID_INPUT] The value '1.5' of the type \"STRING\" cannot be cast to "
      "\"INT\" because it is malformed. Correct the value as per the syntax, or change "
      "its target type. Use `try_cast` to tolerate malformed input and return NULL "
      "instead. SQLSTATE: 22018");
}

TEST(CastTest, StringWithFractionToIntTruncatesInLegacy) {
  EXPECT_EQ(Cast(Str("1.5"), DataType::Int(), CastMode::kLegacy).i64(), 1);
  EXPECT_EQ(Cast(Str("-1.9"), DataType::Int(), CastMode::kLegacy).i64(), -1);
  EXPECT_EQ(Cast(Str(".5"), DataType::Int(), CastMode::kLegacy).i64(), 0);
  EXPECT_TRUE(Cast(Str("1.5x"), DataType::Int(), CastMode::kLegacy).is_null());
  // try_cast follows the ANSI parse: NULL rather than a truncated value.
  EXPECT_TRUE(Cast(Str("1.5"), DataType::Int(), CastMode::kTry).is_null());
}

TEST(CastTest, MalformedStringToIntIsNullInLegacy) {
  EXPECT_TRUE(Cast(Str("abc"), DataType::Int(), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(Str(""), DataType::Int(), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(Str("-"), DataType::Int(), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(Str("1e3"), DataType::Int(), CastMode::kLegacy).is_null());
}

TEST(CastTest, OutOfRangeStringToTinyintIsInvalidInputNotOverflow) {
  Status st = CastError(Str("128"), DataType::Byte());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "targetType"), "\"TINYINT\"");
}

TEST(CastTest, StringToLongBoundaries) {
  EXPECT_EQ(Cast(Str("-9223372036854775808"), DataType::Long()).i64(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Cast(Str("9223372036854775807"), DataType::Long()).i64(),
            std::numeric_limits<int64_t>::max());
  EXPECT_ERROR_CLASS(
      CastValue(Str("9223372036854775808"), DataType::Long(), CastMode::kAnsi, Ctx()),
      "CAST_INVALID_INPUT");
}

TEST(CastTest, SingleQuotesAreEscapedInErrorValue) {
  EXPECT_EQ(Param(CastError(Str("it's"), DataType::Int()), "expression"), "'it\\'s'");
}

TEST(CastTest, StringToDouble) {
  EXPECT_EQ(Cast(Str("1e3"), DataType::Double()).f64(), 1000.0);
  EXPECT_EQ(Cast(Str(" 1.5d "), DataType::Double()).f64(), 1.5);  // Java's suffix
  EXPECT_EQ(Cast(Str(".5"), DataType::Double()).f64(), 0.5);
  EXPECT_EQ(Cast(Str("inf"), DataType::Double()).f64(), INFINITY);
  EXPECT_EQ(Cast(Str("-Infinity"), DataType::Double()).f64(), -INFINITY);
  EXPECT_TRUE(std::isnan(Cast(Str("NaN"), DataType::Double()).f64()));
  EXPECT_TRUE(std::isnan(Cast(Str("nan"), DataType::Float()).f64()));
  EXPECT_EQ(Cast(Str("1e400"), DataType::Double()).f64(), INFINITY);
}

TEST(CastTest, SparkCastSuiteSpecialFloatingLiterals) {
  // "Process Infinity, -Infinity, NaN in case insensitive manner".
  for (const char* v : {"inf", "+inf", "infinity", "+infiNity", " infinity "}) {
    EXPECT_EQ(Cast(Str(v), DataType::Float()).f64(), INFINITY) << v;
    EXPECT_EQ(Cast(Str(v), DataType::Double()).f64(), INFINITY) << v;
  }
  for (const char* v : {"-infinity", "-infiniTy", "  -infinity  ", "  -inf  "}) {
    EXPECT_EQ(Cast(Str(v), DataType::Double()).f64(), -INFINITY) << v;
  }
  for (const char* v : {"nan", "nAn", " nan "}) {
    EXPECT_TRUE(std::isnan(Cast(Str(v), DataType::Double()).f64())) << v;
  }
}

TEST(CastTest, MalformedStringToDouble) {
  Status st = CastError(Str("abc"), DataType::Double());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "targetType"), "\"DOUBLE\"");
  EXPECT_TRUE(Cast(Str("abc"), DataType::Double(), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(Str("abc"), DataType::Double(), CastMode::kTry).is_null());
}

TEST(CastTest, StringToFloatRoundsOnce) {
  EXPECT_EQ(CastText(Str("0.1"), DataType::Float()), "0.1");
  EXPECT_EQ(CastText(Str("16777217"), DataType::Float()), "1.6777216E7");
}

TEST(CastTest, StringToDecimal) {
  EXPECT_EQ(CastText(Str(" 1.255 "), DataType::Decimal(4, 2)), "1.26");
  EXPECT_EQ(CastText(Str("1e2"), DataType::Decimal(5, 0)), "100");
  EXPECT_EQ(CastText(Str("-0.0049"), DataType::Decimal(3, 2)), "0.00");
  EXPECT_EQ(CastText(Str("000123.4500"), DataType::Decimal(10, 4)), "123.4500");
  Status bad = CastError(Str("abc"), DataType::Decimal(10, 2));
  EXPECT_EQ(bad.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(bad, "targetType"), "\"DECIMAL(10,2)\"");
  Status big = CastError(Str("1234.5"), DataType::Decimal(4, 1));
  EXPECT_EQ(big.error_class(), "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION");
  EXPECT_EQ(Param(big, "value"), "1234.5");
  EXPECT_TRUE(Cast(Str("1234.5"), DataType::Decimal(4, 1), CastMode::kLegacy).is_null());
}

TEST(CastTest, StringWithMoreThan38IntegralDigitsToDecimal) {
  Status st = CastError(Str("1e50"), DataType::Decimal(38, 0));
  EXPECT_EQ(st.error_class(), "NUMERIC_OUT_OF_SUPPORTED_RANGE");
  EXPECT_EQ(Param(st, "value"), "1e50");
}

// ---- boolean
// ------------------------------------------------------------------------------

TEST(CastTest, StringToBoolean) {
  for (const char* t : {"t", "TRUE", " yes ", "1", "Y"}) {
    EXPECT_TRUE(Cast(Str(t), DataType::Boolean()).i64()) << t;
  }
  for (const char* f : {"f", "False", "no", "0", "N "}) {
    EXPECT_FALSE(Cast(Str(f), DataType::Boolean()).i64()) << f;
  }
  Status st = CastError(Str("maybe"), DataType::Boolean());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "targetType"), "\"BOOLEAN\"");
  EXPECT_TRUE(Cast(Str("maybe"), DataType::Boolean(), CastMode::kLegacy).is_null());
}

TEST(CastTest, NumbersToBoolean) {
  EXPECT_FALSE(Cast(Value::Int(0), DataType::Boolean()).i64());
  EXPECT_TRUE(Cast(Value::Int(-2), DataType::Boolean()).i64());
  EXPECT_FALSE(Cast(Dec(0, 5, 2), DataType::Boolean()).i64());
  EXPECT_TRUE(Cast(Value::Double(std::nan("")), DataType::Boolean()).i64());
  EXPECT_EQ(CastText(Value::Boolean(true), DataType::String()), "true");
}

// ---- dates
// --------------------------------------------------------------------------------

TEST(CastTest, StringToDateForms) {
  EXPECT_EQ(CastText(Str("2024-01-15"), DataType::Date()), "2024-01-15");
  EXPECT_EQ(CastText(Str("2024"), DataType::Date()), "2024-01-01");
  EXPECT_EQ(CastText(Str("2024-3"), DataType::Date()), "2024-03-01");
  EXPECT_EQ(CastText(Str("2024-1-5"), DataType::Date()), "2024-01-05");
  EXPECT_EQ(CastText(Str(" 2024-01-15T10:00:00 "), DataType::Date()), "2024-01-15");
  EXPECT_EQ(CastText(Str("2024-01-15 anything"), DataType::Date()), "2024-01-15");
  EXPECT_EQ(Cast(Str("-0044-03-15"), DataType::Date()).i64(), -735525);
  EXPECT_EQ(CastText(Str("+12024-01-15"), DataType::Date()), "+12024-01-15");
}

// The inline fast path (yyyy-MM-dd[( |T)HH:mm:ss[.f{1,6}]]) reads what the general
// parser reads: CastStringTo* and the general parser alone give the same answer for the
// same text, and for it with a leading space (which only the general parser takes),
// valid or not.
TEST(CastTest, DateTimeFastPathMatchesGeneralParser) {
  EvalContext ctx;
  ctx.time_zone_id = "America/Los_Angeles";
  ctx.time_zone = TimeZone::Lookup(ctx.time_zone_id);
  for (const char* s : {"2024-01-15",
                        "2024-02-29",
                        "2023-02-29",
                        "2024-13-01",
                        "2024-00-10",
                        "2024-01-00",
                        "0000-01-01",
                        "9999-12-31",
                        "2024-01-15 10:11:12",
                        "2024-01-15T23:59:59",
                        "2024-01-15 24:00:00",
                        "2024-01-15 10:60:00",
                        "2024-01-15 10:00:60",
                        "2024-01-15 10:11:12.5",
                        "2024-01-15T10:11:12.123456",
                        "2024-01-15 10:11:12.",
                        "2024-01-15 10:11:12.1234567",
                        "2024-01-15 10:11",
                        "2024-01-15T10:11:12Z",
                        "2024-1x-15",
                        "2024-01-15x10:11:12"}) {
    for (const std::string& general : {std::string(s), std::string(" ") + s}) {
      int32_t d1 = 0, d2 = 0;
      bool ok1 = CastStringToDate(s, &d1), ok2 = datetime_text::ParseDate(general, &d2);
      EXPECT_EQ(ok1, ok2) << s;
      if (ok1 && ok2) EXPECT_EQ(d1, d2) << s;
      int64_t t1 = 0, t2 = 0;
      ok1 = CastStringToTimestamp(s, ctx, &t1);
      ok2 = datetime_text::ParseTimestamp(general, ctx, &t2);
      EXPECT_EQ(ok1, ok2) << s;
      if (ok1 && ok2) EXPECT_EQ(t1, t2) << s;
      ok1 = CastStringToTimestampNtz(s, &t1);
      ok2 = datetime_text::ParseTimestampNtz(general, /*allow_zone=*/true, &t2);
      EXPECT_EQ(ok1, ok2) << s;
      if (ok1 && ok2) EXPECT_EQ(t1, t2) << s;
    }
  }
}

TEST(CastTest, ParseIsoDateIsExactlyYyyyMmDd) {
  int32_t days = 0;
  ASSERT_TRUE(ParseIsoDate("2024-01-01", &days));
  EXPECT_EQ(days, 19723);
  ASSERT_TRUE(ParseIsoDate("0000-03-01", &days));
  EXPECT_EQ(days, -719468);
  // CastStringToDate reads these; the yyyy-MM-dd shape does not.
  for (const char* s : {"2024-1-05", "+2024-01-01", " 2024-01-01", "2024-01-01 ",
                        "2024-01-01T10", "12024-01-01", "2024-01"}) {
    EXPECT_FALSE(ParseIsoDate(s, &days)) << s;
  }
  EXPECT_FALSE(ParseIsoDate("2024-02-30", &days));
}

// Spark's special values (convertSpecialDate / convertSpecialTimestamp /
// convertSpecialTimestampNTZ) at a fixed instant: 2024-03-10 12:00 UTC, already
// 2024-03-11 02:00 in Pacific/Kiritimati (UTC+14).
TEST(CastTest, SpecialDatetimeValues) {
  EvalContext ctx;
  ctx.time_zone_id = "Pacific/Kiritimati";
  ctx.time_zone = TimeZone::Lookup(ctx.time_zone_id);
  const int64_t now = Utc("2024-03-10 12:00:00");
  ctx.query_start_micros = now;
  auto value = [&](std::string_view s, TypeId to) {
    std::optional<Value> v = SpecialDatetimeValue(s, to, ctx);
    return v ? v->i64() : int64_t{-1};
  };
  const int64_t day = 19793;  // 2024-03-11
  const int64_t local_midnight = day * kMicrosPerDay;
  EXPECT_EQ(value("today", TypeId::kDate), day);
  EXPECT_EQ(value("now", TypeId::kDate), day);
  EXPECT_EQ(value("tomorrow", TypeId::kDate), day + 1);
  EXPECT_EQ(value("yesterday", TypeId::kDate), day - 1);
  EXPECT_EQ(value("epoch", TypeId::kDate), 0);
  EXPECT_EQ(value("now", TypeId::kTimestamp), now);
  EXPECT_EQ(value("today", TypeId::kTimestamp),
            local_midnight - 14 * 3600 * kMicrosPerSecond);
  EXPECT_EQ(value("tomorrow", TypeId::kTimestamp),
            local_midnight + 10 * 3600 * kMicrosPerSecond);
  EXPECT_EQ(value("epoch", TypeId::kTimestamp), 0);
  EXPECT_EQ(value("now", TypeId::kTimestampNtz), now + 14 * 3600 * kMicrosPerSecond);
  EXPECT_EQ(value("today", TypeId::kTimestampNtz), local_midnight);
  EXPECT_EQ(value("yesterday", TypeId::kTimestampNtz), local_midnight - kMicrosPerDay);
  EXPECT_EQ(value("epoch", TypeId::kTimestampNtz), 0);
  EXPECT_EQ(SpecialDatetimeValue("today", TypeId::kDate, ctx)->type()->id(),
            TypeId::kDate);
  EXPECT_FALSE(SpecialDatetimeValue("today", TypeId::kString, ctx));

  // Any case; characters up to ' ' around (String.trim, so not DEL); a zone after spaces
  // or tabs (or a sign right after the word) that must be valid (case-sensitive) and is
  // ignored; none after 'now'.
  for (const char* s :
       {" ToDay\t", "\x01TODAY\n", "today UTC", "today\t \tEurope/Paris", "today+01:00",
        "today +1:00", "today GMT+1", "today EST", "today Z", "today  UTC "}) {
    EXPECT_EQ(value(s, TypeId::kDate), day) << s;
  }
  for (const char* s : {"", "to", "tod", "today\x7f", "today utc", "today est",
                        "today europe/paris", "today -25:00", "now UTC", "now +01:00",
                        "todayUTC", "today1", "today.", "today junk", "today \x01UTC",
                        "today\xc2\xa0UTC", "\xc3\xa9poch", "1epoch", "noon"}) {
    EXPECT_FALSE(SpecialDatetimeValue(s, TypeId::kDate, ctx)) << s;
    EXPECT_FALSE(SpecialDatetimeValue(s, TypeId::kTimestamp, ctx)) << s;
  }
  // Without the query's instant, 'now' is the clock's.
  ctx.query_start_micros = 0;
  EXPECT_GT(value("now", TypeId::kTimestamp), now);
}

// A CAST of a constant string reads the special values (Spark's SpecialDatetimeValues
// rule), in any mode; a CAST of a column does not.
TEST(CastTest, CastOfConstantStringReadsSpecialValues) {
  EvalContext ctx = Ctx(true);
  ctx.query_start_micros = Utc("2024-03-10 12:00:00");
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{Field{"s", DataType::String()}});
  Batch batch(schema,
              {ColumnFromValues(DataType::String(), {Str("epoch"), Str("today")})}, 2);
  Result<BoundExprPtr> constant = MakeCast(MakeLiteral(Str(" Today ")), DataType::Date());
  ASSERT_TRUE(constant.ok());
  Result<ColumnPtr> days = (*constant)->Evaluate(batch, ctx);
  ASSERT_TRUE(days.ok()) << days.status().ToString();
  ASSERT_EQ((*days)->length(), 2);
  EXPECT_EQ(Text((*days)->GetValue(1)), "2024-03-10");
  Result<BoundExprPtr> tried =
      MakeCast(MakeLiteral(Str("epoch")), DataType::Timestamp(), /*is_try=*/true);
  ASSERT_TRUE(tried.ok());
  Result<ColumnPtr> epoch = (*tried)->Evaluate(batch, ctx);
  ASSERT_TRUE(epoch.ok());
  EXPECT_EQ((*epoch)->GetValue(0).i64(), 0);

  BoundExprPtr ref = MakeColumnRef(0, DataType::String(), true, "s#0");
  Result<BoundExprPtr> column = MakeCast(ref, DataType::Date());
  ASSERT_TRUE(column.ok());
  ASSERT_ERROR_CLASS((*column)->Evaluate(batch, ctx), "CAST_INVALID_INPUT");
  Result<BoundExprPtr> try_column = MakeCast(ref, DataType::Date(), /*is_try=*/true);
  ASSERT_TRUE(try_column.ok());
  Result<ColumnPtr> nulls = (*try_column)->Evaluate(batch, ctx);
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ((*nulls)->null_count(), 2);
}

// A time-only timestamp string is on today's date of the session zone at the query's
// instant (LocalDate.now(zone)).
TEST(CastTest, TimeOnlyTimestampTakesTheQueryDate) {
  EvalContext ctx = Ctx(true);
  ctx.query_start_micros = Utc("2020-06-01 23:00:00");
  int64_t micros = 0;
  ASSERT_TRUE(CastStringToTimestamp("10:30", ctx, &micros));
  EXPECT_EQ(micros, Utc("2020-06-01 10:30:00"));
  ASSERT_TRUE(CastStringToTimestamp("T10:30:00", ctx, &micros));
  EXPECT_EQ(micros, Utc("2020-06-01 10:30:00"));
}

TEST(CastTest, TimestampNtzTextWithZone) {
  // CAST and the TIMESTAMP_NTZ literal ignore a valid zone; the JSON and CSV readers
  // (allow_zone false) refuse it. An invalid zone is refused either way.
  int64_t micros = 0;
  ASSERT_TRUE(CastStringToTimestampNtz("2024-01-01 10:00:00+01:00", &micros));
  EXPECT_EQ(micros, Cast(Str("2024-01-01 10:00:00"), DataType::TimestampNtz()).i64());
  EXPECT_TRUE(CastStringToTimestampNtz("2024-01-01T10:00:00 Europe/Paris", &micros));
  EXPECT_FALSE(CastStringToTimestampNtz("2024-01-01 10:00:00 junk", &micros));
  for (const char* s :
       {"2024-01-01T10:00:00Z", "2024-01-01 10:00:00+01:00", "2024-01-01 10:00:00 UTC"}) {
    EXPECT_FALSE(CastStringToTimestampNtz(s, &micros, /*allow_zone=*/false)) << s;
  }
  EXPECT_TRUE(CastStringToTimestampNtz("2024-01-01T10:00:00", &micros, false));
  EXPECT_TRUE(CastStringToTimestampNtz(" 2024-01-01 ", &micros, false));
}

TEST(CastTest, ParseBigDecimalForms) {
  DecimalText d;
  ASSERT_TRUE(ParseBigDecimal("-012.500", &d));
  EXPECT_TRUE(d.negative);
  EXPECT_EQ(d.digits, "12500");
  EXPECT_EQ(d.exponent, -3);
  ASSERT_TRUE(ParseBigDecimal("1.5E+3", &d));
  EXPECT_EQ(d.digits, "15");
  EXPECT_EQ(d.exponent, 2);
  ASSERT_TRUE(ParseBigDecimal("0.00", &d));
  EXPECT_EQ(d.digits, "0");
  EXPECT_EQ(d.exponent, -2);
  ASSERT_TRUE(ParseBigDecimal(".5", &d));
  EXPECT_EQ(d.exponent, -1);
  ASSERT_TRUE(ParseBigDecimal("5.", &d));
  EXPECT_EQ(d.exponent, 0);
  for (const char* s : {"", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "1x", "1e5x",
                        "--1", "1E2000000000"}) {
    EXPECT_FALSE(ParseBigDecimal(s, &d)) << s;
  }
}

TEST(CastTest, SparkCastSuiteDateStrings) {
  // CastSuiteBase "cast string to date".
  EXPECT_EQ(CastText(Str("12345"), DataType::Date()), "+12345-01-01");
  EXPECT_EQ(CastText(Str("12345-12-18"), DataType::Date()), "+12345-12-18");
  for (const char* s :
       {"2015-03-18 ", "2015-03-18 123142", "2015-03-18T123123", "2015-03-18T"}) {
    EXPECT_EQ(CastText(Str(s), DataType::Date()), "2015-03-18") << s;
  }
}

TEST(CastTest, InvalidDateStrings) {
  // The last ones overflow 64 bits if digits were accumulated unchecked (csv_fuzzer).
  for (const char* s :
       {"2024-02-30", "24-01-01", "2024-01x", "2024-13-01", "", "2024-01 10",
        "10444444444444444444", "2024-444444444444444444444-01",
        "-99999999999999999999999-1-1"}) {
    EXPECT_TRUE(Cast(Str(s), DataType::Date(), CastMode::kLegacy).is_null()) << s;
  }
  EXPECT_EQ(CastText(Str("2024-02-29"), DataType::Date()), "2024-02-29");
  Status st = CastError(Str("2024-02-30"), DataType::Date());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "targetType"), "\"DATE\"");
  EXPECT_TRUE(Cast(Str("2024-02-30"), DataType::Date(), CastMode::kTry).is_null());
}

TEST(CastTest, DateToStringAndTimestamp) {
  Value d = Cast(Str("2024-01-01"), DataType::Date());
  EXPECT_EQ(CastText(d, DataType::String()), "2024-01-01");
  EXPECT_EQ(CastText(d, DataType::Timestamp()), "2024-01-01 00:00:00");
  EXPECT_EQ(Cast(d, DataType::TimestampNtz()).i64(), d.i64() * kMicrosPerDay);
}

TEST(CastTest, DateToNumericIsNullInLegacyOnly) {
  Value d = Cast(Str("2024-01-01"), DataType::Date());
  EXPECT_TRUE(Cast(d, DataType::Int(), CastMode::kLegacy).is_null());
  EXPECT_TRUE(Cast(d, DataType::Boolean(), CastMode::kLegacy).is_null());
  EXPECT_FALSE(CanCast(*DataType::Date(), *DataType::Int(), CastMode::kAnsi));
}

// ---- timestamps
// ---------------------------------------------------------------------------

TEST(CastTest, StringToTimestamp) {
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00"), DataType::Timestamp()),
            "2024-01-15 10:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15T10:30"), DataType::Timestamp()),
            "2024-01-15 10:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15"), DataType::Timestamp()), "2024-01-15 00:00:00");
  EXPECT_EQ(CastText(Str("2024"), DataType::Timestamp()), "2024-01-01 00:00:00");
  EXPECT_EQ(Cast(Str("1970-01-01 00:00:01"), DataType::Timestamp()).i64(),
            kMicrosPerSecond);
}

TEST(CastTest, StringToTimestampFractionIsTruncatedToMicros) {
  EXPECT_EQ(CastText(Str("2024-01-15T10:30:00.123456789"), DataType::Timestamp()),
            "2024-01-15 10:30:00.123456");
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00.5"), DataType::Timestamp()),
            "2024-01-15 10:30:00.5");
}

TEST(CastTest, StringToTimestampWithZoneSuffix) {
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00Z"), DataType::Timestamp()),
            "2024-01-15 10:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00+08:00"), DataType::Timestamp()),
            "2024-01-15 02:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00.25-05:30"), DataType::Timestamp()),
            "2024-01-15 16:00:00.25");
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00 UTC"), DataType::Timestamp()),
            "2024-01-15 10:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15 10:30:00 GMT+1"), DataType::Timestamp()),
            "2024-01-15 09:30:00");
  EXPECT_EQ(CastText(Str("2024-01-15T10:30:00+8:00"), DataType::Timestamp()),
            "2024-01-15 02:30:00");  // pre-3.0 (+|-)h:mm form
  EXPECT_TRUE(Cast(Str("2024-01-15 10:30:00 Nowhere/City"), DataType::Timestamp(),
                   CastMode::kLegacy)
                  .is_null());
}

// Found by csv_fuzzer once compute was instrumented: a segment of many digits overflowed
// the accumulator (undefined behaviour) before its length was checked. Such strings are
// simply not timestamps.
TEST(CastTest, StringToTimestampWithHugeSegmentIsInvalid) {
  for (const char* s :
       {"26666666666666666666666666", "2024-01-15 1066666666666666666666:30",
        "2024-01-15 10:30:00+0666666666666666666666"}) {
    EXPECT_EQ(CastText(Str(s), DataType::Timestamp(), CastMode::kTry), "NULL") << s;
    EXPECT_EQ(CastText(Str(s), DataType::TimestampNtz(), CastMode::kTry), "NULL") << s;
  }
}

TEST(CastTest, SparkCastSuiteTimestampStrings) {
  // CastSuiteBase "cast string to timestamp": offsets in the string win, including the
  // pre-3.0 one-digit forms.
  int64_t utc = Utc("2015-03-18 12:03:17");
  EXPECT_EQ(Cast(Str("2015-03-18T12:03:17Z"), DataType::Timestamp()).i64(), utc);
  EXPECT_EQ(Cast(Str("2015-03-18T12:03:17-1:0"), DataType::Timestamp()).i64(),
            utc + 3600 * kMicrosPerSecond);
  EXPECT_EQ(Cast(Str("2015-03-18T12:03:17-01:00"), DataType::Timestamp()).i64(),
            utc + 3600 * kMicrosPerSecond);
  EXPECT_EQ(Cast(Str("2015-03-18T12:03:17+7:3"), DataType::Timestamp()).i64(),
            utc - (7 * 3600 + 3 * 60) * kMicrosPerSecond);
  EXPECT_EQ(Cast(Str("2015-03-18T12:03:17.123+07:30"), DataType::Timestamp()).i64(),
            utc - (7 * 3600 + 30 * 60) * kMicrosPerSecond + 123'000);
}

TEST(CastTest, SparkCastSuiteTimestampToNumbers) {
  // CastSuiteBase "cast from timestamp": 15.003 seconds.
  Value ts = Value::Timestamp(15'003'000);
  EXPECT_EQ(Cast(ts, DataType::Short()).i64(), 15);
  EXPECT_EQ(Cast(ts, DataType::Long()).i64(), 15);
  EXPECT_EQ(static_cast<float>(Cast(ts, DataType::Float()).f64()), 15.003f);
  EXPECT_EQ(Cast(ts, DataType::Double()).f64(), 15.003);
  EXPECT_EQ(Cast(Cast(Value::Double(0.000001), DataType::Timestamp()), DataType::Double())
                .f64(),
            0.000001);
  EXPECT_EQ(
      CastText(Cast(Dec(1, 38, 0), DataType::Timestamp()), DataType::Decimal(38, 18)),
      "1.000000000000000000");
}

TEST(CastTest, InvalidTimestampStrings) {
  for (const char* s : {"2024-01-15 25:00:00", "2024-06-15 23:59:60", "2024-01-15T",
                        "2024-01-15 10:30Z", "abc", "2024-02-30 00:00:00"}) {
    EXPECT_TRUE(Cast(Str(s), DataType::Timestamp(), CastMode::kLegacy).is_null()) << s;
  }
  Status st = CastError(Str("abc"), DataType::Timestamp());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "targetType"), "\"TIMESTAMP\"");
}

TEST(CastTest, TimestampToDateAndNumbers) {
  Value ts = Cast(Str("2024-01-15 10:30:00.5"), DataType::Timestamp());
  EXPECT_EQ(CastText(ts, DataType::Date()), "2024-01-15");
  EXPECT_EQ(Cast(ts, DataType::Long()).i64(), 1705314600);
  EXPECT_EQ(Cast(ts, DataType::Double()).f64(), 1705314600.5);
  // Floor, not truncation: one microsecond before the epoch is second -1.
  EXPECT_EQ(Cast(Value::Timestamp(-1), DataType::Long()).i64(), -1);
  EXPECT_EQ(Cast(Value::Timestamp(-1), DataType::Double()).f64(), -1e-6);
}

TEST(CastTest, TimestampToIntOverflow) {
  Value ts = Cast(Str("9999-01-01"), DataType::Timestamp());
  Status st = CastError(ts, DataType::Int());
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "TIMESTAMP '9999-01-01 00:00:00'");
  EXPECT_EQ(Param(st, "sourceType"), "\"TIMESTAMP\"");
  EXPECT_TRUE(Cast(ts, DataType::Int(), CastMode::kLegacy).is_null());
}

TEST(CastTest, NumbersToTimestampAreSeconds) {
  EXPECT_EQ(CastText(Value::Int(1), DataType::Timestamp()), "1970-01-01 00:00:01");
  EXPECT_EQ(CastText(Value::Double(1.5), DataType::Timestamp()), "1970-01-01 00:00:01.5");
  EXPECT_EQ(CastText(Dec(-15, 2, 1), DataType::Timestamp()), "1969-12-31 23:59:58.5");
  EXPECT_EQ(
      Cast(Value::Long(std::numeric_limits<int64_t>::max()), DataType::Timestamp()).i64(),
      std::numeric_limits<int64_t>::max());  // SECONDS.toMicros saturates
}

TEST(CastTest, DoubleNaNToTimestamp) {
  EXPECT_TRUE(Cast(Value::Double(std::nan("")), DataType::Timestamp(), CastMode::kLegacy)
                  .is_null());
  Status st = CastError(Value::Double(std::nan("")), DataType::Timestamp());
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "expression"), "NaN");
  EXPECT_EQ(Param(st, "sourceType"), "\"DOUBLE\"");
  EXPECT_EQ(Param(st, "targetType"), "\"TIMESTAMP\"");
}

TEST(CastTest, BooleanAndTimestampAreLegacyOnly) {
  EXPECT_EQ(Cast(Value::Boolean(true), DataType::Timestamp(), CastMode::kLegacy).i64(),
            1);
  EXPECT_TRUE(Cast(Value::Timestamp(5), DataType::Boolean(), CastMode::kLegacy).i64());
  EXPECT_FALSE(CanCast(*DataType::Boolean(), *DataType::Timestamp(), CastMode::kAnsi));
  EXPECT_FALSE(CanCast(*DataType::Timestamp(), *DataType::Boolean(), CastMode::kAnsi));
}

TEST(CastTest, TimestampNtz) {
  Value ntz = Cast(Str("2024-01-15 10:30:00+08:00"), DataType::TimestampNtz());
  EXPECT_EQ(CastText(ntz, DataType::String()), "2024-01-15 10:30:00");  // zone is ignored
  EXPECT_TRUE(
      Cast(Str("10:30:00"), DataType::TimestampNtz(), CastMode::kLegacy).is_null());
  EXPECT_EQ(CastText(ntz, DataType::Date()), "2024-01-15");
  // In UTC, wall clock and instant coincide.
  EXPECT_EQ(Cast(ntz, DataType::Timestamp()).i64(), ntz.i64());
  Value ts = Cast(Str("2024-01-15 10:30:00"), DataType::Timestamp());
  EXPECT_EQ(Cast(ts, DataType::TimestampNtz()).i64(), ts.i64());
}

// ---- session time zone
// --------------------------------------------------------------------

// Casts in ANSI mode with spark.sql.session.timeZone = `zone`.
Value CastIn(const char* zone, const Value& v, const DataTypePtr& to) {
  Result<TimeZone> tz = TimeZone::Find(zone);
  EXPECT_TRUE(tz.ok()) << tz.status().ToString();
  EvalContext ctx = Ctx();
  ctx.time_zone = &*tz;
  ctx.time_zone_id = zone;
  Result<Value> r = CastValue(v, to, CastMode::kAnsi, ctx);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Value();
}

TEST(CastTest, TimestampTextUsesTheSessionZone) {
  const char* la = "America/Los_Angeles";
  Value ts = Value::Timestamp(Utc("2024-01-15 10:30:00"));
  EXPECT_EQ(CastIn(la, ts, DataType::String()).str(), "2024-01-15 02:30:00");
  EXPECT_EQ(CastIn(la, Str("2024-01-15 02:30:00"), DataType::Timestamp()).i64(),
            ts.i64());
  // Date-only strings are midnight in the session zone.
  EXPECT_EQ(CastIn(la, Str("2024-01-15"), DataType::Timestamp()).i64(),
            Utc("2024-01-15 08:00:00"));
  // An explicit zone wins over the session zone.
  EXPECT_EQ(CastIn(la, Str("2024-01-15 10:30:00Z"), DataType::Timestamp()).i64(),
            ts.i64());
  EXPECT_EQ(
      CastIn(la, Str("2024-07-01 12:00:00 Europe/Paris"), DataType::Timestamp()).i64(),
      Utc("2024-07-01 10:00:00"));
  EXPECT_EQ(CastIn("UTC", Str("2024-01-15 10:30:00 PST"), DataType::Timestamp()).i64(),
            Utc("2024-01-15 18:30:00"));
}

TEST(CastTest, DaylightSavingGapMovesForward) {
  // 02:30 does not exist on 2024-03-10 in Los Angeles: java.time gives 03:30 PDT.
  EXPECT_EQ(
      CastIn("America/Los_Angeles", Str("2024-03-10 02:30:00"), DataType::Timestamp())
          .i64(),
      Utc("2024-03-10 10:30:00"));
  EXPECT_EQ(CastIn("America/Los_Angeles", Value::Timestamp(Utc("2024-07-01 12:00:00")),
                   DataType::String())
                .str(),
            "2024-07-01 05:00:00");
}

TEST(CastTest, DatesAndTimestampsConvertInTheSessionZone) {
  const char* la = "America/Los_Angeles";
  Value early = Value::Timestamp(Utc("2024-01-15 05:00:00"));
  EXPECT_EQ(Text(CastIn(la, early, DataType::Date())), "2024-01-14");
  Value d = Cast(Str("2024-01-15"), DataType::Date());
  EXPECT_EQ(CastIn(la, d, DataType::Timestamp()).i64(), Utc("2024-01-15 08:00:00"));
  EXPECT_EQ(CastIn("Asia/Kolkata", d, DataType::Timestamp()).i64(),
            Utc("2024-01-14 18:30:00"));
}

TEST(CastTest, TimestampNtzConvertsThroughTheSessionZone) {
  const char* la = "America/Los_Angeles";
  Value ntz = Cast(Str("2024-01-15 02:30:00"), DataType::TimestampNtz());
  Value ts = CastIn(la, ntz, DataType::Timestamp());
  EXPECT_EQ(ts.i64(), Utc("2024-01-15 10:30:00"));
  EXPECT_EQ(CastIn(la, ts, DataType::TimestampNtz()).i64(), ntz.i64());
  // timestamp_ntz text never depends on the zone.
  EXPECT_EQ(CastIn(la, ntz, DataType::String()).str(), "2024-01-15 02:30:00");
}

TEST(CastTest, NestedTimestampsUseTheSessionZone) {
  Value arr =
      Value::Array(DataType::Timestamp(), {Value::Timestamp(Utc("2024-01-15 10:30:00"))});
  EXPECT_EQ(CastIn("+08:00", arr, DataType::String()).str(), "[2024-01-15 18:30:00]");
}

// ---- to string
// ----------------------------------------------------------------------------

TEST(CastTest, FloatingToStringAsJava) {
  EXPECT_EQ(CastText(Value::Double(0.1), DataType::String()), "0.1");
  EXPECT_EQ(CastText(Value::Double(1e10), DataType::String()), "1.0E10");
  EXPECT_EQ(CastText(Value::Double(1.0), DataType::String()), "1.0");
  EXPECT_EQ(CastText(Value::Double(1e-4), DataType::String()), "1.0E-4");
  EXPECT_EQ(CastText(Value::Double(-0.0), DataType::String()), "-0.0");
  EXPECT_EQ(CastText(Value::Float(1.1f), DataType::String()), "1.1");
  EXPECT_EQ(CastText(Value::Double(std::nan("")), DataType::String()), "NaN");
}

TEST(CastTest, DecimalToStringPlainInAnsiScientificInLegacy) {
  EXPECT_EQ(CastText(Dec(1, 10, 9), DataType::String()), "0.000000001");
  EXPECT_EQ(CastText(Dec(1, 10, 9), DataType::String(), CastMode::kLegacy), "1E-9");
  EXPECT_EQ(CastText(Dec(0, 10, 8), DataType::String(), CastMode::kLegacy), "0E-8");
  EXPECT_EQ(CastText(Dec(12345, 10, 3), DataType::String(), CastMode::kLegacy), "12.345");
  EXPECT_EQ(CastText(Dec(-5, 3, 2), DataType::String()), "-0.05");
}

TEST(CastTest, IntegralToString) {
  EXPECT_EQ(
      CastText(Value::Long(std::numeric_limits<int64_t>::min()), DataType::String()),
      "-9223372036854775808");
  EXPECT_EQ(CastText(Value::Byte(-1), DataType::String()), "-1");
}

TEST(CastTest, BinaryAndStringConvertAsUtf8Bytes) {
  EXPECT_EQ(Cast(Value::Binary("héllo"), DataType::String()).str(), "héllo");
  Value b = Cast(Str("abc"), DataType::Binary());
  EXPECT_EQ(b.type()->id(), TypeId::kBinary);
  EXPECT_EQ(b.str(), "abc");
}

TEST(CastTest, IntegralToBinaryIsBigEndian) {
  EXPECT_EQ(Cast(Value::Int(1), DataType::Binary(), CastMode::kLegacy).str(),
            std::string("\0\0\0\1", 4));
  EXPECT_EQ(Cast(Value::Short(-2), DataType::Binary(), CastMode::kLegacy).str(),
            "\xff\xfe");
  EXPECT_FALSE(CanCast(*DataType::Int(), *DataType::Binary(), CastMode::kAnsi));
}

TEST(CastTest, ArrayToStringPrintsLowercaseNull) {
  Value arr =
      Value::Array(DataType::Int(), {Value::Int(1), Value::Null(DataType::Int())});
  EXPECT_EQ(CastText(arr, DataType::String()), "[1, null]");
  EXPECT_EQ(CastText(Value::Array(DataType::Int(), {}), DataType::String()), "[]");
  Value nested = Value::Array(DataType::Array(DataType::String()),
                              {Value::Array(DataType::String(), {Str("a"), Str("b")}),
                               Value::Null(DataType::Array(DataType::String()))});
  EXPECT_EQ(CastText(nested, DataType::String()), "[[a, b], null]");
}

TEST(CastTest, SparkCastSuiteArraysToString) {
  // SPARK-22825 / SPARK-33291.
  Value strs = Value::Array(DataType::String(),
                            {Str("ab"), Value::Null(DataType::String()), Str("c")});
  EXPECT_EQ(CastText(strs, DataType::String()), "[ab, null, c]");
  Value nulls = Value::Array(
      DataType::Int(), {Value::Null(DataType::Int()), Value::Null(DataType::Int())});
  EXPECT_EQ(CastText(nulls, DataType::String()), "[null, null]");
  auto inner = DataType::Array(DataType::Int());
  Value nested =
      Value::Array(inner, {Value::Array(DataType::Int(), {Value::Int(1), Value::Int(2)}),
                           Value::Array(DataType::Int(), {Value::Int(4)})});
  EXPECT_EQ(CastText(nested, DataType::String()), "[[1, 2], [4]]");
}

TEST(CastTest, StructAndMapToString) {
  auto st_type =
      DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::String()}});
  EXPECT_EQ(
      CastText(Value::Struct(st_type, {Value::Int(1), Str("a")}), DataType::String()),
      "{1, a}");
  EXPECT_EQ(CastText(Value::Struct(st_type, {Value::Null(DataType::Int()), Str("a")}),
                     DataType::String()),
            "{null, a}");
  auto map_type = DataType::Map(DataType::String(), DataType::Int());
  Value m = Value::Map(map_type, {Str("a"), Str("b")},
                       {Value::Int(1), Value::Null(DataType::Int())});
  EXPECT_EQ(CastText(m, DataType::String()), "{a -> 1, b -> null}");
}

TEST(CastTest, NestedElementsUseCastToStringRules) {
  Value arr = Value::Array(DataType::Binary(), {Value::Binary("hi")});
  EXPECT_EQ(CastText(arr, DataType::String()), "[hi]");  // bytes, not hex
  Value ts = Value::Array(DataType::Timestamp(), {Value::Timestamp(1'500'000)});
  EXPECT_EQ(CastText(ts, DataType::String()), "[1970-01-01 00:00:01.5]");
}

// ---- intervals
// ----------------------------------------------------------------------------

TEST(CastTest, DayTimeIntervalToString) {
  int64_t micros = kMicrosPerDay + 2 * 3600 * kMicrosPerSecond +
                   3 * 60 * kMicrosPerSecond + 4 * kMicrosPerSecond;
  EXPECT_EQ(CastText(DayTime(micros), DataType::String()),
            "INTERVAL '1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(
      CastText(Value::FromI64(DataType::YearMonthInterval(), 14), DataType::String()),
      "INTERVAL '1-2' YEAR TO MONTH");
}

TEST(CastTest, StringToDayTimeInterval) {
  auto dts = DataType::DayTimeInterval();
  EXPECT_EQ(CastText(Str("1 02:03:04.5"), dts), "INTERVAL '1 02:03:04.5' DAY TO SECOND");
  EXPECT_EQ(CastText(Str("-2 10:00:00.5"), dts),
            "INTERVAL '-2 10:00:00.5' DAY TO SECOND");
  EXPECT_EQ(CastText(Str("INTERVAL '1 02:03:04' DAY TO SECOND"), dts),
            "INTERVAL '1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(CastText(Str("interval -'1 02:03:04' day to second"), dts),
            "INTERVAL '-1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(CastText(Str("1 02:03:04.123456789"), dts),
            "INTERVAL '1 02:03:04.123456' DAY TO SECOND");
  auto day = DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kDay);
  EXPECT_EQ(CastText(Str("-10"), day), "INTERVAL '-10' DAY");
  EXPECT_EQ(CastText(Str("INTERVAL '3' DAY"), day), "INTERVAL '3' DAY");
  auto sec = DataType::DayTimeInterval(IntervalField::kSecond, IntervalField::kSecond);
  EXPECT_EQ(CastText(Str("1.5"), sec), "INTERVAL '01.5' SECOND");
  EXPECT_EQ(Cast(Str("-1.5"), sec).i64(), -1'500'000);
  // IntervalUtils.parseSecondNano negates the fraction only for negative whole seconds.
  EXPECT_EQ(Cast(Str("-0.5"), sec).i64(), 500'000);
}

TEST(CastTest, MalformedDayTimeIntervalFailsInEveryModeButTry) {
  auto dts = DataType::DayTimeInterval();
  for (CastMode mode : {CastMode::kAnsi, CastMode::kLegacy}) {
    Status st = CastError(Str("abc"), dts, mode);
    EXPECT_EQ(st.error_class(),
              "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE");
    EXPECT_EQ(Param(st, "intervalStr"), "day-time");
    EXPECT_EQ(Param(st, "typeName"), "interval day to second");
    EXPECT_EQ(Param(st, "supportedFormat"),
              "`[+|-]d h:m:s.n`, `INTERVAL [+|-]'[+|-]d h:m:s.n' DAY TO SECOND`");
  }
  EXPECT_TRUE(Cast(Str("abc"), dts, CastMode::kTry).is_null());
  auto day = DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kDay);
  EXPECT_EQ(CastError(Str("1.23"), day).error_class(),
            "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE");
  EXPECT_EQ(CastError(Str("1 25:00:00"), dts).error_class(),
            "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING");
}

TEST(CastTest, StringToYearMonthInterval) {
  auto ym = DataType::YearMonthInterval();
  EXPECT_EQ(Cast(Str("1-2"), ym).i64(), 14);
  EXPECT_EQ(Cast(Str("INTERVAL '-1-2' YEAR TO MONTH"), ym).i64(), -14);
  EXPECT_EQ(Cast(Str("interval -'-1-2' year to month"), ym).i64(), 14);
  EXPECT_EQ(CastError(Str("-INTERVAL '1-2' YEAR TO MONTH"), ym).error_class(),
            "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING");
  auto year = DataType::YearMonthInterval(IntervalField::kYear, IntervalField::kYear);
  EXPECT_EQ(Cast(Str("5"), year).i64(), 60);
  Status st = CastError(Str("1-12"), ym);
  EXPECT_EQ(st.error_class(), "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING");
  Status bad = CastError(Str("x"), ym, CastMode::kLegacy);
  EXPECT_EQ(bad.error_class(), "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING");
  EXPECT_EQ(Param(bad, "supportedFormat"),
            "`[+|-]y-m`, `INTERVAL [+|-]'[+|-]y-m' YEAR TO MONTH`");
}

TEST(CastTest, IntervalsToNumbersUseTheEndField) {
  // 1 day 12 hours as DAY TO SECOND is 129600 seconds; as DAY TO HOUR, 36 hours.
  int64_t micros = kMicrosPerDay + 12 * 3600 * kMicrosPerSecond;
  EXPECT_EQ(Cast(DayTime(micros), DataType::Long()).i64(), 129600);
  EXPECT_EQ(
      Cast(DayTime(micros, IntervalField::kDay, IntervalField::kHour), DataType::Int())
          .i64(),
      36);
  EXPECT_EQ(
      Cast(DayTime(-micros, IntervalField::kDay, IntervalField::kDay), DataType::Int())
          .i64(),
      -1);
  EXPECT_EQ(
      Cast(Value::FromI64(DataType::YearMonthInterval(), 14), DataType::Int()).i64(), 14);
  EXPECT_EQ(Cast(Value::FromI64(DataType::YearMonthInterval(IntervalField::kYear,
                                                            IntervalField::kYear),
                                24),
                 DataType::Short())
                .i64(),
            2);
  EXPECT_EQ(CastText(DayTime(1'500'000), DataType::Decimal(10, 6)), "1.500000");
  // Overflow fails in every mode.
  Status st =
      CastError(DayTime(1000 * kMicrosPerSecond), DataType::Byte(), CastMode::kLegacy);
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "INTERVAL '0 00:16:40' DAY TO SECOND");
}

TEST(CastTest, NumbersToIntervalsUseTheEndField) {
  auto day = DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kDay);
  EXPECT_EQ(CastText(Value::Int(5), day), "INTERVAL '5' DAY");
  auto hour = DataType::DayTimeInterval(IntervalField::kHour, IntervalField::kHour);
  EXPECT_EQ(Cast(Value::Long(2), hour).i64(), 2 * 3600 * kMicrosPerSecond);
  auto month = DataType::YearMonthInterval(IntervalField::kMonth, IntervalField::kMonth);
  EXPECT_EQ(CastText(Value::Int(14), month), "INTERVAL '14' MONTH");
  Status st =
      CastError(Value::Long(std::numeric_limits<int64_t>::max()), day, CastMode::kLegacy);
  EXPECT_EQ(st.error_class(), "CAST_OVERFLOW");
  EXPECT_EQ(Param(st, "value"), "9223372036854775807L");
  EXPECT_EQ(Param(st, "targetType"), "\"INTERVAL DAY\"");
  auto sec = DataType::DayTimeInterval(IntervalField::kSecond, IntervalField::kSecond);
  EXPECT_EQ(Cast(Dec(15, 2, 1), sec).i64(), 1'500'000);
  EXPECT_EQ(Cast(Dec(15, 2, 1), month).i64(), 2);  // HALF_UP
}

TEST(CastTest, IntervalToNarrowerIntervalTruncates) {
  int64_t micros =
      kMicrosPerDay + 2 * 3600 * kMicrosPerSecond + 3 * 60 * kMicrosPerSecond;
  auto day_hour = DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kHour);
  EXPECT_EQ(CastText(DayTime(micros), day_hour), "INTERVAL '1 02' DAY TO HOUR");
  auto year = DataType::YearMonthInterval(IntervalField::kYear, IntervalField::kYear);
  EXPECT_EQ(Cast(Value::FromI64(DataType::YearMonthInterval(), -14), year).i64(), -12);
}

// ---- nested casts
// -------------------------------------------------------------------------

TEST(CastTest, ArrayElementsAreCastOneByOne) {
  Value arr = Value::Array(DataType::String(),
                           {Str("1"), Str("x"), Value::Null(DataType::String())});
  Value out = Cast(arr, DataType::Array(DataType::Int()), CastMode::kLegacy);
  EXPECT_EQ(Text(out), "[1, null, null]");
  Status st = CastError(arr, DataType::Array(DataType::Int()));
  EXPECT_EQ(st.error_class(), "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(st, "expression"), "'x'");
}

TEST(CastTest, StructAndMapCasts) {
  auto from =
      DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::String()}});
  auto to =
      DataType::Struct({Field{"x", DataType::Long()}, Field{"y", DataType::Double()}});
  Value out = Cast(Value::Struct(from, {Value::Int(1), Str("2.5")}), to);
  EXPECT_EQ(out.type()->SimpleString(), "struct<x:bigint,y:double>");
  EXPECT_EQ(Text(out), "{1, 2.5}");
  auto map_from = DataType::Map(DataType::String(), DataType::Int());
  auto map_to = DataType::Map(DataType::String(), DataType::Decimal(5, 1));
  Value m = Value::Map(map_from, {Str("a")}, {Value::Int(7)});
  EXPECT_EQ(Text(Cast(m, map_to)), "{a -> 7.0}");
}

TEST(CastTest, NestedNullabilityRules) {
  // array<string> -> array<int not null> may produce NULL elements: rejected.
  auto to = DataType::Array(DataType::Int(), /*contains_null=*/false);
  EXPECT_FALSE(
      CanCast(*DataType::Array(DataType::String(), false), *to, CastMode::kLegacy));
  EXPECT_TRUE(CanCast(*DataType::Array(DataType::Int(), false),
                      *DataType::Array(DataType::Long(), false), CastMode::kAnsi));
  EXPECT_FALSE(CanCast(*DataType::Array(DataType::Int(), true), *to, CastMode::kAnsi));
  // Struct field counts must match.
  auto one = DataType::Struct({Field{"a", DataType::Int()}});
  auto two = DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::Int()}});
  EXPECT_FALSE(CanCast(*one, *two, CastMode::kLegacy));
}

TEST(CastTest, NullTypeCastsToAnything) {
  EXPECT_TRUE(Cast(Value(), DataType::Int()).is_null());
  EXPECT_EQ(Cast(Value(), DataType::Array(DataType::Int())).type()->id(), TypeId::kArray);
  EXPECT_TRUE(CanCast(*DataType::Null(), *DataType::Date(), CastMode::kAnsi));
}

// ---- which casts are allowed
// --------------------------------------------------------------

TEST(CastTest, DateToIntSuggestsUnixDate) {
  Status st =
      CheckCast(*DataType::Date(), *DataType::Int(), CastMode::kAnsi, "CAST(d AS INT)");
  EXPECT_EQ(st.error_class(), "DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION");
  EXPECT_EQ(Param(st, "functionNames"), "`UNIX_DATE`");
  EXPECT_EQ(Param(st, "sqlExpr"), "\"CAST(d AS INT)\"");
  EXPECT_EQ(Param(st, "srcType"), "\"DATE\"");
  EXPECT_EQ(Param(st, "targetType"), "\"INT\"");
  EXPECT_TRUE(
      CheckCast(*DataType::Date(), *DataType::Int(), CastMode::kLegacy, "x").ok());
  Status num = CheckCast(*DataType::Int(), *DataType::Date(), CastMode::kAnsi, "x");
  EXPECT_EQ(Param(num, "functionNames"), "`DATE_FROM_UNIX_DATE`");
}

TEST(CastTest, LegacyOnlyCastSuggestsTheAnsiConfig) {
  Status st = CheckCast(*DataType::Boolean(), *DataType::Timestamp(), CastMode::kAnsi,
                        "CAST(b AS TIMESTAMP)");
  EXPECT_EQ(st.error_class(), "DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION");
  EXPECT_EQ(Param(st, "config"), "\"spark.sql.ansi.enabled\"");
  EXPECT_EQ(Param(st, "configVal"), "'false'");
  // try_cast gets no config suggestion.
  Status try_st =
      CheckCast(*DataType::Boolean(), *DataType::Timestamp(), CastMode::kTry, "x");
  EXPECT_EQ(try_st.error_class(), "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION");
}

TEST(CastTest, ImpossibleCastHasNoSuggestion) {
  Status st = CheckCast(*DataType::Array(DataType::Int()), *DataType::Int(),
                        CastMode::kAnsi, "CAST(a AS INT)");
  EXPECT_EQ(st.error_class(), "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION");
  EXPECT_EQ(st.kind(), ErrorKind::kAnalysis);
  EXPECT_FALSE(CanCast(*DataType::Date(), *DataType::Binary(), CastMode::kLegacy));
  EXPECT_FALSE(
      CanCast(*DataType::String(), *DataType::Array(DataType::Int()), CastMode::kLegacy));
}

TEST(CastTest, AnsiAllowsNumericTimestampAndIntervalCasts) {
  EXPECT_TRUE(CanCast(*DataType::Long(), *DataType::Timestamp(), CastMode::kAnsi));
  EXPECT_TRUE(CanCast(*DataType::Timestamp(), *DataType::Double(), CastMode::kAnsi));
  EXPECT_TRUE(
      CanCast(*DataType::Decimal(10, 2), *DataType::DayTimeInterval(), CastMode::kAnsi));
  EXPECT_FALSE(
      CanCast(*DataType::Double(), *DataType::DayTimeInterval(), CastMode::kLegacy));
  EXPECT_TRUE(
      CanCast(*DataType::TimestampNtz(), *DataType::Timestamp(), CastMode::kAnsi));
  EXPECT_FALSE(CanCast(*DataType::TimestampNtz(), *DataType::Long(), CastMode::kLegacy));
}

// ---- columns and the CAST expression
// ------------------------------------------------------

TEST(CastTest, ColumnValidityIsPropagatedAndExtended) {
  ColumnPtr col =
      ColumnFromValues(DataType::String(),
                       {Str("1"), Value::Null(DataType::String()), Str("x"), Str(" 4 ")});
  Result<ColumnPtr> out = CastColumn(col, DataType::Int(), CastMode::kLegacy, Ctx(false));
  ASSERT_TRUE(out.ok());
  const Column& c = **out;
  EXPECT_EQ(c.length(), 4);
  EXPECT_EQ(c.null_count(), 2);
  EXPECT_EQ(c.GetValue(0).i64(), 1);
  EXPECT_TRUE(c.IsNull(1));
  EXPECT_TRUE(c.IsNull(2));
  EXPECT_EQ(c.GetValue(3).i64(), 4);
}

TEST(CastTest, InfallibleCastSharesTheValidityBuffer) {
  ColumnPtr col =
      ColumnFromValues(DataType::Int(), {Value::Int(1), Value::Null(DataType::Int())});
  Result<ColumnPtr> out = CastColumn(col, DataType::Long(), CastMode::kAnsi, Ctx());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->validity(), col->validity());
  EXPECT_EQ((*out)->null_count(), 1);
}

TEST(CastTest, AnsiErrorReportsTheFirstBadRow) {
  ColumnPtr col = ColumnFromValues(DataType::String(), {Str("1"), Str("b"), Str("c")});
  Result<ColumnPtr> out = CastColumn(col, DataType::Int(), CastMode::kAnsi, Ctx());
  ASSERT_ERROR_CLASS(out, "CAST_INVALID_INPUT");
  EXPECT_EQ(Param(out.status(), "expression"), "'b'");
}

TEST(CastTest, MakeCastToSameTypeReturnsChild) {
  BoundExprPtr ref = MakeColumnRef(0, DataType::Int(), true, "x#0");
  Result<BoundExprPtr> same = MakeCast(ref, DataType::Int());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->get(), ref.get());
}

TEST(CastTest, MakeCastTextAndEvaluation) {
  BoundExprPtr ref = MakeColumnRef(0, DataType::String(), true, "s#3");
  Result<BoundExprPtr> cast = MakeCast(ref, DataType::Int());
  ASSERT_TRUE(cast.ok());
  EXPECT_EQ((*cast)->ToString(), "cast(s#3 as int)");
  Result<BoundExprPtr> try_cast =
      MakeCast(ref, DataType::Decimal(10, 2), /*is_try=*/true);
  ASSERT_TRUE(try_cast.ok());
  EXPECT_EQ((*try_cast)->ToString(), "try_cast(s#3 as decimal(10,2))");

  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{Field{"s", DataType::String()}});
  ColumnPtr col = ColumnFromValues(DataType::String(), {Str("7"), Str("1.5")});
  Batch batch(schema, {col}, 2);
  Result<ColumnPtr> ansi = (*cast)->Evaluate(batch, Ctx(true));
  ASSERT_ERROR_CLASS(ansi, "CAST_INVALID_INPUT");
  Result<ColumnPtr> legacy = (*cast)->Evaluate(batch, Ctx(false));
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ((*legacy)->GetValue(1).i64(), 1);
  Result<ColumnPtr> tried = (*try_cast)->Evaluate(batch, Ctx(true));
  ASSERT_TRUE(tried.ok());
  EXPECT_EQ(Text((*tried)->GetValue(1)), "1.50");
}

TEST(CastTest, MakeCastRejectsWhatAnsiForbidsAtEvaluation) {
  BoundExprPtr ref = MakeColumnRef(0, DataType::Date(), true, "d#1");
  Result<BoundExprPtr> cast = MakeCast(ref, DataType::Int());
  ASSERT_TRUE(cast.ok());  // allowed with ANSI off
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{Field{"d", DataType::Date()}});
  Batch batch(schema, {ColumnFromValues(DataType::Date(), {Value::Date(0)})}, 1);
  Result<ColumnPtr> ansi = (*cast)->Evaluate(batch, Ctx(true));
  ASSERT_ERROR_CLASS(ansi, "DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION");
  Result<ColumnPtr> legacy = (*cast)->Evaluate(batch, Ctx(false));
  ASSERT_TRUE(legacy.ok());
  EXPECT_TRUE((*legacy)->IsNull(0));
  EXPECT_ERROR_CLASS(
      MakeCast(MakeColumnRef(0, DataType::Date(), true, "d#1"), DataType::Binary()),
      "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION");
}

TEST(CastTest, SameStructureWithOtherNamesCastsFieldByField) {
  // SPARK-20302: struct<a:int,b:struct<b1:bigint>> ->
  // struct<a1:int,b1:struct<b11:bigint>>.
  auto from =
      DataType::Struct({Field{"a", DataType::Int()},
                        Field{"b", DataType::Struct({Field{"b1", DataType::Long()}})}});
  auto to =
      DataType::Struct({Field{"a1", DataType::Int()},
                        Field{"b1", DataType::Struct({Field{"b11", DataType::Long()}})}});
  Value v = Value::Struct(
      from, {Value::Int(10), Value::Struct(from->fields()[1].type, {Value::Long(12)})});
  Value out = Cast(v, to);
  EXPECT_TRUE(out.type()->Equals(*to));
  EXPECT_EQ(Text(out), "{10, {12}}");
}

TEST(CastTest, MakeCastNullability) {
  BoundExprPtr not_null = MakeColumnRef(0, DataType::Int(), false, "i#0");
  EXPECT_FALSE((*MakeCast(not_null, DataType::Long()))->nullable());
  EXPECT_FALSE((*MakeCast(not_null, DataType::String()))->nullable());
  BoundExprPtr s = MakeColumnRef(0, DataType::String(), false, "s#0");
  EXPECT_TRUE((*MakeCast(s, DataType::Int()))->nullable());  // forceNullable(string, int)
  BoundExprPtr d = MakeColumnRef(0, DataType::Double(), false, "d#0");
  EXPECT_TRUE((*MakeCast(d, DataType::Int()))->nullable());  // NaN
  // try_cast: nullable unless the cast is an up-cast.
  EXPECT_FALSE((*MakeCast(not_null, DataType::Long(), /*is_try=*/true))->nullable());
  EXPECT_TRUE(
      (*MakeCast(MakeColumnRef(0, DataType::Long(), false, "l#0"), DataType::Int(),
                 /*is_try=*/true))
          ->nullable());
  EXPECT_FALSE(
      (*MakeCast(not_null, DataType::Decimal(10, 0), /*is_try=*/true))->nullable());
  // SPARK-40389: decimal(10,0) -> int may overflow.
  BoundExprPtr dec = MakeColumnRef(0, DataType::Decimal(10, 0), false, "x#0");
  EXPECT_TRUE((*MakeCast(dec, DataType::Int(), /*is_try=*/true))->nullable());
  BoundExprPtr date = MakeColumnRef(0, DataType::Date(), false, "d#0");
  EXPECT_FALSE((*MakeCast(date, DataType::TimestampNtz(), /*is_try=*/true))->nullable());
}

}  // namespace
}  // namespace spate
