// Copyright spate authors.
#include "demo.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "sql_shell.h"

#include "spate/api/delta_table.h"
#include "spate/api/streaming.h"
#include "spate/spate.h"

namespace spate::cli {

namespace {

namespace fs = std::filesystem;
using namespace api;
namespace F = functions;

constexpr const char* kEventSchema =
    "event_id BIGINT, user_id BIGINT, kind STRING, amount DOUBLE, ts TIMESTAMP";

// Lands `files` JSON Lines files of `per_file` events each in `dir`, numbering events
// from `first_id`. Each file is written under a temporary name and renamed, as an
// upstream producer should, so the stream never sees half a file.
int64_t LandEvents(const fs::path& dir, int round, int files, int per_file,
                   int64_t first_id) {
  fs::create_directories(dir);
  static const char* kKinds[] = {"purchase", "view", "view", "refund"};
  int64_t id = first_id;
  for (int f = 0; f < files; ++f) {
    char name[64];
    std::snprintf(name, sizeof(name), "events-r%d-%03d.json", round, f);
    fs::path tmp = dir / (std::string(".") + name + ".tmp");
    {
      std::ofstream out(tmp);
      for (int i = 0; i < per_file; ++i, ++id) {
        char line[256];
        std::snprintf(
            line, sizeof(line),
            "{\"event_id\":%lld,\"user_id\":%lld,\"kind\":\"%s\",\"amount\":%.2f,"
            "\"ts\":\"2026-11-30T%02d:%02d:%02d.000Z\"}\n",
            static_cast<long long>(id), static_cast<long long>(id % 97), kKinds[id % 4],
            static_cast<double>(id % 500) / 10.0, static_cast<int>((id / 3600) % 24),
            static_cast<int>((id / 60) % 60), static_cast<int>(id % 60));
        out << line;
      }
    }
    fs::rename(tmp, dir / name);
  }
  return id;
}

// One AvailableNow run of the bronze stream: everything landed so far that the checkpoint
// has not seen, in batches of at most 2 files. Prints a line per micro-batch.
void RunBronzeStream(std::ostream& out, const SparkSession& spark,
                     const fs::path& landing, const fs::path& checkpoint) {
  auto events = spark.readStream()
                    .schema(kEventSchema)
                    .option("maxFilesPerTrigger", 2)
                    .json(landing.string());
  auto query = events.withColumn("ingested_at", F::current_timestamp())
                   .writeStream()
                   .format("delta")
                   .queryName("bronze_events")
                   .option("checkpointLocation", checkpoint.string())
                   .trigger(Trigger::AvailableNow())
                   .toTable("bronze_events");
  query.awaitTermination();
  auto progress = query.recentProgress();
  int batches = 0;
  for (const auto& p : progress) {
    // A run that finds nothing new reports, as Spark, one progress without a batch.
    if (!p.duration_ms.count("addBatch")) continue;
    ++batches;
    out << "  batch " << p.batch_id << ": " << p.num_input_rows << " rows in "
        << p.batch_duration << " ms";
    if (!p.sources.empty() && p.sources[0].end_offset) {
      out << " (source offset " << p.sources[0].end_offset->ToString() << ")";
    }
    out << ", sink wrote " << p.sink.num_output_rows << "\n";
  }
  if (batches == 0) out << "  no new data: no batch ran\n";
  if (!progress.empty()) {
    out << "  lastProgress.durationMs: ";
    bool first = true;
    for (const auto& [k, v] : progress.back().duration_ms) {
      out << (first ? "" : ", ") << k << "=" << v;
      first = false;
    }
    out << "\n";
  }
}

int RunStreamingDemo(std::ostream& out, const SparkSession& spark, int per_file) {
  const fs::path base = fs::absolute("spate-demo");
  const fs::path landing = base / "landing";
  const fs::path checkpoint = base / "checkpoints" / "bronze_events";
  // A fresh start each run: the demo's own folder and table.
  fs::remove_all(base);
  spark.sql("DROP TABLE IF EXISTS bronze_events");
  out << "== Streaming: JSON files -> Delta table `bronze_events` (Trigger.AvailableNow) "
         "==\n"
      << "landing folder: " << landing.string() << "\n"
      << "checkpoint:     " << checkpoint.string() << "\n"
      << "warehouse:      "
      << fs::absolute(spark.conf().get("spark.sql.warehouse.dir")).string() << "\n\n";

  auto count = [&] { return spark.table("bronze_events").count(); };
  int64_t next_id = LandEvents(landing, 1, 5, per_file, 0);
  out << "landed 5 files, " << next_id << " events; run 1:\n";
  RunBronzeStream(out, spark, landing, checkpoint);
  out << "bronze_events has " << count() << " rows\n\n";

  int64_t before = next_id;
  next_id = LandEvents(landing, 2, 5, per_file, next_id);
  out << "landed 5 more files, " << (next_id - before)
      << " events; run 2 (same checkpoint):\n";
  RunBronzeStream(out, spark, landing, checkpoint);
  out << "bronze_events has " << count() << " rows\n\n";

  out << "nothing new landed; run 3:\n";
  RunBronzeStream(out, spark, landing, checkpoint);
  int64_t rows = count();
  out << "bronze_events has " << rows << " rows (" << next_id << " events landed, "
      << (rows == next_id ? "none read twice" : "MISMATCH") << ")\n\n";

  out << "DESCRIBE HISTORY bronze_events:\n";
  spark.sql("DESCRIBE HISTORY bronze_events")
      .select(F::col("version"), F::col("operation"),
              F::col("operationParameters").getItem("epochId").alias("epochId"),
              F::col("operationMetrics").getItem("numOutputRows").alias("numOutputRows"))
      .show(20, false);
  out << "SELECT kind, count(*), round(sum(amount), 2) FROM bronze_events GROUP BY "
         "kind:\n";
  spark
      .sql(
          "SELECT kind, count(*) AS events, round(sum(amount), 2) AS revenue "
          "FROM bronze_events GROUP BY kind ORDER BY kind")
      .show();
  return rows == next_id ? 0 : 1;
}

int RunBatchDemo(std::ostream& out, const SparkSession& spark, long long num_events) {
  out << "== Batch SQL over " << num_events << " generated events, "
      << std::thread::hardware_concurrency() << " cores, spark.sql.shuffle.partitions="
      << spark.conf().get("spark.sql.shuffle.partitions") << " ==\n\n";
  const std::string setup =
      "CREATE OR REPLACE TEMP VIEW events AS "
      "SELECT id AS event_id, id % 1000 AS user_id, "
      "CASE WHEN id % 7 = 0 THEN 'refund' WHEN id % 3 = 0 THEN 'view' ELSE 'purchase' "
      "END AS kind, "
      "CAST(id % 997 AS DECIMAL(10,2)) / 10 AS amount "
      "FROM range(" +
      std::to_string(num_events) + ")";
  const char* queries[] = {
      "SELECT kind, count(*) AS events, sum(amount) AS revenue, avg(amount) AS "
      "avg_amount "
      "FROM events GROUP BY kind ORDER BY kind",
      "SELECT user_id, sum(amount) AS spent, rank() OVER (ORDER BY sum(amount) DESC) AS "
      "rnk "
      "FROM events WHERE kind = 'purchase' GROUP BY user_id ORDER BY spent DESC, user_id "
      "LIMIT 5",
      "SELECT count(*) AS events, count(DISTINCT user_id) AS users, min(amount), "
      "max(amount) "
      "FROM events",
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
  return failures > 0 ? 1 : 0;
}

}  // namespace

int RunDemo(std::ostream& out, long long num_events, int events_per_file) {
  auto spark = SparkSession::builder().appName("spate-demo").getOrCreate();
  int failures = 0;
  try {
    failures += RunStreamingDemo(out, spark, events_per_file);
  } catch (const std::exception& e) {
    out << FormatShellError("", e) << "\n";
    ++failures;
  }
  out << "\n";
  failures += RunBatchDemo(out, spark, num_events);
  return failures > 0 ? 1 : 0;
}

}  // namespace spate::cli
