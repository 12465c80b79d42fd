// Copyright spate authors.
#include "spate/api/delta_dml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/table/delta_compaction.h"
#include "spate/table/delta_log.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

class DeltaDmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_delta_dml_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    path_ = dir_ + "/t";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One file per INSERT; partitioned by p when `partitioned`.
  void Make(const SparkSession& spark, bool partitioned) {
    spark.sql("CREATE TABLE delta.`" + path_ + "` (id INT, p STRING) USING DELTA" +
              (partitioned ? " PARTITIONED BY (p)" : ""));
    for (const char* rows : {"(1, 'a'), (2, 'b')", "(3, 'a')", "(4, 'b')", "(5, 'c')"}) {
      spark.sql("INSERT INTO delta.`" + path_ + "` VALUES " + std::string(rows));
    }
  }
  table::CommitInfo LastCommit() const {
    table::DeltaLog log(io::LocalFileSystem::Get(), path_);
    auto h = log.History(1);
    EXPECT_TRUE(h.ok());
    for (const auto& a : (*h)[0].actions) {
      if (a.kind == table::Action::Kind::kCommitInfo) return a.commit_info;
    }
    return {};
  }
  int64_t Version() const {
    return *table::DeltaLog(io::LocalFileSystem::Get(), path_).LatestVersion();
  }
  std::string Rows(const DataFrame& df) const {
    std::string out;
    for (const auto& r : df.orderBy("id").collect()) {
      out += "[" + r[0].ToString() + "," + r[1].ToString() + "]";
    }
    return out;
  }
  std::string dir_, path_;
};

TEST_F(DeltaDmlTest, CppApi) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  Make(spark, false);
  auto t = DeltaTable::forPath(spark, path_);
  DataFrame r = t.update(F::col("id") > 3, {{"p", F::lit("z")}});
  EXPECT_EQ(r.collect()[0][0].ToString(), "2");
  EXPECT_EQ(LastCommit().operation, "UPDATE");
  EXPECT_EQ(LastCommit().operation_parameters.at("predicate"), "[\"(id > 3)\"]");
  t.updateExpr("id = 1", {{"p", "upper(p)"}});
  t.delete_("id = 2");
  EXPECT_EQ(LastCommit().operation_metrics.at("numDeletedRows"), "1");
  EXPECT_EQ(Rows(t.toDF()), "[1,A][3,a][4,z][5,z]");
  // Nothing matches: no commit.
  const int64_t v = Version();
  t.delete_(F::col("id") > 100);
  EXPECT_EQ(Version(), v);

  DataFrame restored = t.restoreToVersion(4);
  EXPECT_EQ(restored.columns()[0], "table_size_after_restore");
  EXPECT_EQ(Rows(t.toDF()), "[1,a][2,b][3,a][4,b][5,c]");
  EXPECT_EQ(LastCommit().operation, "RESTORE");

  DataFrame opt = t.optimize().executeCompaction();
  EXPECT_EQ(LastCommit().operation, "OPTIMIZE");
  EXPECT_EQ(LastCommit().operation_metrics.at("numAddedFiles"), "1");
  EXPECT_EQ(Rows(t.toDF()), "[1,a][2,b][3,a][4,b][5,c]");
  EXPECT_EQ(
      t.detail().select(std::vector<std::string>{"numFiles"}).collect()[0][0].ToString(),
      "1");

  try {
    t.vacuum(1);
    FAIL() << "expected the retention check";
  } catch (const IllegalArgumentException& e) {
    EXPECT_EQ(e.getErrorClass(), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  }
  spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
  t.vacuum(0);
  EXPECT_EQ(LastCommit().operation, "VACUUM END");
  EXPECT_EQ(Rows(t.toDF()), "[1,a][2,b][3,a][4,b][5,c]");
}

// A DELETE on partition columns removes files without opening them, and UPDATE / DELETE
// read only the partitions their condition allows: an unreadable file elsewhere does not
// matter.
TEST_F(DeltaDmlTest, PartitionPredicatesDoNotReadOtherFiles) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  Make(spark, true);
  table::DeltaLog log(io::LocalFileSystem::Get(), path_);
  auto snap = *log.Latest();
  for (const auto& f : snap->files()) {
    if (f.partition_values[0].second == std::optional<std::string>("c")) {
      std::ofstream(snap->DataFilePath(f), std::ios::trunc) << "not parquet";
    }
  }
  spark.sql("UPDATE delta.`" + path_ + "` SET id = id * 10 WHERE p = 'a' AND id > 1");
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE p = 'b' AND id = 2");
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE p = 'c'");
  EXPECT_EQ(LastCommit().operation_metrics.at("numDeletedRows"), "1");  // from the stats
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[1,a][4,b][30,a]");
}

// OPTIMIZE's commit (dataChange=false) conflicts only with a concurrent removal of a file
// it compacts, never with a concurrent append.
TEST_F(DeltaDmlTest, CompactionConflicts) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  Make(spark, true);
  auto fs = io::LocalFileSystem::Get();
  table::DeltaLog log(fs, path_);
  auto compact = [&](const table::SnapshotPtr& read, size_t expected_bins) {
    table::CompactionBins bins =
        table::PlanCompaction(read->files(), 1LL << 30, 1LL << 30);
    EXPECT_EQ(bins.size(), expected_bins);
    table::DeltaWriteOptions o;
    o.operation = "OPTIMIZE";
    return table::CompactFiles(fs, path_, read, bins, o);
  };
  auto read = *log.Latest();
  spark.sql("INSERT INTO delta.`" + path_ + "` VALUES (6, 'a')");
  auto ok = compact(read, 2);  // partitions a and b
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)),
            "[1,a][2,b][3,a][4,b][5,c][6,a]");

  read = *log.Latest();
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 6 OR id = 3");
  auto conflict = compact(read, 1);  // partition a: the compacted file and (6, a)
  ASSERT_ERROR_CLASS(conflict, "DELTA_CONCURRENT_DELETE_DELETE");
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[1,a][2,b][4,b][5,c]");
}

}  // namespace
}  // namespace spate::api
