// Copyright spate authors.
#pragma once

// Text forms of scalar values exactly as Spark's CAST(x AS STRING) produces them, shared
// by show(), casts, the CLI and Value::ToString. Also calendar arithmetic helpers.
// All functions are pure and thread-safe.

#include <cstdint>
#include <string>
#include <string_view>

#include "spate/types/data_type.h"

namespace spate {

using int128_t = __int128;

/// Java's Double.toString as Spark prints doubles: "1.0", "0.001", "1.0E10", "1.5E-4",
/// "NaN", "Infinity", "-Infinity"; shortest digits that round-trip.
std::string FormatDouble(double v);
/// Java's Float.toString: shortest digits that round-trip as a float.
std::string FormatFloat(float v);
/// Plain decimal text of unscaled/10^scale, never with an exponent: "12.30", "-0.05".
std::string FormatDecimal(int128_t unscaled, int scale);
std::string Int128ToString(int128_t v);

/// Days since 1970-01-01 <-> proleptic Gregorian civil date (the one implementation;
/// int64 so that years past +-5.8 million do not wrap: casts take seven-digit years).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);
/// "2024-01-31".
std::string FormatDate(int32_t days);
/// "2024-01-31 12:00:00" with ".123456" fraction trimmed of trailing zeros, as Spark.
/// `offset_seconds` is added before formatting (session time zone offset).
std::string FormatTimestampMicros(int64_t micros, int64_t offset_seconds = 0);
/// An interval field's SQL name: "YEAR" ... "SECOND".
const char* IntervalFieldName(IntervalField f);
/// The fields of an interval type as SQL writes them: "MINUTE", "DAY TO SECOND".
std::string IntervalFieldsText(IntervalField start, IntervalField end);
/// Spark's interval text: "INTERVAL '0 00:10:00' DAY TO SECOND", "INTERVAL '10' MINUTE".
std::string FormatDayTimeInterval(int64_t micros, IntervalField start, IntervalField end);
std::string FormatYearMonthInterval(int32_t months, IntervalField start,
                                    IntervalField end);
/// Hex form show() uses for binary: "[41 42 43]".
std::string FormatBinaryHex(std::string_view bytes);

/// Floor division/modulo for negative time values.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400LL * kMicrosPerSecond;

}  // namespace spate
