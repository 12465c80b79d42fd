// Copyright spate authors.
//
// Spark's string -> value parsers behind CAST (and the error builders and time-zone
// helpers the kernels share): UTF8String.toLong/toInt, java.math.BigDecimal,
// Double.parseDouble, SparkDateTimeUtils.stringToDate / parseTimestampString and
// IntervalUtils' interval strings. Each parser works on one string_view without
// allocation where the value allows; cast.cc calls them from its typed loops.

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "spate/columnar/builder.h"
#include "spate/compute/cast_internal.h"
#include "spate/compute/datetime_text.h"
#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {
namespace cast_detail {
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
    case TypeId::kByte:
      return std::to_string(v.i64()) + "Y";
    case TypeId::kShort:
      return std::to_string(v.i64()) + "S";
    case TypeId::kInt:
      return std::to_string(v.i64());
    case TypeId::kLong:
      return std::to_string(v.i64()) + "L";
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
    case TypeId::kDecimal:
      return JavaDecimalString(v.i128(), t.scale()) + "BD";
    case TypeId::kString:
      return SqlString(v.str());
    case TypeId::kDate:
      return "DATE '" + FormatDate(static_cast<int32_t>(v.i64())) + "'";
    case TypeId::kTimestamp:
      return "TIMESTAMP '" +
             FormatTimestampMicros(v.i64(), ZoneOffsetSeconds(ctx, v.i64())) + "'";
    case TypeId::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + FormatTimestampMicros(v.i64()) + "'";
    default:
      return v.ToSql();
  }
}

Status OverflowError(const std::string& value_sql, const DataType& from,
                     const DataType& to) {
  return Status::Error(
      "CAST_OVERFLOW",
      {{"value", value_sql}, {"sourceType", SqlType(from)}, {"targetType", SqlType(to)}});
}

Status OverflowAt(const Column& in, int64_t i, const DataType& to,
                  const EvalContext& ctx) {
  return OverflowError(SqlValue(in.GetValue(i), ctx), *in.type(), to);
}

Status InvalidInputError(std::string_view s, const DataType& to) {
  return Status::Error("CAST_INVALID_INPUT",
                       {{"expression", SqlString(s)},
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
      if (!digit(0) || !digit(1) || t[2] != ':' || !digit(3) || !digit(4) ||
          t[5] != ':' || !digit(6) || !digit(7)) {
        return false;
      }
      h = two(0), m = two(3), sec = two(6);
      break;
    default:
      return false;
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
    *overflow = __builtin_sub_overflow(local_micros,
                                       zone.offset_seconds * kMicrosPerSecond, &out);
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

// The query's instant (current_timestamp()), or the clock's when the context has none.
int64_t NowMicros(const EvalContext& ctx) {
  if (ctx.query_start_micros != 0) return ctx.query_start_micros;
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The wall clock of the session zone at the query's instant (LocalDateTime.now(zone)).
int64_t LocalNowMicros(const EvalContext& ctx) {
  const int64_t now = NowMicros(ctx);
  return now + ZoneOffsetSeconds(ctx, now) * kMicrosPerSecond;
}

// Today's date in the session zone (LocalDate.now(zone)), for time-only timestamp strings
// ('10:30:00').
int64_t TodayInZone(const EvalContext& ctx) {
  return FloorDiv(LocalNowMicros(ctx), kMicrosPerDay);
}

// ---------------------------------------------------------------------------------------
// Calendar checks
// ---------------------------------------------------------------------------------------

// Days since 1970-01-01 of a valid proleptic Gregorian date, without narrowing (years of
// up to seven digits exceed an int32 day count).
int64_t CivilDays(int64_t y, int m, int d) {
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
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
    *out = negative ? -std::numeric_limits<F>::infinity()
                    : std::numeric_limits<F>::infinity();
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
      // Overflow or underflow: Java gives +-Infinity, zero or a subnormal, as strtod
      // does.
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
  return t.hour * kMicrosPerHour + t.minute * kMicrosPerMinute +
         t.second * kMicrosPerSecond + t.micros;
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

// stringToTimestampWithoutTimeZone(s, allowTimeZone): a zone suffix is validated and
// ignored (or, without allow_zone, makes the text invalid); time-only strings are
// invalid.
bool ParseTimestampNtz(std::string_view s, bool allow_zone, int64_t* out) {
  TimestampText t;
  if (!ParseTimestampText(s, &t) || t.just_time) return false;
  if (t.has_zone && !allow_zone) return false;
  if (!ValidDate(t.year, t.month, t.day)) return false;
  return LocalMicros(t, CivilDays(t.year, t.month, t.day), out);
}

// ---------------------------------------------------------------------------------------
// Interval strings (IntervalUtils.castStringToDTInterval / castStringToYMInterval)
// ---------------------------------------------------------------------------------------

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
  const std::string fields = IntervalFieldsText(to.start_field(), to.end_field());
  std::string pattern = FieldsPattern(to.start_field(), to.end_field());
  std::string formats =
      "`[+|-]" + pattern + "`, `INTERVAL [+|-]'[+|-]" + pattern + "' " + fields + "`";
  return Status::Error(day_time
                           ? "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE"
                           : "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING",
                       {{"input", std::string(input)},
                        {"intervalStr", day_time ? "day-time" : "year-month"},
                        {"supportedFormat", formats},
                        {"typeName", to.SimpleString()}});
}

Status IntervalParsingError(std::string_view input, const DataType& to) {
  return Status::Error(
      "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING",
      {{"input", std::string(input)},
       {"interval", to.id() == TypeId::kDayTimeInterval ? "day-time" : "year-month"}});
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
int64_t SecondNanoMicros(std::string_view secs, std::string_view fraction,
                         bool negative) {
  int64_t micros = ToLongDigits(secs) * kMicrosPerSecond;
  if (!fraction.empty()) {
    std::string nanos(fraction);
    nanos.resize(9, '0');
    micros += ToLongDigits(nanos) / 1000;
  }
  return negative ? -micros : micros;
}

IntervalParse ParseDayTimeInterval(std::string_view raw, const DataType& to,
                                   int64_t* out) {
  std::string_view s = TrimAll(raw);
  IntervalField start = to.start_field(), end = to.end_field();
  int si = static_cast<int>(start), ei = static_cast<int>(end);
  static const int64_t kUnit[] = {
      0, 0, kMicrosPerDay, kMicrosPerHour, kMicrosPerMinute, kMicrosPerSecond};
  static const int64_t kMaxLead[] = {
      0,
      0,
      std::numeric_limits<int64_t>::max() / kMicrosPerDay,
      std::numeric_limits<int64_t>::max() / kMicrosPerHour,
      std::numeric_limits<int64_t>::max() / kMicrosPerMinute,
      std::numeric_limits<int64_t>::max() / kMicrosPerSecond};
  // Converts the matched fields (start..end) with Spark's per-field ranges.
  auto convert = [&](const IntervalBody& body, int sign,
                     int64_t* micros) -> IntervalParse {
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
          lit.Spaces() && lit.Keyword(IntervalFieldName(start)) && lit.Spaces() &&
          lit.Keyword("TO") && lit.Spaces() && lit.Keyword(IntervalFieldName(end)) &&
          lit.AtEnd()) {
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
      return MulOverflow(sign * ToLongDigits(value), kUnit[u], out)
                 ? IntervalParse::kRangeError
                 : IntervalParse::kOk;
    }
    int64_t secs = ToLongDigits(value);
    if (secs > kMaxLead[5]) return IntervalParse::kRangeError;
    // parseSecondNano("-s.n") negates the fraction only when the whole seconds are
    // negative, so '-0.5' is +0.5 seconds in Spark; reproduced as is.
    int64_t fraction_micros = SecondNanoMicros("0", fraction, false);
    *out = sign * secs * kMicrosPerSecond +
           (sign < 0 && secs != 0 ? -fraction_micros : fraction_micros);
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
              if (u.Keyword(IntervalFieldName(unit)) && u.AtEnd()) {
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

IntervalParse ParseYearMonthInterval(std::string_view raw, const DataType& to,
                                     int32_t* out) {
  std::string_view s = TrimAll(raw);
  IntervalField start = to.start_field(), end = to.end_field();
  auto year_month = [&](int sign, std::string_view y,
                        std::string_view m) -> IntervalParse {
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
  auto unit_value = [&](int sign, std::string_view v,
                        IntervalField unit) -> IntervalParse {
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
      if (end == IntervalField::kYear)
        return unit_value(FinalSign(sign, 0), v, IntervalField::kYear);
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
            if (u.Keyword(IntervalFieldName(unit)) && u.AtEnd()) {
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

template bool ParseFloating<float>(std::string_view raw, float* out);
template bool ParseFloating<double>(std::string_view raw, double* out);

}  // namespace cast_detail

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

namespace datetime_text {

bool ParseDate(std::string_view s, int32_t* days) {
  return cast_detail::ParseDate(s, days);
}
bool ParseTimestamp(std::string_view s, const EvalContext& ctx, int64_t* micros) {
  return cast_detail::ParseTimestamp(s, ctx, micros);
}
bool ParseTimestampNtz(std::string_view s, bool allow_zone, int64_t* micros) {
  return cast_detail::ParseTimestampNtz(s, allow_zone, micros);
}

}  // namespace datetime_text

namespace {

enum class SpecialValue : uint8_t { kNone, kEpoch, kNow, kToday, kTomorrow, kYesterday };

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// extractSpecialValue: the text, trimmed as String.trim does, matches
// (\p{Alpha}+)\p{Blank}*(.*); the letters name the value in any case, and what follows
// the spaces or tabs, if anything, must be a zone id getZoneId resolves (and not after
// 'now').
SpecialValue ReadSpecialValue(std::string_view raw) {
  std::string_view s = cast_detail::JavaTrim(raw);
  size_t n = 0;
  while (n < s.size() && IsAsciiLetter(s[n])) ++n;
  std::string_view word = s.substr(0, n);
  SpecialValue v = SpecialValue::kNone;
  if (cast_detail::EqualsLower(word, "epoch")) {
    v = SpecialValue::kEpoch;
  } else if (cast_detail::EqualsLower(word, "now")) {
    v = SpecialValue::kNow;
  } else if (cast_detail::EqualsLower(word, "today")) {
    v = SpecialValue::kToday;
  } else if (cast_detail::EqualsLower(word, "tomorrow")) {
    v = SpecialValue::kTomorrow;
  } else if (cast_detail::EqualsLower(word, "yesterday")) {
    v = SpecialValue::kYesterday;
  } else {
    return SpecialValue::kNone;
  }
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  std::string_view zone = s.substr(n);
  if (!zone.empty() && (v == SpecialValue::kNow || TimeZone::Lookup(zone) == nullptr)) {
    return SpecialValue::kNone;
  }
  return v;
}

}  // namespace

std::optional<Value> SpecialDatetimeValue(std::string_view s, TypeId to,
                                          const EvalContext& ctx) {
  const SpecialValue v = ReadSpecialValue(s);
  if (v == SpecialValue::kNone) return std::nullopt;
  if (v == SpecialValue::kNow && to == TypeId::kTimestamp) {
    return Value::Timestamp(cast_detail::NowMicros(ctx));
  }
  // LocalDateTime.now(zone) and LocalDate.now(zone) ('now' of a DATE is today).
  const int64_t local_now = cast_detail::LocalNowMicros(ctx);
  int64_t day = FloorDiv(local_now, kMicrosPerDay);
  if (v == SpecialValue::kTomorrow) ++day;
  if (v == SpecialValue::kYesterday) --day;
  switch (to) {
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(v == SpecialValue::kEpoch ? 0 : day));
    case TypeId::kTimestampNtz:
      if (v == SpecialValue::kEpoch) return Value::TimestampNtz(0);
      return Value::TimestampNtz(v == SpecialValue::kNow ? local_now
                                                         : day * kMicrosPerDay);
    case TypeId::kTimestamp: {
      if (v == SpecialValue::kEpoch) return Value::Timestamp(0);
      // The instant of the day's first moment in the session zone.
      bool overflow = false;
      return Value::Timestamp(cast_detail::LocalToUtc(cast_detail::SessionZone(ctx),
                                                      day * kMicrosPerDay, &overflow));
    }
    default:
      return std::nullopt;
  }
}

ColumnPtr SpecialDatetimeColumn(const Column& text, TypeId to, const EvalContext& ctx) {
  if (text.length() == 0 || text.IsNull(0)) return nullptr;
  std::optional<Value> v = SpecialDatetimeValue(text.GetView(0), to, ctx);
  return v ? MakeConstantColumn(*v, text.length()) : nullptr;
}

}  // namespace spate
