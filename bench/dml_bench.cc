// Copyright spate authors.
// Delta DML throughput: `build/release/bench/spate_dml_bench [rows] [files] [clustered]`.
// A table of `rows` rows in `files` files (8 partitions) is (1) copied by a plain
// read + write into a new table: the reference; (2) OPTIMIZEd (every file rewritten into
// one per partition); (3) UPDATEd where 1 row in 1000 matches, spread over all files
// (copy-on-write: every file rewritten); (4) UPDATEd where the matches sit in one
// partition (only its files rewritten); (5) DELETEd where 1 row in 1000 matches, copy-on-
// write, then the same on a copy with delta.enableDeletionVectors (rows marked in
// deletion vectors), and UPDATEd there; (6) that copy OPTIMIZEd with ZORDER BY (n, id);
// (7) DELETEd by a partition predicate (no rewrite); (8) on an unpartitioned table whose
// files hold disjoint id ranges (written in id order), UPDATEd and DELETEd where a
// narrow id range matches (statistics skip every other file, which is neither read nor
// rewritten), and UPDATEd by an IN list hitting two files. With a third argument
// `clustered` only the copy and (8) run; with `merge` only the copy and the MERGEs:
// (9) an upsert of 1% of the rows (spread over every file) plus as many new keys again
// as 10% of the source (matched UPDATE, not matched INSERT *), a matched-only UPDATE of
// 1% of the rows, a MERGE with a NOT MATCHED BY SOURCE clause (every file rewritten), a
// 10-row upsert whose keys sit in 10 of the files (the others read for the keys only),
// and on the clustered table an upsert of 1000 keys inside one file (`merge onepass`:
// with the one-pass MERGE, off by default). Prints rows/s and
// each time as a ratio to the reference copy of the same rows, and the rows rewritten
// per row changed.
#include <cstdio>
#include <filesystem>
#include <string>

#include "timing.h"

#include "spate/api/delta_table.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"

using namespace spate;       // NOLINT
using namespace spate::api;  // NOLINT

int main(int argc, char** argv) {
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2'000'000;
  const int files = argc > 2 ? std::atoi(argv[2]) : 64;
  const std::string dir =
      (std::filesystem::temp_directory_path() / "spate_dml_bench").string();
  std::filesystem::remove_all(dir);
  auto spark = SparkSession::builder().getOrCreate();
  const std::string path = dir + "/t";
  const std::string gen =
      "SELECT id, CAST(id % 8 AS STRING) AS p, concat('v', id) AS v, "
      "id * 2 AS n FROM range(" +
      std::to_string(rows) + ")";
  spark.sql(gen).repartition(files).write().format("delta").partitionBy({"p"}).save(path);
  auto t = DeltaTable::forPath(spark, path);

  auto started = bench::Steady::now();
  spark.read().format("delta").load(path).write().format("delta").partitionBy({"p"}).save(
      dir + "/copy");
  const double copy_s = bench::Seconds(started);
  std::printf("%-44s %8.3f s  %10.0f rows/s  (reference)\n", "copy (read + write)",
              copy_s, rows / copy_s);
  // Rows the last commit wrote back (numCopiedRows + numUpdatedRows).
  auto last_rewritten = [&](const DeltaTable& of) -> int64_t {
    auto m = of.history(1)
                 .select(std::vector<std::string>{"operationMetrics"})
                 .collect()[0][0];
    int64_t n = 0;
    for (size_t i = 0; i < m.items().size(); ++i) {
      const std::string k = m.items()[i].ToString();
      if (k == "numCopiedRows" || k == "numUpdatedRows" || k == "numTargetRowsCopied" ||
          k == "numTargetRowsUpdated")
        n += std::stoll(m.values()[i].ToString());
    }
    return n;
  };
  auto report = [&](const char* what, double s, int64_t rewritten, int64_t changed) {
    std::printf("%-44s %8.3f s  %10.0f rows/s  %.3fx the copy", what, s, rewritten / s,
                s / copy_s);
    if (changed > 0) {
      std::printf("  rewritten/changed %.0f", static_cast<double>(rewritten) / changed);
    }
    std::printf("\n");
  };

  // (8) Narrow ranges of a clustered table.
  {
    const std::string cpath = dir + "/clustered";
    spark.range(0, rows, 1, files).write().format("delta").save(cpath);
    auto c = DeltaTable::forPath(spark, cpath);
    const int64_t mid = rows / 2;
    auto narrow = [&](int64_t lo, int64_t n) {
      return "id >= " + std::to_string(lo) + " AND id < " + std::to_string(lo + n);
    };
    started = bench::Steady::now();
    DataFrame u = c.updateExpr(narrow(mid, 1000), {{"id", "-id"}});
    report("UPDATE 1000 rows in 1 file, clustered", bench::Seconds(started),
           last_rewritten(c), std::stoll(u.collect()[0][0].ToString()));
    started = bench::Steady::now();
    u = c.delete_(narrow(mid / 2, 1000));
    report("DELETE 1000 rows in 1 file, clustered", bench::Seconds(started),
           last_rewritten(c), std::stoll(u.collect()[0][0].ToString()));
    started = bench::Steady::now();
    u = c.updateExpr(
        "id IN (" + std::to_string(rows / 8) + ", " + std::to_string(rows - 7) + ")",
        {{"id", "-id"}});
    report("UPDATE id IN (2 values), 2 files, clustered", bench::Seconds(started),
           last_rewritten(c), std::stoll(u.collect()[0][0].ToString()));
  }
  const std::string mode = argc > 3 ? argv[3] : "";
  if (mode == "clustered") {
    std::filesystem::remove_all(dir);
    return 0;
  }
  if (mode == "merge") {
    // A fourth argument `onepass` turns the one-pass MERGE on (candidates up to 1 GiB).
    if (argc > 4 && std::string(argv[4]) == "onepass")
      spark.conf().set("spate.delta.merge.onePassMaxBytes", "1073741824");
    // (9) MERGEs: the affected rows are the result's num_affected_rows.
    auto merged = [&](const char* what, const DeltaTable& of, const DataFrame& result,
                      double s) {
      report(what, s, last_rewritten(of), std::stoll(result.collect()[0][0].ToString()));
    };
    const std::string r = std::to_string(rows);
    // 1% of the rows (every partition, every file) and 0.1% new keys.
    DataFrame upsert = spark.sql(
        "SELECT id, CAST(id % 8 AS STRING) AS p, concat('u', id) AS v, id * 3 AS n FROM "
        "range(0, " +
        r +
        ", 101) UNION ALL SELECT id, CAST(id % 8 AS STRING) AS p, concat('w', id) AS "
        "v, id AS n FROM range(" +
        r + ", " + std::to_string(rows + rows / 1000) + ")");
    started = bench::Steady::now();
    DataFrame res = t.alias("t")
                        .merge(upsert.alias("s"), "t.id = s.id")
                        .whenMatchedUpdate({{"v", functions::col("s.v")}})
                        .whenNotMatchedInsertAll()
                        .execute();
    merged("MERGE upsert 1% + 0.1% new, all files", t, res, bench::Seconds(started));

    DataFrame some =
        spark.sql("SELECT id + 1 AS id, 'm' AS v FROM range(0, " + r + ", 101)");
    started = bench::Steady::now();
    res = t.alias("t")
              .merge(some.alias("s"), "t.id = s.id")
              .whenMatchedUpdate({{"v", functions::col("s.v")}})
              .execute();
    merged("MERGE matched-only update 1%, all files", t, res, bench::Seconds(started));

    started = bench::Steady::now();
    res =
        t.alias("t")
            .merge(some.alias("s"), "t.id = s.id")
            .whenMatchedUpdate({{"v", functions::lit("b")}})
            .whenNotMatchedBySourceUpdate("t.id % 997 = 1", {{"v", functions::lit("c")}})
            .execute();
    merged("MERGE + NOT MATCHED BY SOURCE, all files", t, res, bench::Seconds(started));

    // 10 keys: each in one file (the files hold interleaved ids, so no file is pruned).
    DataFrame few = spark.sql("SELECT id * " + std::to_string(rows / 10) +
                              " + 5 AS id, 'f' AS v FROM range(10)");
    started = bench::Steady::now();
    res = t.alias("t")
              .merge(few.alias("s"), "t.id = s.id")
              .whenMatchedUpdate({{"v", functions::col("s.v")}})
              .whenNotMatchedInsert({{"id", functions::col("s.id")},
                                     {"p", functions::lit("x")},
                                     {"v", functions::col("s.v")}})
              .execute();
    merged("MERGE upsert 10 rows, <= 10 files touched", t, res, bench::Seconds(started));

    auto c = DeltaTable::forPath(spark, dir + "/clustered");
    DataFrame narrow =
        spark.sql("SELECT id, -id AS nid FROM range(" + std::to_string(rows / 4 * 3) +
                  ", " + std::to_string(rows / 4 * 3 + 1000) + ")");
    started = bench::Steady::now();
    res = c.alias("t")
              .merge(narrow.alias("s"), "t.id = s.id")
              .whenMatchedUpdate({{"id", functions::col("s.nid")}})
              .execute();
    merged("MERGE 1000 keys in 1 file, clustered", c, res, bench::Seconds(started));
    std::filesystem::remove_all(dir);
    return 0;
  }

  started = bench::Steady::now();
  t.optimize().executeCompaction();
  report("OPTIMIZE (all files -> 1 per partition)", bench::Seconds(started), rows, 0);

  // OPTIMIZE left one file per partition; split them again for the UPDATEs.
  std::filesystem::remove_all(path);
  spark.sql(gen).repartition(files).write().format("delta").partitionBy({"p"}).save(path);
  started = bench::Steady::now();
  DataFrame r = t.update("id % 997 = 7", {{"v", functions::lit("x")}});
  const int64_t changed = std::stoll(r.collect()[0][0].ToString());
  report("UPDATE 0.1% of rows, all files touched", bench::Seconds(started),
         last_rewritten(t), changed);

  started = bench::Steady::now();
  r = t.update("p = '3' AND id % 997 = 3", {{"v", functions::lit("y")}});
  const int64_t changed_p = std::stoll(r.collect()[0][0].ToString());
  report("UPDATE in one partition (1/8 rewritten)", bench::Seconds(started),
         last_rewritten(t), changed_p);

  const std::string dv_path = dir + "/dv";
  spark.sql(gen)
      .repartition(files)
      .write()
      .format("delta")
      .option("delta.enableDeletionVectors", "true")
      .partitionBy({"p"})
      .save(dv_path);
  auto dv = DeltaTable::forPath(spark, dv_path);
  started = bench::Steady::now();
  r = t.delete_("id % 997 = 5");
  report("DELETE 0.1% of rows, copy-on-write", bench::Seconds(started), last_rewritten(t),
         std::stoll(r.collect()[0][0].ToString()));
  started = bench::Steady::now();
  r = dv.delete_("id % 997 = 5");
  report("DELETE 0.1% of rows, deletion vectors", bench::Seconds(started),
         last_rewritten(dv), std::stoll(r.collect()[0][0].ToString()));
  started = bench::Steady::now();
  r = dv.update("id % 997 = 7", {{"v", functions::lit("x")}});
  report("UPDATE 0.1% of rows, deletion vectors", bench::Seconds(started),
         last_rewritten(dv), std::stoll(r.collect()[0][0].ToString()));
  started = bench::Steady::now();
  dv.optimize().executeZOrderBy({"n", "id"});
  report("OPTIMIZE ZORDER BY (n, id), DVs purged", bench::Seconds(started), rows, 0);

  started = bench::Steady::now();
  r = t.delete_("p = '5'");
  report("DELETE by partition (files removed)", bench::Seconds(started), 0,
         std::stoll(r.collect()[0][0].ToString()));
  std::filesystem::remove_all(dir);
  return 0;
}
