// Copyright spate authors.
// spark.read.parquet / df.write.parquet end to end: modes, codecs, directories with
// partition folders, pruning and row-group skipping, parallel reads of many row groups.
#include <gtest/gtest.h>

#include "spate/exec/executor.h"
#include "spate/formats/parquet/reader.h"
#include "spate/formats/parquet_source.h"
#include "spate/spate.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

namespace F = functions;

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

class ReadWriteTest : public testing::TempDirTest {
 protected:
  std::vector<std::string> Files(const std::string& rel) const {
    std::vector<std::string> out;
    auto listed = io::LocalFileSystem::Get()->List(P(rel), false);
    if (!listed.ok()) return out;
    for (const auto& f : *listed) out.push_back(io::BaseName(f.path));
    return out;
  }
};

std::string Render(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.toString() + "\n";
  return out;
}

DataFrame Typed(const SparkSession& spark, int64_t n) {
  return spark.range(0, n, 1, 4)
      .selectExpr(
          {"id", "CAST(id % 100 AS TINYINT) AS b", "CAST(id AS SMALLINT) AS s",
           "CAST(id AS INT) AS i", "id * 1.5D AS d", "CAST(id AS FLOAT) AS f",
           "CAST(id AS DECIMAL(10, 2)) AS dec", "CAST(id AS DECIMAL(30, 3)) AS bigdec",
           "IF(id % 7 = 0, NULL, CONCAT('s', CAST(id % 13 AS STRING))) AS str",
           "id % 2 = 0 AS flag", "DATE '2024-01-01' + CAST(id % 400 AS INT) AS day",
           "TIMESTAMP '2024-01-01 00:00:00' AS ts", "ARRAY(id, id + 1) AS arr",
           "NAMED_STRUCT('a', id, 'b', CAST(id AS STRING)) AS st", "MAP('k', id) AS m"});
}

TEST_F(ReadWriteTest, RoundTripEveryTypeAndSchema) {
  auto spark = NewSession();
  auto df = Typed(spark, 5000);
  df.write().mode("overwrite").parquet(P("t"));
  auto files = Files("t");
  ASSERT_EQ(files.size(), 5u);  // _SUCCESS + 4 partitions
  EXPECT_EQ(files[0], "_SUCCESS");
  EXPECT_EQ(files[1].substr(0, 11), "part-00000-");
  EXPECT_NE(files[1].find("-c000.snappy.parquet"), std::string::npos);
  auto back = spark.read().parquet(P("t"));
  EXPECT_EQ(back.schema().simpleString(), df.schema().simpleString());
  EXPECT_EQ(Render(back.orderBy("id").collect()), Render(df.orderBy("id").collect()));
  EXPECT_EQ(back.count(), 5000);
}

TEST_F(ReadWriteTest, SaveModes) {
  auto spark = NewSession();
  spark.range(10).write().parquet(P("m"));
  EXPECT_THROW_CLASS(spark.range(5).write().parquet(P("m")), AnalysisException,
                     "PATH_ALREADY_EXISTS");
  try {
    spark.range(5).write().mode("error").parquet(P("m"));
  } catch (const AnalysisException& e) {
    EXPECT_NE(std::string(e.what()).find("PATH_ALREADY_EXISTS"), std::string::npos);
  }
  spark.range(5).write().mode("ignore").parquet(P("m"));
  EXPECT_EQ(spark.read().parquet(P("m")).count(), 10);
  spark.range(5).write().mode("append").parquet(P("m"));
  EXPECT_EQ(spark.read().parquet(P("m")).count(), 15);
  spark.range(3).write().mode("overwrite").parquet(P("m"));
  EXPECT_EQ(spark.read().parquet(P("m")).count(), 3);
  EXPECT_THROW_CLASS(spark.range(3).write().mode("sometimes"), IllegalArgumentException,
                     "INVALID_SAVE_MODE");
  EXPECT_THROW_CLASS(spark.read().parquet(P("missing")), AnalysisException,
                     "PATH_NOT_FOUND");
  EXPECT_THROW_CLASS(spark.read().format("avro").load(P("m")), AnalysisException,
                     "DATA_SOURCE_NOT_FOUND");
}

TEST_F(ReadWriteTest, EveryCodec) {
  auto spark = NewSession();
  auto df = Typed(spark, 2000);
  for (const std::string codec :
       {"none", "uncompressed", "snappy", "gzip", "zstd", "lz4_raw"}) {
    SCOPED_TRACE(codec);
    df.write().mode("overwrite").option("compression", codec).parquet(P(codec));
    auto files = Files(codec);
    std::string ext = codec == "snappy"    ? ".snappy.parquet"
                      : codec == "gzip"    ? ".gz.parquet"
                      : codec == "zstd"    ? ".zstd.parquet"
                      : codec == "lz4_raw" ? ".lz4raw.parquet"
                                           : "-c000.parquet";
    EXPECT_NE(files[1].find(ext), std::string::npos) << files[1];
    EXPECT_EQ(Render(spark.read().parquet(P(codec)).orderBy("id").collect()),
              Render(df.orderBy("id").collect()));
  }
  EXPECT_THROW_CLASS(df.write().option("compression", "brotli9").parquet(P("x")),
                     SparkException,
                     "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION");
}

TEST_F(ReadWriteTest, PartitionFoldersBecomeColumns) {
  auto spark = NewSession();
  spark.range(0, 3)
      .selectExpr({"id", "'a' AS v"})
      .write()
      .parquet(P("p/year=2023/city=Paris"));
  spark.range(3, 5)
      .selectExpr({"id", "'b' AS v"})
      .write()
      .parquet(P("p/year=2024/city=New%20York"));
  spark.range(5, 6)
      .selectExpr({"id", "'c' AS v"})
      .write()
      .parquet(P("p/year=2024/city=__HIVE_DEFAULT_PARTITION__"));
  auto df = spark.read().parquet(P("p"));
  EXPECT_EQ(df.schema().simpleString(),
            "struct<id:bigint,v:string,year:int,city:string>");
  EXPECT_EQ(Render(df.orderBy("id").collect()),
            "Row(id=0, v='a', year=2023, city='Paris')\n"
            "Row(id=1, v='a', year=2023, city='Paris')\n"
            "Row(id=2, v='a', year=2023, city='Paris')\n"
            "Row(id=3, v='b', year=2024, city='New York')\n"
            "Row(id=4, v='b', year=2024, city='New York')\n"
            "Row(id=5, v='c', year=2024, city=None)\n");
  EXPECT_EQ(df.filter(F::col("year") == F::lit(2024)).count(), 3);
  EXPECT_EQ(
      Render(df.groupBy("year").agg(F::sum("id").alias("s")).orderBy("year").collect()),
      "Row(year=2023, s=3)\nRow(year=2024, s=12)\n");
}

TEST_F(ReadWriteTest, PartitionByWritesHiveFolders) {
  auto spark = NewSession();
  auto df = spark.range(0, 12, 1, 3)
                .selectExpr({"id", "id % 2 AS parity",
                             "CASE WHEN id < 4 THEN NULL ELSE CONCAT('c/', CAST(id % 3 "
                             "AS STRING)) END AS city"});
  df.write().partitionBy("parity", "city").parquet(P("pb"));
  auto top = Files("pb");
  EXPECT_EQ(top, (std::vector<std::string>{"_SUCCESS", "parity=0", "parity=1"}));
  auto sub = Files("pb/parity=0");
  EXPECT_EQ(sub, (std::vector<std::string>{"city=__HIVE_DEFAULT_PARTITION__",
                                           "city=c%2F0", "city=c%2F1", "city=c%2F2"}));
  auto back = spark.read().parquet(P("pb"));
  EXPECT_EQ(back.schema().simpleString(), "struct<id:bigint,parity:int,city:string>");
  EXPECT_EQ(Render(back.orderBy("id").collect()),
            Render(df.selectExpr({"id", "CAST(parity AS INT) AS parity", "city"})
                       .orderBy("id")
                       .collect()));
  EXPECT_EQ(back.filter(F::col("city") == F::lit("c/1")).count(), 3);
  EXPECT_THROW_CLASS(df.write().partitionBy("nope").parquet(P("pb2")), SparkException,
                     "_LEGACY_ERROR_TEMP_1155");
  EXPECT_THROW_CLASS(spark.range(3).write().partitionBy("id").parquet(P("pb3")),
                     SparkException, "ALL_PARTITION_COLUMNS_NOT_ALLOWED");
}

TEST_F(ReadWriteTest, PruningAndRowGroupSkipping) {
  auto spark = NewSession();
  spark.range(0, 100000, 1, 2)
      .selectExpr({"id", "id * 2 AS twice", "CAST(id AS STRING) AS s"})
      .write()
      .option("spate.parquet.rowGroupRows", "5000")
      .parquet(P("big"));
  auto df = spark.read().parquet(P("big"));
  auto filtered =
      df.filter(F::col("id") >= F::lit(int64_t{95000})).select(F::col("twice"));
  std::string plan = filtered.explainString();
  EXPECT_NE(plan.find("FileScan parquet"), std::string::npos) << plan;
  EXPECT_NE(plan.find("PushedFilters: 1"), std::string::npos) << plan;
  EXPECT_NE(plan.find("ReadSchema: [id#"), std::string::npos) << plan;
  auto rows =
      filtered.agg({F::count("*").alias("n"), F::sum("twice").alias("t")}).collect();
  EXPECT_EQ(Render(rows), "Row(n=5000, t=974995000)\n");
  // The source skipped the 19 row groups below 95000.
  auto src =
      std::dynamic_pointer_cast<const formats::ParquetDataSource>(df.analyzed()->source);
  ASSERT_TRUE(src);
  EXPECT_GE(src->skipped_row_groups(), 19);
  EXPECT_EQ(df.filter(F::col("s") == F::lit("77777")).count(), 1);
  EXPECT_EQ(df.count(), 100000);
}

TEST_F(ReadWriteTest, ManyRowGroupsReadInParallel) {
  auto spark = NewSession();
  spark.range(0, 1000000, 1, 4)
      .selectExpr({"id", "id % 1000 AS k", "CONCAT('v', CAST(id % 50 AS STRING)) AS s"})
      .write()
      .option("spate.parquet.rowGroupRows", "20000")
      .parquet(P("many"));
  auto r = formats::parquet::ParquetFileReader::Open(io::LocalFileSystem::Get(),
                                                     P("many/" + Files("many")[1]));
  ASSERT_TRUE(r.ok());
  EXPECT_GT((*r)->num_row_groups(), 5);
  auto df = spark.read().parquet(P("many"));
  EXPECT_EQ(Render(df.agg({F::count("*"), F::sum("id"), F::countDistinct({F::col("s")})})
                       .collect()),
            "Row(count(1)=1000000, sum(id)=499999500000, count(DISTINCT s)=50)\n");
  EXPECT_EQ(
      Render(df.groupBy("k").count().filter(F::col("k") == F::lit(int64_t{7})).collect()),
      "Row(k=7, count=1000)\n");
}

TEST_F(ReadWriteTest, UserSchemaAndMissingColumns) {
  auto spark = NewSession();
  spark.range(3).selectExpr({"id", "CAST(id AS STRING) AS s"}).write().parquet(P("u"));
  auto df = spark.read().schema("s STRING, extra INT, id BIGINT").parquet(P("u"));
  EXPECT_EQ(Render(df.orderBy("id").collect()),
            "Row(s='0', extra=None, id=0)\nRow(s='1', extra=None, id=1)\nRow(s='2', "
            "extra=None, id=2)\n");
}

TEST_F(ReadWriteTest, SqlOnFiles) {
  auto spark = NewSession();
  spark.range(10).selectExpr({"id", "id % 3 AS k"}).write().parquet(P("q"));
  auto rows = spark
                  .sql("SELECT k, count(*) AS n, sum(id) AS s FROM parquet.`" + P("q") +
                       "` WHERE id > 0 GROUP BY k ORDER BY k")
                  .collect();
  EXPECT_EQ(Render(rows),
            "Row(k=0, n=3, s=18)\nRow(k=1, n=3, s=12)\nRow(k=2, n=3, s=15)\n");
  EXPECT_THROW_CLASS(spark.sql("SELECT * FROM parquet.`" + P("nothing") + "`"),
                     AnalysisException, "PATH_NOT_FOUND");
}

TEST_F(ReadWriteTest, MergeSchema) {
  auto spark = NewSession();
  spark.range(2).selectExpr({"id", "'x' AS a"}).write().parquet(P("ms/k=1"));
  spark.range(2, 3).selectExpr({"id", "1.5D AS b"}).write().parquet(P("ms/k=2"));
  EXPECT_EQ(spark.read().parquet(P("ms")).schema().simpleString(),
            "struct<id:bigint,a:string,k:int>");
  auto merged = spark.read().option("mergeSchema", "true").parquet(P("ms"));
  EXPECT_EQ(merged.schema().simpleString(), "struct<id:bigint,a:string,b:double,k:int>");
  EXPECT_EQ(Render(merged.orderBy("id").collect()),
            "Row(id=0, a='x', b=None, k=1)\nRow(id=1, a='x', b=None, k=1)\nRow(id=2, "
            "a=None, b=1.5, k=2)\n");
  spark.range(1).selectExpr({"CAST(id AS STRING) AS id"}).write().parquet(P("ms/k=3"));
  EXPECT_THROW_CLASS(spark.read().option("mergeSchema", "true").parquet(P("ms")),
                     SparkException, "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE");
}

TEST_F(ReadWriteTest, EmptyResultStillWritesSchema) {
  auto spark = NewSession();
  spark.range(10).filter(F::col("id") > F::lit(100)).write().parquet(P("e"));
  auto df = spark.read().parquet(P("e"));
  EXPECT_EQ(df.schema().simpleString(), "struct<id:bigint>");
  EXPECT_EQ(df.count(), 0);
}

}  // namespace
}  // namespace spate::api
