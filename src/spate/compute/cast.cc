// Copyright spate authors.
#include "spate/compute/cast.h"

// CAST kernels. One typed loop per (source, target) pair over raw buffers; a row that
// cannot be cast is NULL (kLegacy/kTry) or stops the batch with Spark's error (kAnsi, and
// the casts Spark rejects in every mode). Per-row work never goes through Value,
// std::function or virtual calls; nested types recurse once per child column.
//
// Semantics follow Spark 4's Cast.scala, ToStringBase.scala, SparkDateTimeUtils
// (stringToDate / parseTimestampString), UTF8String.toLong/toInt, Decimal.scala and
// IntervalUtils.scala.

#include <array>
#include <charconv>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "spate/columnar/builder.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {
namespace {

using uint128_t = unsigned __int128;

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int kMaxDecimalPrecision = 38;

// ---------------------------------------------------------------------------------------
// Small numeric helpers
// ---------------------------------------------------------------------------------------

int128_t Pow10(int k) {
  static const auto kTable = [] {
    std::array<int128_t, 39> t{};
    t[0] = 1;
    for (int i = 1; i <= 38; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return kTable[k];
}

bool FitsPrecision(int128_t v, int precision) {
  int128_t lim = Pow10(precision);
  return v < lim && v > -lim;
}

// Divides by 10^k rounding half away from zero (BigDecimal ROUND_HALF_UP).
int128_t DivPow10HalfUp(int128_t v, int k) {
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
int64_t JavaDoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Java's (int) d: NaN -> 0, saturating.
int32_t JavaDoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (d <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(d);
}

template <typename T>
constexpr bool kIsInt128 = std::is_same_v<T, int128_t>;

template <typename T>
bool InRange(int128_t v) {
  return v >= static_cast<int128_t>(std::numeric_limits<T>::min()) &&
         v <= static_cast<int128_t>(std::numeric_limits<T>::max());
}

bool AddOverflow(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }
bool MulOverflow(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

// Spark's UTF8String.isWhitespaceOrISOControl on a byte.
inline bool IsSpaceOrControl(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f;
}

// UTF8String.trimAll: drops whitespace and ISO control bytes at both ends.
std::string_view TrimAll(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpaceOrControl(s[b])) ++b;
  while (e > b && IsSpaceOrControl(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// java.lang.String.trim: drops chars <= ' '.
std::string_view JavaTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= 0x20) --e;
  return s.substr(b, e - b);
}

bool EqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Error rendering (QueryErrorsBase.toSQLValue / toSQLType)
// ---------------------------------------------------------------------------------------

std::string SqlType(const DataType& t) { return "\"" + t.Sql() + "\""; }

std::string SqlString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// Java's BigDecimal.toString for unscaled * 10^-scale (scale >= 0): plain unless the
// adjusted exponent is below -6.
std::string JavaDecimalString(int128_t unscaled, int scale) {
  bool neg = unscaled < 0;
  std::string digits = Int128ToString(neg ? -unscaled : unscaled);
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale == 0 || adjusted >= -6) return FormatDecimal(unscaled, scale);
  std::string out = neg ? "-" : "";
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  out += "E" + std::to_string(adjusted);
  return out;
}

int64_t ZoneOffsetSeconds(const EvalContext& ctx, int64_t utc_micros);

// Literal.sql of the value, as Spark puts it into CAST_OVERFLOW / CAST_INVALID_INPUT.
std::string SqlValue(const Value& v, const EvalContext& ctx) {
  if (v.is_null()) return "NULL";
  const DataType& t = *v.type();
  switch (t.id()) {
    case TypeId::kByte: return std::to_string(v.i64()) + "Y";
    case TypeId::kShort: return std::to_string(v.i64()) + "S";
    case TypeId::kInt: return std::to_string(v.i64());
    case TypeId::kLong: return std::to_string(v.i64()) + "L";
    case TypeId::kFloat: {
      float f = static_cast<float>(v.f64());
      if (std::isnan(f)) return "NaN";
      if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
      return FormatFloat(f);
    }
    case TypeId::kDouble: {
      double d = v.f64();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return FormatDouble(d) + "D";
    }
    case TypeId::kDecimal: return JavaDecimalString(v.i128(), t.scale()) + "BD";
    case TypeId::kString: return SqlString(v.str());
    case TypeId::kDate: return "DATE '" + FormatDate(static_cast<int32_t>(v.i64())) + "'";
    case TypeId::kTimestamp:
      return "TIMESTAMP '" +
             FormatTimestampMicros(v.i64(), ZoneOffsetSeconds(ctx, v.i64())) + "'";
    case TypeId::kTimestampNtz: return "TIMESTAMP_NTZ '" + FormatTimestampMicros(v.i64()) + "'";
    default: return v.ToSql();
  }
}

Status OverflowError(const std::string& value_sql, const DataType& from, const DataType& to) {
  return Status::Error("CAST_OVERFLOW", {{"value", value_sql},
                                         {"sourceType", SqlType(from)},
                                         {"targetType", SqlType(to)}});
}

Status OverflowAt(const Column& in, int64_t i, const DataType& to, const EvalContext& ctx) {
  return OverflowError(SqlValue(in.GetValue(i), ctx), *in.type(), to);
}

Status InvalidInputError(std::string_view s, const DataType& to) {
  return Status::Error("CAST_INVALID_INPUT", {{"expression", SqlString(s)},
                                              {"sourceType", SqlType(*DataType::String())},
                                              {"targetType", SqlType(to)}});
}

Status DecimalOutOfRangeError(const std::string& plain_value, const DataType& to) {
  return Status::Error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                       {{"value", plain_value},
                        {"precision", std::to_string(to.precision())},
                        {"scale", std::to_string(to.scale())},
                        {"config", "\"spark.sql.ansi.enabled\""}});
}

// ---------------------------------------------------------------------------------------
// Session time zone
// ---------------------------------------------------------------------------------------

int64_t ZoneOffsetSeconds(const EvalContext& ctx, int64_t utc_micros) {
  return ctx.time_zone ? ctx.time_zone->OffsetSeconds(utc_micros) : 0;
}

// A zone named in a timestamp string: a fixed offset or a zone of the tz database.
struct ParsedZone {
  bool fixed = true;
  int64_t offset_seconds = 0;
  const TimeZone* zone = nullptr;
};

// ZoneOffset.of: +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss (sign included in `s`).
bool ParseOffset(std::string_view s, int64_t* seconds) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
  int sign = s[0] == '-' ? -1 : 1;
  std::string t(s.substr(1));
  // Spark's pre-3.0 forms: (+|-)h:mm and (+|-)hh:m.
  if (t.size() >= 2 && t[1] == ':' && t[0] >= '0' && t[0] <= '9') t.insert(0, "0");
  if (t.size() == 4 && t[2] == ':') t.insert(3, "0");
  auto digit = [&](size_t i) { return t[i] >= '0' && t[i] <= '9'; };
  auto two = [&](size_t i) { return (t[i] - '0') * 10 + (t[i + 1] - '0'); };
  int h = 0, m = 0, sec = 0;
  switch (t.size()) {
    case 1:
      if (!digit(0)) return false;
      h = t[0] - '0';
      break;
    case 2:
      if (!digit(0) || !digit(1)) return false;
      h = two(0);
      break;
    case 4:
      if (!digit(0) || !digit(1) || !digit(2) || !digit(3)) return false;
      h = two(0), m = two(2);
      break;
    case 5:
      if (!digit(0) || !digit(1) || t[2] != ':' || !digit(3) || !digit(4)) return false;
      h = two(0), m = two(3);
      break;
    case 6:
      for (size_t i = 0; i < 6; ++i) {
        if (!digit(i)) return false;
      }
      h = two(0), m = two(2), sec = two(4);
      break;
    case 8:
      if (!digit(0) || !digit(1) || t[2] != ':' || !digit(3) || !digit(4) || t[5] != ':' ||
          !digit(6) || !digit(7)) {
        return false;
      }
      h = two(0), m = two(3), sec = two(6);
      break;
    default: return false;
  }
  if (h > 18 || m > 59 || sec > 59) return false;
  int64_t total = h * 3600 + m * 60 + sec;
  if (total > 18 * 3600) return false;
  *seconds = sign * total;
  return true;
}

// ZoneId.of(id, SHORT_IDS) as Spark's getZoneId uses it.
bool ResolveZoneName(std::string_view id, ParsedZone* out) {
  if (id.empty()) return false;
  *out = ParsedZone{};
  if (id == "Z" || id == "UTC" || id == "GMT" || id == "UT") return true;
  if (id[0] == '+' || id[0] == '-') return ParseOffset(id, &out->offset_seconds);
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (id.size() > prefix.size() && id.substr(0, prefix.size()) == prefix &&
        (id[prefix.size()] == '+' || id[prefix.size()] == '-')) {
      return ParseOffset(id.substr(prefix.size()), &out->offset_seconds);
    }
  }
  if (id == "EST") return out->offset_seconds = -5 * 3600, true;
  if (id == "MST") return out->offset_seconds = -7 * 3600, true;
  if (id == "HST") return out->offset_seconds = -10 * 3600, true;
  // Region ids ("Europe/Paris"), Java's short ids ("PST") and the rarer offset spellings.
  const TimeZone* tz = TimeZone::Lookup(id);
  if (tz == nullptr) return false;
  out->fixed = false;
  out->zone = tz;
  return true;
}

// Microseconds since the epoch of `local_micros` (wall clock) in `zone`.
int64_t LocalToUtc(const ParsedZone& zone, int64_t local_micros, bool* overflow) {
  if (zone.fixed) {
    int64_t out;
    *overflow = __builtin_sub_overflow(local_micros, zone.offset_seconds * kMicrosPerSecond, &out);
    return out;
  }
  *overflow = false;
  return zone.zone->LocalToUtcMicros(local_micros);
}

ParsedZone SessionZone(const EvalContext& ctx) {
  ParsedZone z;
  if (ctx.time_zone != nullptr) {
    z.fixed = false;
    z.zone = ctx.time_zone;
  }
  return z;
}

// Today's date in the session zone, for time-only timestamp strings ('10:30:00'), as
// Spark's LocalDate.now(zone).
// TODO(spate): take the query's current timestamp from EvalContext once it carries one, so
// that this follows an injected Clock.
int64_t TodayInZone(const EvalContext& ctx) {
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  return FloorDiv(now + ZoneOffsetSeconds(ctx, now) * kMicrosPerSecond, kMicrosPerDay);
}

// ---------------------------------------------------------------------------------------
// Calendar checks
// ---------------------------------------------------------------------------------------

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Days since 1970-01-01 of a proleptic Gregorian date, without narrowing (years of up to
// seven digits exceed an int32 day count).
int64_t CivilDays(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool ValidDate(int64_t y, int m, int d) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  int len = kDays[m - 1] + (m == 2 && IsLeap(y) ? 1 : 0);
  return d <= len;
}

// ---------------------------------------------------------------------------------------
// String parsers
// ---------------------------------------------------------------------------------------

// UTF8String.toLong(allowDecimal) / toLongExact: optional sign, digits, and (if
// `allow_decimal`) a '.' followed by digits that are dropped. Trims whitespace/controls.
bool ParseLong(std::string_view raw, bool allow_decimal, int64_t* out) {
  std::string_view s = TrimAll(raw);
  if (s.empty()) return false;
  size_t i = 0;
  bool negative = s[0] == '-';
  if (negative || s[0] == '+') {
    if (s.size() == 1) return false;
    ++i;
  }
  // Accumulate negatively so that INT64_MIN parses.
  int64_t result = 0;
  constexpr int64_t kStop = std::numeric_limits<int64_t>::min() / 10;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && allow_decimal) {
      ++i;
      break;
    }
    if (c < '0' || c > '9') return false;
    if (result < kStop) return false;
    result = result * 10 - (c - '0');
    if (result > 0) return false;
  }
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  if (!negative) {
    if (result == std::numeric_limits<int64_t>::min()) return false;
    result = -result;
  }
  *out = result;
  return true;
}

// An exact decimal number: (-1)^negative * digits * 10^exponent, digits without leading
// zeros ("0" for zero). The form java.math.BigDecimal holds.
struct DecimalText {
  bool negative = false;
  std::string digits = "0";
  int64_t exponent = 0;

  // precision - scale of the BigDecimal (digits left of the point).
  int64_t IntegralDigits() const { return static_cast<int64_t>(digits.size()) + exponent; }
  bool IsZero() const { return digits == "0"; }

  // BigDecimal.toPlainString after Spark's Decimal.set (negative scales become 0).
  std::string Plain() const {
    std::string out = negative && !IsZero() ? "-" : "";
    if (exponent >= 0) {
      out += digits;
      if (!IsZero()) out.append(static_cast<size_t>(exponent), '0');
      return out;
    }
    size_t scale = static_cast<size_t>(-exponent);
    std::string d = digits;
    if (d.size() <= scale) d.insert(0, scale - d.size() + 1, '0');
    out += d.substr(0, d.size() - scale);
    out += '.';
    out += d.substr(d.size() - scale);
    return out;
  }

  // Rounds half-up to `scale` fraction digits; false if the result needs more than
  // `precision` digits.
  bool ToUnscaled(int precision, int scale, int128_t* out) const {
    if (IsZero()) {
      *out = 0;
      return true;
    }
    int64_t shift = exponent + scale;  // digits * 10^shift is the unscaled value
    int64_t len = static_cast<int64_t>(digits.size());
    int128_t v = 0;
    if (shift >= 0) {
      if (len + shift > precision) return false;
      for (char c : digits) v = v * 10 + (c - '0');
      v *= Pow10(static_cast<int>(shift));
    } else {
      int64_t kept = len + shift;
      if (kept > precision) return false;
      for (int64_t k = 0; k < kept; ++k) v = v * 10 + (digits[k] - '0');
      if (kept >= 0 && digits[kept] >= '5') v += 1;
      if (!FitsPrecision(v, precision)) return false;
    }
    *out = negative ? -v : v;
    return true;
  }
};

// The exact value unscaled * 10^-scale.
DecimalText DecimalTextOf(int128_t unscaled, int scale) {
  DecimalText d;
  d.negative = unscaled < 0;
  d.digits = Int128ToString(d.negative ? -unscaled : unscaled);
  d.exponent = -scale;
  return d;
}

// Multiplies the value by `factor` (exact).
void MultiplyBy(DecimalText* d, uint64_t factor) {
  if (d->IsZero() || factor == 1) return;
  std::string out;
  uint128_t carry = 0;
  for (auto it = d->digits.rbegin(); it != d->digits.rend(); ++it) {
    uint128_t x = static_cast<uint128_t>(*it - '0') * factor + carry;
    out.push_back(static_cast<char>('0' + static_cast<int>(x % 10)));
    carry = x / 10;
  }
  while (carry > 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(carry % 10)));
    carry /= 10;
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  d->digits.assign(out.rbegin(), out.rend());
}

// new java.math.BigDecimal(s): [+-] digits [. digits] [eE [+-] digits], at least one digit.
bool ParseBigDecimal(std::string_view s, DecimalText* out) {
  size_t i = 0;
  DecimalText d;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) d.negative = s[i++] == '-';
  std::string digits;
  int64_t frac = 0;
  bool any = false, point = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (!(digits.empty() && c == '0')) digits += c;
      if (point) ++frac;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  int64_t exp = 0;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return false;
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      exp = exp * 10 + (s[i] - '0');
      if (exp > 1'000'000'000) return false;  // Java: exponent must fit an int
    }
    if (neg) exp = -exp;
  }
  if (digits.empty()) {
    d.digits = "0";
  } else {
    d.digits = std::move(digits);
  }
  d.exponent = exp - frac;
  *out = std::move(d);
  return true;
}

// Double.toString digits as Spark's Decimal(double) sees them (BigDecimal.decimal).
DecimalText DoubleToDecimalText(double v) {
  DecimalText d;
  ParseBigDecimal(FormatDouble(v), &d);
  return d;
}

// Java's Double.parseDouble / Float.parseFloat for decimal input, then Spark's special
// literals ('inf', '-infinity', 'nan' in any case).
template <typename F>
bool ParseFloating(std::string_view raw, F* out) {
  std::string_view s = JavaTrim(raw);
  if (s.empty()) return false;
  std::string_view body = s;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") {
    *out = std::numeric_limits<F>::quiet_NaN();
    return true;
  }
  if (body == "Infinity") {
    *out = negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
    return true;
  }
  // digits [. digits] [eE [+-] digits] [fFdD]
  size_t i = 0;
  bool any = false;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, any = true;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, any = true;
  }
  bool ok = any;
  if (ok && i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t start = i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i;
    ok = i > start;
  }
  if (ok && i + 1 == body.size() &&
      (body[i] == 'f' || body[i] == 'F' || body[i] == 'd' || body[i] == 'D')) {
    body.remove_suffix(1);
  } else if (ok && i != body.size()) {
    ok = false;
  }
  if (ok) {
    F v{};
    auto res = std::from_chars(body.data(), body.data() + body.size(), v);
    if (res.ec == std::errc::result_out_of_range) {
      // Overflow or underflow: Java gives +-Infinity, zero or a subnormal, as strtod does.
      std::string text(body);
      if constexpr (std::is_same_v<F, float>) {
        v = std::strtof(text.c_str(), nullptr);
      } else {
        v = std::strtod(text.c_str(), nullptr);
      }
    } else if (res.ec != std::errc() || res.ptr != body.data() + body.size()) {
      return false;
    }
    *out = negative ? -v : v;
    return true;
  }
  // Cast.processFloatingPointSpecialLiterals
  std::string_view t = JavaTrim(raw);
  if (EqualsLower(t, "inf") || EqualsLower(t, "+inf") || EqualsLower(t, "infinity") ||
      EqualsLower(t, "+infinity")) {
    *out = std::numeric_limits<F>::infinity();
    return true;
  }
  if (EqualsLower(t, "-inf") || EqualsLower(t, "-infinity")) {
    *out = -std::numeric_limits<F>::infinity();
    return true;
  }
  if (EqualsLower(t, "nan")) {
    *out = std::numeric_limits<F>::quiet_NaN();
    return true;
  }
  return false;
}

// StringUtils.isTrueString / isFalseString. Returns 1, 0, or -1 when neither.
int ParseBoolean(std::string_view raw) {
  std::string_view s = TrimAll(raw);
  if (s.size() > 5) return -1;
  for (std::string_view t : {"t", "true", "y", "yes", "1"}) {
    if (EqualsLower(s, t)) return 1;
  }
  for (std::string_view f : {"f", "false", "n", "no", "0"}) {
    if (EqualsLower(s, f)) return 0;
  }
  return -1;
}

// SparkDateTimeUtils.stringToDate: [+-]yyyy*[-[m]m[-[d]d]] then optional ' ...' or 'T...'
// after the day.
bool ParseDate(std::string_view raw, int32_t* out) {
  std::string_view s = TrimAll(raw);
  if (s.empty()) return false;
  int64_t seg[3] = {1, 1, 1};
  int i = 0;
  int64_t cur = 0;
  int digits = 0;
  int sign = 1;
  size_t j = 0;
  if (s[0] == '-' || s[0] == '+') {
    sign = s[0] == '-' ? -1 : 1;
    ++j;
  }
  auto valid_digits = [](int segment, int n) {
    return segment == 0 ? (n >= 4 && n <= 7) : (n > 0 && n <= 2);
  };
  for (; j < s.size() && s[j] != ' ' && s[j] != 'T'; ++j) {
    char c = s[j];
    if (i < 2 && c == '-') {
      if (!valid_digits(i, digits)) return false;
      seg[i++] = cur;
      cur = 0;
      digits = 0;
    } else if (c >= '0' && c <= '9') {
      // No segment is valid past 7 digits: stop before the value can overflow.
      if (++digits > 7) return false;
      cur = cur * 10 + (c - '0');
    } else {
      return false;
    }
  }
  if (!valid_digits(i, digits)) return false;
  if (i < 2 && j < s.size()) return false;
  seg[i] = cur;
  int64_t year = sign * seg[0];
  if (!ValidDate(year, static_cast<int>(seg[1]), static_cast<int>(seg[2]))) return false;
  int64_t days = CivilDays(year, static_cast<int>(seg[1]), static_cast<int>(seg[2]));
  if (!InRange<int32_t>(days)) return false;  // localDateToDays: toIntExact
  *out = static_cast<int32_t>(days);
  return true;
}

// The fields of a timestamp string (SparkDateTimeUtils.parseTimestampString).
struct TimestampText {
  int64_t year = 1;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int64_t micros = 0;
  bool just_time = false;
  bool has_zone = false;
  ParsedZone zone;
};

// Accepts [+-]yyyy*[-[m]m[-[d]d[( |T)[h]h[:[m]m[:[s]s[.fraction]]][zone]]]] and time-only
// forms ([h]h:[m]m[:[s]s...], T[h]h...). Fractions beyond 6 digits are truncated.
bool ParseTimestampText(std::string_view raw, TimestampText* out) {
  size_t b = 0, e = raw.size();
  while (b < e && IsSpaceOrControl(raw[b])) ++b;
  while (e > b && IsSpaceOrControl(raw[e - 1])) --e;
  if (b == e) return false;
  int64_t seg[9] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
  int i = 0;
  int64_t cur = 0;
  int digits = 0;
  int frac_digits = 0;
  bool just_time = false;
  int year_sign = 0;
  std::string_view zone;
  bool has_zone = false;
  size_t j = b;
  if (raw[j] == '-' || raw[j] == '+') {
    year_sign = raw[j] == '-' ? -1 : 1;
    ++j;
  }
  auto valid_digits = [](int segment, int n) {
    if (segment == 6) return true;
    if (segment == 0) return n >= 4 && n <= 6;
    if (segment == 7) return n <= 2;
    return n > 0 && n <= 2;
  };
  auto close = [&](int segment) {
    if (!valid_digits(segment, digits)) return false;
    seg[segment] = cur;
    cur = 0;
    digits = 0;
    return true;
  };
  for (; j < e; ++j) {
    char c = raw[j];
    if (c >= '0' && c <= '9') {
      if (i == 6) ++frac_digits;
      // A fraction keeps its first 6 digits; any other segment longer than 6 digits is
      // refused at its end (valid_digits), so stop accumulating before it can overflow.
      if (digits < (i == 6 ? 6 : 9)) cur = cur * 10 + (c - '0');
      ++digits;
      continue;
    }
    if (j == 0 && c == 'T') {
      just_time = true;
      i += 3;
    } else if (i < 2) {
      if (c == '-') {
        if (!close(i)) return false;
        ++i;
      } else if (i == 0 && c == ':' && year_sign == 0) {
        just_time = true;
        if (!close(3)) return false;
        i = 4;
      } else {
        return false;
      }
    } else if (i == 2) {
      if (c != ' ' && c != 'T') return false;
      if (!close(i)) return false;
      ++i;
    } else if (i == 3 || i == 4) {
      if (c != ':') return false;
      if (!close(i)) return false;
      ++i;
    } else if (i == 5 || i == 6) {
      if (c == '.' && i == 5) {
        if (!close(i)) return false;
        ++i;
      } else {
        if (!close(i)) return false;
        ++i;
        zone = raw.substr(j, e - j);
        has_zone = true;
        j = e - 1;
      }
      if (i == 6 && c != '.') ++i;
    } else {
      if (i >= 8 || (c != ':' && c != ' ')) return false;
      if (!close(i)) return false;
      ++i;
    }
  }
  if (i > 8 || !valid_digits(i, digits)) return false;
  seg[i] = cur;
  while (frac_digits < 6) {
    seg[6] *= 10;
    ++frac_digits;
  }
  TimestampText t;
  if (has_zone) {
    if (!ResolveZoneName(JavaTrim(zone), &t.zone)) return false;
    t.has_zone = true;
  }
  t.year = seg[0] * (year_sign == 0 ? 1 : year_sign);
  t.month = static_cast<int>(seg[1]);
  t.day = static_cast<int>(seg[2]);
  t.hour = static_cast<int>(seg[3]);
  t.minute = static_cast<int>(seg[4]);
  t.second = static_cast<int>(seg[5]);
  t.micros = seg[6];
  t.just_time = just_time;
  if (t.hour > 23 || t.minute > 59 || t.second > 59) return false;  // LocalTime.of
  *out = t;
  return true;
}

int64_t TimeOfDayMicros(const TimestampText& t) {
  return t.hour * kMicrosPerHour + t.minute * kMicrosPerMinute + t.second * kMicrosPerSecond +
         t.micros;
}

// Wall-clock micros of the date and time fields, or false if out of range.
bool LocalMicros(const TimestampText& t, int64_t days, int64_t* out) {
  int64_t v;
  if (MulOverflow(days, kMicrosPerDay, &v)) return false;
  return !AddOverflow(v, TimeOfDayMicros(t), out);
}

// stringToTimestamp(s, session zone).
bool ParseTimestamp(std::string_view s, const EvalContext& ctx, int64_t* out) {
  TimestampText t;
  if (!ParseTimestampText(s, &t)) return false;
  ParsedZone zone = t.has_zone ? t.zone : SessionZone(ctx);
  int64_t days;
  if (t.just_time) {
    days = TodayInZone(ctx);
  } else {
    if (!ValidDate(t.year, t.month, t.day)) return false;
    days = CivilDays(t.year, t.month, t.day);
  }
  int64_t local;
  if (!LocalMicros(t, days, &local)) return false;
  bool overflow = false;
  *out = LocalToUtc(zone, local, &overflow);
  return !overflow;
}

// stringToTimestampWithoutTimeZone(s, allowTimeZone = true): a zone suffix is validated and
// ignored; time-only strings are invalid.
bool ParseTimestampNtz(std::string_view s, int64_t* out) {
  TimestampText t;
  if (!ParseTimestampText(s, &t) || t.just_time) return false;
  if (!ValidDate(t.year, t.month, t.day)) return false;
  return LocalMicros(t, CivilDays(t.year, t.month, t.day), out);
}

// ---------------------------------------------------------------------------------------
// Interval strings (IntervalUtils.castStringToDTInterval / castStringToYMInterval)
// ---------------------------------------------------------------------------------------

const char* FieldName(IntervalField f) {
  switch (f) {
    case IntervalField::kYear: return "YEAR";
    case IntervalField::kMonth: return "MONTH";
    case IntervalField::kDay: return "DAY";
    case IntervalField::kHour: return "HOUR";
    case IntervalField::kMinute: return "MINUTE";
    case IntervalField::kSecond: return "SECOND";
  }
  return "";
}

// The `[+|-]d h:m:s.n` pattern of the interval type's fields.
std::string FieldsPattern(IntervalField start, IntervalField end) {
  static const char* kParts[] = {"y", "m", "d", "h", "m", "s.n"};
  int s = static_cast<int>(start), e = static_cast<int>(end);
  if (s <= 1) return s == e ? kParts[s] : "y-m";
  std::string out;
  for (int f = s; f <= e; ++f) {
    if (f > s) out += f == 3 ? " " : ":";
    out += kParts[f];
  }
  return out;
}

Status UnmatchedIntervalError(std::string_view input, const DataType& to) {
  bool day_time = to.id() == TypeId::kDayTimeInterval;
  std::string fields = to.start_field() == to.end_field()
                           ? FieldName(to.start_field())
                           : std::string(FieldName(to.start_field())) + " TO " +
                                 FieldName(to.end_field());
  std::string pattern = FieldsPattern(to.start_field(), to.end_field());
  std::string formats =
      "`[+|-]" + pattern + "`, `INTERVAL [+|-]'[+|-]" + pattern + "' " + fields + "`";
  return Status::Error(day_time ? "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE"
                                : "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING",
                       {{"input", std::string(input)},
                        {"intervalStr", day_time ? "day-time" : "year-month"},
                        {"supportedFormat", formats},
                        {"typeName", to.SimpleString()}});
}

Status IntervalParsingError(std::string_view input, const DataType& to) {
  return Status::Error("INVALID_INTERVAL_FORMAT.INTERVAL_PARSING",
                       {{"input", std::string(input)},
                        {"interval", to.id() == TypeId::kDayTimeInterval ? "day-time"
                                                                         : "year-month"}});
}

bool IsRegexSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r';
}

// A cursor over an interval string that mimics the anchored regexes.
struct IntervalScanner {
  std::string_view s;
  size_t pos = 0;

  bool AtEnd() const { return pos == s.size(); }
  // ([+|-])? -- note that '|' is in the character class.
  int Sign() {
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-' || s[pos] == '|')) {
      return s[pos++] == '-' ? -1 : 1;
    }
    return 0;
  }
  bool Digits(int min, int max, std::string_view* out) {
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' &&
           static_cast<int>(pos - start) < max + 1) {
      ++pos;
    }
    int n = static_cast<int>(pos - start);
    if (n < min || n > max) return false;
    *out = s.substr(start, n);
    return true;
  }
  bool Char(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool Spaces() {
    size_t start = pos;
    while (pos < s.size() && IsRegexSpace(s[pos])) ++pos;
    return pos > start;
  }
  // Case-insensitive match of `word`, as the (?i) regexes.
  bool Keyword(std::string_view word) {
    if (s.size() - pos < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      char a = s[pos + i], b = word[i];
      if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
      if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
      if (a != b) return false;
    }
    pos += word.size();
    return true;
  }
};

// finalSign of the outer (literal) sign and the inner sign.
int FinalSign(int outer, int inner) {
  if (outer == -1 && inner == -1) return 1;
  if (outer == -1 || inner == -1) return -1;
  return 1;
}

int64_t ToLongDigits(std::string_view d) {
  int64_t v = 0;
  for (char c : d) v = v * 10 + (c - '0');  // callers bound the digit count
  return v;
}

// The fields matched from the body of an interval string.
struct IntervalBody {
  int sign = 0;
  std::string_view fields[4];  // leading field first
  std::string_view fraction;   // digits after '.', for the seconds field
  int num_fields = 0;
};

// Parses the body of a multi-field day-time form for (start, end) at the scanner.
bool ScanDayTimeBody(IntervalScanner* sc, IntervalField start, IntervalField end,
                     IntervalBody* body) {
  body->sign = sc->Sign();
  int s = static_cast<int>(start), e = static_cast<int>(end);
  static const int kLeadMax[] = {0, 0, 9, 10, 12, 13};
  for (int f = s; f <= e; ++f) {
    if (f > s && !sc->Char(f == static_cast<int>(IntervalField::kHour) ? ' ' : ':')) {
      return false;
    }
    int max = f == s ? kLeadMax[f] : 2;
    if (!sc->Digits(1, max, &body->fields[body->num_fields++])) return false;
  }
  if (e == static_cast<int>(IntervalField::kSecond) && sc->Char('.')) {
    if (!sc->Digits(1, 9, &body->fraction)) return false;
  }
  return true;
}

// Seconds with a fraction of up to 9 digits, truncated to micros (parseSecondNano).
int64_t SecondNanoMicros(std::string_view secs, std::string_view fraction, bool negative) {
  int64_t micros = ToLongDigits(secs) * kMicrosPerSecond;
  if (!fraction.empty()) {
    std::string nanos(fraction);
    nanos.resize(9, '0');
    micros += ToLongDigits(nanos) / 1000;
  }
  return negative ? -micros : micros;
}

enum class IntervalParse : uint8_t { kOk, kUnmatched, kRangeError };

IntervalParse ParseDayTimeInterval(std::string_view raw, const DataType& to, int64_t* out) {
  std::string_view s = TrimAll(raw);
  IntervalField start = to.start_field(), end = to.end_field();
  int si = static_cast<int>(start), ei = static_cast<int>(end);
  static const int64_t kUnit[] = {0, 0, kMicrosPerDay, kMicrosPerHour, kMicrosPerMinute,
                                  kMicrosPerSecond};
  static const int64_t kMaxLead[] = {0, 0, std::numeric_limits<int64_t>::max() / kMicrosPerDay,
                                     std::numeric_limits<int64_t>::max() / kMicrosPerHour,
                                     std::numeric_limits<int64_t>::max() / kMicrosPerMinute,
                                     std::numeric_limits<int64_t>::max() / kMicrosPerSecond};
  // Converts the matched fields (start..end) with Spark's per-field ranges.
  auto convert = [&](const IntervalBody& body, int sign, int64_t* micros) -> IntervalParse {
    int64_t total = 0;
    for (int f = si, k = 0; f <= ei; ++f, ++k) {
      std::string_view d = body.fields[k];
      if (f == static_cast<int>(IntervalField::kSecond)) {
        if (d.size() > 13) return IntervalParse::kRangeError;
        int64_t v = SecondNanoMicros(d, body.fraction, false);
        int64_t sv = sign * v;
        if (AddOverflow(total, sv, &total)) return IntervalParse::kRangeError;
        continue;
      }
      int64_t v = ToLongDigits(d);
      int64_t max = f == si ? kMaxLead[f] : (f == 3 ? 23 : 59);
      if (v > max) return IntervalParse::kRangeError;
      int64_t part;
      if (MulOverflow(sign * v, kUnit[f], &part) || AddOverflow(total, part, &total)) {
        return IntervalParse::kRangeError;
      }
    }
    *micros = total;
    return IntervalParse::kOk;
  };

  // 1. Multi-field forms, plain and as INTERVAL literals.
  if (si != ei) {
    IntervalScanner sc{s};
    IntervalBody body;
    if (ScanDayTimeBody(&sc, start, end, &body) && sc.AtEnd()) {
      return convert(body, FinalSign(body.sign, 0), out);
    }
    IntervalScanner lit{s};
    if (lit.Keyword("interval") && lit.Spaces()) {
      int outer = lit.Sign();
      IntervalBody b2;
      if (lit.Char('\'') && ScanDayTimeBody(&lit, start, end, &b2) && lit.Char('\'') &&
          lit.Spaces() && lit.Keyword(FieldName(start)) && lit.Spaces() && lit.Keyword("TO") &&
          lit.Spaces() && lit.Keyword(FieldName(end)) && lit.AtEnd()) {
        return convert(b2, FinalSign(outer, b2.sign), out);
      }
    }
  }
  // 2. A single number, plain or as INTERVAL '...' UNIT.
  auto single = [&](int sign, std::string_view value, std::string_view fraction,
                    IntervalField unit) -> IntervalParse {
    if (si != ei || start != unit) return IntervalParse::kUnmatched;
    static const size_t kMaxLen[] = {0, 0, 9, 10, 12, 13};
    int u = static_cast<int>(unit);
    if (value.size() > kMaxLen[u]) return IntervalParse::kUnmatched;
    if (unit != IntervalField::kSecond) {
      if (!fraction.empty()) return IntervalParse::kUnmatched;
      return MulOverflow(sign * ToLongDigits(value), kUnit[u], out) ? IntervalParse::kRangeError
                                                                    : IntervalParse::kOk;
    }
    int64_t secs = ToLongDigits(value);
    if (secs > kMaxLead[5]) return IntervalParse::kRangeError;
    // parseSecondNano("-s.n") negates the fraction only when the whole seconds are
    // negative, so '-0.5' is +0.5 seconds in Spark; reproduced as is.
    int64_t fraction_micros = SecondNanoMicros("0", fraction, false);
    *out = sign * secs * kMicrosPerSecond + (sign < 0 && secs != 0 ? -fraction_micros
                                                                   : fraction_micros);
    return IntervalParse::kOk;
  };
  {
    IntervalScanner sc{s};
    int sign = sc.Sign();
    std::string_view value, fraction;
    if (sc.Digits(1, 13, &value)) {
      bool ok = true;
      if (sc.Char('.')) ok = sc.Digits(1, 9, &fraction);
      if (ok && sc.AtEnd()) return single(FinalSign(sign, 0), value, fraction, start);
    }
  }
  {
    IntervalScanner sc{s};
    if (sc.Keyword("interval") && sc.Spaces()) {
      int outer = sc.Sign();
      std::string_view value, fraction;
      if (sc.Char('\'')) {
        int inner = sc.Sign();
        if (sc.Digits(1, 13, &value)) {
          bool ok = true;
          if (sc.Char('.')) ok = sc.Digits(1, 9, &fraction);
          if (ok && sc.Char('\'') && sc.Spaces()) {
            for (IntervalField unit : {IntervalField::kDay, IntervalField::kHour,
                                       IntervalField::kMinute, IntervalField::kSecond}) {
              IntervalScanner u = sc;
              if (u.Keyword(FieldName(unit)) && u.AtEnd()) {
                return single(FinalSign(outer, inner), value, fraction, unit);
              }
            }
          }
        }
      }
    }
  }
  return IntervalParse::kUnmatched;
}

IntervalParse ParseYearMonthInterval(std::string_view raw, const DataType& to, int32_t* out) {
  std::string_view s = TrimAll(raw);
  IntervalField start = to.start_field(), end = to.end_field();
  auto year_month = [&](int sign, std::string_view y, std::string_view m) -> IntervalParse {
    if (y.size() > 10 || m.size() > 10) return IntervalParse::kRangeError;
    int64_t years = ToLongDigits(y), months = ToLongDigits(m);
    if (years > std::numeric_limits<int32_t>::max() / 12 || months > 11) {
      return IntervalParse::kRangeError;
    }
    int64_t total = sign * (years * 12 + months);
    if (!InRange<int32_t>(total)) return IntervalParse::kRangeError;
    *out = static_cast<int32_t>(total);
    return IntervalParse::kOk;
  };
  auto unit_value = [&](int sign, std::string_view v, IntervalField unit) -> IntervalParse {
    if (v.size() > 19) return IntervalParse::kRangeError;
    int128_t n = 0;
    for (char c : v) n = n * 10 + (c - '0');
    if (n > std::numeric_limits<int64_t>::max()) return IntervalParse::kRangeError;
    int128_t months = unit == IntervalField::kYear ? n * 12 : n;
    months *= sign;
    if (!InRange<int32_t>(months)) return IntervalParse::kRangeError;
    *out = static_cast<int32_t>(months);
    return IntervalParse::kOk;
  };
  // [+|-]y-m
  if (start == IntervalField::kYear && end == IntervalField::kMonth) {
    IntervalScanner sc{s};
    int sign = sc.Sign();
    std::string_view y, m;
    if (sc.Digits(1, 1000, &y) && sc.Char('-') && sc.Digits(1, 1000, &m) && sc.AtEnd()) {
      return year_month(FinalSign(sign, 0), y, m);
    }
    IntervalScanner lit{s};
    if (lit.Keyword("interval") && lit.Spaces()) {
      int outer = lit.Sign();
      if (lit.Char('\'')) {
        int inner = lit.Sign();
        if (lit.Digits(1, 1000, &y) && lit.Char('-') && lit.Digits(1, 1000, &m) &&
            lit.Char('\'') && lit.Spaces() && lit.Keyword("YEAR") && lit.Spaces() &&
            lit.Keyword("TO") && lit.Spaces() && lit.Keyword("MONTH") && lit.AtEnd()) {
          return year_month(FinalSign(outer, inner), y, m);
        }
      }
    }
  }
  {
    IntervalScanner sc{s};
    int sign = sc.Sign();
    std::string_view v;
    if (sc.Digits(1, 1000, &v) && sc.AtEnd()) {
      if (end == IntervalField::kYear) return unit_value(FinalSign(sign, 0), v, IntervalField::kYear);
      if (start == IntervalField::kMonth) {
        return unit_value(FinalSign(sign, 0), v, IntervalField::kMonth);
      }
      return IntervalParse::kUnmatched;
    }
  }
  {
    IntervalScanner sc{s};
    if (sc.Keyword("interval") && sc.Spaces()) {
      int outer = sc.Sign();
      std::string_view v;
      if (sc.Char('\'')) {
        int inner = sc.Sign();
        if (sc.Digits(1, 1000, &v) && sc.Char('\'') && sc.Spaces()) {
          for (IntervalField unit : {IntervalField::kYear, IntervalField::kMonth}) {
            IntervalScanner u = sc;
            if (u.Keyword(FieldName(unit)) && u.AtEnd()) {
              if (start != unit || end != unit) return IntervalParse::kUnmatched;
              return unit_value(FinalSign(outer, inner), v, unit);
            }
          }
        }
      }
    }
  }
  return IntervalParse::kUnmatched;
}

// ---------------------------------------------------------------------------------------
// Result validity and loop drivers
// ---------------------------------------------------------------------------------------

enum class Outcome : uint8_t { kOk, kNull, kError };

// The validity of a cast result: the input's bitmap, shared until a row turns NULL.
class ResultValidity {
 public:
  explicit ResultValidity(const Column& in) : in_(in) {}
  void SetNull(int64_t i) {
    if (bits_ == nullptr) Materialize();
    bits::Clear(bits_->mutable_data(), i);
  }
  BufferPtr Finish(int64_t* null_count) {
    if (bits_ == nullptr) {
      *null_count = in_.null_count();
      return in_.validity();
    }
    *null_count = in_.length() - bits::CountSet(bits_->data(), in_.length());
    return bits_;
  }

 private:
  void Materialize() {
    int64_t bytes = bits::BytesFor(in_.length());
    bits_ = Buffer::Allocate(bytes);
    if (in_.validity() != nullptr) {
      std::memcpy(bits_->mutable_data(), in_.validity()->data(), bytes);
    } else {
      std::memset(bits_->mutable_data(), 0xff, bytes);
    }
  }
  const Column& in_;
  BufferPtr bits_;
};

inline bool RowValid(const uint8_t* validity, int64_t i) {
  return validity == nullptr || bits::Get(validity, i);
}

// out[i] = fn(i) for every row; the cast cannot fail, so validity is shared.
template <typename OutT, typename Fn>
ColumnPtr MapInfallible(const Column& in, const DataTypePtr& to, Fn&& fn) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(n * static_cast<int64_t>(sizeof(OutT)));
  OutT* out = values->mutable_data_as<OutT>();
  for (int64_t i = 0; i < n; ++i) out[i] = fn(i);
  return std::make_shared<const Column>(to, n, in.null_count(), in.validity(), values);
}

// fn(i, OutT*) -> Outcome for each valid row; err(i) -> Status for kError rows (kTry: NULL).
template <typename OutT, typename Fn, typename ErrFn>
Result<ColumnPtr> MapFixed(const Column& in, const DataTypePtr& to, CastMode mode, Fn&& fn,
                           ErrFn&& err) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(n * static_cast<int64_t>(sizeof(OutT)));
  OutT* out = values->mutable_data_as<OutT>();
  ResultValidity validity(in);
  const uint8_t* valid = in.validity_bits();
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) continue;
    Outcome o = fn(i, out + i);
    if (o == Outcome::kOk) [[likely]] {
      continue;
    }
    if (o == Outcome::kError && mode != CastMode::kTry) return err(i);
    out[i] = OutT{};
    validity.SetNull(i);
  }
  int64_t nulls = 0;
  BufferPtr bits = validity.Finish(&nulls);
  return std::make_shared<const Column>(to, n, nulls, std::move(bits), std::move(values));
}

template <typename Fn, typename ErrFn>
Result<ColumnPtr> MapBoolean(const Column& in, CastMode mode, Fn&& fn, ErrFn&& err) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* out = values->mutable_data();
  ResultValidity validity(in);
  const uint8_t* valid = in.validity_bits();
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) continue;
    bool v = false;
    Outcome o = fn(i, &v);
    if (o == Outcome::kOk) [[likely]] {
      if (v) bits::Set(out, i);
      continue;
    }
    if (o == Outcome::kError && mode != CastMode::kTry) return err(i);
    validity.SetNull(i);
  }
  int64_t nulls = 0;
  BufferPtr bits = validity.Finish(&nulls);
  return std::make_shared<const Column>(DataType::Boolean(), n, nulls, std::move(bits),
                                        std::move(values));
}

// fn(i, std::string* text) -> Outcome; text is reused between rows.
template <typename Fn>
ColumnPtr MapToString(const Column& in, const DataTypePtr& to, Fn&& fn) {
  const int64_t n = in.length();
  StringBuilder builder(to, n, n * 8);
  const uint8_t* valid = in.validity_bits();
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) {
      builder.AppendNull();
      continue;
    }
    text.clear();
    fn(i, &text);
    builder.Append(text);
  }
  return builder.Finish();
}

// A column of `to` sharing every buffer of `in` (same physical layout).
ColumnPtr Relabel(const Column& in, const DataTypePtr& to) {
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), in.data(), in.children());
}

bool IsAnsiInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
}

// ---------------------------------------------------------------------------------------
// Per-target casts
// ---------------------------------------------------------------------------------------

struct CastContext {
  CastMode mode;
  const EvalContext& ctx;
  bool ansi() const { return mode != CastMode::kLegacy; }
};

Result<ColumnPtr> Cast(const ColumnPtr& input, const DataTypePtr& to, const CastContext& cc);

// Dispatches fn.template operator()<T>() on the C++ type of a fixed-width numeric column.
template <typename Fn>
auto DispatchNumeric(TypeId id, Fn&& fn) {
  switch (id) {
    case TypeId::kByte: return fn.template operator()<int8_t>();
    case TypeId::kShort: return fn.template operator()<int16_t>();
    case TypeId::kInt: return fn.template operator()<int32_t>();
    case TypeId::kFloat: return fn.template operator()<float>();
    case TypeId::kDouble: return fn.template operator()<double>();
    case TypeId::kDecimal: return fn.template operator()<int128_t>();
    default: return fn.template operator()<int64_t>();
  }
}

// ---- to string --------------------------------------------------------------------------

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

// Text of element row k of a nested child already cast to string.
void AppendElement(std::string* out, const Column& strings, int64_t k) {
  if (strings.IsNull(k)) {
    out->append("null");
  } else {
    out->append(strings.GetView(k));
  }
}

Result<ColumnPtr> CastToString(const ColumnPtr& input, const DataTypePtr& to,
                               const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  switch (from.id()) {
    case TypeId::kString:
    case TypeId::kBinary: return Relabel(in, to);
    case TypeId::kBoolean:
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->append(in.GetBool(i) ? "true" : "false");
      });
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return DispatchNumeric(from.id(), [&]<typename T>() -> Result<ColumnPtr> {
        if constexpr (std::is_integral_v<T>) {
          const T* v = in.raw_values<T>();
          return MapToString(in, to, [&](int64_t i, std::string* s) { AppendInt(s, v[i]); });
        } else {
          return Status::Internal("unreachable");
        }
      });
    case TypeId::kFloat: {
      const float* v = in.raw_values<float>();
      return MapToString(in, to, [&](int64_t i, std::string* s) { *s = FormatFloat(v[i]); });
    }
    case TypeId::kDouble: {
      const double* v = in.raw_values<double>();
      return MapToString(in, to, [&](int64_t i, std::string* s) { *s = FormatDouble(v[i]); });
    }
    case TypeId::kDecimal: {
      const int128_t* v = in.raw_values<int128_t>();
      int scale = from.scale();
      // In ANSI (and try) mode Spark prints decimals plain; legacy uses BigDecimal.toString.
      if (cc.ansi()) {
        return MapToString(in, to,
                           [&](int64_t i, std::string* s) { *s = FormatDecimal(v[i], scale); });
      }
      return MapToString(in, to,
                         [&](int64_t i, std::string* s) { *s = JavaDecimalString(v[i], scale); });
    }
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapToString(in, to, [&](int64_t i, std::string* s) { *s = FormatDate(v[i]); });
    }
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatTimestampMicros(v[i], ZoneOffsetSeconds(ctx, v[i]));
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapToString(in, to,
                         [&](int64_t i, std::string* s) { *s = FormatTimestampMicros(v[i]); });
    }
    case TypeId::kDayTimeInterval: {
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField a = from.start_field(), b = from.end_field();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatDayTimeInterval(v[i], a, b);
      });
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      IntervalField a = from.start_field(), b = from.end_field();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatYearMonthInterval(v[i], a, b);
      });
    }
    case TypeId::kArray: {
      SPATE_ASSIGN_OR_RETURN(ColumnPtr elems, Cast(in.child(0), DataType::String(), cc));
      const int32_t* o = in.offsets();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->push_back('[');
        for (int32_t k = o[i]; k < o[i + 1]; ++k) {
          if (k > o[i]) s->append(", ");
          AppendElement(s, *elems, k);
        }
        s->push_back(']');
      });
    }
    case TypeId::kMap: {
      const Column& entries = *in.child(0);
      SPATE_ASSIGN_OR_RETURN(ColumnPtr keys, Cast(entries.child(0), DataType::String(), cc));
      SPATE_ASSIGN_OR_RETURN(ColumnPtr vals, Cast(entries.child(1), DataType::String(), cc));
      const int32_t* o = in.offsets();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->push_back('{');
        for (int32_t k = o[i]; k < o[i + 1]; ++k) {
          if (k > o[i]) s->append(", ");
          AppendElement(s, *keys, k);
          s->append(" -> ");
          AppendElement(s, *vals, k);
        }
        s->push_back('}');
      });
    }
    case TypeId::kStruct: {
      std::vector<ColumnPtr> fields;
      for (const auto& child : in.children()) {
        SPATE_ASSIGN_OR_RETURN(ColumnPtr f, Cast(child, DataType::String(), cc));
        fields.push_back(std::move(f));
      }
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->push_back('{');
        for (size_t f = 0; f < fields.size(); ++f) {
          if (f > 0) s->append(", ");
          AppendElement(s, *fields[f], i);
        }
        s->push_back('}');
      });
    }
    default: break;
  }
  return Status::Internal("cast to string from " + from.SimpleString());
}

// ---- to binary --------------------------------------------------------------------------

Result<ColumnPtr> CastToBinary(const ColumnPtr& input, const DataTypePtr& to,
                               const CastContext& cc) {
  const Column& in = *input;
  if (in.type_id() == TypeId::kString) return Relabel(in, to);
  // NumberConverter.toBinary: big-endian bytes of the integral value.
  return DispatchNumeric(in.type_id(), [&]<typename T>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<T> && !kIsInt128<T>) {
      const T* v = in.raw_values<T>();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        auto u = static_cast<std::make_unsigned_t<T>>(v[i]);
        for (int b = static_cast<int>(sizeof(T)) - 1; b >= 0; --b) {
          s->push_back(static_cast<char>((u >> (8 * b)) & 0xff));
        }
      });
    } else {
      return Status::Internal("cast to binary from " + in.type()->SimpleString());
    }
  });
}

// ---- to boolean -------------------------------------------------------------------------

Result<ColumnPtr> CastToBoolean(const ColumnPtr& input, const CastContext& cc) {
  const Column& in = *input;
  const DataType& to = *DataType::Boolean();
  switch (in.type_id()) {
    case TypeId::kString: {
      bool ansi = cc.ansi();
      return MapBoolean(
          in, cc.mode,
          [&](int64_t i, bool* out) {
            int b = ParseBoolean(in.GetView(i));
            if (b < 0) return ansi ? Outcome::kError : Outcome::kNull;
            *out = b == 1;
            return Outcome::kOk;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), to); });
    }
    case TypeId::kDate:
      // Hive returns NULL for date -> boolean (legacy mode only).
      return MapBoolean(in, cc.mode, [](int64_t, bool*) { return Outcome::kNull; },
                        [](int64_t) { return Status::OK(); });
    case TypeId::kTimestamp:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal: {
      TypeId id = in.type_id() == TypeId::kTimestamp ? TypeId::kLong : in.type_id();
      return DispatchNumeric(id, [&]<typename T>() -> Result<ColumnPtr> {
        const T* v = in.raw_values<T>();
        return MapBoolean(
            in, cc.mode,
            [&](int64_t i, bool* out) {
              *out = v[i] != T(0);  // NaN != 0 is true, as in Java
              return Outcome::kOk;
            },
            [](int64_t) { return Status::OK(); });
      });
    }
    default: break;
  }
  return Status::Internal("cast to boolean from " + in.type()->SimpleString());
}

// ---- to integral ------------------------------------------------------------------------

// Micros of a day-time interval in units of its end field (truncating toward zero).
int64_t DayTimeToEndUnits(int64_t micros, IntervalField end) {
  switch (end) {
    case IntervalField::kDay: return micros / kMicrosPerDay;
    case IntervalField::kHour: return micros / kMicrosPerHour;
    case IntervalField::kMinute: return micros / kMicrosPerMinute;
    default: return micros / kMicrosPerSecond;
  }
}

int64_t EndUnitMicros(IntervalField end) {
  switch (end) {
    case IntervalField::kDay: return kMicrosPerDay;
    case IntervalField::kHour: return kMicrosPerHour;
    case IntervalField::kMinute: return kMicrosPerMinute;
    default: return kMicrosPerSecond;
  }
}

template <typename T>
Result<ColumnPtr> CastToIntegral(const ColumnPtr& input, const DataTypePtr& to,
                                 const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const bool ansi = cc.ansi();
  const EvalContext& ctx = cc.ctx;
  auto overflow = [&](int64_t i) { return OverflowAt(in, i, *to, ctx); };
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapInfallible<T>(in, to, [&](int64_t i) { return static_cast<T>(in.GetBool(i)); });
    case TypeId::kString:
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int64_t v;
            // ANSI: no fraction allowed, out of range is malformed input (toIntExact).
            if (!ParseLong(in.GetView(i), !ansi, &v) || !InRange<T>(v)) {
              return ansi ? Outcome::kError : Outcome::kNull;
            }
            *out = static_cast<T>(v);
            return Outcome::kOk;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
    case TypeId::kDate:
      return MapFixed<T>(in, to, cc.mode, [](int64_t, T*) { return Outcome::kNull; },
                         [](int64_t) { return Status::OK(); });
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int64_t secs = FloorDiv(v[i], kMicrosPerSecond);
            if (!InRange<T>(secs)) return ansi ? Outcome::kError : Outcome::kNull;
            *out = static_cast<T>(secs);
            return Outcome::kOk;
          },
          overflow);
    }
    case TypeId::kDayTimeInterval: {
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField end = from.end_field();
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int64_t units = DayTimeToEndUnits(v[i], end);
            if (!InRange<T>(units)) return Outcome::kError;  // in every mode
            *out = static_cast<T>(units);
            return Outcome::kOk;
          },
          overflow);
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      bool years = from.end_field() == IntervalField::kYear;
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int32_t units = years ? v[i] / 12 : v[i];
            if (!InRange<T>(units)) return Outcome::kError;  // in every mode
            *out = static_cast<T>(units);
            return Outcome::kOk;
          },
          overflow);
    }
    default: break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      int128_t div = Pow10(from.scale());
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int128_t whole = v[i] / div;  // truncation toward zero
            if (ansi) {
              if (!InRange<T>(whole)) return Outcome::kError;
              *out = static_cast<T>(whole);
            } else {
              // Decimal.toLong keeps the low 64 bits, then narrows like Java.
              *out = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(
                  static_cast<uint128_t>(whole))));
            }
            return Outcome::kOk;
          },
          overflow);
    } else if constexpr (std::is_floating_point_v<S>) {
      // DoubleExactNumeric / FloatExactNumeric bounds: floor(x) <= MAX, ceil(x) >= MIN,
      // with MAX/MIN of int (for byte/short/int) or long, as the source's type.
      using Wide = std::conditional_t<std::is_same_v<T, int64_t>, int64_t, int32_t>;
      const S upper = static_cast<S>(std::numeric_limits<Wide>::max());
      const S lower = static_cast<S>(std::numeric_limits<Wide>::min());
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            S x = v[i];
            if (ansi) {
              if (!(std::floor(x) <= upper && std::ceil(x) >= lower)) return Outcome::kError;
              if constexpr (std::is_same_v<T, int64_t>) {
                *out = JavaDoubleToLong(x);
              } else {
                int32_t w = JavaDoubleToInt(x);
                if (!InRange<T>(w)) return Outcome::kError;
                *out = static_cast<T>(w);
              }
            } else if constexpr (std::is_same_v<T, int64_t>) {
              *out = JavaDoubleToLong(x);
            } else {
              *out = static_cast<T>(JavaDoubleToInt(x));  // saturate to int, then wrap
            }
            return Outcome::kOk;
          },
          overflow);
    } else if constexpr (sizeof(S) <= sizeof(T)) {
      return MapInfallible<T>(in, to, [&](int64_t i) { return static_cast<T>(v[i]); });
    } else {
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            if (ansi && !InRange<T>(v[i])) return Outcome::kError;
            *out = static_cast<T>(v[i]);  // two's complement wrap (legacy)
            return Outcome::kOk;
          },
          overflow);
    }
  });
}

// ---- to float / double ------------------------------------------------------------------

// BigDecimal.doubleValue / floatValue: correctly rounded.
template <typename F>
F DecimalToFloating(int128_t unscaled, int scale) {
  constexpr int128_t kExact = std::is_same_v<F, double> ? (int128_t(1) << 53) : (1 << 24);
  constexpr int kMaxExactScale = std::is_same_v<F, double> ? 22 : 10;
  if (unscaled < kExact && unscaled > -kExact && scale <= kMaxExactScale) {
    return static_cast<F>(unscaled) / static_cast<F>(Pow10(scale));
  }
  std::string text = Int128ToString(unscaled) + "e-" + std::to_string(scale);
  F v{};
  const char* b = text.data();
  bool neg = text[0] == '-';
  if (neg) ++b;
  std::from_chars(b, text.data() + text.size(), v);
  return neg ? -v : v;
}

template <typename F>
Result<ColumnPtr> CastToFloating(const ColumnPtr& input, const DataTypePtr& to,
                                 const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapInfallible<F>(in, to, [&](int64_t i) { return F(in.GetBool(i) ? 1 : 0); });
    case TypeId::kString: {
      // try_cast uses the legacy cast for string -> fractional (NULL on bad input).
      bool ansi = cc.mode == CastMode::kAnsi;
      return MapFixed<F>(
          in, to, cc.mode,
          [&](int64_t i, F* out) {
            if (ParseFloating<F>(in.GetView(i), out)) return Outcome::kOk;
            return ansi ? Outcome::kError : Outcome::kNull;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
    }
    case TypeId::kDate:
      return MapFixed<F>(in, to, cc.mode, [](int64_t, F*) { return Outcome::kNull; },
                         [](int64_t) { return Status::OK(); });
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapInfallible<F>(in, to, [&](int64_t i) {
        return static_cast<F>(static_cast<double>(v[i]) / 1e6);
      });
    }
    default: break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      int scale = from.scale();
      return MapInfallible<F>(in, to,
                              [&](int64_t i) { return DecimalToFloating<F>(v[i], scale); });
    } else {
      return MapInfallible<F>(in, to, [&](int64_t i) { return static_cast<F>(v[i]); });
    }
  });
}

// ---- to decimal -------------------------------------------------------------------------

Result<ColumnPtr> CastToDecimal(const ColumnPtr& input, const DataTypePtr& to,
                                const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const int p = to->precision(), s = to->scale();
  const bool ansi = cc.ansi();
  const Outcome on_overflow = ansi ? Outcome::kError : Outcome::kNull;
  // |v| * 10^s must stay below 10^p: v must have at most p - s integral digits.
  auto scale_up = [p, s](int128_t v, int128_t* out) {
    if (!FitsPrecision(v, p - s)) return false;
    *out = v * Pow10(s);
    return true;
  };
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(in.GetBool(i) ? 1 : 0, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(in.GetBool(i) ? "1" : "0", *to); });
    case TypeId::kString: {
      enum class Failure { kNone, kMalformed, kTooManyDigits, kOutOfRange };
      Failure failure = Failure::kNone;
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            if (!ParseBigDecimal(JavaTrim(in.GetView(i)), &text)) {
              failure = Failure::kMalformed;
              return ansi ? Outcome::kError : Outcome::kNull;
            }
            if (text.IntegralDigits() > kMaxDecimalPrecision) {
              failure = Failure::kTooManyDigits;
              return on_overflow;
            }
            if (!text.ToUnscaled(p, s, out)) {
              failure = Failure::kOutOfRange;
              return on_overflow;
            }
            return Outcome::kOk;
          },
          [&](int64_t i) {
            std::string_view sv = in.GetView(i);
            switch (failure) {
              case Failure::kMalformed: return InvalidInputError(sv, *to);
              case Failure::kTooManyDigits:
                return Status::Error("NUMERIC_OUT_OF_SUPPORTED_RANGE",
                                     {{"value", std::string(sv)}});
              default: return DecimalOutOfRangeError(text.Plain(), *to);
            }
          });
    }
    case TypeId::kDate:
      return MapFixed<int128_t>(in, to, cc.mode, [](int64_t, int128_t*) { return Outcome::kNull; },
                                [](int64_t) { return Status::OK(); });
    case TypeId::kTimestamp: {
      // Through the double value of seconds (Spark notes the precision loss).
      const int64_t* v = in.raw_values<int64_t>();
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            text = DoubleToDecimalText(static_cast<double>(v[i]) / 1e6);
            return text.ToUnscaled(p, s, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(text.Plain(), *to); });
    }
    case TypeId::kDayTimeInterval: {
      // Whole end-field units, or seconds with 6 fraction digits; overflow fails always.
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField end = from.end_field();
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            if (end == IntervalField::kSecond) {
              int128_t r = s >= 6 ? int128_t(v[i]) * Pow10(s - 6) : DivPow10HalfUp(v[i], 6 - s);
              if (!FitsPrecision(r, p)) return Outcome::kError;
              *out = r;
              return Outcome::kOk;
            }
            return scale_up(DayTimeToEndUnits(v[i], end), out) ? Outcome::kOk : Outcome::kError;
          },
          [&](int64_t i) {
            std::string plain = end == IntervalField::kSecond
                                    ? FormatDecimal(v[i], 6)
                                    : std::to_string(DayTimeToEndUnits(v[i], end));
            return DecimalOutOfRangeError(plain, *to);
          });
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      bool years = from.end_field() == IntervalField::kYear;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(years ? v[i] / 12 : v[i], out) ? Outcome::kOk : Outcome::kError;
          },
          [&](int64_t i) {
            return DecimalOutOfRangeError(std::to_string(years ? v[i] / 12 : v[i]), *to);
          });
    }
    default: break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      // Decimal.toPrecision with ROUND_HALF_UP.
      const int fs = from.scale();
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            int128_t x = v[i];
            if (s >= fs) {
              int up = s - fs;
              if (p - up < 0 ? x != 0 : !FitsPrecision(x, p - up)) return on_overflow;
              *out = x * Pow10(up);
            } else {
              int128_t r = DivPow10HalfUp(x, fs - s);
              if (!FitsPrecision(r, p)) return on_overflow;
              *out = r;
            }
            return Outcome::kOk;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(FormatDecimal(v[i], fs), *to); });
    } else if constexpr (std::is_floating_point_v<S>) {
      // Decimal(double) goes through Double.toString; NaN and infinities are NULL in every
      // mode (BigDecimal rejects them with NumberFormatException, which Cast catches).
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            double x = static_cast<double>(v[i]);
            if (!std::isfinite(x)) return Outcome::kNull;
            text = DoubleToDecimalText(x);
            return text.ToUnscaled(p, s, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(text.Plain(), *to); });
    } else {
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(static_cast<int128_t>(v[i]), out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(std::to_string(v[i]), *to); });
    }
  });
}

// ---- to date ----------------------------------------------------------------------------

Result<ColumnPtr> CastToDate(const ColumnPtr& input, const DataTypePtr& to,
                             const CastContext& cc) {
  const Column& in = *input;
  switch (in.type_id()) {
    case TypeId::kString: {
      // try_cast uses the legacy cast for string -> datetime (NULL on bad input).
      bool ansi = cc.mode == CastMode::kAnsi;
      return MapFixed<int32_t>(
          in, to, cc.mode,
          [&](int64_t i, int32_t* out) {
            if (ParseDate(in.GetView(i), out)) return Outcome::kOk;
            return ansi ? Outcome::kError : Outcome::kNull;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
    }
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapInfallible<int32_t>(in, to, [&](int64_t i) {
        int64_t local = v[i] + ZoneOffsetSeconds(ctx, v[i]) * kMicrosPerSecond;
        return static_cast<int32_t>(FloorDiv(local, kMicrosPerDay));
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapInfallible<int32_t>(in, to, [&](int64_t i) {
        return static_cast<int32_t>(FloorDiv(v[i], kMicrosPerDay));
      });
    }
    default: break;
  }
  return Status::Internal("cast to date from " + in.type()->SimpleString());
}

// ---- to timestamp / timestamp_ntz -------------------------------------------------------

Result<ColumnPtr> CastToTimestamp(const ColumnPtr& input, const DataTypePtr& to,
                                  const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  switch (from.id()) {
    case TypeId::kString: {
      bool ansi = cc.mode == CastMode::kAnsi;
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            if (ParseTimestamp(in.GetView(i), ctx, out)) return Outcome::kOk;
            return ansi ? Outcome::kError : Outcome::kNull;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
    }
    case TypeId::kBoolean:
      // Legacy only: true is one microsecond after the epoch.
      return MapInfallible<int64_t>(in, to, [&](int64_t i) { return int64_t{in.GetBool(i)}; });
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      ParsedZone zone = SessionZone(ctx);
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        bool overflow;
        return LocalToUtc(zone, int64_t{v[i]} * kMicrosPerDay, &overflow);
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      ParsedZone zone = SessionZone(ctx);
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        bool overflow;
        return LocalToUtc(zone, v[i], &overflow);
      });
    }
    default: break;
  }
  const bool ansi = cc.ansi();
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      // (d * 1e6).longValue: truncated, low 64 bits kept.
      int fs = from.scale();
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        uint128_t m = fs >= 6 ? static_cast<uint128_t>(v[i] / Pow10(fs - 6))
                              : static_cast<uint128_t>(v[i]) * static_cast<uint128_t>(Pow10(6 - fs));
        return static_cast<int64_t>(static_cast<uint64_t>(m));
      });
    } else if constexpr (std::is_floating_point_v<S>) {
      double product = 0;
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            double d = static_cast<double>(v[i]);
            if (std::isnan(d) || std::isinf(d)) return ansi ? Outcome::kError : Outcome::kNull;
            product = d * 1e6;
            if (ansi && !(std::floor(product) <= 9223372036854775807.0 &&
                          std::ceil(product) >= -9223372036854775808.0)) {
              return Outcome::kError;
            }
            *out = JavaDoubleToLong(product);
            return Outcome::kOk;
          },
          [&](int64_t i) {
            double d = static_cast<double>(v[i]);
            if (std::isnan(d) || std::isinf(d)) {
              // doubleToTimestampAnsi reports the value as a DOUBLE.
              return Status::Error("CAST_INVALID_INPUT",
                                   {{"expression", SqlValue(Value::Double(d), ctx)},
                                    {"sourceType", SqlType(*DataType::Double())},
                                    {"targetType", SqlType(*to)}});
            }
            return OverflowError(SqlValue(Value::Double(product), ctx), *DataType::Double(),
                                 *DataType::Long());
          });
    } else {
      // SECONDS.toMicros saturates.
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        int64_t out;
        if (MulOverflow(static_cast<int64_t>(v[i]), kMicrosPerSecond, &out)) {
          return v[i] < 0 ? std::numeric_limits<int64_t>::min()
                          : std::numeric_limits<int64_t>::max();
        }
        return out;
      });
    }
  });
}

Result<ColumnPtr> CastToTimestampNtz(const ColumnPtr& input, const DataTypePtr& to,
                                     const CastContext& cc) {
  const Column& in = *input;
  switch (in.type_id()) {
    case TypeId::kString: {
      bool ansi = cc.mode == CastMode::kAnsi;
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            if (ParseTimestampNtz(in.GetView(i), out)) return Outcome::kOk;
            return ansi ? Outcome::kError : Outcome::kNull;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
    }
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapInfallible<int64_t>(in, to,
                                    [&](int64_t i) { return int64_t{v[i]} * kMicrosPerDay; });
    }
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        return v[i] + ZoneOffsetSeconds(ctx, v[i]) * kMicrosPerSecond;
      });
    }
    default: break;
  }
  return Status::Internal("cast to timestamp_ntz from " + in.type()->SimpleString());
}

// ---- to intervals -----------------------------------------------------------------------

Result<ColumnPtr> CastToDayTimeInterval(const ColumnPtr& input, const DataTypePtr& to,
                                        const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  const IntervalField end = to->end_field();
  const int64_t unit = EndUnitMicros(end);
  switch (from.id()) {
    case TypeId::kString: {
      IntervalParse failure = IntervalParse::kOk;
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            failure = ParseDayTimeInterval(in.GetView(i), *to, out);
            return failure == IntervalParse::kOk ? Outcome::kOk : Outcome::kError;
          },
          [&](int64_t i) {
            return failure == IntervalParse::kUnmatched
                       ? UnmatchedIntervalError(in.GetView(i), *to)
                       : IntervalParsingError(in.GetView(i), *to);
          });
    }
    case TypeId::kDayTimeInterval: {
      // durationToMicros(microsToDuration(v), end): whole end units of the floored seconds.
      const int64_t* v = in.raw_values<int64_t>();
      if (end == IntervalField::kSecond) {
        return MapInfallible<int64_t>(in, to, [&](int64_t i) { return v[i]; });
      }
      int64_t unit_secs = unit / kMicrosPerSecond;
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        return FloorDiv(v[i], kMicrosPerSecond) / unit_secs * unit;
      });
    }
    case TypeId::kDecimal: {
      const int128_t* v = in.raw_values<int128_t>();
      int fs = from.scale();
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            // d * unit rounded half-up to whole microseconds (decimalToDayTimeInterval).
            DecimalText text = DecimalTextOf(v[i], fs);
            MultiplyBy(&text, static_cast<uint64_t>(unit));
            int128_t r;
            if (!text.ToUnscaled(kMaxDecimalPrecision, 0, &r) || !InRange<int64_t>(r)) {
              return Outcome::kError;
            }
            *out = static_cast<int64_t>(r);
            return Outcome::kOk;
          },
          [&](int64_t i) { return OverflowAt(in, i, *to, ctx); });
    }
    default: break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<S> && !kIsInt128<S>) {
      const S* v = in.raw_values<S>();
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            return MulOverflow(static_cast<int64_t>(v[i]), unit, out) ? Outcome::kError
                                                                      : Outcome::kOk;
          },
          [&](int64_t i) { return OverflowAt(in, i, *to, ctx); });
    } else {
      return Status::Internal("cast to interval from " + from.SimpleString());
    }
  });
}

Result<ColumnPtr> CastToYearMonthInterval(const ColumnPtr& input, const DataTypePtr& to,
                                          const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  const bool years = to->end_field() == IntervalField::kYear;
  const int64_t unit = years ? 12 : 1;
  switch (from.id()) {
    case TypeId::kString: {
      IntervalParse failure = IntervalParse::kOk;
      return MapFixed<int32_t>(
          in, to, cc.mode,
          [&](int64_t i, int32_t* out) {
            failure = ParseYearMonthInterval(in.GetView(i), *to, out);
            return failure == IntervalParse::kOk ? Outcome::kOk : Outcome::kError;
          },
          [&](int64_t i) {
            return failure == IntervalParse::kUnmatched
                       ? UnmatchedIntervalError(in.GetView(i), *to)
                       : IntervalParsingError(in.GetView(i), *to);
          });
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapInfallible<int32_t>(in, to,
                                    [&](int64_t i) { return years ? v[i] / 12 * 12 : v[i]; });
    }
    case TypeId::kDecimal: {
      const int128_t* v = in.raw_values<int128_t>();
      int fs = from.scale();
      return MapFixed<int32_t>(
          in, to, cc.mode,
          [&](int64_t i, int32_t* out) {
            DecimalText text = DecimalTextOf(v[i], fs);
            MultiplyBy(&text, static_cast<uint64_t>(unit));
            int128_t r;
            if (!text.ToUnscaled(kMaxDecimalPrecision, 0, &r) || !InRange<int32_t>(r)) {
              return Outcome::kError;
            }
            *out = static_cast<int32_t>(r);
            return Outcome::kOk;
          },
          [&](int64_t i) { return OverflowAt(in, i, *to, ctx); });
    }
    default: break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<S> && !kIsInt128<S>) {
      const S* v = in.raw_values<S>();
      return MapFixed<int32_t>(
          in, to, cc.mode,
          [&](int64_t i, int32_t* out) {
            int64_t m = static_cast<int64_t>(v[i]) * unit;
            if (!InRange<int32_t>(v[i]) || !InRange<int32_t>(m)) return Outcome::kError;
            *out = static_cast<int32_t>(m);
            return Outcome::kOk;
          },
          [&](int64_t i) {
            // longToYearMonthInterval reports the long; intToYearMonthInterval the int.
            if (std::is_same_v<S, int64_t> && !InRange<int32_t>(v[i])) {
              return OverflowAt(in, i, *to, ctx);
            }
            return OverflowError(std::to_string(static_cast<int64_t>(v[i])), *DataType::Int(),
                                 *to);
          });
    } else {
      return Status::Internal("cast to interval from " + from.SimpleString());
    }
  });
}

// ---- nested -----------------------------------------------------------------------------

Result<ColumnPtr> CastArray(const ColumnPtr& input, const DataTypePtr& to, const CastContext& cc) {
  const Column& in = *input;
  SPATE_ASSIGN_OR_RETURN(ColumnPtr elems, Cast(in.child(0), to->element_type(), cc));
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), nullptr, std::vector<ColumnPtr>{elems});
}

Result<ColumnPtr> CastMap(const ColumnPtr& input, const DataTypePtr& to, const CastContext& cc) {
  const Column& in = *input;
  const Column& entries = *in.child(0);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr keys, Cast(entries.child(0), to->key_type(), cc));
  SPATE_ASSIGN_OR_RETURN(ColumnPtr vals, Cast(entries.child(1), to->value_type(), cc));
  auto entry_type = DataType::Struct(
      {Field{"key", to->key_type(), false}, Field{"value", to->value_type(), true}});
  auto new_entries = std::make_shared<const Column>(
      entry_type, entries.length(), entries.null_count(), entries.validity(), nullptr, nullptr,
      std::vector<ColumnPtr>{keys, vals});
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), nullptr,
                                        std::vector<ColumnPtr>{new_entries});
}

Result<ColumnPtr> CastStruct(const ColumnPtr& input, const DataTypePtr& to,
                             const CastContext& cc) {
  const Column& in = *input;
  std::vector<ColumnPtr> children;
  for (size_t f = 0; f < to->fields().size(); ++f) {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c, Cast(in.child(static_cast<int>(f)), to->fields()[f].type, cc));
    children.push_back(std::move(c));
  }
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(), nullptr,
                                        nullptr, std::move(children));
}

// ---- dispatch ---------------------------------------------------------------------------

Result<ColumnPtr> Cast(const ColumnPtr& input, const DataTypePtr& to, const CastContext& cc) {
  const DataType& from = *input->type();
  if (from.Equals(*to)) return input;
  if (from.id() == TypeId::kNull) return Column::MakeNull(to, input->length());
  switch (to->id()) {
    case TypeId::kString: return CastToString(input, to, cc);
    case TypeId::kBinary: return CastToBinary(input, to, cc);
    case TypeId::kBoolean: return CastToBoolean(input, cc);
    case TypeId::kByte: return CastToIntegral<int8_t>(input, to, cc);
    case TypeId::kShort: return CastToIntegral<int16_t>(input, to, cc);
    case TypeId::kInt: return CastToIntegral<int32_t>(input, to, cc);
    case TypeId::kLong: return CastToIntegral<int64_t>(input, to, cc);
    case TypeId::kFloat: return CastToFloating<float>(input, to, cc);
    case TypeId::kDouble: return CastToFloating<double>(input, to, cc);
    case TypeId::kDecimal: return CastToDecimal(input, to, cc);
    case TypeId::kDate: return CastToDate(input, to, cc);
    case TypeId::kTimestamp: return CastToTimestamp(input, to, cc);
    case TypeId::kTimestampNtz: return CastToTimestampNtz(input, to, cc);
    case TypeId::kDayTimeInterval: return CastToDayTimeInterval(input, to, cc);
    case TypeId::kYearMonthInterval: return CastToYearMonthInterval(input, to, cc);
    case TypeId::kArray: return CastArray(input, to, cc);
    case TypeId::kMap: return CastMap(input, to, cc);
    case TypeId::kStruct: return CastStruct(input, to, cc);
    case TypeId::kNull: break;
  }
  return Status::Internal("cast from " + from.SimpleString() + " to " + to->SimpleString());
}

// ---------------------------------------------------------------------------------------
// Which casts Spark allows (Cast.canCast / canAnsiCast / canTryCast)
// ---------------------------------------------------------------------------------------

// DecimalType.forType of an integral type.
void IntegralDecimal(TypeId id, int* p, int* s) {
  *s = 0;
  switch (id) {
    case TypeId::kByte: *p = 3; break;
    case TypeId::kShort: *p = 5; break;
    case TypeId::kInt: *p = 10; break;
    default: *p = 20; break;
  }
}

// DecimalType.isWiderThan.
bool DecimalWiderThan(const DataType& dec, const DataType& other) {
  int p, s;
  if (other.id() == TypeId::kDecimal) {
    p = other.precision(), s = other.scale();
  } else if (other.IsIntegral()) {
    IntegralDecimal(other.id(), &p, &s);
  } else {
    return false;
  }
  return dec.precision() - dec.scale() >= p - s && dec.scale() >= s;
}

bool CanNullSafeCastToDecimal(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::kBoolean) return to.precision() - to.scale() >= 1;
  if (from.id() == TypeId::kDecimal) {
    return to.precision() - to.scale() > from.precision() - from.scale();
  }
  if (from.IsNumeric()) return DecimalWiderThan(to, from);
  return false;
}

// Cast.forceNullable: casting a non-null value may give NULL.
bool ForceNullable(const DataType& from, const DataType& to) {
  TypeId f = from.id(), t = to.id();
  if (f == TypeId::kNull) return false;
  if (from.Equals(to)) return false;
  if (f == TypeId::kString) return !(t == TypeId::kBinary || t == TypeId::kString);
  if (t == TypeId::kString) return false;
  if (f == TypeId::kTimestamp &&
      (t == TypeId::kByte || t == TypeId::kShort || t == TypeId::kInt)) {
    return true;
  }
  if (from.IsFloating() && t == TypeId::kTimestamp) return true;
  if (f == TypeId::kTimestamp && t == TypeId::kDate) return false;
  if (t == TypeId::kDate) return true;
  if (f == TypeId::kDate && t == TypeId::kTimestamp) return false;
  if (f == TypeId::kDate) return true;
  if (t == TypeId::kDecimal && !CanNullSafeCastToDecimal(from, to)) return true;
  if ((f == TypeId::kFloat || f == TypeId::kDouble || f == TypeId::kDecimal) &&
      to.IsIntegral()) {
    return true;  // NaN, infinity
  }
  return false;
}

bool Resolvable(bool from_nullable, bool to_nullable) { return !from_nullable || to_nullable; }

bool CanLegacyCast(const DataType& from, const DataType& to);
bool CanAnsiCast(const DataType& from, const DataType& to);

// The rules shared by canCast and canTryCast for nested types (element casts are legacy).
bool CanLegacyCastNested(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::kArray && to.id() == TypeId::kArray) {
    return CanLegacyCast(*from.element_type(), *to.element_type()) &&
           Resolvable(from.contains_null() ||
                          ForceNullable(*from.element_type(), *to.element_type()),
                      to.contains_null());
  }
  if (from.id() == TypeId::kMap && to.id() == TypeId::kMap) {
    return CanLegacyCast(*from.key_type(), *to.key_type()) &&
           !ForceNullable(*from.key_type(), *to.key_type()) &&
           CanLegacyCast(*from.value_type(), *to.value_type()) &&
           Resolvable(from.value_contains_null() ||
                          ForceNullable(*from.value_type(), *to.value_type()),
                      to.value_contains_null());
  }
  if (from.id() == TypeId::kStruct && to.id() == TypeId::kStruct) {
    if (from.fields().size() != to.fields().size()) return false;
    for (size_t i = 0; i < from.fields().size(); ++i) {
      const Field& a = from.fields()[i];
      const Field& b = to.fields()[i];
      if (!CanLegacyCast(*a.type, *b.type) ||
          !Resolvable(a.nullable || ForceNullable(*a.type, *b.type), b.nullable)) {
        return false;
      }
    }
    return true;
  }
  return false;
}

bool CanLegacyCast(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  TypeId f = from.id(), t = to.id();
  if (f == TypeId::kNull) return true;
  if (t == TypeId::kString) return true;
  switch (t) {
    case TypeId::kBinary: return f == TypeId::kString || from.IsIntegral();
    case TypeId::kBoolean:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestamp ||
             from.IsNumeric();
    case TypeId::kTimestamp:
      return f == TypeId::kString || f == TypeId::kBoolean || f == TypeId::kDate ||
             from.IsNumeric() || f == TypeId::kTimestampNtz;
    case TypeId::kTimestampNtz:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestamp;
    case TypeId::kDate:
      return f == TypeId::kString || f == TypeId::kTimestamp || f == TypeId::kTimestampNtz;
    case TypeId::kDayTimeInterval:
      return f == TypeId::kString || f == TypeId::kDayTimeInterval || from.IsIntegral() ||
             f == TypeId::kDecimal;
    case TypeId::kYearMonthInterval:
      return f == TypeId::kString || f == TypeId::kYearMonthInterval || from.IsIntegral() ||
             f == TypeId::kDecimal;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
      if (IsAnsiInterval(from)) return true;
      [[fallthrough]];
    case TypeId::kFloat:
    case TypeId::kDouble:
      return f == TypeId::kString || f == TypeId::kBoolean || f == TypeId::kDate ||
             f == TypeId::kTimestamp || from.IsNumeric();
    case TypeId::kArray:
    case TypeId::kMap:
    case TypeId::kStruct: return CanLegacyCastNested(from, to);
    default: return false;
  }
}

bool CanAnsiCast(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  TypeId f = from.id(), t = to.id();
  if (f == TypeId::kNull) return true;
  if (t == TypeId::kString) return true;
  switch (t) {
    case TypeId::kBinary: return f == TypeId::kString;
    case TypeId::kBoolean: return f == TypeId::kString || from.IsNumeric();
    case TypeId::kTimestamp:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestampNtz ||
             from.IsNumeric();
    case TypeId::kTimestampNtz:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestamp;
    case TypeId::kDate:
      return f == TypeId::kString || f == TypeId::kTimestamp || f == TypeId::kTimestampNtz;
    case TypeId::kDayTimeInterval:
      return f == TypeId::kString || f == TypeId::kDayTimeInterval || from.IsIntegral() ||
             f == TypeId::kDecimal;
    case TypeId::kYearMonthInterval:
      return f == TypeId::kString || f == TypeId::kYearMonthInterval || from.IsIntegral() ||
             f == TypeId::kDecimal;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
      if (IsAnsiInterval(from)) return true;
      [[fallthrough]];
    case TypeId::kFloat:
    case TypeId::kDouble:
      return f == TypeId::kString || f == TypeId::kBoolean || f == TypeId::kTimestamp ||
             from.IsNumeric();
    case TypeId::kArray:
      return f == TypeId::kArray && CanAnsiCast(*from.element_type(), *to.element_type()) &&
             Resolvable(from.contains_null(), to.contains_null());
    case TypeId::kMap:
      return f == TypeId::kMap && CanAnsiCast(*from.key_type(), *to.key_type()) &&
             CanAnsiCast(*from.value_type(), *to.value_type()) &&
             Resolvable(from.value_contains_null(), to.value_contains_null());
    case TypeId::kStruct: {
      if (f != TypeId::kStruct || from.fields().size() != to.fields().size()) return false;
      for (size_t i = 0; i < from.fields().size(); ++i) {
        const Field& a = from.fields()[i];
        const Field& b = to.fields()[i];
        if (!CanAnsiCast(*a.type, *b.type) || !Resolvable(a.nullable, b.nullable)) return false;
      }
      return true;
    }
    default: return false;
  }
}

// DecimalType.isTighterThan.
bool DecimalTighterThan(const DataType& dec, const DataType& other) {
  int p, s;
  if (other.id() == TypeId::kDecimal) {
    p = other.precision(), s = other.scale();
  } else if (other.IsIntegral()) {
    IntegralDecimal(other.id(), &p, &s);
  } else {
    return false;
  }
  return dec.precision() - dec.scale() <= p - s && dec.scale() <= s;
}

// Position in TypeCoercion.numericPrecedence (byte < short < int < long < float < double).
int NumericPrecedence(TypeId id) {
  switch (id) {
    case TypeId::kByte: return 0;
    case TypeId::kShort: return 1;
    case TypeId::kInt: return 2;
    case TypeId::kLong: return 3;
    case TypeId::kFloat: return 4;
    case TypeId::kDouble: return 5;
    default: return -1;
  }
}

// Cast.canUpCast (UpCastRule): no truncation, precision loss or runtime failure.
bool CanUpCast(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  TypeId f = from.id(), t = to.id();
  if (from.IsNumeric() && t == TypeId::kDecimal && DecimalWiderThan(to, from)) return true;
  if (f == TypeId::kDecimal && to.IsIntegral()) {
    // SPARK-40389: decimal(10,0) does not fit an int; fewer integral digits than the
    // integral type's decimal form are safe.
    int p, sc;
    IntegralDecimal(t, &p, &sc);
    return from.precision() - from.scale() < p;
  }
  if (f == TypeId::kDecimal && to.IsNumeric() && DecimalTighterThan(from, to)) return true;
  int fp = NumericPrecedence(f), tp = NumericPrecedence(t);
  if (fp >= 0 && tp >= 0 && fp < tp) return true;
  if (f == TypeId::kDate && (t == TypeId::kTimestamp || t == TypeId::kTimestampNtz)) return true;
  if ((f == TypeId::kTimestamp && t == TypeId::kTimestampNtz) ||
      (f == TypeId::kTimestampNtz && t == TypeId::kTimestamp)) {
    return true;
  }
  if (t == TypeId::kString && !from.IsNested()) return true;
  if (f == TypeId::kNull) return true;
  if ((f == TypeId::kTimestamp && t == TypeId::kLong) ||
      (f == TypeId::kLong && t == TypeId::kTimestamp)) {
    return true;
  }
  if (f != t) return false;
  switch (f) {
    case TypeId::kArray:
      return Resolvable(from.contains_null(), to.contains_null()) &&
             CanUpCast(*from.element_type(), *to.element_type());
    case TypeId::kMap:
      return Resolvable(from.value_contains_null(), to.value_contains_null()) &&
             CanUpCast(*from.key_type(), *to.key_type()) &&
             CanUpCast(*from.value_type(), *to.value_type());
    case TypeId::kStruct:
      if (from.fields().size() != to.fields().size()) return false;
      for (size_t i = 0; i < from.fields().size(); ++i) {
        if (!Resolvable(from.fields()[i].nullable, to.fields()[i].nullable) ||
            !CanUpCast(*from.fields()[i].type, *to.fields()[i].type)) {
          return false;
        }
      }
      return true;
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval: return true;
    default: return false;
  }
}

// Cast.nullable, including try_cast's rule.
bool CastNullable(const DataType& from, const DataType& to, bool child_nullable, bool is_try) {
  if (!is_try) return child_nullable || ForceNullable(from, to);
  if (from.id() == TypeId::kString && to.id() == TypeId::kBinary) return child_nullable;
  if (from.id() == TypeId::kDecimal && to.IsIntegral()) return true;
  return child_nullable || !CanUpCast(from, to);
}

bool CanTryCast(const DataType& from, const DataType& to) {
  if (from.IsNested() && to.IsNested() && from.id() == to.id()) {
    return CanLegacyCastNested(from, to);
  }
  return CanAnsiCast(from, to);
}

// The CAST node: evaluates its child and casts the column.
class CastExpr final : public BoundExpr {
 public:
  CastExpr(BoundExprPtr child, DataTypePtr to, bool is_try, bool nullable)
      : BoundExpr(std::move(to), nullable, {std::move(child)}), is_try_(is_try) {}

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c, children_[0]->Evaluate(input, ctx));
    CastMode mode = is_try_ ? CastMode::kTry : (ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy);
    if (mode == CastMode::kAnsi && !CanCast(*children_[0]->type(), *type_, mode)) {
      return CheckCast(*children_[0]->type(), *type_, mode, SqlText());
    }
    return CastColumn(c, type_, mode, ctx);
  }
  std::string ToString() const override {
    return std::string(is_try_ ? "try_cast(" : "cast(") + children_[0]->ToString() + " as " +
           type_->SimpleString() + ")";
  }

 private:
  std::string SqlText() const {
    return std::string(is_try_ ? "TRY_CAST(" : "CAST(") + children_[0]->ToString() + " AS " +
           type_->Sql() + ")";
  }
  bool is_try_;
};

}  // namespace

bool CanCast(const DataType& from, const DataType& to, CastMode mode) {
  switch (mode) {
    case CastMode::kAnsi: return CanAnsiCast(from, to);
    case CastMode::kTry: return CanTryCast(from, to);
    case CastMode::kLegacy: return CanLegacyCast(from, to);
  }
  return false;
}

Status CheckCast(const DataType& from, const DataType& to, CastMode mode,
                 std::string_view sql_expr) {
  if (CanCast(from, to, mode)) return Status::OK();
  std::vector<ErrorParam> params = {{"sqlExpr", "\"" + std::string(sql_expr) + "\""},
                                    {"srcType", SqlType(from)},
                                    {"targetType", SqlType(to)}};
  if (mode != CastMode::kLegacy) {
    // Cast.typeCheckFailureMessage: functions for datetime <-> numeric, then the ANSI
    // config when the legacy cast would work.
    const char* functions = nullptr;
    if (from.IsNumeric() && to.id() == TypeId::kTimestamp) {
      functions = "`TIMESTAMP_SECONDS`/`TIMESTAMP_MILLIS`/`TIMESTAMP_MICROS`";
    } else if (from.id() == TypeId::kTimestamp && to.IsNumeric()) {
      functions = "`UNIX_SECONDS`/`UNIX_MILLIS`/`UNIX_MICROS`";
    } else if (from.IsNumeric() && to.id() == TypeId::kDate) {
      functions = "`DATE_FROM_UNIX_DATE`";
    } else if (from.id() == TypeId::kDate && to.IsNumeric()) {
      functions = "`UNIX_DATE`";
    }
    if (functions != nullptr) {
      params.push_back({"functionNames", functions});
      return Status::Error("DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION", std::move(params));
    }
    if (mode == CastMode::kAnsi && CanLegacyCast(from, to)) {
      params.push_back({"config", "\"spark.sql.ansi.enabled\""});
      params.push_back({"configVal", "'false'"});
      return Status::Error("DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION", std::move(params));
    }
  }
  return Status::Error("DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION", std::move(params));
}

Result<ColumnPtr> CastColumn(const ColumnPtr& input, const DataTypePtr& to, CastMode mode,
                             const EvalContext& ctx) {
  const DataType& from = *input->type();
  if (from.Equals(*to)) return input;
  if (!CanCast(from, *to, mode)) {
    return CheckCast(from, *to, mode, "CAST(input AS " + to->Sql() + ")");
  }
  return Cast(input, to, CastContext{mode, ctx});
}

Result<BoundExprPtr> MakeCast(BoundExprPtr child, DataTypePtr to, bool is_try) {
  const DataType& from = *child->type();
  if (from.Equals(*to)) return child;
  // The ANSI flag is known only at evaluation; the widest (legacy) rules apply here and
  // Evaluate() rejects what ANSI mode forbids.
  CastMode check = is_try ? CastMode::kTry : CastMode::kLegacy;
  std::string sql = std::string(is_try ? "TRY_CAST(" : "CAST(") + child->ToString() + " AS " +
                    to->Sql() + ")";
  SPATE_RETURN_IF_ERROR(CheckCast(from, *to, check, sql));
  bool nullable = CastNullable(from, *to, child->nullable(), is_try);
  return BoundExprPtr(std::make_shared<CastExpr>(std::move(child), std::move(to), is_try, nullable));
}

Result<BoundExprPtr> MakeExplicitCast(BoundExprPtr child, DataTypePtr to, bool is_try, bool ansi) {
  if (!is_try && child->type()->id() != TypeId::kNull) {
    std::string sql = "CAST(" + child->ToString() + " AS " + to->Sql() + ")";
    SPATE_RETURN_IF_ERROR(CheckCast(*child->type(), *to, ansi ? CastMode::kAnsi : CastMode::kLegacy, sql));
  }
  return MakeCast(std::move(child), std::move(to), is_try);
}

Result<Value> CastValue(const Value& v, const DataTypePtr& to, CastMode mode,
                        const EvalContext& ctx) {
  ColumnPtr col = ColumnFromValues(v.type(), {v});
  SPATE_ASSIGN_OR_RETURN(ColumnPtr out, CastColumn(col, to, mode, ctx));
  return out->GetValue(0);
}

bool CastStringToDate(std::string_view s, int32_t* days) { return ParseDate(s, days); }
bool CastStringToTimestamp(std::string_view s, const EvalContext& ctx, int64_t* micros) {
  return ParseTimestamp(s, ctx, micros);
}
bool CastStringToTimestampNtz(std::string_view s, int64_t* micros) {
  return ParseTimestampNtz(s, micros);
}

}  // namespace spate
