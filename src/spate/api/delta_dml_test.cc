// Copyright spate authors.
#include "spate/api/delta_dml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "spate/api/delta_table.h"
#include "spate/api/delta_test_files.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/session_state.h"
#include "spate/base/json.h"
#include "spate/sql/parser.h"
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

// Data skipping: a table of four files (ids 0-99, 100-199, 200-299, 300-399; x NULL in
// the first file, every other row of the second, never in the others; s a short string
// in the first two files, 40 characters with one 32-character prefix in the others),
// some made unreadable: an UPDATE or DELETE that opened one would fail, so each command
// below shows which files its condition's statistics rule out.
class DeltaDmlSkippingTest : public DeltaDmlTest {
 protected:
  void MakeRanges(const SparkSession& spark) {
    for (int lo : {0, 100, 200, 300}) {
      spark.range(lo, lo + 100)
          .selectExpr(
              {"CAST(id AS INT) AS id", "id * 10 AS n",
               "CASE WHEN id < 100 OR id % 2 = 0 AND id < 200 THEN NULL ELSE CAST(id AS "
               "INT) END AS x",
               "CASE WHEN id < 200 THEN concat('s', id + 1000) ELSE concat(repeat('p', "
               "32), id, "
               "repeat('z', 5)) END AS s"})
          .coalesce(1)
          .write()
          .format("delta")
          .mode("append")
          .save(path_);
    }
  }
  // Makes the files with these indexes (0-3, by id range) unreadable.
  void Break(std::initializer_list<int> files) {
    std::vector<int> which(files);
    broken_.Break(path_, [&](const Json& stats) {
      const int64_t i = stats.Find("minValues")->Find("id")->int_value() / 100;
      return std::find(which.begin(), which.end(), i) != which.end();
    });
  }
  void Restore() { broken_.Restore(); }
  // Runs `sql` with the files `unread` broken; the metric `key` of its commit.
  std::string Run(const SparkSession& spark, std::initializer_list<int> unread,
                  const std::string& sql, const char* key) {
    Break(unread);
    const int64_t v = Version();
    spark.sql(sql);
    Restore();
    if (Version() == v) return "no commit";
    return LastCommit().operation_metrics.at(key);
  }
  int64_t Count(const SparkSession& spark, const std::string& where) {
    return spark.read().format("delta").load(path_).filter(where).count();
  }
  std::string T() const { return "delta.`" + path_ + "`"; }
  UnreadableFiles broken_;
};

TEST_F(DeltaDmlSkippingTest, UpdateAndDeleteReadOnlyFilesTheirStatisticsAllow) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  // A narrow range: one file read and rewritten.
  EXPECT_EQ(
      Run(spark, {0, 2, 3}, "UPDATE " + T() + " SET n = -1 WHERE id >= 150 AND id < 160",
          "numUpdatedRows"),
      "10");
  EXPECT_EQ(LastCommit().operation_metrics.at("numRemovedFiles"), "1");
  EXPECT_EQ(LastCommit().operation_metrics.at("numCopiedRows"), "90");
  // Statistics off (Delta's spark.databricks.delta.stats.skipping): every file is read.
  spark.conf().set("spark.databricks.delta.stats.skipping", "false");
  EXPECT_THROW(Run(spark, {0}, "UPDATE " + T() + " SET n = -2 WHERE id = 150", "x"),
               std::exception);
  Restore();
  spark.conf().unset("spark.databricks.delta.stats.skipping");
  // OR, IN, BETWEEN, NOT, <>, <=>, a literal on the left, a value of a wider type.
  EXPECT_EQ(Run(spark, {1, 2}, "DELETE FROM " + T() + " WHERE id < 3 OR id IN (398, 399)",
                "numDeletedRows"),
            "5");
  EXPECT_EQ(Run(spark, {0, 2, 3},
                "UPDATE " + T() + " SET n = 0 WHERE id BETWEEN 190 AND 192 OR 195 <=> id",
                "numUpdatedRows"),
            "4");
  EXPECT_EQ(Run(spark, {0, 1, 2},
                "DELETE FROM " + T() + " WHERE NOT (id < 390 OR n > 3985) AND id <> 391",
                "numDeletedRows"),
            "7");
  EXPECT_EQ(
      Run(spark, {0, 1, 3},
          "UPDATE " + T() + " SET n = 1 WHERE n = 2500L OR id NOT IN (0, 1) AND id < 3",
          "numUpdatedRows"),
      "1");
  EXPECT_EQ(Count(spark, "true"), 388);
  EXPECT_EQ(Count(spark, "n = -1"), 10);
  EXPECT_EQ(Count(spark, "n = 0"), 4);
  EXPECT_EQ(Count(spark, "n = 1"), 1);
}

TEST_F(DeltaDmlSkippingTest, NullsAndStrings) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  // nullCount: IS NULL reads the files holding NULLs, IS NOT NULL those not all NULL.
  EXPECT_EQ(
      Run(spark, {2, 3}, "UPDATE " + T() + " SET n = -1 WHERE x IS NULL AND id % 10 = 0",
          "numUpdatedRows"),
      "20");
  EXPECT_EQ(Run(spark, {0, 2, 3},
                "UPDATE " + T() + " SET n = -2 WHERE x IS NOT NULL AND id < 110",
                "numUpdatedRows"),
            "5");
  EXPECT_EQ(
      Run(spark, {2, 3}, "UPDATE " + T() + " SET n = -3 WHERE x <=> NULL AND id = 7",
          "numUpdatedRows"),
      "1");
  // A comparison with NULL holds nowhere: nothing is read, nothing committed.
  EXPECT_EQ(
      Run(spark, {0, 1, 2, 3}, "DELETE FROM " + T() + " WHERE x = NULL OR id IN (NULL)",
          "numDeletedRows"),
      "no commit");
  EXPECT_EQ(Run(spark, {0, 1, 2, 3}, "DELETE FROM " + T() + " WHERE id NOT IN (1, NULL)",
                "numDeletedRows"),
            "no commit");
  // Strings: 's1151' lies within the second file's range only; the 40-character values'
  // 32- character prefix statistics bound nothing, so those files are read (and one value
  // beyond the prefix matches).
  EXPECT_EQ(Run(spark, {0},
                "UPDATE " + T() + " SET n = -4 WHERE s = 's1151' OR s = '" +
                    std::string(32, 'p') + "250zzzzz'",
                "numUpdatedRows"),
            "2");
  EXPECT_EQ(LastCommit().operation_metrics.at("numRemovedFiles"), "2");
  EXPECT_EQ(Count(spark, "n = -4"), 2);
  EXPECT_EQ(Count(spark, "n = -1"), 20);
  EXPECT_EQ(Count(spark, "n = -2"), 5);
}

// delta-spark writes timestamp statistics truncated to milliseconds (a maximum of
// .000500 is written .000): as Delta's reader, a file may hold values up to 1 ms above
// its maximum.
TEST_F(DeltaDmlSkippingTest, TimestampMaximumIsTruncatedToMilliseconds) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  spark.sql("SELECT 1 AS id, TIMESTAMP '2024-01-01 00:00:00.0005' AS ts")
      .write()
      .format("delta")
      .save(path_);
  const std::string log = path_ + "/_delta_log/00000000000000000000.json";
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  in.close();
  const std::string ceil = "00:00:00.001Z", floor = "00:00:00.000Z";
  ASSERT_NE(text.find(ceil), std::string::npos);
  text.replace(text.find(ceil), ceil.size(), floor);  // as delta-spark writes it
  std::ofstream(log, std::ios::trunc) << text;
  spark.sql("UPDATE " + T() +
            " SET id = 2 WHERE ts > TIMESTAMP '2024-01-01 00:00:00.0001'");
  EXPECT_EQ(Count(spark, "id = 2"), 1);
  spark.sql("DELETE FROM " + T() + " WHERE ts < TIMESTAMP '2024-01-01 00:00:00.0006'");
  EXPECT_EQ(Count(spark, "true"), 0);
}

// The shared conversion (UPDATE, DELETE and MERGE): what decides nothing stays kAny.
TEST_F(DeltaDmlSkippingTest, ConditionForms) {
  auto spark = SparkSession::builder().getOrCreate().newSession();
  MakeRanges(spark);
  table::DeltaLog log(io::LocalFileSystem::Get(), path_);
  auto snap = *log.Latest();
  auto bind = TableBinder(spark.state(), snap, "t");
  auto files = [&](const std::string& cond) {
    FileSkipping f = ToFileSkipping(F::expr(cond).expr(), *snap->schema(), bind, {});
    std::string out;
    for (const auto& a : SkipFiles(spark.state(), snap, snap->files(), f)) {
      auto j = Json::Parse(*a.stats);
      out += std::to_string(j->Find("minValues")->Find("id")->int_value() / 100);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(files("t.id = 250"), "2");
  EXPECT_EQ(files("id > 150 AND id + 1 > 0"), "123");
  EXPECT_EQ(files("id + 0 = 250"), "0123");             // a column under a function
  EXPECT_EQ(files("id = 250 OR abs(id) = 5"), "0123");  // one side decides nothing
  EXPECT_EQ(files("id < rand() * 10 AND id < 50"), "0");
  EXPECT_EQ(files("id < rand() * 10"), "0123");  // non-deterministic: no skipping
  EXPECT_EQ(files("NOT (id <> 120)"), "1");
  EXPECT_EQ(files("NOT (x IS NOT NULL)"), "01");
  EXPECT_EQ(files("id = 2.5"), "0123");  // compared as decimals
  EXPECT_EQ(files("false OR id = 5"), "0");
  EXPECT_EQ(files("true AND NOT true"), "");
  EXPECT_EQ(files("s > 'zz'"), "23");  // a truncated maximum bounds nothing
  EXPECT_EQ(files("s < 'pppp' OR id = 5"),
            "0");                            // a truncated minimum is still a lower bound
  EXPECT_EQ(files("id IN (5, 350)"), "03");  // each value (delta-spark: their range)
  EXPECT_EQ(files("n > unix_micros(current_timestamp()) OR id = 5"),
            "0123");                         // not folded
  EXPECT_EQ(files("s LIKE 's11%'"), "123");  // 2, 3: no maximum
  EXPECT_EQ(files("startswith(s, 'pp') AND id < 300"), "2");
  EXPECT_EQ(files("s NOT LIKE 's11%'"), "0123");
  EXPECT_EQ(files("s LIKE 's1_00%'"), "0123");  // another wildcard
}

// OPTIMIZE's commit (dataChange=false) conflicts only with a concurrent removal of a file
// it compacts, never with a concurrent append.
// The predicate operationParameter as delta-spark 4.4 wrote it for the same conditions
// (its text with the attribute ids and BIGINT `L` suffixes removed): Catalyst's optimized
// form.
TEST(DeltaPredicateTextTest, CatalystOptimizedFormAsDeltaSpark) {
  auto text = [](const std::string& cond) {
    return DeltaPredicateText(*sql::ParseExpression(cond));
  };
  EXPECT_EQ(text("x IS NULL"), "isnull(x)");
  EXPECT_EQ(text("x IS NOT NULL"), "isnotnull(x)");
  EXPECT_EQ(text("id IN (12, 33)"), "id IN (12,33)");
  EXPECT_EQ(text("id NOT IN (12, 33)"), "NOT id IN (12,33)");
  EXPECT_EQ(text("NOT id IN (12, 33)"), "NOT id IN (12,33)");
  EXPECT_EQ(text("NOT (id < 30)"), "(id >= 30)");
  EXPECT_EQ(text("NOT (id < 30 AND x IS NULL)"), "((id >= 30) OR isnotnull(x))");
  EXPECT_EQ(text("s IN ('a', 'b')"), "s IN (a,b)");
  EXPECT_EQ(text("id = 12 OR x IS NULL"), "((id = 12) OR isnull(x))");
  EXPECT_EQ(text("NOT (s = 'a')"), "NOT (s = a)");
  EXPECT_EQ(text("NOT s LIKE 'a%'"), "NOT StartsWith(s, a)");
  EXPECT_EQ(text("isnull(x)"), "isnull(x)");
  EXPECT_EQ(text("x <=> NULL"), "isnull(x)");
  EXPECT_EQ(text("id IN (12)"), "(id = 12)");
  EXPECT_EQ(text("n IN (10, 20)"), "n IN (10,20)");
  EXPECT_EQ(text("NOT (x IS NULL)"), "isnotnull(x)");
  EXPECT_EQ(text("NOT (x IS NOT NULL)"), "isnull(x)");
  EXPECT_EQ(text("NOT (id <> 12)"), "(id = 12)");
  EXPECT_EQ(text("id BETWEEN 10 AND 35"), "((id >= 10) AND (id <= 35))");
  EXPECT_EQ(text("NOT (id BETWEEN 10 AND 35)"), "((id < 10) OR (id > 35))");
  EXPECT_EQ(text("p IN ('x') AND id > 5"), "((p = x) AND (id > 5))");
  EXPECT_EQ(text("NOT (id IN (1, 2)) AND s IS NOT NULL"),
            "(NOT id IN (1,2) AND isnotnull(s))");
  EXPECT_EQ(text("t.id = s.id AND NOT (t.id > 30)"), "((id = id) AND (id <= 30))");
  EXPECT_EQ(text("s.x IS NOT NULL AND NOT (s.id IN (1, 2))"),
            "(isnotnull(x) AND NOT id IN (1,2))");
}

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
  ASSERT_ERROR_CLASS(conflict, "DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT");
  EXPECT_ERROR_HAS(conflict, "a concurrent DELETE deleted data from table");
  EXPECT_EQ(Rows(spark.read().format("delta").load(path_)), "[1,a][2,b][4,b][5,c]");
}

}  // namespace
}  // namespace spate::api
