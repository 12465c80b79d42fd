// Copyright spate authors.
// Stateful streaming benchmarks (printed, never pass/fail), each beside a reference in
// the same run:
//  1. windowed aggregation: N events in Parquet files, 5-minute windows x 100 keys, count
//     and sum, watermark 10 minutes, append mode, one file per micro-batch -> noop sink;
//     beside the batch engine's GROUP BY window over the same files (the reference), and
//     the same stream into a Delta table (end to end).
//  2. state bounded: numRowsTotal and the state's memory after every batch, with and
//     without a watermark.
//  3. per-batch overhead: 1-row batches of a streaming aggregation (state commit
//  included)
//     beside a stateless query, p50/p99.
//
//   build/release/bench/spate_stateful_bench [events=10000000] [files=20] [batches=300]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "timing.h"

#include "spate/api/datetime_functions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/connectors/memory.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

using namespace spate;
using bench::Percentiles;
using bench::Seconds;
using bench::Steady;
namespace F = api::functions;

namespace {

api::DataFrame Windowed(const api::DataFrame& events, bool watermark) {
  api::DataFrame in = watermark ? events.withWatermark("ts", "10 minutes") : events;
  return in.groupBy(F::window(F::col("ts"), "5 minutes"), F::col("k"))
      .agg(F::count(F::lit(1)).alias("n"), F::sum(F::col("v")).alias("s"));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t events = argc > 1 ? std::atoll(argv[1]) : 10000000;
  const int files = argc > 2 ? std::atoi(argv[2]) : 20;
  const int batches = argc > 3 ? std::atoi(argv[3]) : 300;
  auto fs = io::LocalFileSystem::Get();
  const char* tmp = std::getenv("TMPDIR");
  std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                  "spate-stateful-bench-" + stream::RandomUuid());
  auto spark = api::SparkSession::builder()
                   .appName("stateful-bench")
                   .config("spark.sql.warehouse.dir", io::JoinPath(root, "wh"))
                   .getOrCreate();

  // Events: one per 10 ms of event time, 100 keys; file f holds the f-th slice in time.
  std::string in = io::JoinPath(root, "in");
  const int64_t per_file = events / files;
  for (int f = 0; f < files; ++f) {
    spark.range(f * per_file, (f + 1) * per_file)
        .selectExpr("timestamp_millis(1767225600000 + id * 10) AS ts",
                    "CAST(id % 100 AS INT) AS k", "id % 7 AS v")
        .coalesce(1)
        .write()
        .mode("append")
        .parquet(in);
  }
  const std::string schema = "ts TIMESTAMP, k INT, v BIGINT";
  std::printf("events: %lld in %d files, %lld per micro-batch\n",
              static_cast<long long>(events), files, static_cast<long long>(per_file));

  // ---- 0. the aggregation itself: the same events as in-memory columnar batches (no
  // file scan), one batch per micro-batch, events per CPU second of the whole process
  // (all threads) beside the batch engine's GROUP BY over the same Parquet files.
  {
    api::MemoryStream mem(spark, schema);
    auto q = Windowed(mem.toDF(), true)
                 .writeStream()
                 .format("noop")
                 .outputMode("append")
                 .option("checkpointLocation", io::JoinPath(root, "chk-mem"))
                 .start();
    std::vector<std::vector<BatchPtr>> slices;
    for (int f = 0; f < files; ++f) {
      slices.push_back(spark.range(f * per_file, (f + 1) * per_file)
                           .selectExpr("timestamp_millis(1767225600000 + id * 10) AS ts",
                                       "CAST(id % 100 AS INT) AS k", "id % 7 AS v")
                           .collectBatches());
    }
    double cpu = 0, wall = 0;
    for (const auto& slice : slices) {
      double c0 = bench::ProcessCpuSeconds();
      auto w0 = Steady::now();
      for (const auto& b : slice) mem.impl()->AddData(b);
      q.processAllAvailable();
      wall += Seconds(w0);
      cpu += bench::ProcessCpuSeconds() - c0;
    }
    q.stop();
    double c0 = bench::ProcessCpuSeconds();
    auto w0 = Steady::now();
    int64_t ref_groups = Windowed(spark.read().parquet(in), false).count();
    double ref_cpu = bench::ProcessCpuSeconds() - c0, ref_wall = Seconds(w0);
    std::printf("%-44s %.2f s wall %.2f s cpu  %.2f M events/cpu-s\n",
                "stream windowed agg, in-memory source", wall, cpu, events / cpu / 1e6);
    std::printf(
        "%-44s %.2f s wall %.2f s cpu  %.2f M events/cpu-s  (%lld groups; "
        "stream %.2fx per cpu-s)\n",
        "batch GROUP BY window over Parquet (ref)", ref_wall, ref_cpu,
        events / ref_cpu / 1e6, static_cast<long long>(ref_groups), ref_cpu / cpu);
    if (std::getenv("SPATE_BENCH_AGG_ONLY")) return 0;
  }

  // ---- 1. windowed aggregation
  auto t = Steady::now();
  int64_t groups = Windowed(spark.read().parquet(in), false).count();
  double batch_s = Seconds(t);
  std::printf("%-44s %.2f s  %.2f M events/s  (%lld groups)\n",
              "batch GROUP BY window (reference)", batch_s, events / batch_s / 1e6,
              static_cast<long long>(groups));

  auto run_stream = [&](const std::string& sink, const std::string& name,
                        bool watermark) {
    api::DataFrame df = Windowed(
        spark.readStream().schema(schema).option("maxFilesPerTrigger", 1).parquet(in),
        watermark);
    auto w = df.writeStream()
                 .outputMode(watermark ? "append" : "update")
                 .option("checkpointLocation", io::JoinPath(root, "chk-" + name))
                 .trigger(api::Trigger::AvailableNow());
    auto start = Steady::now();
    api::StreamingQuery q = sink == "delta" ? w.toTable(name) : w.format(sink).start();
    q.awaitTermination();
    double s = Seconds(start);
    int64_t peak_rows = 0, peak_mem = 0;
    for (const auto& p : q.recentProgress()) {
      if (p.state_operators.empty()) continue;
      peak_rows = std::max(peak_rows, p.state_operators[0].num_rows_total);
      peak_mem = std::max(peak_mem, p.state_operators[0].memory_used_bytes);
    }
    return std::make_tuple(s, peak_rows, peak_mem, q.recentProgress().size());
  };
  auto [noop_s, noop_rows, noop_mem, noop_batches] = run_stream("noop", "noop_wm", true);
  std::printf("%-44s %.2f s  %.2f M events/s  (%.2fx batch; %zu batches)\n",
              "stream windowed agg, watermark -> noop", noop_s, events / noop_s / 1e6,
              batch_s / noop_s, noop_batches);
  auto [delta_s, delta_rows, delta_mem, delta_batches] =
      run_stream("delta", "win_delta", true);
  std::printf("%-44s %.2f s  %.2f M events/s  (%.2fx batch)\n",
              "stream windowed agg, watermark -> Delta", delta_s, events / delta_s / 1e6,
              batch_s / delta_s);

  // ---- 2. state bounded by the watermark (peaks over the run)
  auto [nw_s, nw_rows, nw_mem, nw_batches] = run_stream("noop", "noop_nowm", false);
  std::printf("%-44s peak state rows %lld, %.1f MB\n", "with watermark (append)",
              static_cast<long long>(noop_rows), noop_mem / 1e6);
  std::printf("%-44s peak state rows %lld, %.1f MB (%.2f s)\n",
              "without watermark (update)", static_cast<long long>(nw_rows), nw_mem / 1e6,
              nw_s);

  // ---- 3. per-batch overhead: 1-row batches
  auto overhead = [&](bool stateful) {
    api::MemoryStream input(spark, "k INT, v INT");
    api::DataFrame df = stateful ? input.toDF().groupBy("k").agg(F::sum(F::col("v")))
                                 : input.toDF().selectExpr("k", "v + 1 AS v");
    auto q = df.writeStream()
                 .format("noop")
                 .outputMode(stateful ? "update" : "append")
                 .option("checkpointLocation",
                         io::JoinPath(root, stateful ? "chk-ovh-s" : "chk-ovh-l"))
                 .start();
    std::vector<double> us;
    for (int i = 0; i < batches; ++i) {
      input.addData({{Value::Int(i % 10), Value::Int(i)}});
      auto b = Steady::now();
      q.processAllAvailable();
      us.push_back(Seconds(b) * 1e6);
    }
    q.stop();
    return us;
  };
  auto stateless_us = overhead(false);
  auto stateful_us = overhead(true);
  Percentiles("1-row batch, stateless -> noop", stateless_us);
  Percentiles("1-row batch, aggregation (state commit) -> noop", stateful_us);
  (void)fs->Delete(root, true);
  return 0;
}
