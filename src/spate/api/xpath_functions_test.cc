// Copyright spate authors.
// The C++ API's XPath functions give what their SQL gives (tests/differential/cases/
// xpath.py compares the SQL with Spark 4.2).
#include <gtest/gtest.h>

#include "spate/spate.h"

namespace spate::api {
namespace {

namespace F = functions;

TEST(XPathFunctionsTest, FunctionsMatchSql) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df = spark.sql("SELECT '<a><b>1</b><b>2.5</b><c/></a>' x");
  auto lit = [](const char* path) { return F::lit(path); };
  auto x = F::col("x");
  auto rows = df.select(F::xpath(x, lit("a/b/text()")).alias("l"),
                        F::xpath(x, lit("a/*")).alias("e"),
                        F::xpath_string(x, lit("a/b[2]")).alias("s"),
                        F::xpath_boolean(x, lit("a/c")).alias("bo"),
                        F::xpath_number(x, lit("sum(a/b)")).alias("n"),
                        F::xpath_double(x, lit("a/b[2]")).alias("d"),
                        F::xpath_float(x, lit("a/b[2]")).alias("f"),
                        F::xpath_long(x, lit("a/b[2] * 10")).alias("lg"),
                        F::xpath_int(x, lit("count(a/*)")).alias("i"),
                        F::xpath_short(x, lit("a/c")).alias("sh"))
                  .collect();
  ASSERT_EQ(rows.size(), 1u);
  auto sql = spark
                 .sql(
                     "SELECT xpath(x, 'a/b/text()') l, xpath(x, 'a/*') e, "
                     "xpath_string(x, 'a/b[2]') s, xpath_boolean(x, 'a/c') bo, "
                     "xpath_number(x, 'sum(a/b)') n, xpath_double(x, 'a/b[2]') d, "
                     "xpath_float(x, 'a/b[2]') f, xpath_long(x, 'a/b[2] * 10') lg, "
                     "xpath_int(x, 'count(a/*)') i, xpath_short(x, 'a/c') sh FROM "
                     "(SELECT '<a><b>1</b><b>2.5</b><c/></a>' x)")
                 .collect();
  EXPECT_EQ(rows[0].toString(), sql[0].toString());
  EXPECT_EQ(
      rows[0].toString(),
      "Row(l=[1, 2.5], e=[NULL, NULL, NULL], s='2.5', bo=True, n=3.5, d=2.5, f=2.5, "
      "lg=25, i=3, sh=0)");
}

TEST(XPathFunctionsTest, MalformedDocumentIsAnError) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  auto df =
      spark.sql("SELECT '<a><b></a>' x").select(F::xpath_int(F::col("x"), F::lit("a")));
  try {
    df.collect();
    FAIL() << "expected SPATE_XPATH_FAILED";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("Error loading expression 'a'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace spate::api
