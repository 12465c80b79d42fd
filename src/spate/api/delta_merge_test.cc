// Copyright spate authors.
#include "spate/api/delta_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "spate/api/delta_table.h"
#include "spate/api/delta_test_files.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/base/json.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_writer.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

std::string Str(const Row& r);

class DeltaMergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_delta_merge_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    path_ = dir_ + "/t";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The target of delta-spark's example: two files, (1,a,10) (2,b,20) (3,c,30) +
  // (4,d,40).
  void MakeTarget(const SparkSession& spark) {
    // A table with nullable columns (the CREATE TABLE of delta-spark's run).
    spark.sql("CREATE TABLE delta.`" + path_ +
              "` (id INT, v STRING, n BIGINT) USING DELTA");
    spark.sql("INSERT INTO delta.`" + path_ +
              "` VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
    spark.sql("INSERT INTO delta.`" + path_ + "` VALUES (4, 'd', 40)");
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
  std::vector<table::Action> LastActions() const {
    table::DeltaLog log(io::LocalFileSystem::Get(), path_);
    return *log.ReadCommit(Version());
  }
  std::string Rows(const DataFrame& df) const {
    std::string out;
    for (const auto& r : df.orderBy("id").collect()) out += Str(r);
    return out;
  }
  std::string dir_, path_;
};

// "[1,a,NULL]".
std::string Str(const Row& r) {
  std::string s = "[";
  for (size_t i = 0; i < r.size(); ++i) {
    s += (i ? "," : "") + (r[i].is_null() ? std::string("NULL") : r[i].ToString());
  }
  return s + "]";
}

DataFrame Source(const SparkSession& spark) {
  return spark.sql(
      "SELECT * FROM VALUES (1, 'x', 100L), (5, 'y', 500L), (4, 'z', 400L) AS s(id, v, "
      "n)");
}

// delta-spark 4.4's metrics and operationParameters for the same MERGE on the same
// input (bytes and times aside).
TEST_F(DeltaMergeTest, AllClausesMatchDeltaSparkHistory) {
  auto spark = SparkSession::builder().getOrCreate();
  MakeTarget(spark);
  auto result = DeltaTable::forPath(spark, path_)
                    .alias("t")
                    .merge(Source(spark).alias("s"), "t.id = s.id")
                    .whenMatchedDelete("s.n > 300")
                    .whenMatchedUpdateExpr({{"v", "s.v"}, {"n", "t.n + 1"}})
                    .whenNotMatchedInsert("s.id > 0",
                                          {{"id", F::col("s.id")}, {"v", F::col("s.v")}})
                    .whenNotMatchedBySourceUpdate("t.id = 2", {{"v", F::lit("gone")}})
                    .whenNotMatchedBySourceDelete()
                    .execute()
                    .collect();
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(Str(result[0]), "[5,2,2,1]");
  EXPECT_EQ(Rows(DeltaTable::forPath(spark, path_).toDF()),
            "[1,x,11][2,gone,20][5,y,NULL]");
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation, "MERGE");
  EXPECT_EQ(ci.read_version, 2);  // CREATE TABLE, INSERT, INSERT
  EXPECT_EQ(ci.is_blind_append, false);
  const std::map<std::string, std::string> expected = {
      {"numOutputRows", "3"},
      {"numSourceRows", "3"},
      {"numTargetChangeFilesAdded", "0"},
      {"numTargetDeletionVectorsAdded", "0"},
      {"numTargetDeletionVectorsRemoved", "0"},
      {"numTargetDeletionVectorsUpdated", "0"},
      {"numTargetFilesAdded", "1"},
      {"numTargetFilesRemoved", "2"},
      {"numTargetRowsCopied", "0"},
      {"numTargetRowsDeleted", "2"},
      {"numTargetRowsInserted", "1"},
      {"numTargetRowsMatchedDeleted", "1"},
      {"numTargetRowsMatchedUpdated", "1"},
      {"numTargetRowsNotMatchedBySourceDeleted", "1"},
      {"numTargetRowsNotMatchedBySourceUpdated", "1"},
      {"numTargetRowsUpdated", "2"},
  };
  for (const auto& [k, v] : expected) EXPECT_EQ(ci.operation_metrics[k], v) << k;
  for (const char* k : {"numTargetBytesAdded", "numTargetBytesRemoved", "executionTimeMs",
                        "scanTimeMs", "rewriteTimeMs", "materializeSourceTimeMs"}) {
    EXPECT_EQ(ci.operation_metrics.count(k), 1u) << k;
  }
  EXPECT_EQ(ci.operation_metrics.size(), expected.size() + 6);
  // delta-spark prints attribute ids ("(n#293 > 300)"); spate prints the names.
  EXPECT_EQ(ci.operation_parameters["predicate"], "[\"(id = id)\"]");
  EXPECT_EQ(ci.operation_parameters["matchedPredicates"],
            "[{\"predicate\":\"(n > "
            "300)\",\"actionType\":\"delete\"},{\"actionType\":\"update\"}]");
  EXPECT_EQ(ci.operation_parameters["notMatchedPredicates"],
            "[{\"predicate\":\"(id > 0)\",\"actionType\":\"insert\"}]");
  EXPECT_EQ(ci.operation_parameters["notMatchedBySourcePredicates"],
            "[{\"predicate\":\"(id = "
            "2)\",\"actionType\":\"update\"},{\"actionType\":\"delete\"}]");
}

TEST_F(DeltaMergeTest, InsertOnlyMergeRewritesNothing) {
  auto spark = SparkSession::builder().getOrCreate();
  MakeTarget(spark);
  DeltaTable::forPath(spark, path_)
      .alias("t")
      .merge(Source(spark).alias("s"), F::col("t.id") == F::col("s.id"))
      .whenNotMatchedInsertAll()
      .execute();
  EXPECT_EQ(Rows(DeltaTable::forPath(spark, path_).toDF()),
            "[1,a,10][2,b,20][3,c,30][4,d,40][5,y,500]");
  for (const auto& a : LastActions()) EXPECT_NE(a.kind, table::Action::Kind::kRemove);
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation_metrics["numTargetFilesRemoved"], "0");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsInserted"], "1");
  EXPECT_EQ(ci.operation_metrics["numTargetBytesRemoved"], "0");
  EXPECT_EQ(ci.operation_parameters["matchedPredicates"], "[]");
}

TEST_F(DeltaMergeTest, OnlyFilesWithMatchesAreRewritten) {
  auto spark = SparkSession::builder().getOrCreate();
  MakeTarget(spark);
  table::DeltaLog log(io::LocalFileSystem::Get(), path_);
  auto before = *log.Latest();
  ASSERT_EQ(before->files().size(), 2u);
  DeltaTable::forPath(spark, path_)
      .alias("t")
      .merge(spark.sql("SELECT 4 AS id, 'new' AS v").alias("s"), "t.id = s.id")
      .whenMatchedUpdate(F::col("s.v") != F::lit("x"), {{"v", F::col("s.v")}})
      .execute();
  auto after = *log.Latest();
  ASSERT_EQ(after->files().size(), 2u);
  int kept = 0;
  for (const auto& f : after->files()) {
    for (const auto& g : before->files()) kept += f.path == g.path;
  }
  EXPECT_EQ(kept, 1);
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation_metrics["numTargetFilesRemoved"], "1");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsCopied"], "0");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsMatchedUpdated"], "1");
  EXPECT_EQ(Rows(DeltaTable::forPath(spark, path_).toDF()),
            "[1,a,10][2,b,20][3,c,30][4,new,40]");
}

TEST_F(DeltaMergeTest, MultipleMatchesFailAndChangeNothing) {
  auto spark = SparkSession::builder().getOrCreate();
  MakeTarget(spark);
  const int64_t version = Version();
  auto dup = spark.sql("SELECT * FROM VALUES (1, 'p'), (1, 'q') AS s(id, v)").alias("s");
  try {
    DeltaTable::forPath(spark, path_)
        .alias("t")
        .merge(dup, "t.id = s.id")
        .whenMatchedUpdateExpr({{"v", "s.v"}})
        .whenNotMatchedInsertAll()
        .execute();
    FAIL() << "expected DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE";
  } catch (const SparkException& e) {
    EXPECT_EQ(e.getErrorClass(),
              "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
    EXPECT_EQ(e.getSqlState(), "21506");
  }
  EXPECT_EQ(Version(), version);
  // The builder refuses a second unconditional clause of a kind, as the parser does.
  EXPECT_THROW_CLASS(DeltaTable::forPath(spark, path_)
                         .merge(dup, "t.id = s.id")
                         .whenMatchedDelete()
                         .whenMatchedDelete(),
                     ParseException, "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION");
}

// Delta's idempotent DML: the same txnAppId/txnVersion a second time changes nothing.
TEST_F(DeltaMergeTest, TxnAppIdAndVersionMakeAReplayANoOp) {
  auto spark = SparkSession::builder().getOrCreate();
  MakeTarget(spark);
  spark.conf().set("spark.databricks.delta.write.txnAppId", "upsert-job");
  spark.conf().set("spark.databricks.delta.write.txnVersion", "7");
  auto merge = [&] {
    return DeltaTable::forPath(spark, path_)
        .alias("t")
        .merge(Source(spark).alias("s"), "t.id = s.id")
        .whenMatchedUpdateExpr({{"n", "t.n + s.n"}})
        .whenNotMatchedInsertAll()
        .execute();
  };
  merge();
  const int64_t version = Version();
  EXPECT_EQ(Str(merge().collect()[0]), "[0,0,0,0]");
  EXPECT_EQ(Version(), version);
  EXPECT_EQ(Rows(DeltaTable::forPath(spark, path_).toDF()),
            "[1,a,110][2,b,20][3,c,30][4,d,440][5,y,500]");
  spark.conf().unset("spark.databricks.delta.write.txnAppId");
  spark.conf().unset("spark.databricks.delta.write.txnVersion");
}

// The commit a MERGE makes (its read snapshot, the files it rewrites, the partitions it
// read) against concurrent writers, by OSS Delta's Serializable rules (checked against
// delta-spark 4.4): any commit that adds files to a partition the MERGE read fails it,
// a blind append too; additions to other partitions do not.
TEST_F(DeltaMergeTest, ConflictsWithConcurrentAppendToThePartitionItRead) {
  auto spark = SparkSession::builder().getOrCreate();
  spark.sql("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS x(id, d)")
      .write()
      .format("delta")
      .partitionBy({"d"})
      .save(path_);
  auto fs = io::LocalFileSystem::Get();
  table::DeltaLog log(fs, path_);
  auto in_a = [](const table::PartitionValues& pv) {
    return pv[0].second == std::optional<std::string>("a");
  };
  // A MERGE that read `read` and rewrites partition a.
  auto commit_merge = [&](const table::SnapshotPtr& read) {
    table::DeltaWriteOptions o = SessionDeltaWriteOptions(*spark.state(), "append");
    o.read_snapshot = read;
    for (const auto& f : read->files()) {
      if (in_a(f.partition_values)) o.remove_files.push_back(f);
    }
    o.operation = "MERGE";
    o.read_partitions = in_a;
    auto data = spark.sql("SELECT 1 AS id, 'a' AS d").collectBatches();
    return table::WriteBatches(fs, path_, data, o);
  };
  auto insert_merge = [&](const std::string& id, const std::string& d) {
    spark.sql("MERGE INTO delta.`" + path_ + "` t USING (SELECT " + id + " AS id, '" + d +
              "' AS d) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *");
  };
  auto append = [&](const std::string& id, const std::string& d) {
    spark.sql("SELECT " + id + " AS id, '" + d + "' AS d")
        .write()
        .format("delta")
        .mode("append")
        .save(path_);
  };
  table::SnapshotPtr read = *log.Latest();
  append("3", "a");  // a blind append to partition a
  auto conflict = commit_merge(read);
  ASSERT_ERROR_CLASS(conflict, "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT");
  EXPECT_ERROR_HAS(conflict,
                   "a concurrent WRITE added data to table delta.`file:" + path_ +
                       "` committed at version 1. The concurrent operation modified data "
                       "in the partition [d=a] that should have been read");
  EXPECT_EQ(*log.LatestVersion(), 1);

  read = *log.Latest();
  append("7", "b");
  auto ok = commit_merge(read);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->version, 3);

  read = *log.Latest();
  insert_merge("8", "b");
  ok = commit_merge(read);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->version, 5);

  read = *log.Latest();
  insert_merge("9", "a");
  conflict = commit_merge(read);
  ASSERT_ERROR_CLASS(conflict, "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT");
  EXPECT_EQ(*log.LatestVersion(), 6);
}

TEST_F(DeltaMergeTest, SqlMergeIntoDeltaPathAndPartitionPruning) {
  auto spark = SparkSession::builder().getOrCreate();
  spark.sql("SELECT * FROM VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3) AS x(id, d, v)")
      .write()
      .format("delta")
      .partitionBy({"d"})
      .save(path_);
  auto out = spark
                 .sql("MERGE INTO delta.`" + path_ +
                      "` AS p USING (SELECT 2 AS id, 'b' AS d, 20 AS v) s "
                      "ON p.id = s.id AND p.d = 'b' WHEN MATCHED THEN UPDATE SET v = s.v")
                 .collect();
  EXPECT_EQ(Str(out[0]), "[1,1,0,0]");
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation_metrics["numTargetFilesRemoved"], "1");
  // Only partition b was read: an append to partition a after it would not conflict.
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[1,a,1][2,b,20][3,c,3]");
}

// Files a MERGE may skip: a target of three files (ids 0-999, 1000-2999, 3000-3999;
// n = id), some made unreadable. A file the MERGE opens fails it, so each MERGE below
// succeeding shows it read only the files its pruning leaves.
class DeltaMergePruningTest : public DeltaMergeTest {
 protected:
  void MakeRanges(const SparkSession& spark) {
    for (auto [lo, hi] : {std::pair{0, 1000}, std::pair{1000, 3000}, {3000, 4000}}) {
      spark.range(lo, hi)
          .selectExpr("CAST(id AS INT) AS id", "id AS n")
          .coalesce(1)
          .write()
          .format("delta")
          .mode("append")
          .save(path_);
    }
  }
  // Makes the files holding `ids` unreadable (their bytes are kept for Restore).
  void Break(std::initializer_list<int> ids) {
    std::vector<int> which(ids);
    broken_.Break(path_, [&](const Json& stats) {
      const int64_t lo = stats.Find("minValues")->Find("id")->int_value();
      const int64_t hi = stats.Find("maxValues")->Find("id")->int_value();
      return std::any_of(which.begin(), which.end(),
                         [&](int id) { return id >= lo && id <= hi; });
    });
  }
  void Restore() { broken_.Restore(); }
  int64_t Count(const SparkSession& spark, const std::string& where) {
    return spark.read().format("delta").load(path_).filter(where).count();
  }
  UnreadableFiles broken_;
};

// The source's key range: 2000 source rows (too many to collect their keys) with keys
// 1000-2999 read only the middle file.
TEST_F(DeltaMergePruningTest, SourceKeyRangeSkipsFiles) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  Break({0, 3000});
  auto src = spark.range(1000, 3000).selectExpr("CAST(id AS INT) AS id", "-1L AS n");
  DeltaTable::forPath(spark, path_)
      .alias("t")
      .merge(src.alias("s"), "t.id = s.id")
      .whenMatchedUpdateAll()
      .execute();
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation_metrics["numTargetFilesRemoved"], "1");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsUpdated"], "2000");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsCopied"], "0");
  Restore();
  EXPECT_EQ(Count(spark, "n = -1"), 2000);
  EXPECT_EQ(Count(spark, "n >= 0"), 2000);
}

// A small source's keys themselves: 5 and 3500 span every file but lie in none of the
// middle file's range; an insert-only MERGE reads the same files and rewrites nothing.
TEST_F(DeltaMergePruningTest, SmallSourceKeyValuesSkipFiles) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  Break({1000});
  auto src =
      spark.sql("SELECT * FROM VALUES (5, -50L), (3500, -35L), (7000, -70L) AS s(id, n)");
  DeltaTable::forPath(spark, path_)
      .alias("t")
      .merge(src.alias("s"), "t.id = s.id")
      .whenMatchedUpdateExpr({{"n", "s.n"}})
      .whenNotMatchedInsertAll()
      .execute();
  table::CommitInfo ci = LastCommit();
  EXPECT_EQ(ci.operation_metrics["numTargetFilesRemoved"], "2");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsUpdated"], "2");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsInserted"], "1");
  EXPECT_EQ(ci.operation_metrics["numTargetRowsCopied"], "1998");
  spark.sql("MERGE INTO delta.`" + path_ +
            "` t USING (SELECT 4 AS id, 0L AS n UNION ALL SELECT 8000, 0L) s "
            "ON t.id = s.id WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(LastCommit().operation_metrics["numTargetFilesRemoved"], "0");
  EXPECT_EQ(LastCommit().operation_metrics["numTargetRowsInserted"], "1");
  Restore();
  EXPECT_EQ(Count(spark, "id IN (5, 3500, 7000, 8000)"), 4);
  EXPECT_EQ(Count(spark, "n IN (-50, -35, -70)"), 3);
}

// Target-only conjuncts of the ON condition (statistics of another column, any form of
// partition predicate) skip files; with NOT MATCHED BY SOURCE clauses every file is read.
TEST_F(DeltaMergePruningTest, TargetOnlyConjunctsSkipFiles) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  Break({0, 1000});
  auto src = spark.sql("SELECT * FROM VALUES (5), (1500), (3500) AS s(id)");
  DeltaTable::forPath(spark, path_)
      .alias("t")
      .merge(src.alias("s"), "t.id = s.id AND t.n >= 3000")
      .whenMatchedDelete()
      .execute();
  EXPECT_EQ(LastCommit().operation_metrics["numTargetRowsDeleted"], "1");
  EXPECT_THROW(DeltaTable::forPath(spark, path_)
                   .alias("t")
                   .merge(src.alias("s"), "t.id = s.id AND t.n >= 3000")
                   .whenMatchedDelete()
                   .whenNotMatchedBySourceDelete("t.n = 3999")
                   .execute(),
               std::exception);
  Restore();
  EXPECT_EQ(Count(spark, "true"), 3999);
  EXPECT_EQ(Count(spark, "id = 3500"), 0);
}

// As delta-spark: a MERGE with MATCHED clauses only skips the files none of its clause
// conditions' target-only conjuncts can hold, so a target row matched twice in such a
// file is not seen (delta-spark 4.4 gave the same: no error, one row updated).
TEST_F(DeltaMergePruningTest, MatchedOnlyClauseConditionsSkipFiles) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  Break({0});
  auto src =
      spark.sql("SELECT * FROM VALUES (1, -1L), (1, -2L), (3001, -7L) AS s(id, n)");
  auto out = DeltaTable::forPath(spark, path_)
                 .alias("t")
                 .merge(src.alias("s"), "t.id = s.id")
                 .whenMatchedUpdate("t.n >= 3000", {{"n", F::col("s.n")}})
                 .execute();
  EXPECT_EQ(Str(out.collect()[0]), "[1,1,0,0]");
  Restore();
  EXPECT_EQ(Count(spark, "n = -7"), 1);
  // Without the clause condition the duplicate is found.
  EXPECT_THROW_CLASS(DeltaTable::forPath(spark, path_)
                         .alias("t")
                         .merge(src.alias("s"), "t.id = s.id")
                         .whenMatchedUpdate({{"n", F::col("s.n")}})
                         .execute(),
                     SparkException,
                     "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
}

// Partition conjuncts of any form prune the files read and scope the conflict check.
TEST_F(DeltaMergePruningTest, PartitionConjunctsOfAnyForm) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS x(id, d)")
      .write()
      .format("delta")
      .partitionBy({"d"})
      .save(path_);
  table::DeltaLog log(io::LocalFileSystem::Get(), path_);
  auto snap = *log.Latest();
  for (const auto& f : snap->files()) {
    if (f.partition_values[0].second != std::optional<std::string>("b")) {
      std::ofstream(snap->DataFilePath(f), std::ios::trunc) << "not parquet";
    }
  }
  spark.sql("MERGE INTO delta.`" + path_ +
            "` t USING (SELECT 2 AS id, 'b' AS d) s "
            "ON t.id = s.id AND t.d IN ('b', 'x') AND upper(t.d) <> 'A' "
            "WHEN MATCHED THEN UPDATE SET id = 20");
  EXPECT_EQ(LastCommit().operation_metrics["numTargetRowsUpdated"], "1");
  EXPECT_EQ(Count(spark, "d = 'b' AND id = 20"), 1);
}

// The one-pass MERGE (candidate files read once; spate.delta.merge.onePassMaxBytes) gives
// what the two passes give: rows, every count metric, the files removed, the change data
// feed's rows, deletion vectors, the multiple-match error with nothing committed, and no
// commit when nothing is touched — also with candidate files that turn out untouched
// (`t.id + 0 = s.id` prunes nothing) and with inserts beside them.
TEST_F(DeltaMergeTest, OnePassGivesWhatTwoPassesGive) {
  struct Shape {
    std::string properties;  // TBLPROPERTIES of the target
    std::string merge;       // the MERGE after "MERGE INTO <t> t USING (...) s"
    std::string source;
  };
  const std::vector<Shape> shapes = {
      {"",
       "ON t.id = s.id WHEN MATCHED AND s.n > 300 THEN DELETE "
       "WHEN MATCHED THEN UPDATE SET v = s.v, n = t.n + 1 "
       "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v) "
       "WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN UPDATE SET v = 'gone' "
       "WHEN NOT MATCHED BY SOURCE THEN DELETE",
       "VALUES (1, 'x', 100L), (5, 'y', 500L), (4, 'z', 400L) AS s(id, v, n)"},
      // Matched only: file 1's match fails the clause condition (untouched).
      {"", "ON t.id + 0 = s.id WHEN MATCHED AND s.v <> 'x' THEN UPDATE SET v = s.v",
       "VALUES (1, 'x', 0L), (4, 'new', 0L), (9, 'w', 0L) AS s(id, v, n)"},
      // Nothing touched: no commit.
      {"", "ON t.id + 0 = s.id WHEN MATCHED AND s.v = 'none' THEN DELETE",
       "VALUES (1, 'x', 0L), (4, 'y', 0L), (9, 'w', 0L) AS s(id, v, n)"},
      // Matches in file 2 only, inserts, file 1 a candidate left alone.
      {"",
       "ON t.id + 0 = s.id WHEN MATCHED THEN UPDATE SET n = s.n "
       "WHEN NOT MATCHED THEN INSERT *",
       "VALUES (4, 'd', 44L), (7, 'g', 70L), (8, 'h', 80L) AS s(id, v, n)"},
      // Only inserts although there are MATCHED clauses.
      {"", "ON t.id + 0 = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *",
       "VALUES (7, 'g', 70L), (8, 'h', 80L) AS s(id, v, n)"},
      // An unconditional DELETE matched twice, with the change data feed.
      {"'delta.enableChangeDataFeed' = 'true'",
       "ON t.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *",
       "VALUES (2, 'p', 0L), (2, 'q', 0L), (3, 'r', 0L), (6, 's', 60L) AS s(id, v, n)"},
      {"'delta.enableChangeDataFeed' = 'true'",
       "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
       "VALUES (2, 'p', 0L), (4, 'q', 0L), (6, 's', 60L) AS s(id, v, n)"},
      {"'delta.enableDeletionVectors' = 'true'",
       "ON t.id = s.id WHEN MATCHED AND s.n = 0 THEN DELETE "
       "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
       "VALUES (2, 'p', 0L), (4, 'q', 1L), (6, 's', 60L) AS s(id, v, n)"},
      // Several source rows update one target row: the error, nothing committed.
      {"", "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v",
       "VALUES (1, 'p', 0L), (1, 'q', 0L), (4, 'r', 0L) AS s(id, v, n)"},
  };
  const std::set<std::string> variable = {
      "numTargetBytesAdded", "numTargetBytesRemoved", "executionTimeMs",
      "scanTimeMs",          "rewriteTimeMs",         "materializeSourceTimeMs"};
  auto run = [&](const Shape& shape, const std::string& path, bool one_pass) {
    auto spark = SparkSession::builder().getOrCreate().newSession();
    spark.conf().set("spate.delta.merge.onePassMaxBytes", one_pass ? "1073741824" : "0");
    spark.sql(
        "CREATE TABLE delta.`" + path + "` (id INT, v STRING, n BIGINT) USING DELTA" +
        (shape.properties.empty() ? "" : " TBLPROPERTIES (" + shape.properties + ")"));
    spark.sql("INSERT INTO delta.`" + path +
              "` VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
    spark.sql("INSERT INTO delta.`" + path + "` VALUES (4, 'd', 40), (5, 'e', 50)");
    std::string out;
    try {
      auto r = spark.sql("MERGE INTO delta.`" + path + "` t USING (SELECT * FROM " +
                         shape.source + ") s " + shape.merge);
      out += "result " + Str(r.collect()[0]);
    } catch (const SparkException& e) {
      out += "error " + e.getErrorClass();
    }
    table::DeltaLog log(io::LocalFileSystem::Get(), path);
    const int64_t version = *log.LatestVersion();
    out += " version " + std::to_string(version) + " rows " +
           Rows(spark.read().format("delta").load(path));
    if (version < 3) return out;
    int removes = 0, adds = 0, cdcs = 0;
    const std::vector<table::Action> actions = *log.ReadCommit(version);
    for (const auto& a : actions) {
      removes += a.kind == table::Action::Kind::kRemove;
      adds += a.kind == table::Action::Kind::kAdd;
      cdcs += a.kind == table::Action::Kind::kCdc;
      if (a.kind != table::Action::Kind::kCommitInfo) continue;
      for (const auto& [k, v] : a.commit_info.operation_metrics) {
        if (!variable.count(k)) out += " " + k + "=" + v;
      }
      for (const auto& [k, v] : a.commit_info.operation_parameters)
        out += " " + k + "=" + v;
    }
    out += " removes " + std::to_string(removes) + " adds " + std::to_string(adds) +
           " cdc " + std::to_string(cdcs);
    if (!shape.properties.empty() &&
        shape.properties.find("ChangeData") != std::string::npos) {
      std::vector<std::string> changes;
      for (const auto& r :
           spark.read()
               .format("delta")
               .option("readChangeFeed", "true")
               .option("startingVersion", "3")
               .load(path)
               .select(std::vector<std::string>{"id", "v", "n", "_change_type"})
               .collect()) {
        changes.push_back(Str(r));
      }
      std::sort(changes.begin(), changes.end());
      for (const auto& c : changes) out += c;
    }
    return out;
  };
  int i = 0;
  for (const auto& shape : shapes) {
    ++i;
    const std::string one = run(shape, dir_ + "/one" + std::to_string(i), true);
    const std::string two = run(shape, dir_ + "/two" + std::to_string(i), false);
    EXPECT_EQ(one, two) << shape.merge;
    EXPECT_EQ(one.find("error") == 0, i == static_cast<int>(shapes.size())) << one;
  }
}

}  // namespace
}  // namespace spate::api
