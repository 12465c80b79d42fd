// Copyright spate authors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "spate/spate.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

std::vector<std::string> Sorted(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.toString());
  std::sort(out.begin(), out.end());
  return out;
}

DataFrame Sales(const SparkSession& spark) {
  return spark.createDataFrame({{Value::String("a"), Value::Int(1), Value::Int(10)},
                                {Value::String("a"), Value::Int(2), Value::Int(20)},
                                {Value::String("b"), Value::Int(1), Value::Int(5)}},
                               "g STRING, k INT, v INT");
}

TEST(DataFrameStatTest, RollupGroupsByPrefixes) {
  auto spark = NewSession();
  auto df = Sales(spark)
                .rollup(std::vector<std::string>{"g", "k"})
                .agg({F::sum("v").alias("s"),
                      F::call_function("grouping_id", {}).alias("gid")});
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"g", "k", "s", "gid"}));
  EXPECT_EQ(Sorted(df.collect()),
            (std::vector<std::string>{
                "Row(g='a', k=1, s=10, gid=0)", "Row(g='a', k=2, s=20, gid=0)",
                "Row(g='a', k=None, s=30, gid=1)", "Row(g='b', k=1, s=5, gid=0)",
                "Row(g='b', k=None, s=5, gid=1)", "Row(g=None, k=None, s=35, gid=3)"}));
}

TEST(DataFrameStatTest, CubeCountsEverySubsetAndGrouping) {
  auto spark = NewSession();
  auto df = Sales(spark)
                .cube(std::vector<std::string>{"g", "k"})
                .agg({F::count(F::lit(1)).alias("n"),
                      F::call_function("grouping", {F::col("g")})});
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"g", "k", "n", "grouping(g)"}));
  EXPECT_EQ(df.count(), 8);  // 3 (g, k) + 2 (g) + 2 (k) + 1 ()
  auto by_k =
      df.filter(F::col("g").isNull() && F::col("k").isNotNull()).orderBy("k").collect();
  ASSERT_EQ(by_k.size(), 2u);
  EXPECT_EQ(by_k[0].toString(), "Row(g=None, k=1, n=2, grouping(g)=1)");
  // An empty input gives no rows, not a grand-total row.
  EXPECT_EQ(Sales(spark).limit(0).cube(std::vector<std::string>{"g"}).count().count(), 0);
}

TEST(DataFrameStatTest, GroupingSetsByName) {
  auto spark = NewSession();
  auto df = Sales(spark)
                .groupingSets({{F::col("g")}, {}}, {F::col("g")})
                .agg({F::sum("v").alias("s")});
  EXPECT_EQ(Sorted(df.collect()),
            (std::vector<std::string>{"Row(g='a', s=30)", "Row(g='b', s=5)",
                                      "Row(g=None, s=35)"}));
  // A set may group by an expression outside the columns: grouped by, not output.
  auto by_v = Sales(spark)
                  .groupingSets({{F::col("k")}}, {F::col("g")})
                  .agg({F::sum("v").alias("s")});
  EXPECT_EQ(Sorted(by_v.collect()),
            (std::vector<std::string>{"Row(g=None, s=15)", "Row(g=None, s=20)"}));
}

TEST(DataFrameStatTest, SampleIsDeterministicPerSeedAndNearTheFraction) {
  auto spark = NewSession();
  auto df = spark.range(20000);
  const int64_t a = df.sample(0.3, 7).count();
  EXPECT_EQ(a, df.sample(0.3, 7).count());
  EXPECT_NE(Sorted(df.sample(0.3, 7).limit(5).collect()),
            Sorted(df.sample(0.3, 8).limit(5).collect()));
  // 20000 * 0.3 = 6000, standard deviation ~65: 6 sigma.
  EXPECT_NEAR(static_cast<double>(a), 6000.0, 400.0);
  EXPECT_EQ(df.sample(0.0, 1).count(), 0);
  EXPECT_EQ(df.sample(1.0, 1).count(), 20000);
  // With replacement: Poisson(1.5) copies per row on average.
  const int64_t r = df.sample(true, 1.5, 3).count();
  EXPECT_NEAR(static_cast<double>(r), 30000.0, 1200.0);
  EXPECT_THROW_HAS(
      df.sample(1.5, 1), IllegalArgumentException,
      "Sampling fraction (1.5) must be on interval [0, 1] without replacement");
  EXPECT_THROW_HAS(df.sample(true, -0.5, 1), IllegalArgumentException,
                   "Sampling fraction (-0.5) must be nonnegative with replacement");
}

TEST(DataFrameStatTest, RandomSplitPartitionsTheRows) {
  auto spark = NewSession();
  auto df = spark.range(10000);
  auto parts = df.randomSplit({1.0, 2.0, 1.0}, 11);
  ASSERT_EQ(parts.size(), 3u);
  std::set<int64_t> seen;
  int64_t total = 0;
  for (const auto& p : parts) {
    for (const auto& r : p.collect()) {
      seen.insert(r[0].i64());
      ++total;
    }
  }
  EXPECT_EQ(total, 10000);
  EXPECT_EQ(seen.size(), 10000u);
  EXPECT_NEAR(static_cast<double>(parts[1].count()), 5000.0, 300.0);
  EXPECT_THROW_HAS(df.randomSplit({1.0, -1.0}, 1), IllegalArgumentException,
                   "Weights must be nonnegative, but got [1.0,-1.0]");
  EXPECT_THROW_HAS(df.randomSplit({0.0, 0.0}, 1), IllegalArgumentException,
                   "Sum of weights must be positive, but got [0.0,0.0]");
}

TEST(DataFrameStatTest, ReplaceByKindOfKey) {
  auto spark = NewSession();
  auto df =
      spark.createDataFrame({{Value::Int(1), Value::String("a"), Value::Double(2.0)},
                             {Value::Int(2), Value::String("b"), Value::Double(1.0)}},
                            "x INT, s STRING, d DOUBLE");
  auto nums = df.replace({{Value::Double(2.0), Value::Double(7.5)}});
  EXPECT_EQ(Sorted(nums.collect()), (std::vector<std::string>{"Row(x=1, s='a', d=7.5)",
                                                              "Row(x=7, s='b', d=1.0)"}));
  auto strs = df.replace({{Value::String("a"), Value::Null(DataType::String())}}, {"s"});
  EXPECT_EQ(Sorted(strs.collect()), (std::vector<std::string>{"Row(x=1, s=None, d=2.0)",
                                                              "Row(x=2, s='b', d=1.0)"}));
  EXPECT_THROW_HAS(df.replace({{Value::Int(1), Value::Int(2)},
                               {Value::String("a"), Value::String("b")}}),
                   IllegalArgumentException,
                   "the keys must all be numbers, all strings or all booleans");
}

TEST(DataFrameStatTest, ToJsonAndRenames) {
  auto spark = NewSession();
  auto df = spark.createDataFrame({{Value::Int(1), Value::Null(DataType::String())}},
                                  "x INT, s STRING");
  EXPECT_EQ(df.toJSON().collect().at(0).toString(), "Row(value='{\"x\":1}')");
  EXPECT_EQ(df.withColumnsRenamed({{"x", "y"}, {"nope", "z"}}).columns(),
            (std::vector<std::string>{"y", "s"}));
}

TEST(DataFrameStatTest, StatFunctions) {
  auto spark = NewSession();
  auto df =
      spark.createDataFrame({{Value::Int(1), Value::Double(2.0), Value::String("p")},
                             {Value::Int(2), Value::Double(4.0), Value::String("q")},
                             {Value::Int(3), Value::Double(7.0), Value::String("p")}},
                            "x INT, y DOUBLE, s STRING");
  EXPECT_NEAR(df.stat().cov("x", "y"), 2.5, 1e-12);
  EXPECT_NEAR(df.stat().corr("x", "y"), 2.5 / std::sqrt(1.0 * 6.333333333333333), 1e-12);
  EXPECT_THROW_HAS(
      df.stat().corr("x", "s"), IllegalArgumentException,
      "correlation calculation for columns with dataType string not supported");
  auto q = df.stat().approxQuantile({"y"}, {0.0, 0.5, 1.0}, 0.0);
  EXPECT_EQ(q, (std::vector<std::vector<double>>{{2.0, 4.0, 7.0}}));
  auto ct = df.stat().crosstab("s", "x");
  EXPECT_EQ(ct.columns(), (std::vector<std::string>{"s_x", "1", "2", "3"}));
  EXPECT_EQ(Sorted(ct.collect()),
            (std::vector<std::string>{"Row(s_x='p', 1=1, 2=0, 3=1)",
                                      "Row(s_x='q', 1=0, 2=1, 3=0)"}));
}

TEST(DataFrameStatTest, FreqItemsAndSampleBy) {
  auto spark = NewSession();
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 10; ++i) rows.push_back({Value::Int(i < 6 ? 1 : i < 9 ? 2 : 3)});
  auto df = spark.createDataFrame(rows, "x INT");
  auto items = df.stat().freqItems({"x"}, 0.25).collect().at(0)[0].items();
  std::vector<int64_t> got;
  for (const auto& v : items) got.push_back(v.i64());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2}));
  auto big = spark.range(6000).withColumn("k", (F::col("id") % 3).cast("int"));
  auto s = big.stat().sampleBy("k", {{Value::Int(0), 0.1}, {Value::Int(1), 0.5}}, 3);
  EXPECT_EQ(
      s.count(),
      big.stat().sampleBy("k", {{Value::Int(0), 0.1}, {Value::Int(1), 0.5}}, 3).count());
  EXPECT_EQ(s.filter(F::col("k") == 2).count(), 0);
  EXPECT_NEAR(static_cast<double>(s.filter(F::col("k") == 1).count()), 1000.0, 200.0);
}

TEST(DataFrameStatTest, ScalarAndExistsSubqueries) {
  auto spark = NewSession();
  auto df = spark.range(3);
  auto top = spark.range(10).agg({F::max("id")});
  auto out = df.select({F::col("id"), top.scalar().alias("m"),
                        spark.range(0).exists().alias("e")})
                 .orderBy("id");
  EXPECT_EQ(out.collect().at(2).toString(), "Row(id=2, m=9, e=False)");
  EXPECT_EQ(df.filter(spark.range(1).exists()).count(), 3);
}

}  // namespace
}  // namespace spate::api
