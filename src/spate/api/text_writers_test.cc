// Copyright spate authors.
// df.write.json / .csv / .text: part-file naming, _SUCCESS, save modes, partitionBy,
// writer options, gzip, and round trips (write, read back, compare).
#include <gtest/gtest.h>

#include <algorithm>

#include "spate/io/file_system.h"
#include "spate/spate.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

class TextWritersTest : public testing::TempDirTest {
 protected:
  // Relative paths of the files under `rel`, sorted, with the job uuid replaced by UUID.
  std::vector<std::string> Files(const std::string& rel) const {
    auto list = io::LocalFileSystem::Get()->List(P(rel), true);
    std::vector<std::string> out;
    for (const auto& f : *list) {
      if (f.is_directory) continue;
      std::string name = f.path.substr(P(rel).size() + 1);
      size_t part = name.find("part-");
      if (part != std::string::npos && name.size() > part + 47) {
        name = name.substr(0, part + 11) + "UUID" + name.substr(part + 47);
      }
      out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string ReadAllFiles(const std::string& rel, const std::string& ext) const {
    auto list = io::LocalFileSystem::Get()->List(P(rel), true);
    std::string all;
    for (const auto& f : *list) {
      if (!f.is_directory && f.path.size() > ext.size() &&
          f.path.compare(f.path.size() - ext.size(), ext.size(), ext) == 0)
        all += *io::LocalFileSystem::Get()->ReadAll(f.path);
    }
    return all;
  }
};

std::string Render(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.toString() + "\n";
  return out;
}

const char* kDdl =
    "id INT, s STRING, d DOUBLE, b BOOLEAN, day DATE, ts TIMESTAMP, amount DECIMAL(10,2)";

DataFrame Sample(const SparkSession& spark) {
  return spark
      .sql(
          "SELECT * FROM VALUES "
          "(1, 'plain', 1.5, true, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', "
          "1.25BD), "
          "(2, 'a,b \"q\" \\\\', -0.0, false, DATE'1999-12-31', TIMESTAMP'2024-06-30 "
          "23:59:59.123', -3.5BD), "
          "(3, 'multi\nline', CAST('NaN' AS DOUBLE), NULL, NULL, NULL, NULL), "
          "(4, '', 1e300, true, DATE'2024-02-29', TIMESTAMP'1970-01-01 00:00:00', 0BD), "
          "(5, NULL, NULL, NULL, NULL, NULL, NULL) "
          "AS t(id, s, d, b, day, ts, amount)")
      .selectExpr("CAST(id AS INT) AS id", "s", "CAST(d AS DOUBLE) AS d", "b", "day",
                  "ts", "CAST(amount AS DECIMAL(10,2)) AS amount")
      .repartition(2);
}

TEST_F(TextWritersTest, CsvRoundTripAndLayout) {
  auto spark = NewSession();
  auto df = Sample(spark);
  df.write().option("header", "true").csv(P("c"));
  auto files = Files("c");
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.front(), "_SUCCESS");
  for (size_t i = 1; i < files.size(); ++i) {
    EXPECT_EQ(files[i].substr(0, 11), "part-0000" + std::to_string(i - 1) + "-")
        << files[i];
    EXPECT_EQ(files[i].substr(files[i].size() - 9), "-c000.csv") << files[i];
  }
  auto back = spark.read()
                  .schema(kDdl)
                  .option("header", "true")
                  .option("multiLine", "true")
                  .csv(P("c"));
  std::string expected = Render(df.orderBy("id").collect());
  expected.replace(expected.find("s=''"), 4, "s=None");  // "" reads as NULL by default
  EXPECT_EQ(Render(back.orderBy("id").collect()), expected);
  // Empty strings are written as "" and read back as NULL with the default nullValue,
  // as in Spark; with nullValue set they stay distinct.
  df.write().option("nullValue", "\\N").csv(P("c2"));
  auto back2 = spark.read()
                   .schema(kDdl)
                   .option("nullValue", "\\N")
                   .option("multiLine", "true")
                   .csv(P("c2"));
  EXPECT_EQ(Render(back2.orderBy("id").collect()), Render(df.orderBy("id").collect()));
}

TEST_F(TextWritersTest, CsvWriterOptions) {
  auto spark = NewSession();
  auto df =
      spark.sql("SELECT * FROM VALUES (1, ' x ', 'a\"b'), (2, NULL, '') AS t(i, s, q)")
          .coalesce(1);
  df.write().csv(P("d"));
  EXPECT_EQ(ReadAllFiles("d", ".csv"), "1,x,\"a\\\"b\"\n2,,\"\"\n");
  df.write()
      .option("quoteAll", "true")
      .option("sep", ";")
      .option("nullValue", "NULL")
      .option("ignoreLeadingWhiteSpace", "false")
      .option("emptyValue", "EMPTY")
      .csv(P("e"));
  EXPECT_EQ(ReadAllFiles("e", ".csv"), "\"1\";\" x\";\"a\\\"b\"\n\"2\";NULL;EMPTY\n");
  df.write()
      .option("escapeQuotes", "false")
      .option("quote", "'")
      .option("header", "true")
      .csv(P("f"));
  // emptyValue's write default is the text "" whatever the quote character (Spark).
  EXPECT_EQ(ReadAllFiles("f", ".csv"), "i,s,q\n1,x,a\"b\n2,,\"\"\n");
  auto ts = spark.sql("SELECT DATE'2024-03-04' AS d, TIMESTAMP'2024-03-04 05:06:07' AS t")
                .coalesce(1);
  ts.write()
      .option("dateFormat", "dd/MM/yyyy")
      .option("timestampFormat", "yyyy-MM-dd HH:mm")
      .csv(P("g"));
  EXPECT_EQ(ReadAllFiles("g", ".csv"), "04/03/2024,2024-03-04 05:06\n");
  EXPECT_THROW_CLASS(spark.sql("SELECT array(1) AS a").write().csv(P("h")),
                     AnalysisException, "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE");
}

TEST_F(TextWritersTest, JsonRoundTripModesAndGzip) {
  auto spark = NewSession();
  auto df = Sample(spark);
  df.write().json(P("j"));
  auto back = spark.read().schema(kDdl).json(P("j"));
  EXPECT_EQ(Render(back.orderBy("id").collect()), Render(df.orderBy("id").collect()));
  EXPECT_THROW_CLASS(df.write().json(P("j")), AnalysisException, "PATH_ALREADY_EXISTS");
  df.write().mode("ignore").json(P("j"));
  df.write().mode("append").json(P("j"));
  EXPECT_EQ(spark.read().schema(kDdl).json(P("j")).count(), 10);
  df.write().mode("overwrite").option("compression", "gzip").json(P("j"));
  auto files = Files("j");
  EXPECT_EQ(files.back().substr(files.back().size() - 13), "-c000.json.gz");
  auto gz = spark.read().schema(kDdl).json(P("j"));
  EXPECT_EQ(Render(gz.orderBy("id").collect()), Render(df.orderBy("id").collect()));
  EXPECT_THROW_CLASS(df.write().option("compression", "brotli").json(P("k")),
                     SparkException,
                     "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION");
  // ignoreNullFields=false keeps the NULL fields.
  spark.sql("SELECT 1 AS a, CAST(NULL AS STRING) AS b")
      .coalesce(1)
      .write()
      .option("ignoreNullFields", "false")
      .json(P("n"));
  EXPECT_EQ(ReadAllFiles("n", ".json"), "{\"a\":1,\"b\":null}\n");
}

TEST_F(TextWritersTest, PartitionByAndText) {
  auto spark = NewSession();
  auto df =
      spark.range(6).selectExpr("CAST(id % 2 AS INT) AS k", "CAST(id AS STRING) AS v");
  df.write().partitionBy("k").text(P("t"));
  auto files = Files("t");
  ASSERT_EQ(files.size(), 5u);  // two partitions x two folders
  EXPECT_EQ(files[0], "_SUCCESS");
  EXPECT_EQ(files[1].substr(0, 4), "k=0/");
  EXPECT_EQ(files[4].substr(0, 4), "k=1/");
  EXPECT_EQ(files[4].substr(files[4].size() - 9), "-c000.txt");
  auto back = spark.read().text(P("t"));
  EXPECT_EQ(back.schema().simpleString(), "struct<value:string,k:int>");
  EXPECT_EQ(Render(back.orderBy("value").collect()),
            "Row(value='0', k=0)\nRow(value='1', k=1)\nRow(value='2', k=0)\n"
            "Row(value='3', k=1)\nRow(value='4', k=0)\nRow(value='5', k=1)\n");
  EXPECT_THROW_CLASS(spark.range(3).selectExpr("id", "'x' AS s").write().text(P("x")),
                     AnalysisException, "_LEGACY_ERROR_TEMP_1290");
  EXPECT_THROW_CLASS(spark.range(3).write().text(P("y")), AnalysisException,
                     "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE");
  df.write().format("csv").partitionBy("k").option("header", "true").save(P("pc"));
  auto pc =
      spark.read().option("header", "true").option("inferSchema", "true").csv(P("pc"));
  EXPECT_EQ(pc.schema().simpleString(), "struct<v:int,k:int>");
  EXPECT_EQ(pc.count(), 6);
  df.write().format("json").partitionBy("k").save(P("pj"));
  EXPECT_EQ(spark.read().json(P("pj")).schema().simpleString(), "struct<v:string,k:int>");
}

}  // namespace
}  // namespace spate::api
