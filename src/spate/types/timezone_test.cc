// Copyright spate authors.
#include "spate/types/timezone.h"

#include <gtest/gtest.h>

#include "spate/testing/status_matchers.h"
#include "spate/types/format.h"

namespace spate {
namespace {

constexpr int64_t kHour = 3600;

// µs since the epoch of a civil date-time (UTC or wall clock, depending on use).
int64_t Micros(int64_t y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return (DaysFromCivil(y, mo, d) * 86'400LL + h * 3600LL + mi * 60LL + s) *
         kMicrosPerSecond;
}

TimeZone MustFind(std::string_view id) {
  Result<TimeZone> tz = TimeZone::Find(id);
  EXPECT_TRUE(tz.ok()) << id << ": " << tz.status().ToString();
  return tz.ok() ? *tz : TimeZone();
}

TEST(TimeZoneTest, Utc) {
  TimeZone utc = MustFind("UTC");
  EXPECT_EQ(utc.id(), "UTC");
  EXPECT_EQ(utc.zone_id(), "UTC");
  EXPECT_TRUE(utc.is_fixed_offset());
  EXPECT_EQ(utc.OffsetSeconds(Micros(2024, 7, 1)), 0);
  EXPECT_EQ(utc.LocalToUtcMicros(Micros(2024, 7, 1, 12)), Micros(2024, 7, 1, 12));
  EXPECT_EQ(TimeZone().zone_id(), "UTC");
  EXPECT_EQ(MustFind("Z").zone_id(), "Z");
  EXPECT_EQ(MustFind("GMT").zone_id(), "GMT");
  EXPECT_EQ(MustFind("UT").zone_id(), "UT");
  EXPECT_EQ(MustFind("Etc/UTC").OffsetSeconds(0), 0);
}

TEST(TimeZoneTest, FixedOffsets) {
  struct Case {
    const char* id;
    const char* zone_id;
    int64_t offset;
  };
  const Case cases[] = {
      {"+08:00", "+08:00", 8 * kHour},
      {"-0530", "-05:30", -(5 * kHour + 1800)},
      {"+8", "+08:00", 8 * kHour},
      {"-08", "-08:00", -8 * kHour},
      {"+01:02:03", "+01:02:03", kHour + 123},
      {"-010203", "-01:02:03", -(kHour + 123)},
      {"+00:00", "Z", 0},
      {"+18:00", "+18:00", 18 * kHour},
      {"GMT+8", "GMT+08:00", 8 * kHour},
      {"UTC+01:00", "UTC+01:00", kHour},
      {"UT-05:30", "UT-05:30", -(5 * kHour + 1800)},
      {"GMT+0", "GMT", 0},
      // Spark's pre-3.0 forms.
      {"+8:00", "+08:00", 8 * kHour},
      {"-08:3", "-08:03", -(8 * kHour + 180)},
      {"GMT+8:00", "GMT+08:00", 8 * kHour},
      // java.time's SHORT_IDS that map to offsets.
      {"EST", "-05:00", -5 * kHour},
      {"HST", "-10:00", -10 * kHour},
  };
  for (const Case& c : cases) {
    TimeZone tz = MustFind(c.id);
    EXPECT_EQ(tz.id(), c.id);
    EXPECT_EQ(tz.zone_id(), c.zone_id) << c.id;
    EXPECT_TRUE(tz.is_fixed_offset()) << c.id;
    EXPECT_EQ(tz.OffsetSeconds(Micros(2024, 3, 10, 10)), c.offset) << c.id;
    EXPECT_EQ(tz.LocalToUtcMicros(Micros(2024, 3, 10, 10)),
              Micros(2024, 3, 10, 10) - c.offset * kMicrosPerSecond)
        << c.id;
  }
  EXPECT_EQ(TimeZone::FixedOffset(-3600).zone_id(), "-01:00");
  EXPECT_EQ(TimeZone::FixedOffset(0).zone_id(), "Z");
}

TEST(TimeZoneTest, EtcZonesUsePosixSigns) {
  TimeZone tz = MustFind("Etc/GMT+8");
  EXPECT_EQ(tz.zone_id(), "Etc/GMT+8");
  EXPECT_EQ(tz.OffsetSeconds(Micros(2024, 7, 1)), -8 * kHour);
}

TEST(TimeZoneTest, LosAngelesAcrossSpringForward2024) {
  TimeZone la = MustFind("America/Los_Angeles");
  EXPECT_FALSE(la.is_fixed_offset());
  // 2024-03-10 02:00 PST (10:00Z) becomes 03:00 PDT.
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 3, 10, 9, 59, 59)), -8 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 3, 10, 10)), -7 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 1, 15)), -8 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 7, 1)), -7 * kHour);
  // Wall clock before, inside and after the gap; inside moves forward by the gap's hour.
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 3, 10, 1, 59, 59)),
            Micros(2024, 3, 10, 9, 59, 59));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 3, 10, 2, 30)), Micros(2024, 3, 10, 10, 30));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 3, 10, 3, 30)), Micros(2024, 3, 10, 10, 30));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 7, 1, 12) + 123),
            Micros(2024, 7, 1, 19) + 123);
  // Fall back on 2024-11-03: 01:30 happens twice, the earlier offset (PDT) wins.
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 11, 3, 1, 30)), Micros(2024, 11, 3, 8, 30));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 11, 3, 0, 59)), Micros(2024, 11, 3, 7, 59));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2024, 11, 3, 2, 0)), Micros(2024, 11, 3, 10, 0));
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 11, 3, 8, 59, 59)), -7 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2024, 11, 3, 9)), -8 * kHour);
  // Local mean time before 1883, as java.time.
  EXPECT_EQ(la.OffsetSeconds(Micros(1850, 1, 1)), -(7 * kHour + 52 * 60 + 58));
  // Short id and the formatted wall clock.
  EXPECT_EQ(MustFind("PST").zone_id(), "America/Los_Angeles");
  int64_t t = Micros(2024, 3, 10, 10, 0, 1);
  EXPECT_EQ(FormatTimestampMicros(t, la.OffsetSeconds(t)), "2024-03-10 03:00:01");
}

TEST(TimeZoneTest, DaylightSavingContinuesAfter2037) {
  TimeZone la = MustFind("America/Los_Angeles");
  EXPECT_EQ(la.OffsetSeconds(Micros(2100, 7, 1)), -7 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2100, 12, 1)), -8 * kHour);
  // 2100-03-14 is the second Sunday of March.
  EXPECT_EQ(la.OffsetSeconds(Micros(2100, 3, 14, 9, 59, 59)), -8 * kHour);
  EXPECT_EQ(la.OffsetSeconds(Micros(2100, 3, 14, 10)), -7 * kHour);
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2100, 3, 14, 2, 30)), Micros(2100, 3, 14, 10, 30));
  EXPECT_EQ(la.LocalToUtcMicros(Micros(2100, 7, 1, 12)), Micros(2100, 7, 1, 19));
  // Southern hemisphere: DST over the new year.
  TimeZone sydney = MustFind("Australia/Sydney");
  EXPECT_EQ(sydney.OffsetSeconds(Micros(2100, 1, 15)), 11 * kHour);
  EXPECT_EQ(sydney.OffsetSeconds(Micros(2100, 7, 15)), 10 * kHour);
  EXPECT_EQ(sydney.LocalToUtcMicros(Micros(2100, 1, 15, 12)), Micros(2100, 1, 15, 1));
  // Negative DST (IST in summer, GMT in winter) gives the same offsets as java.time.
  TimeZone dublin = MustFind("Europe/Dublin");
  EXPECT_EQ(dublin.OffsetSeconds(Micros(2100, 7, 1)), kHour);
  EXPECT_EQ(dublin.OffsetSeconds(Micros(2100, 1, 1)), 0);
}

TEST(TimeZoneTest, WallClockRoundTripsAcrossTableAndRule) {
  // Every 15 minutes over years read from the TZif table (2023-2026) and over the switch
  // to the POSIX rule (2036-2040): the wall clock of an instant maps back to that
  // instant, except for the second pass through an overlap, which maps to the earlier
  // instant.
  for (const char* id : {"America/Los_Angeles", "Australia/Sydney", "Europe/Dublin",
                         "America/Nuuk", "Pacific/Chatham"}) {
    TimeZone tz = MustFind(id);
    for (auto [from, to] : {std::pair{2023, 2027}, std::pair{2036, 2041}}) {
      for (int64_t t = Micros(from, 1, 1); t < Micros(to, 1, 1);
           t += 900 * kMicrosPerSecond) {
        int64_t local = t + tz.OffsetSeconds(t) * kMicrosPerSecond;
        int64_t back = tz.LocalToUtcMicros(local);
        if (back != t) {
          ASSERT_LT(back, t) << id << " " << FormatTimestampMicros(t);
          ASSERT_EQ(back + tz.OffsetSeconds(back) * kMicrosPerSecond, local)
              << id << " " << FormatTimestampMicros(t);
        }
      }
    }
  }
}

TEST(TimeZoneTest, Kolkata) {
  TimeZone tz = MustFind("Asia/Kolkata");
  const int64_t offset = 5 * kHour + 1800;
  EXPECT_EQ(tz.OffsetSeconds(Micros(2024, 1, 1)), offset);
  EXPECT_EQ(tz.OffsetSeconds(Micros(2100, 1, 1)), offset);
  EXPECT_EQ(tz.LocalToUtcMicros(Micros(2024, 1, 1, 5, 30)), Micros(2024, 1, 1));
  EXPECT_EQ(MustFind("IST").zone_id(), "Asia/Kolkata");
  int64_t t = Micros(2024, 1, 1, 0, 0, 0) + 500'000;
  EXPECT_EQ(FormatTimestampMicros(t, tz.OffsetSeconds(t)), "2024-01-01 05:30:00.5");
}

TEST(TimeZoneTest, BadZoneIds) {
  for (const char* id :
       {"Mars/Olympus", "utc", "", "z", "+25:00", "+18:01", "+1:2:3", "GMT+", "UTC+8:0x",
        "+08:60", "08:00", "America/", "localtime", "../etc"}) {
    Result<TimeZone> tz = TimeZone::Find(id);
    ASSERT_ERROR_CLASS(tz, "INVALID_CONF_VALUE.TIME_ZONE") << id;
    EXPECT_EQ(TimeZone::Lookup(id), nullptr) << id;
  }
  EXPECT_EQ(
      TimeZone::Find("Mars/Olympus").status().ToString(),
      "[INVALID_CONF_VALUE.TIME_ZONE] The value 'Mars/Olympus' in the config "
      "\"spark.sql.session.timeZone\" is invalid. Cannot resolve the given timezone. "
      "SQLSTATE: 22022");
}

TEST(TimeZoneTest, LookupInternsZones) {
  const TimeZone* a = TimeZone::Lookup("Europe/Paris");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, TimeZone::Lookup("Europe/Paris"));
  EXPECT_EQ(a->OffsetSeconds(Micros(2024, 7, 1)), 2 * kHour);
  EXPECT_EQ(TimeZone::Lookup("ECT")->zone_id(), "Europe/Paris");
}

}  // namespace
}  // namespace spate
