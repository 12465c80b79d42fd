// Copyright spate authors.
// spark.read.json / spark.read.text end to end: explicit and inferred schemas, parse
// modes and the corrupt-record column, nested values, partition folders, multiLine,
// wholetext, split large files, reader options and SQL on files.
#include <gtest/gtest.h>

#include "spate/formats/json_source.h"
#include "spate/spate.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

class JsonReaderTest : public testing::TempDirTest {};

/// Column 0 of every row of every split of `src`, in split order.
std::vector<Value> ReadSplits(const formats::LineFileDataSource& src) {
  std::vector<Value> out;
  for (int s = 0; s < src.num_splits(); ++s) {
    auto reader = src.OpenSplit(s, ScanSpec{{0}, {}});
    EXPECT_TRUE(reader.ok());
    if (!reader.ok()) break;
    for (;;) {
      auto b = (*reader)->Next();
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (!b.ok() || !*b) break;
      for (int64_t r = 0; r < (*b)->num_rows(); ++r) {
        out.push_back((*b)->column(0)->GetValue(r));
      }
    }
  }
  return out;
}

std::string Render(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.toString() + "\n";
  return out;
}

TEST_F(JsonReaderTest, ExplicitDdlSchema) {
  Write("a.json",
        "{\"a\": 1, \"b\": \"x\", \"c\": [1, 2], \"d\": {\"x\": 1.5}}\n"
        "\n"
        "{\"b\": \"y\", \"a\": 2, \"extra\": true}\r\n"
        "{\"a\": 3, \"c\": [], \"d\": {}}");
  auto spark = NewSession();
  auto df = spark.read()
                .schema("a INT, b STRING, c ARRAY<INT>, d STRUCT<x: DOUBLE>")
                .json(P("a.json"));
  EXPECT_EQ(df.schema().simpleString(),
            "struct<a:int,b:string,c:array<int>,d:struct<x:double>>");
  EXPECT_EQ(Render(df.collect()),
            "Row(a=1, b='x', c=[1, 2], d={1.5})\n"
            "Row(a=2, b='y', c=None, d=None)\n"
            "Row(a=3, b=None, c=[], d={NULL})\n");
  // format("json").load(...) is the same reader; a projection reads fewer columns.
  auto df2 = spark.read().format("json").schema("b STRING, a BIGINT").load(P("a.json"));
  EXPECT_EQ(Render(df2.select("a").collect()), "Row(a=1)\nRow(a=2)\nRow(a=3)\n");
}

TEST_F(JsonReaderTest, InferredSchemaIsSortedAndMergedOverAllFiles) {
  Write("d/1.json", "{\"z\": 1, \"a\": \"s\", \"n\": {\"q\": 1, \"p\": [1, 2]}}\n");
  Write("d/2.json",
        "{\"z\": 2.5, \"m\": null, \"n\": {\"q\": 2}}\n\n  \n{\"b\": true}\n");
  auto spark = NewSession();
  auto df = spark.read().json(P("d"));
  EXPECT_EQ(df.schema().simpleString(),
            "struct<a:string,b:boolean,m:string,n:struct<p:array<bigint>,q:bigint>,"
            "z:double>");
  EXPECT_EQ(Render(df.orderBy("z").collect()),
            "Row(a=None, b=True, m=None, n=None, z=None)\n"
            "Row(a='s', b=None, m=None, n={[1, 2], 1}, z=1.0)\n"
            "Row(a=None, b=None, m=None, n={NULL, 2}, z=2.5)\n");
}

TEST_F(JsonReaderTest, RescuedDataColumn) {
  // Databricks' rescuedDataColumn: unknown fields (by exact case), values that do not
  // convert, and the file; blank lines give no row, malformed records rescue nothing. A
  // field named like the corrupt-record column is rescued (the parser ignores it).
  Write("r.json",
        "{\"a\": 1, \"b\": \"x\"}\n"
        "{\"a\": \"one\", \"b\": \"y\", \"B\": 2, \"n\": {\"k\": [1.50, null]}}\n"
        "\n"
        "{bad\n"
        "{\"a\": 3, \"b\": null, \"_corrupt_record\": \"kept out\"}\n");
  auto spark = NewSession();
  auto df = spark.read()
                .schema("a INT, b STRING, _corrupt_record STRING")
                .option("rescuedDataColumn", "_rescued")
                .json(P("r.json"));
  EXPECT_EQ(df.schema().simpleString(),
            "struct<a:int,b:string,_corrupt_record:string,_rescued:string>");
  const std::string file = "file://" + P("r.json");
  EXPECT_EQ(Render(df.collect()),
            "Row(a=1, b='x', _corrupt_record=None, _rescued=None)\n"
            "Row(a=None, b='y', _corrupt_record=None, _rescued='{\"a\":\"one\",\"B\":2,"
            "\"n\":{\"k\":[1.50,null]},\"_file_path\":\"" +
                file +
                "\"}')\n"
                "Row(a=None, b=None, _corrupt_record='{bad', _rescued=None)\n"
                "Row(a=3, b=None, _corrupt_record=None, "
                "_rescued='{\"_corrupt_record\":\"kept out\","
                "\"_file_path\":\"" +
                file + "\"}')\n");
  // A projection of the rescued column alone, and inference adds the column last.
  EXPECT_EQ(Render(df.select("_rescued").where("_rescued IS NULL").collect()),
            "Row(_rescued=None)\nRow(_rescued=None)\n");
  // Values that do not convert do not make a record malformed: FAILFAST reads the file
  // up to the malformed line only.
  auto failfast = spark.read()
                      .schema("a INT, b STRING")
                      .option("rescuedDataColumn", "_rescued")
                      .option("mode", "FAILFAST");
  Write("ok.json", "{\"a\": \"one\"}\n{\"a\": 2}\n");
  EXPECT_EQ(Render(failfast.json(P("ok.json")).select("a").collect()),
            "Row(a=None)\nRow(a=2)\n");
  EXPECT_THROW_CLASS(failfast.json(P("r.json")).collect(), SparkException,
                     "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
  auto inferred = spark.read().option("rescuedDataColumn", "_rescued").json(P("r.json"));
  EXPECT_EQ(inferred.schema().fields().back().name, "_rescued");
  EXPECT_THROW_HAS(spark.read()
                       .schema("a INT, _rescued INT")
                       .option("rescuedDataColumn", "_rescued")
                       .json(P("r.json"))
                       .collect(),
                   SparkException,
                   "The rescued data column `_rescued` must be of type STRING, not INT");
}

TEST_F(JsonReaderTest, ParseModesAndCorruptRecordColumn) {
  Write("m.json", "{\"a\": 1}\n{\"a\": \"x\"}\n{bad json\n{\"a\": 4}\n");
  auto spark = NewSession();
  // PERMISSIVE (default), explicit schema with the corrupt-record column.
  auto df = spark.read().schema("a INT, _corrupt_record STRING").json(P("m.json"));
  EXPECT_EQ(Render(df.collect()),
            "Row(a=1, _corrupt_record=None)\n"
            "Row(a=None, _corrupt_record='{\"a\": \"x\"}')\n"
            "Row(a=None, _corrupt_record='{bad json')\n"
            "Row(a=4, _corrupt_record=None)\n");
  // Inference adds the corrupt-record column (renamed by the option).
  auto inferred =
      spark.read().option("columnNameOfCorruptRecord", "broken").json(P("m.json"));
  EXPECT_EQ(inferred.schema().simpleString(), "struct<a:string,broken:string>");
  EXPECT_EQ(Render(inferred.collect()),
            "Row(a='1', broken=None)\nRow(a='x', broken=None)\n"
            "Row(a=None, broken='{bad json')\nRow(a='4', broken=None)\n");
  // Without the column, PERMISSIVE keeps NULL rows.
  EXPECT_EQ(Render(spark.read().schema("a INT").json(P("m.json")).collect()),
            "Row(a=1)\nRow(a=None)\nRow(a=None)\nRow(a=4)\n");
  EXPECT_EQ(Render(spark.read()
                       .schema("a INT")
                       .option("mode", "DROPMALFORMED")
                       .json(P("m.json"))
                       .collect()),
            "Row(a=1)\nRow(a=4)\n");
  try {
    spark.read().schema("a INT").option("mode", "FAILFAST").json(P("m.json")).collect();
    FAIL() << "FAILFAST did not fail";
  } catch (const SparkException& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(P("m.json")), std::string::npos) << msg;
    EXPECT_NE(msg.find("MALFORMED_RECORD_IN_PARSING"), std::string::npos) << msg;
  }
  // Inference fails too, naming the file.
  try {
    spark.read().option("mode", "FAILFAST").json(P("m.json"));
    FAIL() << "FAILFAST inference did not fail";
  } catch (const SparkException& e) {
    EXPECT_NE(std::string(e.what()).find(P("m.json")), std::string::npos) << e.what();
  }
}

TEST_F(JsonReaderTest, PartitionFoldersBecomeColumns) {
  Write("p/k=1/part-0.json", "{\"v\": \"a\"}\n{\"v\": \"b\"}\n");
  Write("p/k=2/part-0.json", "{\"v\": \"c\"}\n");
  Write("p/_SUCCESS", "");
  auto spark = NewSession();
  auto df = spark.read().json(P("p"));
  EXPECT_EQ(df.schema().simpleString(), "struct<v:string,k:int>");
  EXPECT_EQ(Render(df.orderBy("v").collect()),
            "Row(v='a', k=1)\nRow(v='b', k=1)\nRow(v='c', k=2)\n");
  EXPECT_EQ(Render(df.filter("k = 2").select("v").collect()), "Row(v='c')\n");
  // recursiveFileLookup: every file below, no partition columns.
  auto rec = spark.read().option("recursiveFileLookup", "true").json(P("p"));
  EXPECT_EQ(rec.schema().simpleString(), "struct<v:string>");
  EXPECT_EQ(rec.count(), 3);
}

TEST_F(JsonReaderTest, LargeFilesAreSplitByLines) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"i\": " + std::to_string(i) + "}\n";
  Write("big.json", text);
  for (int64_t split : {1, 7, 64, 4096}) {
    auto src = formats::LineFileDataSource::Make(
        io::LocalFileSystem::Get(), formats::LineFileDataSource::Format::kJson,
        {P("big.json")}, nullptr, {}, "UTC", split);
    ASSERT_TRUE(src.ok()) << src.status().ToString();
    int64_t rows = 0, sum = 0, expected_next = 0;
    for (const Value& value : ReadSplits(**src)) {
      int64_t v = value.i64();
      EXPECT_EQ(v, expected_next++);
      sum += v;
      ++rows;
    }
    EXPECT_EQ(rows, 1000) << split;
    EXPECT_EQ(sum, 999 * 1000 / 2) << split;
    EXPECT_GT((*src)->num_splits(), split < 4096 ? 1 : 0);
  }
  auto spark = NewSession();
  EXPECT_EQ(spark.read()
                .json(P("big.json"))
                .selectExpr({"sum(i) AS s"})
                .collect()[0]
                .toString(),
            "Row(s=499500)");
}

// Every split size gives each line exactly once, in order (text format, any separator).
TEST_F(JsonReaderTest, SplitsAtEverySizeAndSeparator) {
  for (const std::string& sep :
       {std::string("\n"), std::string("|"), std::string("||"), std::string("abc")}) {
    std::vector<std::string> expected = {"",  "x", "",   "yy", "zzz long line",
                                         "q", "",  "end"};
    std::string text;
    for (size_t i = 0; i < expected.size(); ++i)
      text += expected[i] + (i + 1 < expected.size() ? sep : "");
    Write("sep.txt", text);
    std::map<std::string, std::string> opts;
    if (sep != "\n") opts["lineSep"] = sep;
    for (int64_t split = 1; split <= static_cast<int64_t>(text.size()) + 1; ++split) {
      auto src = formats::LineFileDataSource::Make(
          io::LocalFileSystem::Get(), formats::LineFileDataSource::Format::kText,
          {P("sep.txt")}, nullptr, opts, "UTC", split);
      ASSERT_TRUE(src.ok()) << src.status().ToString();
      std::vector<std::string> got;
      for (const Value& v : ReadSplits(**src)) got.push_back(v.str());
      EXPECT_EQ(got, expected) << "sep " << sep << " split " << split;
    }
  }
  auto spark = NewSession();
  Write("sep.json", "{\"a\": 1}|{\"a\": 2}|");
  EXPECT_EQ(Render(spark.read().option("lineSep", "|").json(P("sep.json")).collect()),
            "Row(a=1)\nRow(a=2)\n");
}

TEST_F(JsonReaderTest, MultiLine) {
  Write("ml/a.json", "[\n  {\"a\": 1, \"b\": [1,\n 2]},\n  {\"a\": 2}\n]\n");
  Write("ml/b.json", "{\n  \"a\": 3\n}\n");
  auto spark = NewSession();
  auto df = spark.read().option("multiLine", "true").json(P("ml"));
  EXPECT_EQ(df.schema().simpleString(), "struct<a:bigint,b:array<bigint>>");
  EXPECT_EQ(Render(df.orderBy("a").collect()),
            "Row(a=1, b=[1, 2])\nRow(a=2, b=None)\nRow(a=3, b=None)\n");
}

TEST_F(JsonReaderTest, ReaderOptions) {
  Write("o/x.json", "{\"n\": 1, /* a comment */ \"f\": true, \"d\": \"01/02/2024\"}\n");
  Write("o/skip.txt", "not json\n");
  auto spark = NewSession();
  auto df = spark.read()
                .option("pathGlobFilter", "*.json")
                .option("allowComments", "true")
                .option("primitivesAsString", "true")
                .json(P("o"));
  EXPECT_EQ(df.schema().simpleString(), "struct<d:string,f:string,n:string>");
  EXPECT_EQ(Render(df.collect()), "Row(d='01/02/2024', f='true', n='1')\n");
  auto dated = spark.read()
                   .schema("d DATE")
                   .options({{"dateFormat", "MM/dd/yyyy"}, {"pathGlobFilter", "x.js?n"}})
                   .option("allowComments", "true")
                   .json(P("o"));
  EXPECT_EQ(Render(dated.collect()), "Row(d=2024-01-02)\n");
  EXPECT_THROW_CLASS(spark.read().json(P("missing")), AnalysisException,
                     "PATH_NOT_FOUND");
}

TEST_F(JsonReaderTest, Text) {
  Write("t/a.txt", "hello\n\nworld  \r\nlast");
  Write("t/b.txt", "second file\n");
  auto spark = NewSession();
  auto df = spark.read().text(P("t"));
  EXPECT_EQ(df.schema().simpleString(), "struct<value:string>");
  EXPECT_EQ(Render(df.collect()),
            "Row(value='hello')\nRow(value='')\nRow(value='world  ')\nRow(value='last')\n"
            "Row(value='second file')\n");
  auto whole = spark.read().option("wholetext", "true").format("text").load(P("t/a.txt"));
  EXPECT_EQ(Render(whole.collect()), "Row(value='hello\n\nworld  \r\nlast')\n");
}

TEST_F(JsonReaderTest, SqlOnFiles) {
  Write("q.json", "{\"k\": 1, \"v\": 10}\n{\"k\": 1, \"v\": 5}\n{\"k\": 2, \"v\": 1}\n");
  Write("q.txt", "a\nb\n");
  auto spark = NewSession();
  EXPECT_EQ(Render(spark
                       .sql("SELECT k, sum(v) AS s FROM json.`" + P("q.json") +
                            "` GROUP BY k ORDER BY k")
                       .collect()),
            "Row(k=1, s=15)\nRow(k=2, s=1)\n");
  EXPECT_EQ(
      Render(
          spark.sql("SELECT upper(value) AS u FROM text.`" + P("q.txt") + "`").collect()),
      "Row(u='A')\nRow(u='B')\n");
  std::string plan = spark.sql("EXPLAIN SELECT v FROM json.`" + P("q.json") + "`")
                         .collect()[0]
                         .toString();
  EXPECT_NE(plan.find("FileScan json [k#"), std::string::npos) << plan;
  EXPECT_NE(plan.find("1 files, 1 splits"), std::string::npos) << plan;
}

TEST(GlobMatchTest, StarAndQuestionMark) {
  EXPECT_TRUE(formats::GlobMatch("*.json", "part-0.json"));
  EXPECT_FALSE(formats::GlobMatch("*.json", "part-0.json.crc"));
  EXPECT_TRUE(formats::GlobMatch("a?c*", "abcdef"));
  EXPECT_FALSE(formats::GlobMatch("a?c", "ac"));
  EXPECT_TRUE(formats::GlobMatch("*", ""));
}

}  // namespace
}  // namespace spate::api
