// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/spate.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

TEST(DatetimeFunctionsTest, FunctionsMatchSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.range(1).select(
      F::to_date(F::lit("2016-12-31"), "yyyy-MM-dd").alias("d"),
      F::date_format(F::to_timestamp(F::lit("2016-12-31 10:11:12")), "yyyy/MM/dd HH:mm")
          .alias("f"),
      F::year(F::lit("2016-07-30")).alias("y"),
      F::add_months(F::lit("2016-08-31"), 1).alias("am"),
      F::months_between(F::lit("1997-02-28 10:30:00"), F::lit("1996-10-30")).alias("mb"),
      F::extract(F::lit("DOY"), F::lit("2019-08-12")).alias("doy"));
  auto rows = df.collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].toString(),
            "Row(d=2016-12-31, f='2016/12/31 10:11', y=2016, am=2016-09-30, "
            "mb=3.94959677, doy=224)");
  auto same =
      spark.range(1).selectExpr({"to_date('2016-12-31', 'yyyy-MM-dd') AS d"}).collect();
  EXPECT_EQ(same[0].toString(), "Row(d=2016-12-31)");
}

// timestamp_add / timestamp_diff are SQL's TIMESTAMPADD / TIMESTAMPDIFF, named as Spark
// names them (timestampadd(unit, n, ts), the unit as given).
TEST(DatetimeFunctionsTest, TimestampAddAndDiff) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql(
      "SELECT TIMESTAMP'2016-03-11 09:00:07' AS ts, TIMESTAMP'2024-04-02 09:00:07' AS "
      "ts2, 2 "
      "AS q");
  auto out =
      df.select(F::timestamp_add("year", F::col("q"), F::col("ts")),
                F::timestamp_add("WEEK", F::lit(5), F::col("ts")),
                F::timestamp_diff("day", F::col("ts2"), F::col("ts")),
                F::timestamp_diff("Month", F::col("ts"), F::col("ts2")).alias("m"));
  EXPECT_EQ(out.columns(), (std::vector<std::string>{
                               "timestampadd(year, q, ts)", "timestampadd(WEEK, 5, ts)",
                               "timestampdiff(day, ts2, ts)", "m"}));
  auto rows = out.collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].toString(),
            "Row(timestampadd(year, q, ts)=2018-03-11 09:00:07, timestampadd(WEEK, 5, "
            "ts)=2016-04-15 09:00:07, timestampdiff(day, ts2, ts)=-2944, m=96)");
  auto sql = spark.sql(
      "SELECT timestampadd(year, q, ts), dateadd(WEEK, 5, ts), datediff(day, ts2, ts), "
      "date_diff(Month, ts, ts2) AS m FROM VALUES (TIMESTAMP'2016-03-11 09:00:07', "
      "TIMESTAMP'2024-04-02 09:00:07', 2) AS t(ts, ts2, q)");
  EXPECT_EQ(sql.columns(), (std::vector<std::string>{
                               "timestampadd(year, q, ts)", "timestampadd(WEEK, 5, ts)",
                               "timestampdiff(day, ts2, ts)", "m"}));
  EXPECT_EQ(sql.collect()[0].toString(), rows[0].toString());
  // An unknown unit fails on a row (not on an empty input), as in Spark; in SQL the name
  // is then no function.
  auto bad = df.select(F::timestamp_diff("DAYOFYEAR", F::col("ts"), F::col("ts2")));
  EXPECT_EQ(bad.columns(), std::vector<std::string>{"timestampdiff(DAYOFYEAR, ts, ts2)"});
  EXPECT_THROW_CLASS(bad.collect(), AnalysisException,
                     "INVALID_PARAMETER_VALUE.DATETIME_UNIT");
  EXPECT_TRUE(df.where("q > 5")
                  .select(F::timestamp_diff("DAYOFYEAR", F::col("ts"), F::col("ts2")))
                  .collect()
                  .empty());
  EXPECT_THROW_CLASS(spark.sql("SELECT timestampadd(FOO, 1, current_timestamp())"),
                     AnalysisException, "UNRESOLVED_ROUTINE");
  // The internal calls are no functions SHOW FUNCTIONS lists.
  for (const auto& r : spark.sql("SHOW FUNCTIONS").collect())
    EXPECT_EQ(r.toString().find("__spate"), std::string::npos) << r.toString();
}

}  // namespace
}  // namespace spate::api
