// Copyright spate authors.
#include "spate/sql/parser_literals.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "spate/compute/decimal_text.h"
#include "spate/types/format.h"

namespace spate::sql {

namespace {

constexpr int kMaxDecimalPrecision = 38;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                        s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

Status RangeError(std::string raw, std::string_view min_value, std::string_view max_value,
                  std::string_view type_name) {
  return Status::Error("INVALID_NUMERIC_LITERAL_RANGE",
                       {{"rawStrippedQualifier", std::move(raw)},
                        {"minValue", std::string(min_value)},
                        {"maxValue", std::string(max_value)},
                        {"typeName", std::string(type_name)}});
}

Status PrecisionError(int precision) {
  return Status::Error("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                       {{"precision", std::to_string(precision)},
                        {"maxPrecision", std::to_string(kMaxDecimalPrecision)}});
}

// A decimal literal as java.math.BigDecimal -> Spark Decimal: negative scales are
// rescaled to 0 and the type is DECIMAL(max(precision, scale), scale).
Result<Value> MakeDecimal(const DecimalText& d) {
  std::string digits = d.digits;
  int64_t scale = -d.exponent;
  if (scale < 0) {
    if (!d.IsZero()) {
      if (static_cast<int64_t>(digits.size()) - scale > kMaxDecimalPrecision) {
        return PrecisionError(static_cast<int>(
            std::min<int64_t>(digits.size() - scale, std::numeric_limits<int>::max())));
      }
      digits.append(static_cast<size_t>(-scale), '0');
    }
    scale = 0;
  }
  int64_t precision = static_cast<int64_t>(digits.size());
  int64_t type_precision = std::max(precision, scale);
  if (type_precision > kMaxDecimalPrecision) {
    return PrecisionError(static_cast<int>(
        std::min<int64_t>(type_precision, std::numeric_limits<int>::max())));
  }
  int128_t unscaled = 0;
  for (char c : digits) unscaled = unscaled * 10 + (c - '0');
  if (d.negative) unscaled = -unscaled;
  return Value::Decimal(unscaled, static_cast<int>(type_precision),
                        static_cast<int>(scale));
}

// The decimal literal of a numeric token's text (no sign: `negative` is a folded unary
// minus), read as new BigDecimal(text).
Result<Value> DecimalLiteral(std::string_view text, bool negative) {
  DecimalText d;
  if (!ParseBigDecimal(text, &d)) return Status::Invalid("malformed number");
  d.negative = negative;
  return MakeDecimal(d);
}

// Parses up to `max_digits` digits; false if none or too many.
bool ParseDigits(std::string_view s, size_t* i, int min_digits, int max_digits,
                 int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (*i < s.size() && IsDigit(s[*i])) {
    if (++n > max_digits) return false;
    v = v * 10 + (s[*i] - '0');
    ++*i;
  }
  if (n < min_digits) return false;
  *out = v;
  return true;
}

// Checked accumulation helpers.
bool AddChecked(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
bool MulChecked(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

Status IntervalError(std::string_view sub_class, std::vector<ErrorParam> params) {
  return Status::Error("INVALID_INTERVAL_FORMAT." + std::string(sub_class),
                       std::move(params));
}

// Normalised singular unit name in lower case ("minutes" -> "minute"); "" if unknown.
std::string NormalizeUnit(std::string_view unit) {
  std::string u = ToLower(unit);
  if (u.size() > 1 && u.back() == 's') u.pop_back();
  static constexpr std::string_view kUnits[] = {"year",   "month",       "week",
                                                "day",    "hour",        "minute",
                                                "second", "millisecond", "microsecond"};
  for (std::string_view k : kUnits) {
    if (u == k) return u;
  }
  return "";
}

// Field index within its family: year=0 month=1; day=0 hour=1 minute=2 second=3.
IntervalField DayTimeField(std::string_view unit) {
  if (unit == "week" || unit == "day") return IntervalField::kDay;
  if (unit == "hour") return IntervalField::kHour;
  if (unit == "minute") return IntervalField::kMinute;
  return IntervalField::kSecond;
}

IntervalField FieldFromName(std::string_view upper_unit) {
  std::string u = NormalizeUnit(upper_unit);
  if (u == "year") return IntervalField::kYear;
  if (u == "month") return IntervalField::kMonth;
  return DayTimeField(u);
}

}  // namespace

bool IsIntervalUnit(std::string_view upper_word) {
  return !NormalizeUnit(upper_word).empty();
}

Result<Value> MakeNumericLiteral(std::string_view raw, bool negative) {
  std::string upper = ToUpper(raw);
  std::string sign = negative ? "-" : "";
  auto ends_with = [&](std::string_view suffix) {
    return upper.size() > suffix.size() &&
           std::string_view(upper).substr(upper.size() - suffix.size()) == suffix;
  };
  if (ends_with("BD")) {
    return DecimalLiteral(std::string_view(upper).substr(0, upper.size() - 2), negative);
  }
  char suffix = upper.back();
  if (suffix == 'L' || suffix == 'S' || suffix == 'Y') {
    std::string body = upper.substr(0, upper.size() - 1);
    int128_t v = 0;
    bool overflow = false;
    for (char c : body) {
      v = v * 10 + (c - '0');
      if (v > (static_cast<int128_t>(1) << 70)) overflow = true;
      if (overflow) break;
    }
    if (negative) v = -v;
    std::string stripped = sign + body;
    if (suffix == 'L') {
      if (overflow || v < std::numeric_limits<int64_t>::min() ||
          v > std::numeric_limits<int64_t>::max()) {
        return RangeError(stripped, "-9223372036854775808", "9223372036854775807",
                          "bigint");
      }
      return Value::Long(static_cast<int64_t>(v));
    }
    if (suffix == 'S') {
      if (overflow || v < -32768 || v > 32767) {
        return RangeError(stripped, "-32768", "32767", "smallint");
      }
      return Value::Short(static_cast<int16_t>(v));
    }
    if (overflow || v < -128 || v > 127)
      return RangeError(stripped, "-128", "127", "tinyint");
    return Value::Byte(static_cast<int8_t>(v));
  }
  if (suffix == 'D' || suffix == 'F' || upper.find('E') != std::string::npos) {
    std::string body =
        sign +
        (suffix == 'D' || suffix == 'F' ? upper.substr(0, upper.size() - 1) : upper);
    errno = 0;
    double d = std::strtod(body.c_str(), nullptr);
    if (suffix == 'F') {
      if (std::isinf(d) || std::fabs(d) > FLT_MAX) {
        return RangeError(body, "-3.4028235E38", "3.4028235E38", "float");
      }
      return Value::Float(static_cast<float>(d));
    }
    if (std::isinf(d)) {
      return RangeError(body, "-1.7976931348623157E308", "1.7976931348623157E308",
                        "double");
    }
    return Value::Double(d);
  }
  if (upper.find('.') != std::string::npos) {
    return DecimalLiteral(upper, negative);
  }
  // Plain integer: INT, else BIGINT, else DECIMAL(p, 0).
  size_t nz = upper.find_first_not_of('0');
  std::string digits = nz == std::string::npos ? "0" : upper.substr(nz);
  if (digits.size() <= 19) {
    int128_t v = 0;
    for (char c : digits) v = v * 10 + (c - '0');
    if (negative) v = -v;
    if (v >= std::numeric_limits<int32_t>::min() &&
        v <= std::numeric_limits<int32_t>::max()) {
      return Value::Int(static_cast<int32_t>(v));
    }
    if (v >= std::numeric_limits<int64_t>::min() &&
        v <= std::numeric_limits<int64_t>::max()) {
      return Value::Long(static_cast<int64_t>(v));
    }
  }
  DecimalText d;
  d.negative = negative;
  d.digits = std::move(digits);
  return MakeDecimal(d);
}

std::optional<std::string> DecodeHex(std::string_view hex) {
  std::string digits = hex.size() % 2 == 1 ? "0" + std::string(hex) : std::string(hex);
  std::string out;
  out.reserve(digits.size() / 2);
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < digits.size(); i += 2) {
    int hi = value(digits[i]);
    int lo = value(digits[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

Result<Value> MakeMultiUnitInterval(const std::vector<IntervalUnitValue>& parts,
                                    std::string_view literal_text) {
  int64_t months = 0;
  int64_t micros = 0;
  bool has_year_month = false;
  bool has_day_time = false;
  int ym_start = 2, ym_end = -1, dt_start = 4, dt_end = -1;
  std::string input(literal_text);
  for (const IntervalUnitValue& part : parts) {
    std::string unit = NormalizeUnit(part.unit);
    if (unit.empty())
      return IntervalError("INVALID_UNIT", {{"input", input}, {"unit", part.unit}});
    std::string_view v = part.value;
    bool neg = false;
    while (!v.empty() && (v[0] == '+' || v[0] == '-')) {
      if (v[0] == '-') neg = !neg;
      v.remove_prefix(1);
    }
    size_t dot = v.find('.');
    std::string_view int_part = v.substr(0, dot);
    std::string_view frac_part = dot == std::string_view::npos ? "" : v.substr(dot + 1);
    if (int_part.empty() && frac_part.empty()) {
      return IntervalError("INVALID_VALUE", {{"input", input}, {"value", part.value}});
    }
    int64_t whole = 0;
    for (char c : int_part) {
      if (!IsDigit(c) || !MulChecked(whole, 10, &whole) ||
          !AddChecked(whole, c - '0', &whole)) {
        return IntervalError("ARITHMETIC_EXCEPTION", {{"input", input}});
      }
    }
    int64_t frac_micros = 0;  // fraction of one unit in millionths
    if (dot != std::string_view::npos) {
      if (unit != "second") {
        return IntervalError("INVALID_FRACTION", {{"input", input}, {"unit", unit}});
      }
      int n = 0;
      for (char c : frac_part) {
        if (!IsDigit(c) || ++n > 9) {
          return IntervalError("INVALID_VALUE",
                               {{"input", input}, {"value", part.value}});
        }
        if (n <= 6) frac_micros = frac_micros * 10 + (c - '0');
      }
      for (; n < 6; ++n) frac_micros *= 10;
    }
    if (neg) {
      whole = -whole;
      frac_micros = -frac_micros;
    }
    bool ok = true;
    int64_t scaled = 0;
    if (unit == "year" || unit == "month") {
      has_year_month = true;
      int f = unit == "year" ? 0 : 1;
      ym_start = std::min(ym_start, f);
      ym_end = std::max(ym_end, f);
      ok = MulChecked(whole, unit == "year" ? 12 : 1, &scaled) &&
           AddChecked(months, scaled, &months);
    } else {
      has_day_time = true;
      int f =
          static_cast<int>(DayTimeField(unit)) - static_cast<int>(IntervalField::kDay);
      dt_start = std::min(dt_start, f);
      dt_end = std::max(dt_end, f);
      int64_t unit_micros = unit == "week"          ? 7 * kMicrosPerDay
                            : unit == "day"         ? kMicrosPerDay
                            : unit == "hour"        ? 3600 * kMicrosPerSecond
                            : unit == "minute"      ? 60 * kMicrosPerSecond
                            : unit == "second"      ? kMicrosPerSecond
                            : unit == "millisecond" ? 1000
                                                    : 1;
      ok = MulChecked(whole, unit_micros, &scaled) &&
           AddChecked(micros, scaled, &micros) &&
           AddChecked(micros, frac_micros, &micros);
    }
    if (!ok) return IntervalError("ARITHMETIC_EXCEPTION", {{"input", input}});
  }
  if (has_year_month && has_day_time) {
    // Spark: _LEGACY_ERROR_TEMP_0029 "Cannot mix year-month and day-time fields".
    return Status::Error("PARSE_SYNTAX_ERROR",
                         {{"error", "'" + input + "'"},
                          {"hint", ": cannot mix year-month and day-time fields"}});
  }
  if (has_year_month) {
    if (months < std::numeric_limits<int32_t>::min() ||
        months > std::numeric_limits<int32_t>::max()) {
      return IntervalError("ARITHMETIC_EXCEPTION", {{"input", input}});
    }
    return Value::FromI64(
        DataType::YearMonthInterval(static_cast<IntervalField>(ym_start),
                                    static_cast<IntervalField>(ym_end)),
        months);
  }
  if (!has_day_time)
    return IntervalError("INVALID_VALUE", {{"input", input}, {"value", input}});
  auto field = [](int f) {
    return static_cast<IntervalField>(f + static_cast<int>(IntervalField::kDay));
  };
  return Value::FromI64(DataType::DayTimeInterval(field(dt_start), field(dt_end)),
                        micros);
}

Result<Value> MakeUnitToUnitInterval(std::string_view value, std::string_view from_unit,
                                     std::string_view to_unit,
                                     std::string_view literal_text) {
  IntervalField from = FieldFromName(from_unit);
  IntervalField to = FieldFromName(to_unit);
  std::string from_name = NormalizeUnit(from_unit);
  std::string to_name = NormalizeUnit(to_unit);
  std::string_view s = Trim(value);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::string type_name = "interval " + from_name + " to " + to_name;
  auto mismatch = [&](std::string_view family, std::string_view format) {
    return IntervalError("UNMATCHED_FORMAT_STRING",
                         {{"intervalStr", std::string(family)},
                          {"supportedFormat", "`" + std::string(format) + "`"},
                          {"typeName", type_name},
                          {"input", std::string(value)}});
  };
  if (from == IntervalField::kYear && to == IntervalField::kMonth) {
    size_t i = 0;
    int64_t years = 0;
    int64_t months = 0;
    if (!ParseDigits(s, &i, 1, 9, &years) || i >= s.size() || s[i] != '-') {
      return mismatch("year-month", "[+|-]y-m");
    }
    ++i;
    if (!ParseDigits(s, &i, 1, 2, &months) || i != s.size() || months > 11) {
      return mismatch("year-month", "[+|-]y-m");
    }
    int64_t total = years * 12 + months;
    if (total > std::numeric_limits<int32_t>::max()) {
      return IntervalError("ARITHMETIC_EXCEPTION",
                           {{"input", std::string(literal_text)}});
    }
    return Value::FromI64(DataType::YearMonthInterval(from, to), neg ? -total : total);
  }
  bool from_dt = from >= IntervalField::kDay && !from_name.empty() &&
                 from_name != "week" && from_name != "millisecond" &&
                 from_name != "microsecond";
  bool to_dt = to > from && to >= IntervalField::kHour && !to_name.empty() &&
               to_name != "millisecond" && to_name != "microsecond";
  if (!from_dt || !to_dt) {
    return Status::Error("PARSE_SYNTAX_ERROR",
                         {{"error", "'" + std::string(literal_text) + "'"},
                          {"hint", ": intervals FROM " + ToUpper(from_unit) + " TO " +
                                       ToUpper(to_unit) + " are not supported"}});
  }
  // Fields from `from` to `to`: day is separated by a space, the others by ':'.
  std::string format;
  for (int f = static_cast<int>(from); f <= static_cast<int>(to); ++f) {
    static constexpr std::string_view kNames[] = {"", "", "d", "h", "m", "s.n"};
    if (f > static_cast<int>(from))
      format += f == static_cast<int>(IntervalField::kHour) ? " " : ":";
    format += kNames[f];
  }
  format = "[+|-]" + format;
  size_t i = 0;
  int64_t micros = 0;
  for (int f = static_cast<int>(from); f <= static_cast<int>(to); ++f) {
    auto field = static_cast<IntervalField>(f);
    if (f > static_cast<int>(from)) {
      char sep = field == IntervalField::kHour ? ' ' : ':';
      if (i >= s.size() || s[i] != sep) return mismatch("day-time", format);
      ++i;
    }
    bool leading = f == static_cast<int>(from);
    int64_t v = 0;
    if (!ParseDigits(s, &i, 1, leading ? 12 : 2, &v)) return mismatch("day-time", format);
    int64_t unit = field == IntervalField::kDay      ? kMicrosPerDay
                   : field == IntervalField::kHour   ? 3600 * kMicrosPerSecond
                   : field == IntervalField::kMinute ? 60 * kMicrosPerSecond
                                                     : kMicrosPerSecond;
    if (!leading) {
      int64_t max = field == IntervalField::kHour ? 23 : 59;
      if (v > max) return mismatch("day-time", format);
    }
    int64_t scaled = 0;
    if (!MulChecked(v, unit, &scaled) || !AddChecked(micros, scaled, &micros)) {
      return IntervalError("ARITHMETIC_EXCEPTION",
                           {{"input", std::string(literal_text)}});
    }
    if (field == IntervalField::kSecond && i < s.size() && s[i] == '.') {
      ++i;
      int n = 0;
      int64_t frac = 0;
      while (i < s.size() && IsDigit(s[i])) {
        if (++n > 9) return mismatch("day-time", format);
        if (n <= 6) frac = frac * 10 + (s[i] - '0');
        ++i;
      }
      for (; n < 6; ++n) frac *= 10;
      micros += frac;
    }
  }
  if (i != s.size()) return mismatch("day-time", format);
  return Value::FromI64(DataType::DayTimeInterval(from, to), neg ? -micros : micros);
}

Result<Value> MakeIntervalFromString(std::string_view text,
                                     std::string_view literal_text) {
  // "[interval] v1 unit1 v2 unit2 ...", values possibly signed; "1day" is not split.
  std::vector<IntervalUnitValue> parts;
  std::string_view s = Trim(text);
  std::vector<std::string_view> words;
  while (!s.empty()) {
    size_t sp = s.find_first_of(" \t\n\r");
    words.push_back(s.substr(0, sp));
    if (sp == std::string_view::npos) break;
    s = Trim(s.substr(sp));
  }
  size_t w = 0;
  if (w < words.size() && ToLower(words[w]) == "interval") ++w;
  std::string input(literal_text);
  if (w >= words.size()) return IntervalError("INPUT_IS_EMPTY", {{"input", input}});
  for (; w < words.size(); w += 2) {
    if (w + 1 >= words.size()) {
      return IntervalError("MISSING_UNIT",
                           {{"input", input}, {"word", std::string(words[w])}});
    }
    parts.push_back({std::string(words[w]), std::string(words[w + 1])});
  }
  return MakeMultiUnitInterval(parts, literal_text);
}

}  // namespace spate::sql
