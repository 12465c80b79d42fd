// Copyright spate authors.
#pragma once

// TimeZone: the session time zone (spark.sql.session.timeZone) and any other zone a query
// names, resolved as Spark's DateTimeUtils.getZoneId does (java.time.ZoneId.of with
// ZoneId.SHORT_IDS, after rewriting the pre-3.0 forms "+h:mm" and "+hh:m").
//
// Accepted ids, as java.time accepts them:
//   region ids of the tz database  "America/Los_Angeles", "Etc/GMT+8", "UTC", "Zulu"
//   "Z" and offsets                "+08", "+8", "+08:00", "-0530", "+01:02:03", "+010203"
//   prefixed offsets               "GMT+8", "UTC+01:00", "UT-05:30", "GMT", "UT"
//   Java's short ids               "PST" -> America/Los_Angeles, "EST" -> -05:00, ...
// Ids are case-sensitive ("utc" is rejected, as by Java); offsets lie within +-18:00.
//
// Region zones use Howard Hinnant's date/tz over the OS tz database
// (/usr/share/zoneinfo): the transitions are read once per zone into a compact table, and
// instants after the table's last transition follow the zone's POSIX TZ rule (the TZif
// footer), so daylight saving continues past 2037 as in java.time.
//
// Ownership: TimeZone is a small value type; region rules are immutable and shared by all
// TimeZone values of that zone (a process-wide cache that is never evicted).
// Thread safety: all methods may be called concurrently; Find/Lookup lock a cache mutex.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "spate/base/status.h"

namespace spate {

struct ZoneRules;

class TimeZone {
 public:
  /// UTC (id "UTC").
  TimeZone();

  /// Resolves a zone id as Spark resolves spark.sql.session.timeZone. An unknown or
  /// malformed id is INVALID_CONF_VALUE.TIME_ZONE (the error Spark raises when the conf
  /// is set).
  static Result<TimeZone> Find(std::string_view id);
  /// Like Find, but returns an interned zone that lives for the whole process, or nullptr
  /// for an invalid id. Cheap on repeated ids (one hash lookup); meant for per-value zone
  /// names in expressions.
  static const TimeZone* Lookup(std::string_view id);
  /// A fixed offset zone, id as java.time.ZoneOffset prints it ("Z", "+05:30",
  /// "-01:02:03"). REQUIRES: -18h <= seconds <= 18h.
  static TimeZone FixedOffset(int32_t seconds);

  /// The id as given to Find (as spark.sql.session.timeZone and current_timezone() show).
  const std::string& id() const { return id_; }
  /// java.time's ZoneId.getId() of the resolved zone: "America/Los_Angeles" for "PST",
  /// "+08:00" for "+8", "GMT+08:00" for "GMT+8", "Z" for "+00:00".
  const std::string& zone_id() const { return zone_id_; }
  /// True for offset zones (no transitions).
  bool is_fixed_offset() const { return rules_ == nullptr; }

  /// Offset from UTC in seconds in effect at the instant `utc_micros` (µs since epoch).
  int64_t OffsetSeconds(int64_t utc_micros) const {
    return rules_ == nullptr ? fixed_offset_ : RegionOffsetSeconds(utc_micros);
  }
  /// The instant (µs since the epoch) of the wall-clock time `local_micros` in this zone,
  /// as java.time.ZonedDateTime.of: a time inside a DST gap is moved forward by the
  /// length of the gap; a time inside an overlap takes the earlier offset (the one before
  /// the transition).
  int64_t LocalToUtcMicros(int64_t local_micros) const;

 private:
  TimeZone(std::string id, std::string zone_id, int32_t fixed_offset,
           std::shared_ptr<const ZoneRules> rules);
  int64_t RegionOffsetSeconds(int64_t utc_micros) const;

  std::string id_;
  std::string zone_id_;
  int32_t fixed_offset_ = 0;
  std::shared_ptr<const ZoneRules> rules_;  // nullptr for fixed offsets
};

}  // namespace spate
