// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/spate.h"

namespace spate::api {
namespace {

namespace F = functions;

TEST(JsonFunctionsTest, FunctionsMatchSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.range(1).select(
      F::from_json(F::lit("{\"a\":1, \"b\":0.8}"), "a INT, b DOUBLE").alias("fj"),
      F::to_json(F::from_json(F::lit("{\"t\":\"26/08/2015\"}"), "t TIMESTAMP",
                              {{"timestampFormat", "dd/MM/yyyy"}}))
          .alias("tj"),
      F::get_json_object(F::lit("{\"a\":\"b\"}"), "$.a").alias("g"),
      F::schema_of_json("[{\"col\":0}]").alias("s"),
      F::json_array_length(F::lit("[1,2]")).alias("n"));
  auto rows = df.collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].toString(),
            "Row(fj={1, 0.8}, tj='{\"t\":\"2015-08-26T00:00:00.000Z\"}', g='b', "
            "s='ARRAY<STRUCT<col: BIGINT>>', n=2)");
  auto t = spark.range(1)
               .select(F::json_tuple(F::lit("{\"a\":1,\"b\":2}"), {"a", "b"}))
               .collect();
  EXPECT_EQ(t[0].toString(), "Row(c0='1', c1='2')");
}

}  // namespace
}  // namespace spate::api
