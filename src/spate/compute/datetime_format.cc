// Copyright spate authors.
// Spark datetime patterns: compile, format, parse. Semantics: Spark 4's
// DateTimeFormatterHelper / TimestampFormatter over java.time's DateTimeFormatterBuilder
// (pattern letters, widths, sign styles, adjacent value parsing, STRICT resolution).

#include "spate/compute/datetime_format.h"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {

namespace {

using Kind = DateTimePattern::OpKind;

constexpr std::array<const char*, 12> kMonthFull = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<const char*, 12> kMonthShort = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
// Monday = index 0 (ISO day 1).
constexpr std::array<const char*, 7> kDowFull = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<const char*, 7> kDowShort = {"Mon", "Tue", "Wed", "Thu",
                                                  "Fri", "Sat", "Sun"};
constexpr std::array<const char*, 4> kQuarterFull = {"1st quarter", "2nd quarter",
                                                     "3rd quarter", "4th quarter"};

Status RecognitionError(std::string_view pattern) {
  return Status::Error("INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION",
                       {{"pattern", "'" + std::string(pattern) + "'"},
                        {"config", "\"spark.sql.legacy.timeParserPolicy\""},
                        {"docroot", "https://spark.apache.org/docs/latest"}});
}

Status IllegalCharError(std::string_view pattern, char c) {
  return Status::Error(
      "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER",
      {{"pattern", "'" + std::string(pattern) + "'"}, {"c", std::string(1, c)}});
}

Status LengthError(std::string_view pattern) {
  return Status::Error("INVALID_DATETIME_PATTERN.LENGTH",
                       {{"pattern", "'" + std::string(pattern) + "'"}});
}

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool StartsWithNoCase(std::string_view s, size_t pos, std::string_view word) {
  if (s.size() - pos < word.size() || pos > s.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (Lower(s[pos + i]) != Lower(word[i])) return false;
  }
  return true;
}

void AppendPadded(std::string* out, int64_t v, int width) {
  char buf[24];
  bool neg = v < 0;
  uint64_t u = neg ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (neg) out->push_back('-');
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

int DigitCount(int64_t v) {
  uint64_t u = v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
  int n = 1;
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

// "+08:00"-style pieces of an offset.
void AppendOffset(std::string* out, int64_t total, bool colon, bool minutes_always,
                  bool seconds_allowed) {
  out->push_back(total < 0 ? '-' : '+');
  int64_t a = total < 0 ? -total : total;
  int64_t h = a / 3600, m = a / 60 % 60, s = a % 60;
  AppendPadded(out, h, 2);
  if (minutes_always || m != 0 || (seconds_allowed && s != 0)) {
    if (colon) out->push_back(':');
    AppendPadded(out, m, 2);
  }
  if (seconds_allowed && s != 0) {
    if (colon) out->push_back(':');
    AppendPadded(out, s, 2);
  }
}

// "GMT+8", "GMT+08:00", "GMT".
void AppendLocalizedOffset(std::string* out, int64_t total, bool full) {
  out->append("GMT");
  if (total == 0) return;
  out->push_back(total < 0 ? '-' : '+');
  int64_t a = total < 0 ? -total : total;
  int64_t h = a / 3600, m = a / 60 % 60, s = a % 60;
  if (full) {
    AppendPadded(out, h, 2);
    out->push_back(':');
    AppendPadded(out, m, 2);
    if (s != 0) {
      out->push_back(':');
      AppendPadded(out, s, 2);
    }
  } else {
    AppendPadded(out, h, 1);
    if (m != 0 || s != 0) {
      out->push_back(':');
      AppendPadded(out, m, 2);
      if (s != 0) {
        out->push_back(':');
        AppendPadded(out, s, 2);
      }
    }
  }
}

// The tz database abbreviation of `zone` at `micros` ("PST", "CEST"); the offset id for
// fixed offsets, as java.time prints zone names it has no text for.
std::string ZoneShortName(const TimeZone* zone, int64_t micros) {
  if (zone == nullptr) return "UTC";
  const std::string& id = zone->zone_id();
  if (zone->is_fixed_offset()) return id;
  if (id == "UTC" || id == "Etc/UTC" || id == "Etc/UCT" || id == "UCT" || id == "Zulu" ||
      id == "Etc/Zulu" || id == "Universal" || id == "Etc/Universal") {
    return "UTC";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory("/usr/share/zoneinfo", ec)) return id;
  const date::tzdb& db = date::get_tzdb();
  auto it = std::lower_bound(
      db.zones.begin(), db.zones.end(), id,
      [](const date::time_zone& z, const std::string& n) { return z.name() < n; });
  if (it == db.zones.end() || it->name() != id) return id;
  date::sys_seconds t{std::chrono::seconds{FloorDiv(micros, kMicrosPerSecond)}};
  return it->get_info(t).abbrev;
}

struct ZoneNameEntry {
  const char* abbrev;
  const char* full_std;
  const char* full_dst;
  const char* region;
};
// Java's English names of common zones (TextStyle.FULL), by tz abbreviation.
constexpr ZoneNameEntry kZoneNames[] = {
    {"PST", "Pacific Standard Time", "Pacific Daylight Time", "America/Los_Angeles"},
    {"PDT", "Pacific Standard Time", "Pacific Daylight Time", "America/Los_Angeles"},
    {"MST", "Mountain Standard Time", "Mountain Daylight Time", "America/Denver"},
    {"MDT", "Mountain Standard Time", "Mountain Daylight Time", "America/Denver"},
    {"CST", "Central Standard Time", "Central Daylight Time", "America/Chicago"},
    {"CDT", "Central Standard Time", "Central Daylight Time", "America/Chicago"},
    {"EST", "Eastern Standard Time", "Eastern Daylight Time", "America/New_York"},
    {"EDT", "Eastern Standard Time", "Eastern Daylight Time", "America/New_York"},
    {"CET", "Central European Standard Time", "Central European Summer Time",
     "Europe/Paris"},
    {"CEST", "Central European Standard Time", "Central European Summer Time",
     "Europe/Paris"},
    {"GMT", "Greenwich Mean Time", "Greenwich Mean Time", "GMT"},
    {"BST", "Greenwich Mean Time", "British Summer Time", "Europe/London"},
    {"JST", "Japan Standard Time", "Japan Standard Time", "Asia/Tokyo"},
    {"UTC", "Coordinated Universal Time", "Coordinated Universal Time", "UTC"},
};

std::string ZoneFullName(const TimeZone* zone, int64_t micros) {
  std::string abbrev = ZoneShortName(zone, micros);
  for (const auto& e : kZoneNames) {
    if (abbrev == e.abbrev) {
      bool dst = abbrev.size() >= 3 && abbrev[abbrev.size() - 2] == 'D';
      if (abbrev == "CEST" || abbrev == "BST") dst = true;
      return dst ? e.full_dst : e.full_std;
    }
  }
  return abbrev;
}

// Width limits of a numeric field when parsing.
struct Width {
  bool numeric = false;
  int min = 0;
  int max = 0;
};

Width ParseWidth(const DateTimePattern::Op& op) {
  int c = op.count;
  switch (op.kind) {
    case Kind::kYear:
      if (c == 2) return {true, 2, 2};
      return {true, c, 19};
    case Kind::kMonth:
    case Kind::kQuarter:
      if (c >= 3) return {};
      return c == 1 ? Width{true, 1, 19} : Width{true, 2, 2};
    case Kind::kDayOfYear:
      if (c == 1) return {true, 1, 19};
      if (c == 2) return {true, 2, 3};
      return {true, 3, 3};
    case Kind::kDay:
    case Kind::kHour12:
    case Kind::kHour24:
    case Kind::kHour1To24:
    case Kind::kHour0To11:
    case Kind::kMinute:
    case Kind::kSecond:
      return c == 1 ? Width{true, 1, 19} : Width{true, 2, 2};
    case Kind::kAlignedDow:
      return {true, 1, 19};
    default:
      return {};
  }
}

struct Parsed {
  int64_t year = 1970;
  bool has_year = false;
  bool year_of_era = false;
  int era = -1;  // 0 = BC, 1 = AD
  int month = -1;
  int day = -1;
  int doy = -1;
  int dow = -1;  // ISO 1..7
  int hour24 = -1;
  int hour_ampm = -1;  // 0..11
  int ampm = -1;       // 0 AM, 1 PM
  int minute = -1;
  int second = -1;
  int64_t nanos = -1;
  bool has_offset = false;
  int64_t offset = 0;
  const TimeZone* zone = nullptr;
};

class Parser {
 public:
  Parser(std::string_view text, const std::vector<DateTimePattern::Op>& ops, bool has_g)
      : s_(text), ops_(ops), has_g_(has_g) {}

  // Parses ops [from, to). Returns false with error_pos_ set.
  bool Run(size_t from, size_t to, Parsed* p) {
    for (size_t i = from; i < to; ++i) {
      const auto& op = ops_[i];
      if (op.kind == Kind::kOptStart) {
        size_t save = pos_;
        Parsed copy = *p;
        if (!Run(i + 1, static_cast<size_t>(op.match), p)) {
          pos_ = save;
          *p = copy;
        }
        i = static_cast<size_t>(op.match);
        continue;
      }
      if (op.kind == Kind::kOptEnd) continue;
      if (!One(i, p)) {
        if (error_pos_ < 0) error_pos_ = static_cast<int64_t>(pos_);
        return false;
      }
    }
    return true;
  }

  size_t pos() const { return pos_; }
  int64_t error_pos() const { return error_pos_; }
  void clear_error() { error_pos_ = -1; }
  const std::string& range_error() const { return range_error_; }

 private:
  // Digits reserved for the fixed-width numeric fields that follow op i directly.
  int Reserved(size_t i) const {
    int total = 0;
    for (size_t j = i + 1; j < ops_.size(); ++j) {
      Width w = ParseWidth(ops_[j]);
      if (!w.numeric || w.min != w.max) break;
      total += w.min;
    }
    return total;
  }

  bool Number(size_t i, int min, int max, bool allow_sign, int64_t* out) {
    size_t p = pos_;
    bool neg = false;
    if (allow_sign && p < s_.size() && (s_[p] == '-' || s_[p] == '+')) {
      neg = s_[p] == '-';
      ++p;
    }
    size_t run = 0;
    while (p + run < s_.size() && s_[p + run] >= '0' && s_[p + run] <= '9') ++run;
    int take = static_cast<int>(std::min<size_t>(run, static_cast<size_t>(max)));
    if (min != max) {
      int avail = static_cast<int>(run) - Reserved(i);
      take = std::min(take, avail);
    }
    if (take < min) return false;
    int64_t v = 0;
    for (int k = 0; k < take; ++k) {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (s_[p + static_cast<size_t>(k)] - '0');
    }
    pos_ = p + static_cast<size_t>(take);
    *out = neg ? -v : v;
    return true;
  }

  // Matches one of `words` case-insensitively (longest first); returns index or -1.
  template <size_t N>
  int Word(const std::array<const char*, N>& words) {
    int best = -1;
    size_t best_len = 0;
    for (size_t k = 0; k < N; ++k) {
      size_t len = std::strlen(words[k]);
      if (len > best_len && StartsWithNoCase(s_, pos_, words[k])) {
        best = static_cast<int>(k);
        best_len = len;
      }
    }
    if (best >= 0) pos_ += best_len;
    return best;
  }

  bool Range(int64_t v, int64_t lo, int64_t hi, const char* field) {
    if (v < lo || v > hi) {
      if (range_error_.empty()) {
        range_error_ = std::string("Invalid value for ") + field + " (valid values " +
                       std::to_string(lo) + " - " + std::to_string(hi) +
                       "): " + std::to_string(v);
      }
    }
    return true;
  }

  bool Offset(int count, char letter, Parsed* p) {
    // 'Z' for zero where the pattern allows it.
    bool z_allowed = letter == 'X' || (letter == 'Z' && count == 5);
    if (z_allowed && pos_ < s_.size() && (s_[pos_] == 'Z' || s_[pos_] == 'z')) {
      ++pos_;
      p->has_offset = true;
      p->offset = 0;
      return true;
    }
    if (letter == 'Z' && count == 4) return Localized(p);
    if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return false;
    bool neg = s_[pos_] == '-';
    size_t p0 = pos_ + 1;
    auto two = [&](size_t at, int* v) {
      if (at + 2 > s_.size() || s_[at] < '0' || s_[at] > '9' || s_[at + 1] < '0' ||
          s_[at + 1] > '9')
        return false;
      *v = (s_[at] - '0') * 10 + (s_[at + 1] - '0');
      return true;
    };
    int h = 0, m = 0, sec = 0;
    if (!two(p0, &h)) return false;
    size_t q = p0 + 2;
    bool colon =
        (letter != 'Z' && (count == 3 || count == 5)) || (letter == 'Z' && count == 5);
    bool minutes_required = (letter == 'Z' && count <= 3) || count == 2 || count == 3 ||
                            (letter == 'Z' && count == 5);
    size_t mq = q + (colon ? 1 : 0);
    bool has_m = (!colon || (q < s_.size() && s_[q] == ':')) && two(mq, &m);
    if (has_m) {
      q = mq + 2;
      if (count >= 4) {
        size_t sq = q + (colon ? 1 : 0);
        if ((!colon || (q < s_.size() && s_[q] == ':')) && two(sq, &sec)) q = sq + 2;
      }
    } else if (minutes_required) {
      return false;
    }
    if (h > 18 || m > 59 || sec > 59) return false;
    pos_ = q;
    p->has_offset = true;
    p->offset = (neg ? -1 : 1) * (h * 3600 + m * 60 + sec);
    return true;
  }

  bool Localized(Parsed* p) {
    if (!StartsWithNoCase(s_, pos_, "GMT")) return false;
    pos_ += 3;
    p->has_offset = true;
    p->offset = 0;
    if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return true;
    bool neg = s_[pos_] == '-';
    size_t q = pos_ + 1;
    int h = 0;
    size_t d = 0;
    while (q + d < s_.size() && d < 2 && s_[q + d] >= '0' && s_[q + d] <= '9') {
      h = h * 10 + (s_[q + d] - '0');
      ++d;
    }
    if (d == 0) return true;  // "GMT" alone
    q += d;
    int m = 0, sec = 0;
    auto dd = [this](size_t at) {
      return at + 2 < s_.size() && s_[at] == ':' && s_[at + 1] >= '0' &&
             s_[at + 1] <= '9' && s_[at + 2] >= '0' && s_[at + 2] <= '9';
    };
    if (dd(q)) {
      m = (s_[q + 1] - '0') * 10 + (s_[q + 2] - '0');
      q += 3;
      if (dd(q)) {
        sec = (s_[q + 1] - '0') * 10 + (s_[q + 2] - '0');
        q += 3;
      }
    }
    if (h > 18 || m > 59 || sec > 59) return false;
    pos_ = q;
    p->offset = (neg ? -1 : 1) * (h * 3600 + m * 60 + sec);
    return true;
  }

  bool ZoneId(Parsed* p) {
    size_t q = pos_;
    auto ok = [](char c) {
      return IsAsciiLetter(c) || (c >= '0' && c <= '9') || c == '~' || c == '/' ||
             c == '.' || c == '_' || c == '+' || c == '-' || c == ':';
    };
    // No zone id is longer than this (regions reach 32 characters, offsets with a prefix
    // 12): a long run of id characters costs at most this many lookups, not one per
    // character (a pattern of many zone fields over such a text took seconds).
    constexpr size_t kMaxZoneIdLength = 64;
    while (q < s_.size() && q - pos_ < kMaxZoneIdLength && ok(s_[q])) ++q;
    // Longest prefix that names a zone.
    for (size_t end = q; end > pos_; --end) {
      const TimeZone* z = TimeZone::Lookup(s_.substr(pos_, end - pos_));
      if (z != nullptr) {
        p->zone = z;
        p->has_offset = false;
        pos_ = end;
        return true;
      }
    }
    return false;
  }

  bool ZoneName(Parsed* p) {
    // Full names first, then abbreviations, then region ids.
    for (const auto& e : kZoneNames) {
      for (const char* name : {e.full_std, e.full_dst}) {
        if (StartsWithNoCase(s_, pos_, name)) {
          pos_ += std::strlen(name);
          p->zone = TimeZone::Lookup(e.region);
          return p->zone != nullptr;
        }
      }
    }
    size_t q = pos_;
    while (q < s_.size() && IsAsciiLetter(s_[q])) ++q;
    std::string_view word = s_.substr(pos_, q - pos_);
    for (const auto& e : kZoneNames) {
      if (word == e.abbrev) {
        // Java resolves an abbreviation to its region's rules; the DST abbreviation
        // still names the region (the offset comes from the rules).
        pos_ = q;
        p->zone = TimeZone::Lookup(e.region);
        return p->zone != nullptr;
      }
    }
    return ZoneId(p);
  }

  bool One(size_t i, Parsed* p) {
    const auto& op = ops_[i];
    int64_t v = 0;
    switch (op.kind) {
      case Kind::kLiteral: {
        if (!StartsWithNoCase(s_, pos_, op.literal)) return false;
        pos_ += op.literal.size();
        return true;
      }
      case Kind::kEra: {
        static constexpr std::array<const char*, 2> kShort = {"BC", "AD"};
        static constexpr std::array<const char*, 2> kFull = {"Before Christ",
                                                             "Anno Domini"};
        int k = op.count == 4 ? Word(kFull) : Word(kShort);
        if (k < 0) return false;
        p->era = k;
        return true;
      }
      case Kind::kYear: {
        Width w = ParseWidth(op);
        if (op.count == 2) {
          if (!Number(i, 2, 2, false, &v)) return false;
          p->year = 2000 + v;
        } else {
          size_t start = pos_;
          bool sign = pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-');
          if (!Number(i, w.min, w.max, true, &v)) return false;
          int digits = static_cast<int>(pos_ - start) - (sign ? 1 : 0);
          if (op.count >= 4) {
            // SignStyle.EXCEEDS_PAD, strict: '+' exactly when wider than the pad.
            bool plus = sign && s_[start] == '+';
            if (digits > op.count && !plus && v >= 0) return false;
            if (plus && digits <= op.count) return false;
          } else if (sign && s_[start] == '+') {
            return false;
          }
          p->year = v;
        }
        p->has_year = true;
        p->year_of_era = has_g_;
        if (has_g_ && v < 1) Range(v, 1, 999999999, "YearOfEra");
        Range(p->year, -999999999, 999999999, "Year");
        return true;
      }
      case Kind::kMonth: {
        if (op.count >= 3) {
          int k = op.count == 4 ? Word(kMonthFull) : Word(kMonthShort);
          if (k < 0) return false;
          p->month = k + 1;
          return true;
        }
        Width w = ParseWidth(op);
        if (!Number(i, w.min, w.max, false, &v)) return false;
        Range(v, 1, 12, "MonthOfYear");
        p->month = static_cast<int>(v);
        return true;
      }
      case Kind::kQuarter: {
        if (op.count == 3) {
          if (!StartsWithNoCase(s_, pos_, "Q") || pos_ + 1 >= s_.size()) return false;
          char c = s_[pos_ + 1];
          if (c < '1' || c > '4') return false;
          pos_ += 2;
          return true;
        }
        if (op.count == 4) return Word(kQuarterFull) >= 0;
        Width w = ParseWidth(op);
        if (!Number(i, w.min, w.max, false, &v)) return false;
        Range(v, 1, 4, "QuarterOfYear");
        return true;
      }
      case Kind::kDayOfWeek: {
        int k = op.count == 4 ? Word(kDowFull) : Word(kDowShort);
        if (k < 0) return false;
        p->dow = k + 1;
        return true;
      }
      case Kind::kAmPm: {
        static constexpr std::array<const char*, 2> kAmPm = {"AM", "PM"};
        int k = Word(kAmPm);
        if (k < 0) return false;
        p->ampm = k;
        return true;
      }
      case Kind::kFraction: {
        size_t run = 0;
        while (pos_ + run < s_.size() && run < static_cast<size_t>(op.count) &&
               s_[pos_ + run] >= '0' && s_[pos_ + run] <= '9') {
          ++run;
        }
        if (run == 0) return false;
        int64_t n = 0;
        for (size_t k = 0; k < 9; ++k) n = n * 10 + (k < run ? s_[pos_ + k] - '0' : 0);
        pos_ += run;
        p->nanos = n;
        return true;
      }
      case Kind::kZoneId:
        return ZoneId(p);
      case Kind::kZoneName:
        return ZoneName(p);
      case Kind::kOffsetO:
        return Localized(p);
      case Kind::kOffsetX:
        return Offset(op.count, 'X', p);
      case Kind::kOffsetLowerX:
        return Offset(op.count, 'x', p);
      case Kind::kOffsetZ:
        return Offset(op.count, 'Z', p);
      default:
        break;
    }
    Width w = ParseWidth(op);
    if (!Number(i, w.min, w.max, false, &v)) return false;
    switch (op.kind) {
      case Kind::kDayOfYear:
        Range(v, 1, 366, "DayOfYear");
        p->doy = static_cast<int>(v);
        break;
      case Kind::kDay:
        Range(v, 1, 31, "DayOfMonth");
        p->day = static_cast<int>(v);
        break;
      case Kind::kAlignedDow:
        Range(v, 1, 7, "AlignedDayOfWeekInMonth");
        break;
      case Kind::kHour24:
        Range(v, 0, 23, "HourOfDay");
        p->hour24 = static_cast<int>(v);
        break;
      case Kind::kHour1To24:
        Range(v, 1, 24, "ClockHourOfDay");
        p->hour24 = static_cast<int>(v % 24);
        break;
      case Kind::kHour12:
        Range(v, 1, 12, "ClockHourOfAmPm");
        p->hour_ampm = static_cast<int>(v % 12);
        break;
      case Kind::kHour0To11:
        Range(v, 0, 11, "HourOfAmPm");
        p->hour_ampm = static_cast<int>(v);
        break;
      case Kind::kMinute:
        Range(v, 0, 59, "MinuteOfHour");
        p->minute = static_cast<int>(v);
        break;
      case Kind::kSecond:
        Range(v, 0, 59, "SecondOfMinute");
        p->second = static_cast<int>(v);
        break;
      default:
        break;
    }
    return true;
  }

  std::string_view s_;
  const std::vector<DateTimePattern::Op>& ops_;
  bool has_g_;
  size_t pos_ = 0;
  int64_t error_pos_ = -1;
  std::string range_error_;
};

std::string UpperMonth(int m) {
  std::string s = kMonthFull[static_cast<size_t>(m - 1)];
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern) {
  DateTimePattern out;
  out.pattern_ = std::string(pattern);
  std::vector<int> open;
  bool has_g = false;
  for (char c : pattern) has_g = has_g || c == 'G';
  (void)has_g;
  // Week-based letters first, as Spark's convertIncompatiblePattern (outside quotes).
  {
    bool quoted = false;
    for (char c : pattern) {
      if (c == '\'') {
        quoted = !quoted;
        continue;
      }
      if (quoted) continue;
      if (c == 'Y' || c == 'w' || c == 'W' || c == 'u') return RecognitionError(pattern);
      if (c == 'e' || c == 'c') {
        return Status::Error(
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN",
            {{"c", std::string(1, c)}});
      }
    }
  }
  auto add_literal = [&out](std::string_view text) {
    if (!out.ops_.empty() && out.ops_.back().kind == Kind::kLiteral) {
      out.ops_.back().literal.append(text);
    } else {
      Op op{Kind::kLiteral};
      op.literal = std::string(text);
      out.ops_.push_back(std::move(op));
    }
  };
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == '\'') {
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '\'') {
        add_literal("'");
        i = j + 1;
        continue;
      }
      std::string lit;
      bool closed = false;
      while (j < pattern.size()) {
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            lit.push_back('\'');
            j += 2;
            continue;
          }
          closed = true;
          break;
        }
        lit.push_back(pattern[j++]);
      }
      if (!closed) return IllegalCharError(pattern, '\'');
      add_literal(lit);
      i = j + 1;
      continue;
    }
    if (c == '[') {
      open.push_back(static_cast<int>(out.ops_.size()));
      out.ops_.push_back(Op{Kind::kOptStart});
      ++i;
      continue;
    }
    if (c == ']') {
      if (open.empty()) return IllegalCharError(pattern, ']');
      out.ops_[static_cast<size_t>(open.back())].match =
          static_cast<int>(out.ops_.size());
      open.pop_back();
      out.ops_.push_back(Op{Kind::kOptEnd});
      ++i;
      continue;
    }
    if (c == '{' || c == '}' || c == '#') return IllegalCharError(pattern, c);
    if (!IsAsciiLetter(c)) {
      add_literal(std::string_view(&pattern[i], 1));
      ++i;
      continue;
    }
    size_t j = i;
    while (j < pattern.size() && pattern[j] == c) ++j;
    int n = static_cast<int>(j - i);
    i = j;
    Op op{Kind::kLiteral};
    op.count = n;
    auto limit = [&](int max) -> Status {
      return n > max ? RecognitionError(pattern) : Status::OK();
    };
    switch (c) {
      case 'G':
        SPATE_RETURN_IF_ERROR(limit(4));
        op.kind = Kind::kEra;
        break;
      case 'y':
        SPATE_RETURN_IF_ERROR(limit(6));
        op.kind = Kind::kYear;
        break;
      case 'D':
        SPATE_RETURN_IF_ERROR(limit(3));
        op.kind = Kind::kDayOfYear;
        break;
      case 'M':
      case 'L':
        SPATE_RETURN_IF_ERROR(limit(4));
        op.kind = Kind::kMonth;
        op.standalone = c == 'L';
        break;
      case 'd':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kDay;
        break;
      case 'Q':
      case 'q':
        if (n > 4) return LengthError(pattern);
        op.kind = Kind::kQuarter;
        op.standalone = c == 'q';
        break;
      case 'E':
        SPATE_RETURN_IF_ERROR(limit(4));
        op.kind = Kind::kDayOfWeek;
        break;
      case 'F':
        SPATE_RETURN_IF_ERROR(limit(1));
        op.kind = Kind::kAlignedDow;
        break;
      case 'a':
        SPATE_RETURN_IF_ERROR(limit(1));
        op.kind = Kind::kAmPm;
        break;
      case 'h':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kHour12;
        break;
      case 'K':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kHour0To11;
        break;
      case 'k':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kHour1To24;
        break;
      case 'H':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kHour24;
        break;
      case 'm':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kMinute;
        break;
      case 's':
        SPATE_RETURN_IF_ERROR(limit(2));
        op.kind = Kind::kSecond;
        break;
      case 'S':
        SPATE_RETURN_IF_ERROR(limit(9));
        op.kind = Kind::kFraction;
        break;
      case 'V':
        if (n != 2) return LengthError(pattern);
        op.kind = Kind::kZoneId;
        break;
      case 'z':
        SPATE_RETURN_IF_ERROR(limit(4));
        op.kind = Kind::kZoneName;
        break;
      case 'O':
        if (n != 1 && n != 4) return LengthError(pattern);
        op.kind = Kind::kOffsetO;
        break;
      case 'X':
      case 'x':
        if (n > 5) return LengthError(pattern);
        op.kind = c == 'X' ? Kind::kOffsetX : Kind::kOffsetLowerX;
        break;
      case 'Z':
        SPATE_RETURN_IF_ERROR(limit(5));
        op.kind = Kind::kOffsetZ;
        break;
      default:
        return IllegalCharError(pattern, c);
    }
    if (op.kind == Kind::kZoneId || op.kind == Kind::kZoneName ||
        op.kind == Kind::kOffsetO || op.kind == Kind::kOffsetX ||
        op.kind == Kind::kOffsetLowerX || op.kind == Kind::kOffsetZ) {
      out.has_zone_ = true;
    }
    out.ops_.push_back(std::move(op));
  }
  if (!open.empty()) {
    // java.time closes unterminated optional sections at the end.
    while (!open.empty()) {
      out.ops_[static_cast<size_t>(open.back())].match =
          static_cast<int>(out.ops_.size());
      open.pop_back();
      out.ops_.push_back(Op{Kind::kOptEnd});
    }
  }
  return out;
}

void DateTimePattern::Format(int64_t micros, const TimeZone* zone,
                             std::string* out) const {
  int64_t offset = zone ? zone->OffsetSeconds(micros) : 0;
  int64_t local = micros + offset * kMicrosPerSecond;
  int64_t days = FloorDiv(local, kMicrosPerDay);
  int64_t tod = local - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t secs = tod / kMicrosPerSecond;
  int hour = static_cast<int>(secs / 3600), minute = static_cast<int>(secs / 60 % 60),
      second = static_cast<int>(secs % 60);
  int64_t nanos = (tod % kMicrosPerSecond) * 1000;
  bool has_g = false;
  for (const auto& op : ops_) has_g = has_g || op.kind == Kind::kEra;
  for (const auto& op : ops_) {
    int n = op.count;
    switch (op.kind) {
      case Kind::kLiteral:
        out->append(op.literal);
        break;
      case Kind::kOptStart:
      case Kind::kOptEnd:
        break;
      case Kind::kEra:
        out->append(y > 0 ? (n == 4 ? "Anno Domini" : "AD")
                          : (n == 4 ? "Before Christ" : "BC"));
        break;
      case Kind::kYear: {
        int64_t v = has_g && y <= 0 ? 1 - y : y;
        if (n == 2) {
          int64_t r = v % 100;
          AppendPadded(out, r < 0 ? -r : r, 2);
        } else if (n >= 4) {
          if (v >= 0 && DigitCount(v) > n) out->push_back('+');
          AppendPadded(out, v, n);
        } else {
          AppendPadded(out, v, n);
        }
        break;
      }
      case Kind::kDayOfYear:
        AppendPadded(out, days - DaysFromCivil(y, 1, 1) + 1, n);
        break;
      case Kind::kMonth:
        if (n == 3) {
          out->append(kMonthShort[m - 1]);
        } else if (n == 4) {
          out->append(kMonthFull[m - 1]);
        } else {
          AppendPadded(out, m, n);
        }
        break;
      case Kind::kDay:
        AppendPadded(out, d, n);
        break;
      case Kind::kQuarter: {
        int q = static_cast<int>((m - 1) / 3 + 1);
        if (n == 3) {
          out->push_back('Q');
          AppendPadded(out, q, 1);
        } else if (n == 4) {
          out->append(kQuarterFull[static_cast<size_t>(q - 1)]);
        } else {
          AppendPadded(out, q, n);
        }
        break;
      }
      case Kind::kDayOfWeek: {
        auto dow = static_cast<size_t>(FloorMod(days + 3, 7));  // Monday = 0
        out->append(n == 4 ? kDowFull[dow] : kDowShort[dow]);
        break;
      }
      case Kind::kAlignedDow:
        AppendPadded(out, (d - 1) % 7 + 1, n);
        break;
      case Kind::kAmPm:
        out->append(hour < 12 ? "AM" : "PM");
        break;
      case Kind::kHour12:
        AppendPadded(out, hour % 12 == 0 ? 12 : hour % 12, n);
        break;
      case Kind::kHour24:
        AppendPadded(out, hour, n);
        break;
      case Kind::kHour1To24:
        AppendPadded(out, hour == 0 ? 24 : hour, n);
        break;
      case Kind::kHour0To11:
        AppendPadded(out, hour % 12, n);
        break;
      case Kind::kMinute:
        AppendPadded(out, minute, n);
        break;
      case Kind::kSecond:
        AppendPadded(out, second, n);
        break;
      case Kind::kFraction: {
        char buf[10];
        int64_t v = nanos;
        for (int k = 8; k >= 0; --k) {
          buf[k] = static_cast<char>('0' + v % 10);
          v /= 10;
        }
        out->append(buf, static_cast<size_t>(n));
        break;
      }
      case Kind::kZoneId:
        out->append(zone ? zone->zone_id() : "UTC");
        break;
      case Kind::kZoneName:
        out->append(n == 4 ? ZoneFullName(zone, micros) : ZoneShortName(zone, micros));
        break;
      case Kind::kOffsetO:
        AppendLocalizedOffset(out, offset, n == 4);
        break;
      case Kind::kOffsetX:
      case Kind::kOffsetLowerX:
        if (offset == 0 && op.kind == Kind::kOffsetX) {
          out->push_back('Z');
          break;
        }
        AppendOffset(out, offset, n == 3 || n == 5, n >= 2, n >= 4);
        break;
      case Kind::kOffsetZ:
        if (n == 4) {
          AppendLocalizedOffset(out, offset, true);
        } else if (n == 5) {
          if (offset == 0) {
            out->push_back('Z');
          } else {
            AppendOffset(out, offset, true, true, true);
          }
        } else {
          AppendOffset(out, offset, false, true, false);
        }
        break;
    }
  }
}

bool DateTimePattern::Parse(std::string_view text, const TimeZone* zone, bool local,
                            int64_t* micros, std::string* error) const {
  bool has_g = false;
  for (const auto& op : ops_) has_g = has_g || op.kind == Kind::kEra;
  Parser parser(text, ops_, has_g);
  Parsed p;
  std::string quoted = "Text '" + std::string(text) + "' could not be parsed";
  if (!parser.Run(0, ops_.size(), &p)) {
    *error =
        quoted + " at index " + std::to_string(std::max<int64_t>(0, parser.error_pos()));
    return false;
  }
  if (parser.pos() != text.size()) {
    *error = quoted + ", unparsed text found at index " + std::to_string(parser.pos());
    return false;
  }
  if (!parser.range_error().empty()) {
    *error = quoted + ": " + parser.range_error();
    return false;
  }
  int64_t year = p.year;
  if (p.has_year && p.year_of_era && p.era == 0) year = 1 - year;
  if (year < -290000 || year > 290000) {
    *error = quoted + ": long overflow";
    return false;
  }
  int64_t days;
  if (p.doy > 0) {
    if (p.doy == 366 && !IsLeapYear(year)) {
      *error = quoted + ": Invalid date 'DayOfYear 366' as '" + std::to_string(year) +
               "' is not a leap year";
      return false;
    }
    days = DaysFromCivil(year, 1, 1) + p.doy - 1;
    int64_t yy;
    unsigned mm, dd;
    CivilFromDays(days, &yy, &mm, &dd);
    if ((p.month > 0 && static_cast<unsigned>(p.month) != mm) ||
        (p.day > 0 && static_cast<unsigned>(p.day) != dd)) {
      *error = quoted +
               ": Conflict found: fields differ from the date derived from DayOfYear " +
               std::to_string(p.doy);
      return false;
    }
  } else {
    int month = p.month > 0 ? p.month : 1;
    int day = p.day > 0 ? p.day : 1;
    if (day > DaysInMonth(year, month)) {
      if (month == 2 && day == 29) {
        *error = quoted + ": Invalid date 'February 29' as '" + std::to_string(year) +
                 "' is not a leap year";
      } else {
        *error = quoted + ": Invalid date '" + UpperMonth(month) + " " +
                 std::to_string(day) + "'";
      }
      return false;
    }
    days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  }
  if (p.dow > 0 && FloorMod(days + 3, 7) + 1 != p.dow) {
    *error = quoted + ": Conflict found: Field DayOfWeek " +
             std::to_string(FloorMod(days + 3, 7) + 1) + " differs from DayOfWeek " +
             std::to_string(p.dow) + " derived from " +
             FormatDate(static_cast<int32_t>(days));
    return false;
  }
  int hour = 0;
  if (p.hour24 >= 0) {
    hour = p.hour24;
  } else if (p.hour_ampm >= 0) {
    hour = p.hour_ampm + (p.ampm == 1 ? 12 : 0);
  }
  int64_t tod =
      (int64_t{hour} * 3600 + std::max(0, p.minute) * 60 + std::max(0, p.second)) *
          kMicrosPerSecond +
      std::max<int64_t>(0, p.nanos) / 1000;
  int64_t lm = days * kMicrosPerDay + tod;
  if (local) {
    *micros = lm;
  } else if (p.has_offset) {
    *micros = lm - p.offset * kMicrosPerSecond;
  } else if (p.zone != nullptr) {
    *micros = p.zone->LocalToUtcMicros(lm);
  } else {
    *micros = zone ? zone->LocalToUtcMicros(lm) : lm;
  }
  return true;
}

}  // namespace spate
