// Copyright spate authors.
// The C++ API's vector functions (and the vector_sum / vector_avg aggregates),
// bitwise_not, call_udf, current_path and collation give what their SQL gives
// (tests/differential/cases/functions_vector.py compares the SQL with Spark 4.2).
#include <gtest/gtest.h>

#include "spate/spate.h"

namespace spate::api {
namespace {

namespace F = functions;

TEST(VectorFunctionsTest, FunctionsMatchSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql(
      "SELECT array(1.0F, 2.0F, 3.0F) a, array(4.0F, 5.0F, 6.0F) b, 5 i, 1.0F d");
  auto rows = df.select(F::vector_inner_product(F::col("a"), F::col("b")).alias("ip"),
                        F::vector_cosine_similarity(F::col("a"), F::col("b")).alias("cs"),
                        F::vector_l2_distance(F::col("a"), F::col("b")).alias("l2"),
                        F::vector_norm(F::col("a")).alias("n2"),
                        F::vector_norm(F::col("a"), F::col("d")).alias("n1"),
                        F::vector_normalize(F::col("b"), F::col("d")).alias("z1"),
                        F::bitwise_not(F::col("i")).alias("not"),
                        F::call_udf("abs", {F::col("i")}).alias("abs"))
                  .collect();
  ASSERT_EQ(rows.size(), 1u);
  auto sql =
      spark
          .sql(
              "SELECT vector_inner_product(a, b) ip, vector_cosine_similarity(a, b) "
              "cs, vector_l2_distance(a, b) l2, vector_norm(a) n2, vector_norm(a, d) "
              "n1, vector_normalize(b, d) z1, ~i AS `not`, abs(i) abs FROM (SELECT "
              "array(1.0F, 2.0F, 3.0F) a, array(4.0F, 5.0F, 6.0F) b, 5 i, 1.0F d)")
          .collect();
  EXPECT_EQ(rows[0].toString(), sql[0].toString());
  EXPECT_EQ(rows[0].toString(),
            "Row(ip=32.0, cs=0.9746319, l2=5.196152, n2=3.7416575, n1=6.0, "
            "z1=[0.26666668, 0.33333334, 0.4], not=-6, abs=5)");
}

TEST(VectorFunctionsTest, DimensionMismatchIsAnError) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql("SELECT array(1.0F) a, array(1.0F, 2.0F) b")
                .select(F::vector_l2_distance(F::col("a"), F::col("b")));
  try {
    df.collect();
    FAIL() << "expected VECTOR_DIMENSION_MISMATCH";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("VECTOR_DIMENSION_MISMATCH"), std::string::npos)
        << e.what();
  }
}

TEST(VectorFunctionsTest, VectorAggregatesMatchSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql(
      "SELECT * FROM VALUES (1, array(1.0F, 2.0F)), (1, array(3.0F, NULL)), (1, "
      "array(5.0F, 7.0F)), (2, CAST(NULL AS ARRAY<FLOAT>)) t(g, v)");
  auto rows = df.groupBy({F::col("g")})
                  .agg({F::vector_sum(F::col("v")).alias("s"),
                        F::vector_avg(F::col("v")).alias("a")})
                  .orderBy({F::col("g")})
                  .collect();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].toString(), "Row(g=1, s=[6.0, 9.0], a=[3.0, 4.5])");
  EXPECT_EQ(rows[1].toString(), "Row(g=2, s=None, a=None)");
  df.createOrReplaceTempView("vectors");
  auto sql = spark
                 .sql(
                     "SELECT g, vector_sum(v) s, vector_avg(v) a FROM vectors GROUP BY g "
                     "ORDER BY g")
                 .collect();
  EXPECT_EQ(rows[0].toString(), sql[0].toString());
  EXPECT_EQ(rows[1].toString(), sql[1].toString());
}

TEST(VectorFunctionsTest, CurrentPathAndCollation) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql("SELECT 'a' s, CAST(NULL AS STRING) n");
  auto rows =
      df.select(F::current_path().alias("p"), F::collation(F::col("s")).alias("c"),
                F::collation(F::col("n")).alias("cn"))
          .collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].toString(),
            "Row(p='system.builtin,system.session,spark_catalog.default', "
            "c='SYSTEM.BUILTIN.UTF8_BINARY', cn='SYSTEM.BUILTIN.UTF8_BINARY')");
  // Spark casts nothing to STRING for collation() but NULL.
  try {
    spark.sql("SELECT collation(1)").collect();
    FAIL() << "expected DATATYPE_MISMATCH";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace spate::api
