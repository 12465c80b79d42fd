// Copyright spate authors.
// Higher-order functions through the C++ API: lambdas written as C++ callables over
// Columns give the same rows and names as the SQL forms (the SQL and differential suites
// pin Spark's values: tests/sql/functions/higher_order.test, tests/differential/cases/
// higher_order.py).

#include <gtest/gtest.h>

#include "spate/spate.h"

namespace spate::api {
namespace {

namespace F = functions;

DataFrame Arrays(SparkSession& spark) {
  return spark.sql(
      "SELECT * FROM VALUES (1, array(3, 1, 2), map('a', 1, 'b', 2)), (2, array(), "
      "map()), "
      "(3, NULL, NULL) AS t(k, a, m)");
}

std::vector<std::string> Texts(const DataFrame& df) {
  std::vector<std::string> out;
  for (const auto& r : df.orderBy({F::col("k")}).collect()) out.push_back(r.toString());
  return out;
}

TEST(HigherOrderFunctionsTest, ArrayFunctionsEqualTheirSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = Arrays(spark);
  auto api = df.select(
      F::col("k"),
      F::transform(F::col("a"), [](const Column& x) { return x * 2; }).alias("t"),
      F::transform(F::col("a"), [](const Column& x, const Column& i) { return x + i; })
          .alias("ti"),
      F::filter(F::col("a"), [](const Column& x) { return x > 1; }).alias("f"),
      F::exists(F::col("a"), [](const Column& x) { return x == 3; }).alias("e"),
      F::forall(F::col("a"), [](const Column& x) { return x > 0; }).alias("fa"),
      F::aggregate(
          F::col("a"), F::lit(0),
          [](const Column& acc, const Column& x) { return acc + x; },
          [](const Column& acc) { return acc * 10; })
          .alias("ag"),
      F::zip_with(F::col("a"), F::col("a"),
                  [](const Column& x, const Column& y) { return x * y; })
          .alias("z"),
      F::array_sort(F::col("a"), [](const Column& l, const Column& r) {
        return r - l;
      }).alias("s"));
  auto sql = df.selectExpr(
      {"k", "transform(a, x -> x * 2) AS t", "transform(a, (x, i) -> x + i) AS ti",
       "filter(a, x -> x > 1) AS f", "exists(a, x -> x = 3) AS e",
       "forall(a, x -> x > 0) AS fa",
       "aggregate(a, 0, (acc, x) -> acc + x, acc -> acc * 10) AS ag",
       "zip_with(a, a, (x, y) -> x * y) AS z", "array_sort(a, (l, r) -> r - l) AS s"});
  EXPECT_EQ(Texts(api), Texts(sql));
  EXPECT_EQ(Texts(api)[0],
            "Row(k=1, t=[6, 2, 4], ti=[3, 2, 4], f=[3, 2], e=True, fa=True, ag=60, z=[9, "
            "1, 4], "
            "s=[3, 2, 1])");
}

TEST(HigherOrderFunctionsTest, MapFunctionsAndNames) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = Arrays(spark).select(
      F::col("k"),
      F::map_filter(F::col("m"), [](const Column& k, const Column& v) { return v > 1; }),
      F::transform_values(F::col("m"),
                          [](const Column&, const Column& v) { return v + 1; }),
      F::transform_keys(F::col("m"),
                        [](const Column& k, const Column&) { return F::upper(k); }),
      F::map_zip_with(
          F::col("m"), F::col("m"),
          [](const Column&, const Column& a, const Column& b) { return a + b; }));
  // Spark's names: lambda variables are namedlambdavariable().
  EXPECT_EQ(
      df.columns()[1],
      "map_filter(m, lambdafunction((namedlambdavariable() > 1), namedlambdavariable(), "
      "namedlambdavariable()))");
  auto cols = df.columns();
  auto rows =
      Texts(df.select(F::col("k"), F::col(cols[1]).alias("f"), F::col(cols[2]).alias("v"),
                      F::col(cols[3]).alias("u"), F::col(cols[4]).alias("z")));
  EXPECT_EQ(
      rows[0],
      "Row(k=1, f={b -> 2}, v={a -> 2, b -> 3}, u={A -> 1, B -> 2}, z={a -> 2, b -> 4})");
  EXPECT_EQ(rows[2], "Row(k=3, f=None, v=None, u=None, z=None)");
}

TEST(HigherOrderFunctionsTest, OuterColumnsAndNestedLambdas) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = Arrays(spark).select(
      F::col("k"),
      F::transform(F::col("a"),
                   [](const Column& x) {
                     return F::transform(F::array({x, x}),
                                         [&x](const Column& y) { return y * x; });
                   })
          .alias("n"),
      F::transform(F::col("a"), [](const Column& x) {
        return x + F::col("k");
      }).alias("o"));
  EXPECT_EQ(Texts(df)[0], "Row(k=1, n=[[9, 9], [1, 1], [4, 4]], o=[4, 2, 3])");
}

TEST(HigherOrderFunctionsTest, ErrorsNameSparksClasses) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = Arrays(spark);
  auto expect_error = [](const std::function<void()>& f, const std::string& cls) {
    try {
      f();
      ADD_FAILURE() << "no error, expected " << cls;
    } catch (const SparkException& e) {
      EXPECT_EQ(e.getCondition(), cls) << e.what();
    }
  };
  expect_error(
      [&] {
        df.select(F::filter(F::col("a"), [](const Column& x) { return x + 1; }))
            .collect();
      },
      "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  expect_error(
      [&] {
        df.select(F::transform(F::col("k"), [](const Column& x) { return x; })).collect();
      },
      "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  expect_error(
      [&] {
        df.select(F::transform_keys(F::col("m"), [](const Column&,
                                                    const Column&) { return F::lit(1); }))
            .collect();
      },
      "DUPLICATED_MAP_KEY");
}

}  // namespace
}  // namespace spate::api
