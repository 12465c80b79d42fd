// Copyright spate authors.
#include "spate/types/format.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "spate/base/text_parse.h"

namespace spate {

namespace {
// Renders the shortest round-trip digits of a finite non-zero value in Java's style.
template <typename T>
std::string JavaFloatingString(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]d[.ddd]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp = ParseInt32(std::string_view(sci).substr(epos + 1)).value_or(0);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (exp >= -3 && exp < 7) {
    if (exp >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      while (static_cast<int>(int_part.size()) < exp + 1) int_part += '0';
      std::string frac =
          digits.size() > static_cast<size_t>(exp) + 1 ? digits.substr(exp + 1) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out += digits;
    }
  } else {
    out += digits.substr(0, 1);
    out += ".";
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += "E" + std::to_string(exp);
  }
  return out;
}

void Append2(std::string* out, unsigned v) {
  out->push_back(static_cast<char>('0' + v / 10));
  out->push_back(static_cast<char>('0' + v % 10));
}
}  // namespace

std::string FormatDouble(double v) { return JavaFloatingString(v); }
std::string FormatFloat(float v) { return JavaFloatingString(v); }

std::string Int128ToString(int128_t v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int pos = 48;
  while (u > 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) buf[--pos] = '-';
  return std::string(buf + pos, 48 - pos);
}

std::string FormatDecimal(int128_t unscaled, int scale) {
  bool neg = unscaled < 0;
  std::string digits = Int128ToString(neg ? -unscaled : unscaled);
  if (neg && digits[0] == '-') digits.erase(0, 1);
  if (scale <= 0) return (neg ? "-" : "") + digits;
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale - digits.size() + 1), '0');
  }
  std::string out = neg ? "-" : "";
  out += digits.substr(0, digits.size() - scale);
  out += ".";
  out += digits.substr(digits.size() - scale);
  return out;
}

// Days <-> civil date: the classic era-based algorithm over 400-year cycles.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* year, unsigned* month, unsigned* day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (m <= 2);
  *month = m;
  *day = d;
}

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  std::string out;
  if (y < 0) {
    out = fmt::format("-{:04}", -y);  // Spark: -0044-03-15
  } else if (y > 9999) {
    out = fmt::format("+{}", y);  // Spark: +10000-01-01
  } else {
    out = fmt::format("{:04}", y);
  }
  out += '-';
  Append2(&out, m);
  out += '-';
  Append2(&out, d);
  return out;
}

std::string FormatTimestampMicros(int64_t micros, int64_t offset_seconds) {
  micros += offset_seconds * kMicrosPerSecond;
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t rem = micros - days * kMicrosPerDay;
  std::string out = FormatDate(static_cast<int32_t>(days));
  int64_t secs = rem / kMicrosPerSecond;
  int64_t frac = rem % kMicrosPerSecond;
  out += ' ';
  Append2(&out, static_cast<unsigned>(secs / 3600));
  out += ':';
  Append2(&out, static_cast<unsigned>(secs / 60 % 60));
  out += ':';
  Append2(&out, static_cast<unsigned>(secs % 60));
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%06lld", static_cast<long long>(frac));
    std::string f(buf);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += '.';
    out += f;
  }
  return out;
}

const char* IntervalFieldName(IntervalField f) {
  switch (f) {
    case IntervalField::kYear:
      return "YEAR";
    case IntervalField::kMonth:
      return "MONTH";
    case IntervalField::kDay:
      return "DAY";
    case IntervalField::kHour:
      return "HOUR";
    case IntervalField::kMinute:
      return "MINUTE";
    case IntervalField::kSecond:
      return "SECOND";
  }
  return "?";
}

std::string IntervalFieldsText(IntervalField start, IntervalField end) {
  return start == end
             ? IntervalFieldName(start)
             : fmt::format("{} TO {}", IntervalFieldName(start), IntervalFieldName(end));
}

namespace {

std::string SecondsText(int64_t micros_in_minute) {
  // seconds with optional fraction, 2-digit integer part
  int64_t s = micros_in_minute / kMicrosPerSecond;
  int64_t f = micros_in_minute % kMicrosPerSecond;
  std::string out = fmt::format("{:02}", s);
  if (f) {
    std::string fs = fmt::format("{:06}", f);
    while (fs.back() == '0') fs.pop_back();
    out += "." + fs;
  }
  return out;
}
}  // namespace

std::string FormatDayTimeInterval(int64_t micros, IntervalField start,
                                  IntervalField end) {
  bool neg = micros < 0;
  unsigned __int128 u = neg ? -static_cast<__int128>(micros) : micros;
  uint64_t a = static_cast<uint64_t>(u);
  const uint64_t kMin = 60ULL * kMicrosPerSecond, kHour = 60 * kMin, kDay = 24 * kHour;
  std::string sign = neg ? "-" : "";
  // The fields from `start` to `end`: the first unpadded when it is DAY, two digits
  // otherwise; HOUR after a space, MINUTE and SECOND after a colon.
  const struct {
    IntervalField field;
    uint64_t micros;
    char separator;
  } units[] = {{IntervalField::kDay, kDay, ' '},
               {IntervalField::kHour, kHour, ' '},
               {IntervalField::kMinute, kMin, ':'}};
  std::string body;
  for (const auto& unit : units) {
    if (unit.field < start) continue;
    const uint64_t v = a / unit.micros;
    a %= unit.micros;
    if (unit.field == IntervalField::kDay) {
      body = std::to_string(v);
    } else {
      if (!body.empty()) body += unit.separator;
      body += fmt::format("{:02}", v);
    }
    if (unit.field == end) break;
  }
  if (end == IntervalField::kSecond) {
    if (!body.empty()) body += ':';
    body += SecondsText(static_cast<int64_t>(a));
  }
  const std::string fields = IntervalFieldsText(start, end);
  return fmt::format("INTERVAL '{}{}' {}", sign, body, fields);
}

std::string FormatYearMonthInterval(int32_t months, IntervalField start,
                                    IntervalField end) {
  bool neg = months < 0;
  int64_t a = neg ? -static_cast<int64_t>(months) : months;
  std::string body;
  if (start == IntervalField::kYear && end == IntervalField::kMonth) {
    body = fmt::format("{}-{}", a / 12, a % 12);
  } else if (start == IntervalField::kYear) {
    body = std::to_string(a / 12);
  } else {
    body = std::to_string(a);
  }
  const std::string fields = IntervalFieldsText(start, end);
  return fmt::format("INTERVAL '{}{}' {}", neg ? "-" : "", body, fields);
}

std::string FormatBinaryHex(std::string_view bytes) {
  std::string out = "[";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ' ';
    out += fmt::format("{:02X}", static_cast<unsigned char>(bytes[i]));
  }
  out += "]";
  return out;
}

}  // namespace spate
