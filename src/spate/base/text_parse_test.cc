// Copyright spate authors.
#include "spate/base/text_parse.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

TEST(TextParseTest, IntegersTakeTheWholeTextWithJavasSigns) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("+42"), 42);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", "+", "-", "+-1", "++1", " 1", "1 ", "12abc", "1.0", "0x10",
                          "9223372036854775808", "1e3"}) {
    EXPECT_FALSE(ParseInt64(bad).has_value()) << bad;
  }
  EXPECT_EQ(ParseInt32("2147483647"), 2147483647);
  EXPECT_FALSE(ParseInt32("2147483648").has_value());
  EXPECT_EQ(ParseInt32("ff", 16), 255);
  EXPECT_EQ(ParseInt32("0A", 16), 10);
  EXPECT_FALSE(ParseInt32("0xff", 16).has_value());
}

TEST(TextParseTest, Doubles) {
  EXPECT_EQ(ParseDouble("1.5"), 1.5);
  EXPECT_EQ(ParseDouble("+.5"), 0.5);
  EXPECT_EQ(ParseDouble("-2e3"), -2000);
  EXPECT_TRUE(std::isinf(ParseDouble("-Infinity").value()));
  EXPECT_TRUE(std::isnan(ParseDouble("NaN").value()));
  for (const char* bad : {"", "1.5x", " 1", "1e999", "0x1p3", "+-1"}) {
    EXPECT_FALSE(ParseDouble(bad).has_value()) << bad;
  }
  EXPECT_EQ(ParseLongDouble("9223372036854775808"), 9223372036854775808.0L);
  size_t used = 0;
  EXPECT_EQ(ParseDoublePrefix("1.5 GB", &used), 1.5);
  EXPECT_EQ(used, 3u);
  EXPECT_EQ(ParseDoublePrefix("+10k", &used), 10);
  EXPECT_EQ(used, 3u);
  EXPECT_EQ(ParseDoublePrefix("100L", &used), 100);
  EXPECT_EQ(used, 3u);
  EXPECT_FALSE(ParseDoublePrefix("k10", &used).has_value());
}

TEST(TextParseTest, ParseLongNamesTheTextAsJavaDoes) {
  EXPECT_EQ(ParseLong("-7").value(), -7);
  EXPECT_ERROR_HAS(ParseLong("7x"), "For input string: \"7x\"");
}

// JavaUtils.timeStringAsMs, the reading of Spark's time confs and Kafka's
// maxTriggerDelay.
TEST(TextParseTest, TimeStringAsMs) {
  EXPECT_EQ(TimeStringAsMs("250").ValueOr(-1), 250);
  EXPECT_EQ(TimeStringAsMs("250ms").ValueOr(-1), 250);
  EXPECT_EQ(TimeStringAsMs(" 10S ").ValueOr(-1), 10000);
  EXPECT_EQ(TimeStringAsMs("15m").ValueOr(-1), 900000);
  EXPECT_EQ(TimeStringAsMs("15min").ValueOr(-1), 900000);
  EXPECT_EQ(TimeStringAsMs("2h").ValueOr(-1), 7200000);
  EXPECT_EQ(TimeStringAsMs("1d").ValueOr(-1), 86400000);
  EXPECT_EQ(TimeStringAsMs("1500us").ValueOr(-1), 1);
  EXPECT_EQ(TimeStringAsMs("-5s").ValueOr(0), -5000);
  EXPECT_ERROR_HAS(TimeStringAsMs("10 seconds"), "Invalid suffix: \" seconds\"");
  EXPECT_ERROR_HAS(TimeStringAsMs("ten"), "Invalid time string: ten");
  EXPECT_ERROR_HAS(TimeStringAsMs("1.5s"), "Invalid suffix: \".5s\"");
}

}  // namespace
}  // namespace spate
