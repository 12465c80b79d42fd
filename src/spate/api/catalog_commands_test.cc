// Copyright spate authors.
// The catalog's tables through the DataFrame API (saveAsTable, insertInto, spark.table,
// DeltaTable.forName) and the SQL commands whose output has timestamps (DESCRIBE
// HISTORY / DETAIL); the rest is in tests/sql/catalog/*.test.

#include <gtest/gtest.h>

#include <filesystem>

#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

namespace F = functions;

class CatalogApiTest : public testing::WarehouseTest {};

std::vector<int64_t> Ids(const DataFrame& df) {
  std::vector<int64_t> out;
  for (const auto& r : df.orderBy(F::col("id")).collect()) out.push_back(r[0].i64());
  return out;
}

TEST_F(CatalogApiTest, SaveAsTableModes) {
  SparkSession& spark = *spark_;
  spark.range(3).write().saveAsTable("t");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/warehouse/t/_delta_log"));
  EXPECT_EQ(Ids(spark.table("t")), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Ids(spark.read().table("default.t")), (std::vector<int64_t>{0, 1, 2}));
  try {
    spark.range(1).write().saveAsTable("t");
    FAIL() << "expected TABLE_OR_VIEW_ALREADY_EXISTS";
  } catch (const AnalysisException& e) {
    EXPECT_EQ(e.getErrorClass(), "TABLE_OR_VIEW_ALREADY_EXISTS");
  }
  spark.range(5, 6).write().mode("append").saveAsTable("t");
  EXPECT_EQ(Ids(spark.table("t")), (std::vector<int64_t>{0, 1, 2, 5}));
  spark.range(9, 10).write().mode("ignore").saveAsTable("t");
  EXPECT_EQ(spark.table("t").count(), 4);
  // overwrite replaces contents and schema.
  spark.range(2)
      .selectExpr("id", "'x' AS tag")
      .write()
      .mode("overwrite")
      .saveAsTable("t");
  EXPECT_EQ(spark.table("t").columns(), (std::vector<std::string>{"id", "tag"}));
  EXPECT_EQ(Ids(spark.table("t")), (std::vector<int64_t>{0, 1}));
  // parquet tables are not kept by the catalog.
  EXPECT_THROW_CLASS(spark.range(1).write().format("parquet").saveAsTable("p"),
                     SparkException, "SPATE_UNSUPPORTED_FEATURE");
}

TEST_F(CatalogApiTest, SaveAsTablePartitionedInSchemaAndExternal) {
  SparkSession& spark = *spark_;
  spark.sql("CREATE SCHEMA s");
  spark.range(4)
      .selectExpr("id", "id % 2 AS k")
      .write()
      .partitionBy("k")
      .saveAsTable("s.parts");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/warehouse/s.db/parts/k=0"));
  EXPECT_EQ(spark.sql("SELECT count(*) FROM s.parts WHERE k = 1").collect()[0][0].i64(),
            2);
  spark.range(2).write().option("path", dir_ + "/ext").saveAsTable("ext");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/ext/_delta_log"));
  spark.sql("DROP TABLE ext");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/ext/_delta_log"));
  EXPECT_EQ(spark.read().format("delta").load(dir_ + "/ext").count(), 2);
}

TEST_F(CatalogApiTest, InsertIntoIsByPosition) {
  SparkSession& spark = *spark_;
  spark.sql("CREATE TABLE t (id BIGINT, name STRING) USING delta");
  spark.sql("SELECT 'a' AS name, 1 AS id").select("id", "name").write().insertInto("t");
  spark.sql("SELECT 2L, 'b'").write().insertInto("t");
  EXPECT_EQ(Ids(spark.table("t")), (std::vector<int64_t>{1, 2}));
  spark.sql("SELECT 7L, 'z'").write().insertInto("t", /*overwrite=*/true);
  EXPECT_EQ(Ids(spark.table("t")), (std::vector<int64_t>{7}));
  EXPECT_THROW_CLASS(spark.sql("SELECT 1").write().insertInto("t"), AnalysisException,
                     "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS");
  EXPECT_THROW_CLASS(spark.sql("SELECT 1L, 'x'").write().insertInto("missing"),
                     AnalysisException, "TABLE_OR_VIEW_NOT_FOUND");
}

TEST_F(CatalogApiTest, DescribeHistoryAndDetailOfCatalogTables) {
  SparkSession& spark = *spark_;
  spark.sql("CREATE TABLE h (id BIGINT, p INT) USING delta PARTITIONED BY (p)");
  EXPECT_THROW_CLASS(
      spark.sql("CREATE TABLE h2 (id BIGINT) USING delta PARTITIONED BY (id)"),
      AnalysisException,
      "DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION");  // DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION
  EXPECT_THROW_CLASS(spark.table("h2"), AnalysisException,
                     "TABLE_OR_VIEW_NOT_FOUND");  // nothing was left behind
  spark.sql("INSERT INTO h VALUES (1, 1)");
  spark.sql("INSERT OVERWRITE h VALUES (2, 2)");
  auto hist = spark.sql("DESCRIBE HISTORY h")
                  .select(F::col("version"), F::col("operation"),
                          F::col("operationParameters").getItem("mode"))
                  .collect();
  ASSERT_EQ(hist.size(), 3u);
  EXPECT_EQ(hist[0][0].i64(), 2);
  EXPECT_EQ(hist[0][1].str(), "WRITE");
  EXPECT_EQ(hist[0][2].str(), "Overwrite");
  EXPECT_EQ(hist[1][2].str(), "Append");
  EXPECT_EQ(hist[2][1].str(), "CREATE TABLE");
  EXPECT_EQ(spark.sql("DESCRIBE HISTORY h LIMIT 1").count(), 1);
  EXPECT_EQ(spark.sql("DESCRIBE HISTORY delta.`" + dir_ + "/warehouse/h`").count(), 3);
  auto detail =
      spark.sql("DESCRIBE DETAIL h").select("format", "name", "numFiles").collect();
  ASSERT_EQ(detail.size(), 1u);
  EXPECT_EQ(detail[0][0].str(), "delta");
  EXPECT_EQ(detail[0][1].str(), "spark_catalog.default.h");
  EXPECT_EQ(detail[0][2].i64(), 1);
  DeltaTable t = DeltaTable::forName(spark, "h");
  EXPECT_EQ(t.history().count(), 3);
  EXPECT_EQ(Ids(t.toDF().select("id")), (std::vector<int64_t>{2}));
  EXPECT_THROW_CLASS(DeltaTable::forName(spark, "nope"), AnalysisException,
                     "DELTA_MISSING_DELTA_TABLE");
  EXPECT_THROW_CLASS(spark.sql("DESCRIBE HISTORY nope"), AnalysisException,
                     "TABLE_OR_VIEW_NOT_FOUND");
}

}  // namespace
}  // namespace spate::api
