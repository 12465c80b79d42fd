// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/spate.h"

namespace spate::api {
namespace {

namespace F = functions;

DataFrame Events(SparkSession& spark) {
  return spark.sql(
      "SELECT * FROM VALUES ('A1', TIMESTAMP '2021-01-01 00:00:00'), ('A1', TIMESTAMP "
      "'2021-01-01 00:04:30'), "
      "('A1', TIMESTAMP '2021-01-01 00:06:00'), ('A2', TIMESTAMP '2021-01-01 00:01:00') "
      "AS tab(a, b)");
}

TEST(TimeWindowTest, GroupByTumblingWindow) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto rows = Events(spark)
                  .groupBy({F::col("a"), F::window(F::col("b"), "5 minutes")})
                  .agg({F::count(F::lit(1)).alias("cnt")})
                  .select({F::col("a"), F::col("window.start"),
                           F::window_time(F::col("window")).alias("t"), F::col("cnt")})
                  .orderBy({F::col("a"), F::col("start")})
                  .collect();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(
      rows[0].toString(),
      "Row(a='A1', start=2021-01-01 00:00:00, t=2021-01-01 00:04:59.999999, cnt=2)");
  EXPECT_EQ(
      rows[2].toString(),
      "Row(a='A2', start=2021-01-01 00:00:00, t=2021-01-01 00:04:59.999999, cnt=1)");
}

TEST(TimeWindowTest, SlidingAndSessionWindows) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto sliding = Events(spark)
                     .groupBy({F::window(F::col("b"), "10 minutes", "5 minutes")})
                     .count()
                     .select({F::col("window.start"), F::col("count")})
                     .orderBy({F::col("start")})
                     .collect();
  ASSERT_EQ(sliding.size(), 3u);
  EXPECT_EQ(sliding[1].toString(), "Row(start=2021-01-01 00:00:00, count=4)");
  auto sessions = Events(spark)
                      .groupBy({F::col("a"), F::session_window(F::col("b"), "2 minutes")})
                      .count()
                      .select({F::col("a"), F::col("session_window.start"),
                               F::col("session_window.end"), F::col("count")})
                      .orderBy({F::col("a"), F::col("start")})
                      .collect();
  ASSERT_EQ(sessions.size(), 3u);
  EXPECT_EQ(sessions[0].toString(),
            "Row(a='A1', start=2021-01-01 00:00:00, end=2021-01-01 00:02:00, count=1)");
  EXPECT_EQ(sessions[1].toString(),
            "Row(a='A1', start=2021-01-01 00:04:30, end=2021-01-01 00:08:00, count=2)");
  EXPECT_EQ(F::window(F::col("b"), "5 minutes").expr()->DisplayName(),
            "window(b, 5 minutes)");
}

}  // namespace
}  // namespace spate::api
