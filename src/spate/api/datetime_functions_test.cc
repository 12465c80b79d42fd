// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/spate.h"

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

}  // namespace
}  // namespace spate::api
