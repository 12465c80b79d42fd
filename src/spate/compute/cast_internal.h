// Copyright spate authors.
#ifndef SPATE_COMPUTE_CAST_INTERNAL_H_
#define SPATE_COMPUTE_CAST_INTERNAL_H_

// What the CAST kernels (cast.cc) and Spark's string parsers (cast_text.cc) share: exact
// decimal and integer helpers, the error builders with Spark's messages, time-zone
// helpers and the parsers' declarations. Internal to compute/; stateless, thread-safe.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "spate/columnar/column.h"
#include "spate/compute/cast.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/decimal_text.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {
namespace cast_detail {

using uint128_t = unsigned __int128;

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int kMaxDecimalPrecision = 38;

// ---------------------------------------------------------------------------------------
// Small numeric helpers
// ---------------------------------------------------------------------------------------

using kernel::FitsPrecision;
using kernel::Pow10;

// Divides by 10^k rounding half away from zero (BigDecimal ROUND_HALF_UP).
inline int128_t DivPow10HalfUp(int128_t v, int k) {
  if (k == 0) return v;
  if (k > 38) return 0;
  int128_t d = Pow10(k);
  int128_t q = v / d;
  int128_t r = v % d;
  if (r < 0) r = -r;
  if (r * 2 >= d) q += v < 0 ? -1 : 1;
  return q;
}

// Java's (long) d: NaN -> 0, saturating.
inline int64_t JavaDoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Java's (int) d: NaN -> 0, saturating.
inline int32_t JavaDoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (d <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(d);
}

template <typename T>
constexpr bool kIsInt128 = std::is_same_v<T, int128_t>;

template <typename T>
inline bool InRange(int128_t v) {
  return v >= static_cast<int128_t>(std::numeric_limits<T>::min()) &&
         v <= static_cast<int128_t>(std::numeric_limits<T>::max());
}

inline bool AddOverflow(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}
inline bool MulOverflow(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// A zone named in a timestamp string: a fixed offset or a zone of the tz database.
struct ParsedZone {
  bool fixed = true;
  int64_t offset_seconds = 0;
  const TimeZone* zone = nullptr;
};

// Spark's error builders for casts (CAST_OVERFLOW, CAST_INVALID_INPUT, ...).
std::string SqlType(const DataType& t);
std::string SqlValue(const Value& v, const EvalContext& ctx);
std::string JavaDecimalString(int128_t unscaled, int scale);
Status OverflowError(const std::string& value_sql, const DataType& from,
                     const DataType& to);
Status OverflowAt(const Column& in, int64_t i, const DataType& to,
                  const EvalContext& ctx);
Status InvalidInputError(std::string_view s, const DataType& to);
Status DecimalOutOfRangeError(const std::string& plain_value, const DataType& to);
Status UnmatchedIntervalError(std::string_view input, const DataType& to);
Status IntervalParsingError(std::string_view input, const DataType& to);

// Time zones of the session and of timestamp strings.
int64_t ZoneOffsetSeconds(const EvalContext& ctx, int64_t utc_micros);
int64_t LocalToUtc(const ParsedZone& zone, int64_t local_micros, bool* overflow);
ParsedZone SessionZone(const EvalContext& ctx);

// Spark's string -> value parsers (UTF8String.toLong, BigDecimal, Double.parseDouble,
// IntervalUtils). False (or kUnmatched) when the text is not a value of the type.
std::string_view JavaTrim(std::string_view s);
bool ParseLong(std::string_view raw, bool allow_decimal, int64_t* out);
DecimalText DecimalTextOf(int128_t unscaled, int scale);
void MultiplyBy(DecimalText* d, uint64_t factor);
DecimalText DoubleToDecimalText(double v);
template <typename F>
bool ParseFloating(std::string_view raw, F* out);  // float and double
int ParseBoolean(std::string_view raw);            // 1, 0, or -1 when neither
// Dates and timestamps: CastStringToDate & co. (datetime_text.h).

enum class IntervalParse : uint8_t { kOk, kUnmatched, kRangeError };
IntervalParse ParseDayTimeInterval(std::string_view raw, const DataType& to,
                                   int64_t* out);
IntervalParse ParseYearMonthInterval(std::string_view raw, const DataType& to,
                                     int32_t* out);

}  // namespace cast_detail
}  // namespace spate

#endif  // SPATE_COMPUTE_CAST_INTERNAL_H_
