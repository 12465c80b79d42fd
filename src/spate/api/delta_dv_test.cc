// Copyright spate authors.
// DML with deletion vectors (tables with delta.enableDeletionVectors) and OPTIMIZE ZORDER
// BY.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "spate/api/delta_dml.h"
#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/base/json.h"
#include "spate/table/deletion_vector.h"
#include "spate/table/delta_compaction.h"
#include "spate/table/delta_log.h"

namespace spate::api {
namespace {

class DeltaDvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_delta_dv_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    path_ = dir_ + "/t";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  table::SnapshotPtr Latest() const {
    return *table::DeltaLog::ForTable(io::LocalFileSystem::Get(), path_)->Latest();
  }
  // The latest commit's commitInfo (the log's newest entry).
  table::CommitInfo LastCommit() const {
    auto commits = *table::DeltaLog::ForTable(io::LocalFileSystem::Get(), path_)
                        ->ReadCommits(Latest()->version(), Latest()->version());
    const auto& actions = commits.at(0).actions;
    auto info = std::find_if(actions.begin(), actions.end(), [](const table::Action& a) {
      return a.kind == table::Action::Kind::kCommitInfo;
    });
    return info == actions.end() ? table::CommitInfo{} : info->commit_info;
  }
  // The files of the folder with that name prefix.
  std::set<std::string> Files(const std::string& prefix) const {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path_)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.rfind(prefix, 0) == 0) out.insert(name);
    }
    return out;
  }
  // "[id,v]..." ordered by id.
  static std::string Rows(const DataFrame& df) {
    std::string out;
    for (const auto& r :
         df.orderBy("id").selectExpr("concat('[', id, ',', v, ']')").collect())
      out += r[0].ToString();
    return out;
  }
  std::string dir_, path_;
};

// DELETE, UPDATE and MERGE mark rows in deletion vectors: the data files stay, each
// touched add comes back with a DV (stats no longer tight), a file whose rows are all
// gone is removed, and only updated / inserted rows are written.
TEST_F(DeltaDvTest, DmlMarksRowsInDeletionVectors) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("CREATE TABLE delta.`" + path_ +
            "` (id BIGINT, v STRING) USING DELTA "
            "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  const auto proto = Latest()->protocol();
  ASSERT_TRUE(proto.reader_features.has_value());
  EXPECT_EQ(*proto.reader_features, std::vector<std::string>{"deletionVectors"});
  for (const char* rows : {"(0L, 'a'), (1L, 'b'), (2L, 'c')", "(3L, 'd'), (4L, 'e')"}) {
    spark.sql(std::string("SELECT * FROM VALUES ") + rows + " AS r(id, v)")
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(path_);
  }
  const std::set<std::string> data = Files("part-");
  ASSERT_EQ(data.size(), 2u);

  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 1 OR id = 4");
  EXPECT_EQ(Files("part-"), data);  // nothing rewritten
  EXPECT_EQ(Files("deletion_vector_").size(), 1u);
  auto m = LastCommit().operation_metrics;
  EXPECT_EQ(m.at("numDeletedRows"), "2");
  EXPECT_EQ(m.at("numDeletionVectorsAdded"), "2");
  EXPECT_EQ(m.at("numRemovedFiles"), "0");
  EXPECT_EQ(m.at("numCopiedRows"), "0");
  for (const auto& f : Latest()->files()) {
    ASSERT_TRUE(f.deletion_vector.has_value());
    EXPECT_EQ(f.deletion_vector->cardinality, 1);
    EXPECT_NE(f.stats->find("\"tightBounds\":false"), std::string::npos);
    // The DV holds the deleted row's position in its file.
    auto rows =
        table::LoadDeletionVector(*io::LocalFileSystem::Get(), *f.deletion_vector, path_);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(*rows, std::vector<uint64_t>{1}) << f.path;
  }
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[0,a][2,c][3,d]");

  // UPDATE: the updated row is written to a new file, its old copy marked.
  spark.sql("UPDATE delta.`" + path_ + "` SET v = 'z' WHERE id = 2");
  m = LastCommit().operation_metrics;
  EXPECT_EQ(m.at("numUpdatedRows"), "1");
  EXPECT_EQ(m.at("numAddedFiles"), "1");
  EXPECT_EQ(m.at("numDeletionVectorsUpdated"), "1");
  EXPECT_EQ(Files("part-").size(), 3u);
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[0,a][2,z][3,d]");

  // MERGE deleting the last row of the second file removes it; an insert is written.
  auto t = DeltaTable::forPath(spark, path_);
  auto src = spark.sql("SELECT * FROM VALUES (3L, 'x'), (9L, 'n') AS s(id, v)");
  t.alias("t")
      .merge(src.alias("s"), "t.id = s.id")
      .whenMatchedDelete()
      .whenNotMatchedInsertAll()
      .execute();
  m = LastCommit().operation_metrics;
  EXPECT_EQ(m.at("numTargetFilesRemoved"), "1");
  EXPECT_EQ(m.at("numTargetRowsCopied"), "0");
  EXPECT_EQ(m.at("numTargetDeletionVectorsRemoved"), "1");
  EXPECT_EQ(m.at("numTargetRowsInserted"), "1");
  EXPECT_EQ(Rows(t.toDF()), "[0,a][2,z][9,n]");

  // OPTIMIZE purges the DVs; VACUUM then deletes the DV files no version within the
  // retention needs, and keeps those it does.
  auto opt = t.optimize().executeCompaction().selectExpr(
      "metrics.deletionVectorStats.numDeletionVectorsRemoved");
  EXPECT_EQ(opt.collect()[0][0].ToString(), "1");
  EXPECT_EQ(LastCommit().operation_metrics.at("numDeletionVectorsRemoved"), "1");
  for (const auto& f : Latest()->files()) EXPECT_FALSE(f.deletion_vector.has_value());
  EXPECT_EQ(Rows(t.toDF()), "[0,a][2,z][9,n]");
  EXPECT_EQ(Files("deletion_vector_").size(), 2u);  // DELETE's and UPDATE's
  t.vacuum(168);  // all within the default week: nothing deleted
  EXPECT_EQ(Files("deletion_vector_").size(), 2u);
  spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
  t.vacuum(0);
  EXPECT_EQ(Files("deletion_vector_").size(), 0u);
  EXPECT_EQ(Rows(t.toDF()), "[0,a][2,z][9,n]");
}

// Auto-compaction (the streaming sink's) purges deletion vectors too and counts them.
TEST_F(DeltaDvTest, AutoCompactionPurgesDeletionVectors) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("CREATE TABLE delta.`" + path_ +
            "` (id BIGINT, v STRING) USING DELTA "
            "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  for (int i = 0; i < 3; ++i) {
    spark
        .sql("SELECT id, 'v' AS v FROM range(" + std::to_string(i * 3) + ", " +
             std::to_string(i * 3 + 3) + ")")
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(path_);
  }
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 1 OR id = 4");
  table::AutoCompactConfig config;
  config.enabled = true;
  config.min_num_files = 2;
  auto version = table::MaybeAutoCompact(io::LocalFileSystem::Get(), path_, config,
                                         {table::PartitionValues{}}, "UTC", "snappy");
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  ASSERT_TRUE(version->has_value());
  EXPECT_EQ(LastCommit().operation_metrics.at("numDeletionVectorsRemoved"), "2");
  for (const auto& f : Latest()->files()) EXPECT_FALSE(f.deletion_vector.has_value());
  EXPECT_EQ(spark.read().format("delta").load(path_).count(), 7);
}

// A DELETE whose second DV of a file replaces the first: the new one holds both
// positions.
TEST_F(DeltaDvTest, SecondDeleteMergesTheDeletionVector) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("CREATE TABLE delta.`" + path_ +
            "` (id BIGINT, v STRING) USING DELTA "
            "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  spark.sql("SELECT id, 'v' AS v FROM range(10)")
      .coalesce(1)
      .write()
      .format("delta")
      .mode("append")
      .save(path_);
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 7");
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 2");
  auto m = LastCommit().operation_metrics;
  EXPECT_EQ(m.at("numDeletionVectorsUpdated"), "1");
  EXPECT_EQ(m.at("numDeletionVectorsRemoved"), "1");
  std::vector<uint64_t> all;
  for (const auto& f : Latest()->files()) {
    if (!f.deletion_vector) continue;
    auto rows = *table::LoadDeletionVector(*io::LocalFileSystem::Get(),
                                           *f.deletion_vector, path_);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(spark.read().format("delta").load(path_).count(), 8);
  // The session conf turns DV writes off: copy-on-write again.
  spark.conf().set("spark.databricks.delta.delete.deletionVectors.persistent", "false");
  spark.sql("DELETE FROM delta.`" + path_ + "` WHERE id = 4");
  EXPECT_EQ(LastCommit().operation_metrics.at("numDeletionVectorsAdded"), "0");
  EXPECT_EQ(spark.read().format("delta").load(path_).count(), 7);
}

// ZORDER BY clusters both columns: with 1024 range ids (a power of two, so the ids' top
// bits split a 16 x 16 grid in halves) and 4 output files, each file is one quadrant:
// 8 values of x and 8 of y (rows sorted by one column would span the other's whole
// range in every file).
TEST_F(DeltaDvTest, ZOrderClustersEveryColumn) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark
      .sql(
          "SELECT CAST(id % 16 AS INT) AS x, CAST(id DIV 16 AS INT) AS y FROM range(256)")
      .coalesce(1)
      .write()
      .format("delta")
      .save(path_);
  const int64_t size = Latest()->files()[0].size;
  spark.conf().set("spark.databricks.delta.optimize.maxFileSize",
                   std::to_string(size / 4));
  spark.conf().set("spark.databricks.io.skipping.mdc.rangeId.max", "1024");
  auto out = DeltaTable::forPath(spark, path_).optimize().executeZOrderBy({"x", "y"});
  EXPECT_EQ(out.selectExpr("metrics.zOrderStats.strategyName", "metrics.numFilesAdded")
                .collect()[0][0]
                .ToString(),
            "all");
  const auto info = LastCommit();
  EXPECT_EQ(info.operation, "OPTIMIZE");
  EXPECT_EQ(info.operation_parameters.at("zOrderBy"), "[\"x\",\"y\"]");
  const auto files = Latest()->files();
  ASSERT_EQ(files.size(), 4u);
  for (const auto& f : files) {
    auto stats = *Json::Parse(*f.stats);
    for (const char* c : {"x", "y"}) {
      const int64_t lo = *stats.Find("minValues")->GetInt(c);
      const int64_t hi = *stats.Find("maxValues")->GetInt(c);
      EXPECT_EQ(hi - lo, 7) << f.path << " " << c;
    }
  }
  EXPECT_EQ(spark.read().format("delta").load(path_).count(), 256);
  EXPECT_EQ(spark.read().format("delta").load(path_).distinct().count(), 256);
}

TEST_F(DeltaDvTest, ZOrderErrors) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("CREATE TABLE delta.`" + path_ +
            "` (a INT, b INT, p STRING) USING DELTA PARTITIONED BY (p) "
            "TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '1')");
  spark.sql("INSERT INTO delta.`" + path_ + "` VALUES (1, 2, 'x')");
  auto error_of = [&](const std::string& cols) -> std::string {
    try {
      spark.sql("OPTIMIZE delta.`" + path_ + "` ZORDER BY (" + cols + ")");
    } catch (const SparkException& e) {
      return e.getErrorClass();
    }
    return "none";
  };
  EXPECT_EQ(error_of("p"), "DELTA_ZORDERING_ON_PARTITION_COLUMN");
  EXPECT_EQ(error_of("c"), "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST");
  EXPECT_EQ(error_of("b"), "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS");
  EXPECT_EQ(error_of("a"), "none");
  spark.conf().set("spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled",
                   "false");
  EXPECT_EQ(error_of("b"), "none");
}

}  // namespace
}  // namespace spate::api
