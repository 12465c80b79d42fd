// Copyright spate authors.
#include "spate/compute/datetime_format.h"

#include <gtest/gtest.h>

#include "spate/types/format.h"
#include "spate/types/timezone.h"

// Expected texts follow Spark 4's sql-ref-datetime-pattern.html,
// datetime-formatting.sql.out, datetime-parsing*.sql.out and
// datetime-formatting-invalid.sql.out.

namespace spate {
namespace {

// 2018-11-17 13:33:33.123456 UTC.
constexpr int64_t kTs = 1542461613123456;

int64_t Micros(int64_t y, unsigned m, unsigned d, int64_t h = 0, int64_t mi = 0,
               int64_t s = 0, int64_t us = 0) {
  return int64_t{DaysFromCivil(y, m, d)} * kMicrosPerDay +
         ((h * 60 + mi) * 60 + s) * kMicrosPerSecond + us;
}

std::string Fmt(std::string_view pattern, int64_t micros,
                const TimeZone* zone = nullptr) {
  auto p = DateTimePattern::Compile(pattern);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return "";
  std::string out;
  p->Format(micros, zone, &out);
  return out;
}

// Parses in UTC; returns micros or INT64_MIN on failure (message in *err).
int64_t Parse(std::string_view pattern, std::string_view text, std::string* err = nullptr,
              const TimeZone* zone = nullptr) {
  auto p = DateTimePattern::Compile(pattern);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return INT64_MIN;
  int64_t micros = 0;
  std::string e;
  if (!p->Parse(text, zone, false, &micros, &e)) {
    if (err) *err = e;
    return INT64_MIN;
  }
  return micros;
}

std::string CompileError(std::string_view pattern) {
  auto p = DateTimePattern::Compile(pattern);
  EXPECT_FALSE(p.ok()) << pattern;
  return p.ok() ? "" : p.status().error_class();
}

TEST(DateTimeFormat, NumericFields) {
  EXPECT_EQ(Fmt("yyyy-MM-dd HH:mm:ss", kTs), "2018-11-17 13:33:33");
  EXPECT_EQ(Fmt("y-M-d H:m:s", kTs), "2018-11-17 13:33:33");
  EXPECT_EQ(Fmt("yy", kTs), "18");
  EXPECT_EQ(Fmt("yyy", kTs), "2018");
  EXPECT_EQ(Fmt("yyyyy", kTs), "02018");
  EXPECT_EQ(Fmt("D DD DDD", kTs), "321 321 321");
  EXPECT_EQ(Fmt("D DD DDD", Micros(2018, 1, 5)), "5 05 005");
  EXPECT_EQ(Fmt("h hh K KK k kk", kTs), "1 01 1 01 13 13");
  EXPECT_EQ(Fmt("h K k a", Micros(2018, 1, 1, 0, 5)), "12 0 24 AM");
  EXPECT_EQ(Fmt("S SS SSS SSSSSS SSSSSSSSS", kTs), "1 12 123 123456 123456000");
  EXPECT_EQ(Fmt("F", kTs), "3");
}

TEST(DateTimeFormat, TextFields) {
  EXPECT_EQ(Fmt("MMM MMMM LLL LLLL", kTs), "Nov November Nov November");
  EXPECT_EQ(Fmt("E EE EEE EEEE", kTs), "Sat Sat Sat Saturday");
  EXPECT_EQ(Fmt("Q QQ QQQ QQQQ", kTs), "4 04 Q4 4th quarter");
  EXPECT_EQ(Fmt("G GGGG", kTs), "AD Anno Domini");
  EXPECT_EQ(Fmt("a", kTs), "PM");
  EXPECT_EQ(Fmt("'quoted' yyyy ''", kTs), "quoted 2018 '");
  EXPECT_EQ(Fmt("yyyy[-MM]", kTs), "2018-11");
}

TEST(DateTimeFormat, YearSigns) {
  EXPECT_EQ(Fmt("yyyy", Micros(12345, 1, 1)), "+12345");
  EXPECT_EQ(Fmt("y", Micros(-44, 3, 15)), "-44");
  EXPECT_EQ(Fmt("yyyy G", Micros(-44, 3, 15)), "0045 BC");
  EXPECT_EQ(Fmt("yyyy-MM-dd", Micros(1582, 10, 4)), "1582-10-04");
}

TEST(DateTimeFormat, Zones) {
  const TimeZone* la = TimeZone::Lookup("America/Los_Angeles");
  ASSERT_NE(la, nullptr);
  EXPECT_EQ(Fmt("yyyy-MM-dd HH:mm:ss VV", kTs, la),
            "2018-11-17 05:33:33 America/Los_Angeles");
  EXPECT_EQ(Fmt("z zzzz", kTs, la), "PST Pacific Standard Time");
  EXPECT_EQ(Fmt("z", Micros(2018, 7, 1), la), "PDT");
  EXPECT_EQ(Fmt("O OOOO", kTs, la), "GMT-8 GMT-08:00");
  EXPECT_EQ(Fmt("X XX XXX XXXX XXXXX", kTs, la), "-08 -0800 -08:00 -0800 -08:00");
  EXPECT_EQ(Fmt("x xx xxx", kTs, la), "-08 -0800 -08:00");
  EXPECT_EQ(Fmt("Z ZZZZ ZZZZZ", kTs, la), "-0800 GMT-08:00 -08:00");
  EXPECT_EQ(Fmt("X x Z ZZZZZ O", kTs), "Z +00 +0000 Z GMT");
  const TimeZone* ist = TimeZone::Lookup("Asia/Kolkata");
  EXPECT_EQ(Fmt("X XXX O", kTs, ist), "+0530 +05:30 GMT+5:30");
}

TEST(DateTimeFormat, InvalidPatterns) {
  const char* kRecognition =
      "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION";
  for (const char* p :
       {"GGGGG", "yyyyyyy", "MMMMM", "LLLLL", "EEEEE", "FF",  "ddd",        "DDDD",
        "HHH",   "hhh",     "kkk",   "KKK",   "mmm",   "sss", "SSSSSSSSSS", "aa",
        "zzzzz", "ZZZZZZ",  "Y",     "w",     "W",     "u"}) {
    EXPECT_EQ(CompileError(p), kRecognition) << p;
  }
  EXPECT_EQ(CompileError("e"),
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN");
  EXPECT_EQ(CompileError("c"),
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN");
  for (const char* p : {"A", "n", "N", "p", "B", "C", "I"}) {
    EXPECT_EQ(CompileError(p), "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER") << p;
  }
  for (const char* p : {"qqqqq", "QQQQQ", "V", "OO", "XXXXXX", "xxxxxx"}) {
    EXPECT_EQ(CompileError(p), "INVALID_DATETIME_PATTERN.LENGTH") << p;
  }
  // Letters inside quotes are literals.
  EXPECT_TRUE(DateTimePattern::Compile("'week' yyyy").ok());
}

TEST(DateTimeParse, Basic) {
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss", "2016-12-31 00:12:00"),
            Micros(2016, 12, 31, 0, 12));
  EXPECT_EQ(Parse("yyyy-MM-dd", "2016-12-31"), Micros(2016, 12, 31));
  EXPECT_EQ(Parse("dd/MM/yyyy HH:mm", "31/12/2016 10:30"), Micros(2016, 12, 31, 10, 30));
  EXPECT_EQ(Parse("yyyyMMddHHmmss", "20161231101112"), Micros(2016, 12, 31, 10, 11, 12));
  EXPECT_EQ(Parse("yyyyMMdd", "20200115"), Micros(2020, 1, 15));
  EXPECT_EQ(Parse("y-M-d", "2020-1-5"), Micros(2020, 1, 5));
  EXPECT_EQ(Parse("MMM d, yyyy", "jan 5, 2020"), Micros(2020, 1, 5));
  EXPECT_EQ(Parse("MMMM d yyyy", "January 5 2020"), Micros(2020, 1, 5));
  EXPECT_EQ(Parse("hh:mm a", "01:30 PM"), Micros(1970, 1, 1, 13, 30));
  EXPECT_EQ(Parse("hh:mm a", "12:30 AM"), Micros(1970, 1, 1, 0, 30));
  EXPECT_EQ(Parse("hh:mm", "12:30"), Micros(1970, 1, 1, 0, 30));
  EXPECT_EQ(Parse("yy", "69"), Micros(2069, 1, 1));
  EXPECT_EQ(Parse("yyyy-DDD", "2020-366"), Micros(2020, 12, 31));
  EXPECT_EQ(Parse("EEE, dd MMM yyyy", "Mon, 06 Jan 2020"), Micros(2020, 1, 6));
}

TEST(DateTimeParse, Fractions) {
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss.SSS", "2020-01-27 20:06:11.847"),
            Micros(2020, 1, 27, 20, 6, 11, 847000));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss.SSSSSS", "2020-01-27 20:06:11.8"),
            Micros(2020, 1, 27, 20, 6, 11, 800000));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss[.SSSSSS]", "2020-01-27 20:06:11"),
            Micros(2020, 1, 27, 20, 6, 11));
  std::string err;
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss.SSS", "2020-01-27 20:06:11.8475", &err),
            INT64_MIN);
  EXPECT_EQ(err,
            "Text '2020-01-27 20:06:11.8475' could not be parsed, unparsed text found at "
            "index 23");
}

TEST(DateTimeParse, Zones) {
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss XXX", "2020-01-01 08:00:00 +08:00"),
            Micros(2020, 1, 1));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ssX", "2020-01-01 08:00:00Z"), Micros(2020, 1, 1, 8));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss Z", "2020-01-01 08:00:00 +0800"),
            Micros(2020, 1, 1));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss VV", "2020-01-01 00:00:00 America/Los_Angeles"),
            Micros(2020, 1, 1, 8));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm z", "2020-07-01 00:00 PDT"), Micros(2020, 7, 1, 7));
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm O", "2020-01-01 00:00 GMT+8"),
            Micros(2019, 12, 31, 16));
  // The session zone applies when the text has none.
  const TimeZone* la = TimeZone::Lookup("America/Los_Angeles");
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm", "2020-01-01 00:00", nullptr, la),
            Micros(2020, 1, 1, 8));
  // DST gap: 02:30 does not exist on 2020-03-08 in Los Angeles; java.time moves it
  // forward.
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm", "2020-03-08 02:30", nullptr, la),
            Micros(2020, 3, 8, 10, 30));
}

// A zone id is the longest prefix of the text's id characters that names a zone; a run of
// them longer than any zone id is cut to that length first (once cost a lookup for
// every character of the run: seconds for a pattern of several zone fields).
TEST(DateTimeParse, ZoneIdIsTheLongestPrefixThatNamesAZone) {
  EXPECT_EQ(Parse("yyyy-MM-dd VV'~'", "2020-01-01 Europe/Paris~"),
            Micros(2019, 12, 31, 23));
  EXPECT_EQ(Parse("yyyy-MM-dd VV'_x'", "2020-01-01 America/Los_Angeles_x"),
            Micros(2020, 1, 1, 8));
  const std::string run(100000, 'x');
  EXPECT_EQ(Parse("yyyy-MM-dd VV", "2020-01-01 Europe/Paris" + run), INT64_MIN);
  EXPECT_EQ(Parse("yyyy-MM-dd VV'" + run + "'", "2020-01-01 Europe/Paris" + run),
            Micros(2019, 12, 31, 23));
}

TEST(DateTimeParse, Failures) {
  std::string err;
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss.SSS", "Unparseable", &err), INT64_MIN);
  EXPECT_EQ(err, "Text 'Unparseable' could not be parsed at index 0");
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss.SSS", "2020-01-27T20:06:11.847", &err), INT64_MIN);
  EXPECT_EQ(err, "Text '2020-01-27T20:06:11.847' could not be parsed at index 10");
  EXPECT_EQ(Parse("yyyy-MM-dd", "2019-02-29", &err), INT64_MIN);
  EXPECT_EQ(err,
            "Text '2019-02-29' could not be parsed: Invalid date 'February 29' as '2019' "
            "is not a leap year");
  EXPECT_EQ(Parse("yyyy-MM-dd", "2019-04-31", &err), INT64_MIN);
  EXPECT_EQ(err, "Text '2019-04-31' could not be parsed: Invalid date 'APRIL 31'");
  EXPECT_EQ(Parse("yyyy-MM-dd", "2019-13-01", &err), INT64_MIN);
  EXPECT_EQ(err,
            "Text '2019-13-01' could not be parsed: Invalid value for MonthOfYear (valid "
            "values 1 - 12): 13");
  EXPECT_EQ(Parse("yy", "1"), INT64_MIN);
  EXPECT_EQ(Parse("yy", "123"), INT64_MIN);
  EXPECT_EQ(Parse("yyy", "1"), INT64_MIN);
  EXPECT_EQ(Parse("D", "366"), INT64_MIN);
  EXPECT_EQ(Parse("DD", "9"), INT64_MIN);
  EXPECT_EQ(Parse("dd-DDD", "30-365"), INT64_MIN);
  EXPECT_EQ(Parse("yyyy-DDD", "2019-366"), INT64_MIN);
  EXPECT_EQ(Parse("EEE yyyy-MM-dd", "Tue 2020-01-06"), INT64_MIN);  // a Monday
  EXPECT_EQ(Parse("HH", "24"), INT64_MIN);
}

TEST(DateTimeParse, RoundTrip) {
  const char* patterns[] = {"yyyy-MM-dd HH:mm:ss.SSSSSS", "dd MMM yyyy hh:mm:ss.SSS a",
                            "EEEE, MMMM d, yyyy HH:mm:ss.SSSSSS XXX"};
  for (const char* pat : patterns) {
    for (int64_t t : {int64_t{0}, kTs - 456, Micros(1582, 10, 15, 23, 59, 59, 999000),
                      Micros(2100, 2, 28, 12)}) {
      std::string text = Fmt(pat, t);
      EXPECT_EQ(Parse(pat, text), t) << pat << " " << text;
    }
  }
}

}  // namespace
}  // namespace spate
