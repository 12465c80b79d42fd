// Copyright spate authors.
#include "spate/api/delta_changes.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/table/delta_log.h"

namespace spate::api {
namespace {

class DeltaChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_delta_changes_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    path_ = dir_ + "/t";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<table::Action> Commit(int64_t version) const {
    return *table::DeltaLog(io::LocalFileSystem::Get(), path_).ReadCommit(version);
  }
  table::CommitInfo Info(int64_t version) const {
    for (const auto& a : Commit(version))
      if (a.kind == table::Action::Kind::kCommitInfo) return a.commit_info;
    return {};
  }
  // "id,v,p,_change_type,_commit_version" per row, sorted.
  static std::string Rows(const DataFrame& df) {
    std::vector<std::string> rows;
    for (const auto& r : df.select(std::vector<std::string>{
                                       "id", "v", "p", "_change_type", "_commit_version"})
                             .collect()) {
      std::string s;
      for (int i = 0; i < 5; ++i) s += (i ? "," : "") + r[i].ToString();
      rows.push_back(s);
    }
    std::sort(rows.begin(), rows.end());
    std::string out;
    for (const auto& r : rows) out += r + "\n";
    return out;
  }
  static std::string ErrorClass(const std::function<void()>& f) {
    try {
      f();
    } catch (const SparkException& e) {
      return e.status().error_class();
    }
    return "no error";
  }
  DataFrame Changes(const SparkSession& spark,
                    std::map<std::string, std::string> options) const {
    DataFrameReader r = spark.read();
    r.format("delta").option("readChangeFeed", "true");
    for (const auto& [k, v] : options) r.option(k, v);
    return r.load(path_);
  }
  std::string dir_, path_;
};

// The statements and the expected change rows are those delta-spark 4.4 gave.
TEST_F(DeltaChangesTest, DmlWritesChangeDataAsDeltaSpark) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  const std::string t = "delta.`" + path_ + "`";
  spark.sql("CREATE TABLE " + t +
            " (id BIGINT, v STRING, p STRING) USING DELTA "
            "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
  // delta-spark's protocol for the property: writer version 7 with its features.
  bool saw_protocol = false;
  for (const auto& a : Commit(0)) {
    if (a.kind != table::Action::Kind::kProtocol) continue;
    saw_protocol = true;
    EXPECT_EQ(a.protocol.min_reader_version, 1);
    EXPECT_EQ(a.protocol.min_writer_version, 7);
    ASSERT_TRUE(a.protocol.writer_features.has_value());
    EXPECT_EQ(*a.protocol.writer_features,
              (std::vector<std::string>{"changeDataFeed", "invariants", "appendOnly"}));
  }
  EXPECT_TRUE(saw_protocol);
  spark.sql("INSERT INTO " + t +
            " VALUES (1,'a','x'),(2,'b','x'),(3,'c','y'),(4,'d','y')");
  spark.sql("UPDATE " + t + " SET v = 'B' WHERE id = 2");
  spark.sql("DELETE FROM " + t + " WHERE id = 3");
  spark.sql("DELETE FROM " + t + " WHERE p = 'x'");  // whole files: no change data files
  spark.sql("MERGE INTO " + t +
            " t USING (SELECT 4 id, 'D' v, 'y' p UNION ALL "
            "SELECT 5, 'e', 'z') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED THEN INSERT *");
  spark.sql("MERGE INTO " + t +
            " t USING (SELECT 6 id, 'f' v, 'z' p) s ON t.id = s.id "
            "WHEN NOT MATCHED THEN INSERT *");  // insert-only: its adds are the inserts
  spark.sql("DELETE FROM " + t);

  auto cdc_count = [&](int64_t v) {
    int n = 0;
    for (const auto& a : Commit(v)) n += a.kind == table::Action::Kind::kCdc;
    return n;
  };
  EXPECT_EQ(cdc_count(1), 0);
  EXPECT_EQ(cdc_count(2), 1);
  EXPECT_EQ(Info(2).operation_metrics.at("numAddedChangeFiles"), "1");
  EXPECT_EQ(cdc_count(3), 1);
  EXPECT_EQ(cdc_count(4), 0);
  EXPECT_EQ(Info(4).operation_metrics.at("numAddedChangeFiles"), "0");
  EXPECT_EQ(cdc_count(5), 2);  // partitions y (update) and z (insert)
  EXPECT_EQ(Info(5).operation_metrics.at("numTargetChangeFilesAdded"), "2");
  EXPECT_EQ(cdc_count(6), 0);
  EXPECT_EQ(cdc_count(7), 0);
  // Change files live under _change_data/<partition>/ and hold _change_type.
  for (const auto& a : Commit(2)) {
    if (a.kind != table::Action::Kind::kCdc) continue;
    const std::string p = a.raw.GetString("path").value_or("");
    EXPECT_EQ(p.rfind("_change_data/p=x/cdc-00000-", 0), 0u) << p;
    EXPECT_TRUE(std::filesystem::exists(path_ + "/" + p));
    EXPECT_FALSE(a.raw.Find("dataChange")->bool_value());
  }
  // The table itself is the DML's result.
  EXPECT_EQ(spark.read().format("delta").load(path_).count(), 0);

  const std::string all =
      "1,a,x,delete,4\n1,a,x,insert,1\n2,B,x,delete,4\n2,B,x,update_postimage,2\n"
      "2,b,x,insert,1\n2,b,x,update_preimage,2\n3,c,y,delete,3\n3,c,y,insert,1\n"
      "4,D,y,delete,7\n4,D,y,update_postimage,5\n4,d,y,insert,1\n4,d,y,update_preimage,"
      "5\n"
      "5,e,z,delete,7\n5,e,z,insert,5\n6,f,z,delete,7\n6,f,z,insert,6\n";
  EXPECT_EQ(Rows(Changes(spark, {{"startingVersion", "0"}})), all);
  DataFrame some = Changes(spark, {{"startingVersion", "2"}, {"endingVersion", "3"}});
  EXPECT_EQ(Rows(some),
            "2,B,x,update_postimage,2\n2,b,x,update_preimage,2\n3,c,y,delete,3\n");
  EXPECT_EQ(
      some.schema().simpleString(),
      "struct<id:bigint,v:string,p:string,_change_type:string,_commit_version:bigint,"
      "_commit_timestamp:timestamp>");
  // An end past the latest version is the latest.
  EXPECT_EQ(Changes(spark, {{"startingVersion", "6"}, {"endingVersion", "30"}}).count(),
            4);
  // SQL.
  EXPECT_EQ(Rows(spark.sql("SELECT * FROM table_changes_by_path('" + path_ + "', 2, 3)")),
            Rows(some));
  EXPECT_EQ(spark.sql("SELECT * FROM table_changes_by_path('" + path_ + "', 7)").count(),
            3);
  // A filter on the extra columns.
  EXPECT_EQ(Changes(spark, {{"startingVersion", "0"}})
                .filter("_change_type = 'insert' AND _commit_version = 1")
                .count(),
            4);
}

TEST_F(DeltaChangesTest, Errors) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("CREATE TABLE delta.`" + path_ +
            "` (id BIGINT, v STRING, p STRING) USING DELTA "
            "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
  spark.sql("INSERT INTO delta.`" + path_ + "` VALUES (1, 'a', 'x')");
  EXPECT_EQ(ErrorClass([&] { Changes(spark, {}); }), "DELTA_NO_START_FOR_CDC_READ");
  EXPECT_EQ(ErrorClass([&] {
              Changes(spark, {{"startingVersion", "1"}, {"endingVersion", "0"}});
            }),
            "DELTA_INVALID_CDC_RANGE");
  EXPECT_EQ(ErrorClass([&] {
              Changes(spark, {{"startingVersion", "5"}});
            }),
            "DELTA_CDC_START_VERSION_AFTER_LATEST");
  EXPECT_EQ(ErrorClass([&] {
              Changes(spark, {{"startingTimestamp", "2999-01-01"}});
            }),
            "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  EXPECT_EQ(Changes(spark, {{"startingTimestamp", "2000-01-01"}}).count(), 1);
  // A table without the change data feed.
  const std::string plain = dir_ + "/plain";
  spark.sql("CREATE TABLE delta.`" + plain + "` (id BIGINT) USING DELTA");
  spark.sql("INSERT INTO delta.`" + plain + "` VALUES (1)");
  try {
    spark.read()
        .format("delta")
        .option("readChangeFeed", "true")
        .option("startingVersion", "0")
        .load(plain);
    ADD_FAILURE() << "no error";
  } catch (const SparkException& e) {
    EXPECT_EQ(e.status().error_class(), "DELTA_MISSING_CHANGE_DATA");
    EXPECT_NE(std::string(e.what()).find("range [0 , 1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("version [0]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(
      ErrorClass([&] {
        spark.sql("SELECT * FROM table_changes_by_path('" + plain + "', 0)").collect();
      }),
      "DELTA_MISSING_CHANGE_DATA");
}

TEST_F(DeltaChangesTest, SessionDefaultAndCatalogTable) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.conf().set("spark.databricks.delta.properties.defaults.enableChangeDataFeed",
                   "true");
  spark.conf().set("spark.sql.warehouse.dir", dir_ + "/wh");
  spark.range(3).write().format("delta").save(path_);
  auto snap = *table::DeltaLog(io::LocalFileSystem::Get(), path_).Latest();
  EXPECT_TRUE(table::ChangeDataFeedEnabled(snap->metadata()));
  EXPECT_EQ(snap->protocol().min_writer_version, 7);
  spark.sql("UPDATE delta.`" + path_ + "` SET id = id + 10 WHERE id = 1");
  DataFrame c = spark.read()
                    .format("delta")
                    .option("readChangeFeed", "true")
                    .option("startingVersion", "1")
                    .load(path_);
  std::vector<std::string> got;
  for (const auto& r : c.select(std::vector<std::string>{"id", "_change_type"}).collect())
    got.push_back(r[0].ToString() + ":" + r[1].ToString());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"11:update_postimage", "1:update_preimage"}));
}

}  // namespace
}  // namespace spate::api
