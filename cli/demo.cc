// Copyright spate authors.
#include "demo.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sql_shell.h"
#include "spate/spate.h"

namespace spate::cli {

int RunDemo(std::ostream& out, long long num_events) {
  using namespace api;
  namespace F = functions;
  auto spark = SparkSession::builder().appName("spate-demo").getOrCreate();
  out << "spate demo: " << num_events << " generated events, "
      << std::thread::hardware_concurrency() << " cores, spark.sql.shuffle.partitions="
      << spark.conf().get("spark.sql.shuffle.partitions") << "\n\n";

  const std::string setup =
      "CREATE OR REPLACE TEMP VIEW events AS "
      "SELECT id AS event_id, id % 1000 AS user_id, "
      "CASE WHEN id % 7 = 0 THEN 'refund' WHEN id % 3 = 0 THEN 'view' ELSE 'purchase' END AS kind, "
      "CAST(id % 997 AS DECIMAL(10,2)) / 10 AS amount "
      "FROM range(" + std::to_string(num_events) + ")";
  const char* queries[] = {
      "SELECT kind, count(*) AS events, sum(amount) AS revenue, avg(amount) AS avg_amount "
      "FROM events GROUP BY kind ORDER BY kind",
      "SELECT user_id, sum(amount) AS spent, rank() OVER (ORDER BY sum(amount) DESC) AS rnk "
      "FROM events WHERE kind = 'purchase' GROUP BY user_id ORDER BY spent DESC, user_id LIMIT 5",
      "WITH per_user AS (SELECT user_id, count(*) AS n FROM events GROUP BY user_id) "
      "SELECT p.user_id, p.n, e.kind FROM per_user p JOIN (SELECT DISTINCT user_id, kind FROM events "
      "WHERE kind = 'refund') e ON p.user_id = e.user_id ORDER BY p.user_id LIMIT 5",
      "SELECT count(*) AS events, count(DISTINCT user_id) AS users, min(amount), max(amount) "
      "FROM events",
      "SELECT kind, approx_count_distinct(user_id) AS users, percentile_approx(amount, 0.5) AS "
      "median_amount, round(stddev(amount), 3) AS sd, hash(kind) % 100 AS bucket FROM events "
      "GROUP BY kind ORDER BY kind",
      "SELECT window.start, window.end, count(*) AS n FROM (SELECT "
      "timestamp_seconds(1767225600 + event_id % 3600) AS ts FROM events) "
      "GROUP BY window(ts, '20 minutes') ORDER BY 1",
  };
  ShellOptions opts;
  SqlShell shell(spark, opts, out, out);
  out << "spate-sql> " << setup << ";\n";
  if (!shell.RunStatement(setup)) return 1;
  int failures = 0;
  for (const char* q : queries) {
    out << "\nspate-sql> " << q << ";\n";
    if (!shell.RunStatement(q)) ++failures;
  }
  out << "\nDataFrame API: spark.table(\"events\").groupBy(\"kind\").agg(F::max(\"amount\")).orderBy(\"kind\").show()\n";
  try {
    auto start = std::chrono::steady_clock::now();
    spark.table("events").groupBy("kind").agg(F::max("amount").alias("max_amount"),
                                              F::countDistinct({F::col("user_id")}).alias("users"))
        .orderBy("kind").show();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "Time taken: " << secs << " seconds\n";
  } catch (const std::exception& e) {
    out << FormatShellError("", e) << "\n";
    ++failures;
  }
  // Parquet round trip: our own writer and reader.
  try {
    auto dir = std::filesystem::temp_directory_path() / "spate-demo" / "revenue_by_user";
    out << "\nParquet: spark.table(\"events\").groupBy(\"user_id\").agg(F::sum(\"amount\"))"
           ".write().mode(\"overwrite\").parquet(\"" << dir.string() << "\")\n";
    auto start = std::chrono::steady_clock::now();
    spark.table("events").groupBy("user_id").agg(F::sum("amount").alias("revenue"))
        .write().mode("overwrite").parquet(dir.string());
    auto back = spark.read().parquet(dir.string());
    out << "read back " << back.count() << " rows; top user:\n";
    back.orderBy(F::col("revenue").desc(), F::col("user_id")).limit(1).show();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "Time taken: " << secs << " seconds\n";
  } catch (const std::exception& e) {
    out << FormatShellError("", e) << "\n";
    ++failures;
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace spate::cli
