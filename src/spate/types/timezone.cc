// Copyright spate authors.
#include "spate/types/timezone.h"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/types/calendar.h"
#include "spate/types/format.h"

namespace spate {

namespace {

// Where the OS tz database lives (what date/tz reads with USE_OS_TZDB).
constexpr const char* kZoneInfoDir = "/usr/share/zoneinfo";
constexpr int64_t kSecondsPerDay = 86'400;

// ---------------------------------------------------------------------------------------
// POSIX TZ rules (the footer of a TZif v2+ file, RFC 8536 section 3.3)
// ---------------------------------------------------------------------------------------

// The day of a DST change: "Jn" (1..365, Feb 29 never counted), "n" (0..365) or "Mm.w.d"
// (weekday d of week w of month m, w = 5 meaning the last), at `time` seconds after local
// midnight (may be negative or beyond 24h).
struct DateRule {
  enum class Kind : uint8_t { kJulian1, kJulian0, kMonthWeekDay };
  Kind kind = Kind::kMonthWeekDay;
  int month = 0;
  int week = 0;
  int weekday = 0;
  int day = 0;
  int32_t time = 2 * 3600;
};

// "STDoffset DSToffset,start,end" with offsets east of UTC (POSIX writes them west).
struct PosixRule {
  int32_t std_offset = 0;
  int32_t dst_offset = 0;
  DateRule start;
  DateRule end;
};

class TzCursor {
 public:
  explicit TzCursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool Eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool Digit() const { return peek() >= '0' && peek() <= '9'; }
  // Unsigned decimal of at most `max_digits` digits.
  bool Number(int max_digits, int* out) {
    if (!Digit()) return false;
    int v = 0;
    int n = 0;
    while (Digit() && n < max_digits) {
      v = v * 10 + (s_[i_++] - '0');
      ++n;
    }
    *out = v;
    return true;
  }
  // A zone abbreviation: "<...>" or at least three letters.
  bool Name() {
    if (Eat('<')) {
      while (!done() && peek() != '>') ++i_;
      return Eat('>');
    }
    size_t start = i_;
    while (!done() &&
           ((peek() >= 'A' && peek() <= 'Z') || (peek() >= 'a' && peek() <= 'z'))) {
      ++i_;
    }
    return i_ - start >= 3;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  bool Hms(int max_hours, int32_t* out) {
    int sign = 1;
    if (Eat('-')) {
      sign = -1;
    } else {
      Eat('+');
    }
    int h = 0;
    int m = 0;
    int sec = 0;
    if (!Number(3, &h) || h > max_hours) return false;
    if (Eat(':')) {
      if (!Number(2, &m) || m > 59) return false;
      if (Eat(':') && (!Number(2, &sec) || sec > 59)) return false;
    }
    *out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool ParseDateRule(TzCursor* c, DateRule* r) {
  if (c->Eat('M')) {
    r->kind = DateRule::Kind::kMonthWeekDay;
    if (!c->Number(2, &r->month) || r->month < 1 || r->month > 12 || !c->Eat('.') ||
        !c->Number(1, &r->week) || r->week < 1 || r->week > 5 || !c->Eat('.') ||
        !c->Number(1, &r->weekday) || r->weekday > 6) {
      return false;
    }
  } else if (c->Eat('J')) {
    r->kind = DateRule::Kind::kJulian1;
    if (!c->Number(3, &r->day) || r->day < 1 || r->day > 365) return false;
  } else {
    r->kind = DateRule::Kind::kJulian0;
    if (!c->Number(3, &r->day) || r->day > 365) return false;
  }
  r->time = 2 * 3600;
  if (c->Eat('/')) return c->Hms(167, &r->time);
  return true;
}

// Parses a TZ string; returns false when it is malformed or has no DST part (a zone
// without DST needs no rule: the table's last offset holds forever).
bool ParsePosixRule(std::string_view tz, PosixRule* rule) {
  TzCursor c(tz);
  int32_t west = 0;
  if (!c.Name() || !c.Hms(24, &west)) return false;
  rule->std_offset = -west;
  if (c.done()) return false;  // no DST
  if (!c.Name()) return false;
  rule->dst_offset = rule->std_offset + 3600;
  if (c.peek() != ',' && !c.done()) {
    if (!c.Hms(24, &west)) return false;
    rule->dst_offset = -west;
  }
  if (c.done()) {
    // POSIX default rule (US since 2007).
    rule->start = DateRule{DateRule::Kind::kMonthWeekDay, 3, 2, 0, 0, 2 * 3600};
    rule->end = DateRule{DateRule::Kind::kMonthWeekDay, 11, 1, 0, 0, 2 * 3600};
    return true;
  }
  if (!c.Eat(',') || !ParseDateRule(&c, &rule->start) || !c.Eat(',') ||
      !ParseDateRule(&c, &rule->end)) {
    return false;
  }
  return c.done();
}

// Days since the epoch of the rule's day in `year`.
int64_t RuleDay(const DateRule& r, int64_t year) {
  int64_t jan1 = DaysFromCivil(year, 1, 1);
  switch (r.kind) {
    case DateRule::Kind::kJulian1:
      return jan1 + r.day - 1 + (IsLeapYear(year) && r.day >= 60 ? 1 : 0);
    case DateRule::Kind::kJulian0:
      return jan1 + r.day;
    case DateRule::Kind::kMonthWeekDay: {
      int64_t first = DaysFromCivil(year, static_cast<unsigned>(r.month), 1);
      int64_t next = r.month == 12
                         ? DaysFromCivil(year + 1, 1, 1)
                         : DaysFromCivil(year, static_cast<unsigned>(r.month + 1), 1);
      int64_t first_weekday = FloorMod(first + 4, 7);  // 1970-01-01 was a Thursday (4)
      int64_t day = first + FloorMod(r.weekday - first_weekday, 7) + (r.week - 1) * 7;
      while (day >= next) day -= 7;
      return day;
    }
  }
  return jan1;
}

// One change of offset: at UTC second `at`, from `before` to `after`.
struct Transition {
  int64_t at;
  int32_t before;
  int32_t after;
};

// The DST changes of the years around `year`, in time order.
std::array<Transition, 6> RuleTransitions(const PosixRule& r, int64_t year) {
  std::array<Transition, 6> out;
  for (int k = 0; k < 3; ++k) {
    int64_t y = year - 1 + k;
    int64_t start = RuleDay(r.start, y) * kSecondsPerDay + r.start.time - r.std_offset;
    int64_t end = RuleDay(r.end, y) * kSecondsPerDay + r.end.time - r.dst_offset;
    out[2 * k] = Transition{start, r.std_offset, r.dst_offset};
    out[2 * k + 1] = Transition{end, r.dst_offset, r.std_offset};
  }
  std::sort(out.begin(), out.end(),
            [](const Transition& a, const Transition& b) { return a.at < b.at; });
  return out;
}

int64_t YearOf(int64_t local_seconds) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(FloorDiv(local_seconds, kSecondsPerDay), &y, &m, &d);
  return y;
}

int32_t RuleOffset(const PosixRule& r, int64_t utc_seconds) {
  auto ts = RuleTransitions(r, YearOf(utc_seconds + r.std_offset));
  int32_t offset = ts[0].before;
  for (const Transition& t : ts) {
    if (t.at <= utc_seconds) offset = t.after;
  }
  return offset;
}

// java.time's rule for a wall-clock time near the transition `t`: before the transition's
// wall-clock window the new offset cannot apply; inside the gap or overlap
// [at + min(before, after), at + max(before, after)) the offset before the transition is
// used (gap: shifted forward by the gap; overlap: the earlier offset); after it, the new
// one.
int64_t LocalToUtcNear(const Transition& t, int64_t local_seconds) {
  if (local_seconds < t.at + std::max(t.before, t.after)) return local_seconds - t.before;
  return local_seconds - t.after;
}

int64_t RuleLocalToUtc(const PosixRule& r, int64_t local_seconds) {
  auto ts = RuleTransitions(r, YearOf(local_seconds));
  const Transition* last = nullptr;
  for (const Transition& t : ts) {
    if (t.at + std::min(t.before, t.after) <= local_seconds) last = &t;
  }
  if (last == nullptr) return local_seconds - ts[0].before;
  return LocalToUtcNear(*last, local_seconds);
}

// Reads the POSIX TZ footer of a zone's TZif file ("PST8PDT,M3.2.0,M11.1.0").
bool ReadPosixFooter(const std::string& zone_name, std::string* footer) {
  std::ifstream in(std::string(kZoneInfoDir) + "/" + zone_name, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 6 || std::memcmp(bytes.data(), "TZif", 4) != 0 || bytes[4] < '2' ||
      bytes.back() != '\n') {
    return false;
  }
  size_t start = bytes.rfind('\n', bytes.size() - 2);
  if (start == std::string::npos) return false;
  *footer = bytes.substr(start + 1, bytes.size() - start - 2);
  return true;
}

}  // namespace

// The offsets of one region zone over time.
struct ZoneRules {
  std::string name;
  /// UTC seconds of each change of offset, ascending.
  std::vector<int64_t> transitions;
  /// offsets[0] applies before the first transition, offsets[i + 1] from transitions[i].
  std::vector<int32_t> offsets;
  /// transitions[i] + min(offsets[i], offsets[i + 1]): the first wall-clock second the
  /// transition can affect, for wall-clock lookups.
  std::vector<int64_t> local_keys;
  /// The DST rule for instants after the last transition, when the zone has one.
  bool has_rule = false;
  PosixRule rule;
};

namespace {

// ---------------------------------------------------------------------------------------
// Region rules from date/tz
// ---------------------------------------------------------------------------------------

std::shared_ptr<const ZoneRules> BuildRules(const date::time_zone& tz) {
  using std::chrono::seconds;
  auto rules = std::make_shared<ZoneRules>();
  rules->name = tz.name();
  // From 0001-01-01 (before any zone's first transition) to 10000-01-01; date/tz's OS
  // reader knows the transitions the TZif file lists (through 2037), the POSIX rule
  // continues from there.
  constexpr int64_t kFrom = -62'135'596'800;
  constexpr int64_t kUntil = 253'402'300'800;
  date::sys_seconds t{seconds{kFrom}};
  date::sys_info info = tz.get_info(t);
  rules->offsets.push_back(static_cast<int32_t>(info.offset.count()));
  for (int guard = 0; guard < 1'000'000; ++guard) {
    int64_t end = info.end.time_since_epoch().count();
    if (end <= t.time_since_epoch().count() || end >= kUntil) break;
    t = info.end;
    info = tz.get_info(t);
    auto offset = static_cast<int32_t>(info.offset.count());
    if (offset != rules->offsets.back()) {
      rules->transitions.push_back(end);
      rules->offsets.push_back(offset);
    }
  }
  for (size_t i = 0; i < rules->transitions.size(); ++i) {
    rules->local_keys.push_back(rules->transitions[i] +
                                std::min(rules->offsets[i], rules->offsets[i + 1]));
  }
  std::string footer;
  if (ReadPosixFooter(rules->name, &footer) && ParsePosixRule(footer, &rules->rule)) {
    rules->has_rule = true;
  }
  return rules;
}

// Java's ZoneRegion id check: [A-Za-z][A-Za-z0-9~/._+-]+.
bool IsValidRegionName(std::string_view id) {
  if (id.size() < 2) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (!alpha(id[0])) return false;
  for (char c : id.substr(1)) {
    if (!(alpha(c) || (c >= '0' && c <= '9') || c == '~' || c == '/' || c == '.' ||
          c == '_' || c == '+' || c == '-')) {
      return false;
    }
  }
  return true;
}

// The rules of a region zone of the tz database, cached; nullptr when unknown.
std::shared_ptr<const ZoneRules> FindRegion(std::string_view name) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const ZoneRules>> cache;
  if (!IsValidRegionName(name) || name == "localtime" || name == "posixrules")
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key(name);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::error_code ec;
  if (!std::filesystem::is_directory(kZoneInfoDir, ec)) return nullptr;
  // date::locate_zone would throw for unknown names (and the packaged library's
  // string_view overload is not exported), so search the sorted zone list directly.
  const date::tzdb& db = date::get_tzdb();
  auto zone = std::lower_bound(
      db.zones.begin(), db.zones.end(), key,
      [](const date::time_zone& z, const std::string& n) { return z.name() < n; });
  if (zone == db.zones.end() || zone->name() != key) return nullptr;
  auto rules = BuildRules(*zone);
  cache.emplace(std::move(key), rules);
  return rules;
}

// ---------------------------------------------------------------------------------------
// java.time.ZoneOffset / ZoneId parsing
// ---------------------------------------------------------------------------------------

// `s` with `c` inserted before position `pos` (std::string::insert trips gcc 12's
// -Wrestrict false positive).
std::string InsertAt(std::string_view s, size_t pos, char c) {
  std::string out;
  out.reserve(s.size() + 1);
  out.append(s.substr(0, pos));
  out.push_back(c);
  out.append(s.substr(pos));
  return out;
}

// ZoneOffset.getId(): "Z", "+05:30", "-01:02:03".
std::string OffsetId(int32_t total) {
  if (total == 0) return "Z";
  int32_t a = total < 0 ? -total : total;
  std::string out(1, total < 0 ? '-' : '+');
  auto two = [&out](int v) {
    out.push_back(static_cast<char>('0' + v / 10));
    out.push_back(static_cast<char>('0' + v % 10));
  };
  two(a / 3600);
  out.push_back(':');
  two(a / 60 % 60);
  if (a % 60 != 0) {
    out.push_back(':');
    two(a % 60);
  }
  return out;
}

// ZoneOffset.of: "Z", "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss".
bool ParseZoneOffset(std::string_view id, int32_t* out) {
  if (id == "Z") {
    *out = 0;
    return true;
  }
  std::string s(id);
  if (s.size() == 2) s = InsertAt(s, 1, '0');
  auto number = [&s](size_t pos, bool after_colon, int* v) {
    if (after_colon && s[pos - 1] != ':') return false;
    char a = s[pos];
    char b = s[pos + 1];
    if (a < '0' || a > '9' || b < '0' || b > '9') return false;
    *v = (a - '0') * 10 + (b - '0');
    return true;
  };
  int h = 0;
  int m = 0;
  int sec = 0;
  bool ok = false;
  switch (s.size()) {
    case 3:
      ok = number(1, false, &h);
      break;
    case 5:
      ok = number(1, false, &h) && number(3, false, &m);
      break;
    case 6:
      ok = number(1, false, &h) && number(4, true, &m);
      break;
    case 7:
      ok = number(1, false, &h) && number(3, false, &m) && number(5, false, &sec);
      break;
    case 9:
      ok = number(1, false, &h) && number(4, true, &m) && number(7, true, &sec);
      break;
    default:
      return false;
  }
  if (!ok || (s[0] != '+' && s[0] != '-')) return false;
  if (h > 18 || m > 59 || sec > 59 || (h == 18 && (m != 0 || sec != 0))) return false;
  int32_t total = h * 3600 + m * 60 + sec;
  *out = s[0] == '-' ? -total : total;
  return true;
}

// java.time.ZoneId.SHORT_IDS.
std::string_view ShortIdTarget(std::string_view id) {
  static constexpr std::pair<std::string_view, std::string_view> kShortIds[] = {
      {"ACT", "Australia/Darwin"},
      {"AET", "Australia/Sydney"},
      {"AGT", "America/Argentina/Buenos_Aires"},
      {"ART", "Africa/Cairo"},
      {"AST", "America/Anchorage"},
      {"BET", "America/Sao_Paulo"},
      {"BST", "Asia/Dhaka"},
      {"CAT", "Africa/Harare"},
      {"CNT", "America/St_Johns"},
      {"CST", "America/Chicago"},
      {"CTT", "Asia/Shanghai"},
      {"EAT", "Africa/Addis_Ababa"},
      {"ECT", "Europe/Paris"},
      {"EST", "-05:00"},
      {"HST", "-10:00"},
      {"IET", "America/Indiana/Indianapolis"},
      {"IST", "Asia/Kolkata"},
      {"JST", "Asia/Tokyo"},
      {"MIT", "Pacific/Apia"},
      {"MST", "-07:00"},
      {"NET", "Asia/Yerevan"},
      {"NST", "Pacific/Auckland"},
      {"PLT", "Asia/Karachi"},
      {"PNT", "America/Phoenix"},
      {"PRT", "America/Puerto_Rico"},
      {"PST", "America/Los_Angeles"},
      {"SST", "Pacific/Guadalcanal"},
      {"VST", "Asia/Ho_Chi_Minh"},
  };
  for (const auto& [short_id, target] : kShortIds) {
    if (id == short_id) return target;
  }
  return id;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Spark's getZoneId pre-processing: "(+|-)h:" -> "(+|-)0h:" (first match) and a trailing
// "(+|-)hh:m" -> "(+|-)hh:0m".
std::string RewriteLegacyOffsets(std::string_view id) {
  std::string s(id);
  for (size_t p = 0; p + 2 < s.size(); ++p) {
    if ((s[p] == '+' || s[p] == '-') && IsDigit(s[p + 1]) && s[p + 2] == ':') {
      s = InsertAt(s, p + 1, '0');
      break;
    }
  }
  size_t n = s.size();
  if (n >= 5 && (s[n - 5] == '+' || s[n - 5] == '-') && IsDigit(s[n - 4]) &&
      IsDigit(s[n - 3]) && s[n - 2] == ':' && IsDigit(s[n - 1])) {
    s = InsertAt(s, n - 1, '0');
  }
  return s;
}

}  // namespace

TimeZone::TimeZone() : id_("UTC"), zone_id_("UTC") {}

TimeZone::TimeZone(std::string id, std::string zone_id, int32_t fixed_offset,
                   std::shared_ptr<const ZoneRules> rules)
    : id_(std::move(id)),
      zone_id_(std::move(zone_id)),
      fixed_offset_(fixed_offset),
      rules_(std::move(rules)) {}

TimeZone TimeZone::FixedOffset(int32_t seconds) {
  std::string id = OffsetId(seconds);
  return TimeZone(id, id, seconds, nullptr);
}

Result<TimeZone> TimeZone::Find(std::string_view id) {
  auto invalid = [id]() {
    return Status::Error(
        "INVALID_CONF_VALUE.TIME_ZONE",
        {{"confValue", std::string(id)}, {"confName", "spark.sql.session.timeZone"}});
  };
  std::string s = RewriteLegacyOffsets(id);
  std::string_view name = ShortIdTarget(s);
  // ZoneId.of: offsets, prefixed offsets, then regions.
  if (name.size() <= 1 || name[0] == '+' || name[0] == '-') {
    int32_t offset = 0;
    if (!ParseZoneOffset(name, &offset)) return invalid();
    return TimeZone(std::string(id), OffsetId(offset), offset, nullptr);
  }
  size_t prefix = 0;
  if (name.substr(0, 3) == "UTC" || name.substr(0, 3) == "GMT") {
    prefix = 3;
  } else if (name.substr(0, 2) == "UT") {
    prefix = 2;
  }
  if (prefix > 0) {
    std::string prefix_id(name.substr(0, prefix));
    if (name.size() == prefix) return TimeZone(std::string(id), prefix_id, 0, nullptr);
    if (name[prefix] == '+' || name[prefix] == '-') {
      int32_t offset = 0;
      if (!ParseZoneOffset(name.substr(prefix), &offset)) return invalid();
      std::string zone_id = offset == 0 ? prefix_id : prefix_id + OffsetId(offset);
      return TimeZone(std::string(id), std::move(zone_id), offset, nullptr);
    }
  }
  auto rules = FindRegion(name);
  if (rules == nullptr) return invalid();
  // A region without transitions ("Etc/UTC", "Etc/GMT+8") is a fixed offset in practice.
  if (rules->transitions.empty() && !rules->has_rule) {
    return TimeZone(std::string(id), rules->name, rules->offsets[0], nullptr);
  }
  std::string zone_id = rules->name;
  return TimeZone(std::string(id), std::move(zone_id), 0, std::move(rules));
}

const TimeZone* TimeZone::Lookup(std::string_view id) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<const TimeZone>> interned;
  std::string key(id);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = interned.find(key);
    if (it != interned.end()) return it->second.get();
  }
  Result<TimeZone> zone = Find(id);
  if (!zone.ok()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = interned.emplace(
      std::move(key), std::make_unique<const TimeZone>(std::move(zone).value()));
  return it->second.get();
}

int64_t TimeZone::RegionOffsetSeconds(int64_t utc_micros) const {
  const ZoneRules& z = *rules_;
  int64_t t = FloorDiv(utc_micros, kMicrosPerSecond);
  if (z.has_rule && (z.transitions.empty() || t >= z.transitions.back())) {
    return RuleOffset(z.rule, t);
  }
  auto it = std::upper_bound(z.transitions.begin(), z.transitions.end(), t);
  return z.offsets[static_cast<size_t>(it - z.transitions.begin())];
}

int64_t TimeZone::LocalToUtcMicros(int64_t local_micros) const {
  if (rules_ == nullptr) return local_micros - fixed_offset_ * kMicrosPerSecond;
  const ZoneRules& z = *rules_;
  int64_t local = FloorDiv(local_micros, kMicrosPerSecond);
  int64_t utc;
  if (z.has_rule &&
      (z.transitions.empty() || local > z.transitions.back() + 2 * kSecondsPerDay)) {
    utc = RuleLocalToUtc(z.rule, local);
  } else {
    auto it = std::upper_bound(z.local_keys.begin(), z.local_keys.end(), local);
    if (it == z.local_keys.begin()) {
      utc = local - z.offsets[0];
    } else {
      size_t i = static_cast<size_t>(it - z.local_keys.begin()) - 1;
      utc = LocalToUtcNear(Transition{z.transitions[i], z.offsets[i], z.offsets[i + 1]},
                           local);
    }
  }
  return local_micros - (local - utc) * kMicrosPerSecond;
}

}  // namespace spate
