// Copyright spate authors.
#include "spate/api/delta_table.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

class DeltaApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_delta_api_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

int64_t Count(const DataFrame& df) { return df.count(); }

TEST_F(DeltaApiTest, WriteReadTimeTravelHistoryDetail) {
  auto spark = SparkSession::builder().getOrCreate();
  const std::string path = dir_ + "/t";
  spark.range(10).write().format("delta").save(path);
  spark.range(5).write().format("delta").mode("append").save(path);
  EXPECT_EQ(Count(spark.read().format("delta").load(path)), 15);
  EXPECT_EQ(Count(spark.read().format("delta").option("versionAsOf", "0").load(path)),
            10);
  EXPECT_THROW_CLASS(spark.range(1).write().format("delta").save(path), AnalysisException,
                     "DELTA_PATH_EXISTS");
  spark.range(3).write().format("delta").mode("overwrite").save(path);
  EXPECT_EQ(Count(spark.read().format("delta").load(path)), 3);
  EXPECT_EQ(Count(spark.sql("SELECT * FROM delta.`" + path + "` WHERE id >= 1")), 2);
  auto t = DeltaTable::forPath(spark, path);
  EXPECT_EQ(Count(t.toDF()), 3);
  auto hist = t.history().collect();
  ASSERT_EQ(hist.size(), 3u);
  EXPECT_EQ(hist[0][0].i64(), 2);
  EXPECT_EQ(hist[0][4].str(), "WRITE");
  EXPECT_EQ(hist[0][14].str(), "spate/0.1.0");
  EXPECT_EQ(t.history(1).collect().size(), 1u);
  auto det = t.detail().collect();
  ASSERT_EQ(det.size(), 1u);
  EXPECT_EQ(det[0][0].str(), "delta");
  EXPECT_EQ(det[0][12].i64(), 1);
  EXPECT_EQ(det[0][13].i64(), 2);
  EXPECT_THROW_CLASS(DeltaTable::forPath(spark, dir_ + "/nope"), AnalysisException,
                     "DELTA_MISSING_DELTA_TABLE");
  EXPECT_EQ(DeltaTable::forName(spark, "delta.`" + path + "`").toDF().count(), 3);
  EXPECT_THROW_CLASS(DeltaTable::forName(spark, "no_such_table_xyz"), AnalysisException,
                     "DELTA_MISSING_DELTA_TABLE");
}

TEST_F(DeltaApiTest, TimestampAsOfAndErrors) {
  auto spark = SparkSession::builder().getOrCreate();
  const std::string path = dir_ + "/tt";
  spark.range(2).write().format("delta").save(path);
  EXPECT_THROW_CLASS(spark.read()
                         .format("delta")
                         .option("timestampAsOf", "2000-01-01 00:00:00")
                         .load(path),
                     AnalysisException, "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
  EXPECT_THROW_CLASS(
      spark.read().format("delta").option("timestampAsOf", "3000-01-01").load(path),
      AnalysisException, "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  EXPECT_THROW_CLASS(spark.read().format("delta").option("versionAsOf", "7").load(path),
                     AnalysisException, "DELTA_VERSION_NOT_FOUND");
  EXPECT_THROW_CLASS(spark.read().format("delta").load(dir_ + "/missing"),
                     AnalysisException, "DELTA_MISSING_DELTA_TABLE");
  auto hist = DeltaTable::forPath(spark, path).history().collect();
  // The commit's own timestamp names version 0.
  std::string ts = hist[0][1].ToString();
  EXPECT_EQ(spark.read().format("delta").option("timestampAsOf", ts).load(path).count(),
            2);
}

TEST_F(DeltaApiTest, PartitionedAndMergeSchema) {
  auto spark = SparkSession::builder().getOrCreate();
  const std::string path = dir_ + "/p";
  spark.sql("SELECT id, CAST(id % 3 AS STRING) AS k FROM range(9)")
      .write()
      .format("delta")
      .partitionBy("k")
      .save(path);
  EXPECT_TRUE(std::filesystem::exists(path + "/k=0"));
  EXPECT_EQ(Count(spark.read().format("delta").load(path).filter("k = '1'")), 3);
  auto wider = spark.sql("SELECT 100L AS id, '1' AS k, 'x' AS extra");
  EXPECT_THROW_CLASS(wider.write().format("delta").mode("append").save(path),
                     AnalysisException, "DELTA_METADATA_MISMATCH");
  wider.write().format("delta").mode("append").option("mergeSchema", "true").save(path);
  EXPECT_EQ(spark.read().format("delta").load(path).columns().size(), 3u);
  EXPECT_EQ(Count(spark.read().format("delta").load(path)), 10);
}

}  // namespace
}  // namespace spate::api
