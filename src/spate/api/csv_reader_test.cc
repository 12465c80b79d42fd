// Copyright spate authors.
// spark.read.csv end to end: header / inferSchema / options through the DataFrameReader,
// format("csv").load, partition folders, parse modes, and SQL over csv.`path`.
#include <gtest/gtest.h>

#include "spate/io/file_system.h"
#include "spate/spate.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

class CsvReaderTest : public testing::TempDirTest {};

std::string Render(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.toString() + "\n";
  return out;
}

TEST_F(CsvReaderTest, HeaderInferSchemaAndOptions) {
  Write("t/a.csv", "id,name,amount,day\n1,ann,1.5,2024-01-01\n2,\"b, c\",,2024-01-02\n");
  auto spark = NewSession();
  auto df = spark.read()
                .option("header", "true")
                .option("inferSchema", "true")
                .csv(P("t/a.csv"));
  EXPECT_EQ(df.schema().simpleString(),
            "struct<id:int,name:string,amount:double,day:date>");
  EXPECT_EQ(Render(df.orderBy("id").collect()),
            "Row(id=1, name='ann', amount=1.5, day=2024-01-01)\n"
            "Row(id=2, name='b, c', amount=None, day=2024-01-02)\n");
  auto df2 = spark.read().format("csv").schema("x BIGINT, y STRING").load(P("t/a.csv"));
  EXPECT_EQ(Render(df2.select("x").collect()), "Row(x=None)\nRow(x=1)\nRow(x=2)\n");
  auto df3 = spark.read().option("sep", ";").csv(P("t/a.csv"));
  EXPECT_EQ(df3.schema().simpleString(), "struct<_c0:string>");
}

TEST_F(CsvReaderTest, RescuedDataColumn) {
  // Databricks' rescuedDataColumn: values that do not convert and tokens beyond the
  // schema (named by the header) go to the column as JSON, with the file; such records
  // are not malformed (FAILFAST reads them, DROPMALFORMED keeps them).
  Write("r/a.csv", "id,name,n,extra\n1,Ann,5,e1\n2,Bob,x\n\"3\",\"C, D\",,\n");
  auto spark = NewSession();
  const std::string file = "file://" + P("r/a.csv");
  for (const char* mode : {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}) {
    auto df = spark.read()
                  .schema("id INT, name STRING, n INT")
                  .option("header", "true")
                  .option("mode", mode)
                  .option("rescuedDataColumn", "_rescued")
                  .csv(P("r"));
    EXPECT_EQ(df.schema().simpleString(),
              "struct<id:int,name:string,n:int,_rescued:string>");
    EXPECT_EQ(
        Render(df.orderBy("id").collect()),
        "Row(id=1, name='Ann', n=5, _rescued='{\"extra\":\"e1\",\"_file_path\":\"" +
            file +
            "\"}')\n"
            "Row(id=2, name='Bob', n=None, _rescued='{\"n\":\"x\",\"_file_path\":\"" +
            file +
            "\"}')\n"
            "Row(id=3, name='C, D', n=None, _rescued=None)\n")
        << mode;
  }
  // Without the rescued column the projection and the corrupt record are as before.
  auto plain = spark.read().schema("id INT, name STRING, n INT").option("header", "true");
  EXPECT_EQ(Render(plain.csv(P("r")).orderBy("id").select("n").collect()),
            "Row(n=5)\nRow(n=None)\nRow(n=None)\n");
  EXPECT_THROW_CLASS(plain.option("mode", "FAILFAST").csv(P("r")).collect(),
                     SparkException, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
}

TEST_F(CsvReaderTest, PartitionsAndModes) {
  Write("p/k=a/1.csv", "1,x\n2,y\n");
  Write("p/k=b/2.csv", "3,z\nbad,w\n");
  auto spark = NewSession();
  auto df =
      spark.read().schema("n INT, s STRING").option("mode", "DROPMALFORMED").csv(P("p"));
  EXPECT_EQ(df.schema().simpleString(), "struct<n:int,s:string,k:string>");
  EXPECT_EQ(Render(df.orderBy("n").collect()),
            "Row(n=1, s='x', k='a')\nRow(n=2, s='y', k='a')\nRow(n=3, s='z', k='b')\n");
  EXPECT_THROW_CLASS(spark.read()
                         .schema("n INT, s STRING")
                         .option("mode", "FAILFAST")
                         .csv(P("p"))
                         .collect(),
                     SparkException, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
}

TEST_F(CsvReaderTest, CsvFunctions) {
  namespace F = functions;
  auto spark = NewSession();
  auto df = spark.sql("SELECT '1,abc' AS s");
  auto out = df.select(
      F::from_csv(F::col("s"), "a INT, b STRING").alias("v"),
      F::schema_of_csv("1,abc").alias("t"),
      F::to_csv(F::struct_({F::lit(1), F::lit("x|y")}), {{"sep", "|"}}).alias("c"));
  EXPECT_EQ(Render(out.collect()),
            "Row(v={1, abc}, t='STRUCT<_c0: INT, _c1: STRING>', c='1|\"x|y\"')\n");
}

TEST_F(CsvReaderTest, SqlOnFiles) {
  Write("s/a.csv", "1,x\n2,y\n");
  auto spark = NewSession();
  auto df = spark.sql("SELECT _c1, count(*) AS n FROM csv.`" + P("s/a.csv") +
                      "` GROUP BY _c1 ORDER BY _c1");
  EXPECT_EQ(Render(df.collect()), "Row(_c1='x', n=1)\nRow(_c1='y', n=1)\n");
}

}  // namespace
}  // namespace spate::api
