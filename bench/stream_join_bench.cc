// Copyright spate authors.
// Stream-stream interval join benchmark (printed, never pass/fail):
//
//   SELECT * FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 1
//   MINUTE
//
// with withWatermark("ts", "10 seconds") on both sides, an inner join in append mode,
// over many micro-batches. Events: side a's i-th row has k = i % keys, ts = 2026-01-01 +
// i ms, v = i and a 24-byte payload; side b's i-th row the same key, ts 30 s later: every
// b row matches exactly one a row (the a rows of a key are keys ms apart, far more than a
// minute with the default 100000 keys), found across micro-batches when a batch boundary
// falls between them. Each micro-batch takes the next slice of both sides.
//
//  1. the join itself: in-memory columnar batches (no scan, no sink), events (a + b rows)
//     per CPU second of the whole process, all threads;
//  2. state: numRowsTotal and memoryUsedBytes of the join operator (and the process's
//  RSS)
//     after a few batches, at each quarter and at the end: bytes per buffered row beside
//     the raw row bytes (fixed widths + payload length) and the stores' entry bytes alone
//     (keys and values of the four stores, without hash slots and undo logs), and whether
//     the state stays flat under the watermarks;
//  3. the same join reading Parquet files (one file per side per micro-batch,
//  AvailableNow,
//     maxFilesPerTrigger=1) -> noop, beside local Spark (bench/stream_join_spark.py, run
//     from build/spark-venv when present) over the same files: spate/Spark events per
//     CPU second (Spark: the JVM's CPU time), both with spark.sql.shuffle.partitions=2.
//
//   build/release/bench/spate_stream_join_bench [events=4000000] [batches=40]
//   [keys=100000] SPATE_BENCH_NO_SPARK=1 skips the Spark run; SPATE_BENCH_MEM_ONLY=1 runs
//   only parts 1 and 2, with every input slice made before the first batch.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "timing.h"

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/connectors/memory.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

using namespace spate;  // NOLINT
using bench::Seconds;
using bench::Steady;
namespace F = api::functions;

namespace {

constexpr const char* kCondition =
    "a_k = b_k AND b_ts BETWEEN a_ts AND a_ts + INTERVAL 1 MINUTE";
constexpr int kPayload = 24;
// Raw bytes of a row: k BIGINT, ts TIMESTAMP, v BIGINT (8 each) + the payload string.
constexpr int kRawRowBytes = 3 * 8 + kPayload;

// Rows [from, to) of side `side` (0: a, 1: b).
api::DataFrame Slice(const api::SparkSession& spark, int side, int64_t from, int64_t to,
                     int64_t keys) {
  const std::string p = side == 0 ? "a_" : "b_";
  const std::string shift = side == 0 ? "0" : "30000";
  return spark.range(from, to).selectExpr(
      "id % " + std::to_string(keys) + " AS " + p + "k",
      "timestamp_millis(1767225600000 + " + shift + " + id) AS " + p + "ts",
      "id AS " + p + "v",
      "lpad(CAST(id AS STRING), " + std::to_string(kPayload) + ", 'x') AS " + p +
          "payload");
}

api::DataFrame Join(const api::DataFrame& a, const api::DataFrame& b) {
  return a.withWatermark("a_ts", "10 seconds")
      .join(b.withWatermark("b_ts", "10 seconds"), F::expr(kCondition));
}

struct StatePoint {
  int64_t batch, rows, bytes, rss;
  int64_t
      live;  // the entries' own bytes (stateOnCurrentVersionSizeBytes): no slots, undo
};

int64_t LiveBytes(const stream::StateOperatorProgress& op) {
  auto it = op.custom_metrics.find("stateOnCurrentVersionSizeBytes");
  return it == op.custom_metrics.end() ? 0 : it->second;
}

// The process's resident set (bytes), from /proc/self/statm.
int64_t RssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long long pages = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%lld %lld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

// State after a few batches, at each quarter and at the end, and whether it stays flat
// (the second half's peak within 10 % of the first half's).
void PrintState(const char* what, const std::vector<StatePoint>& points) {
  std::printf("state, %s\n", what);
  std::printf("%30s %8s %7s %10s %8s %12s %10s\n", "after batch", "rows", "MB",
              "bytes/row", "x raw", "entry B/row", "RSS MB");
  for (size_t j = 0; j < points.size(); ++j) {
    if (!(j == 2 || j == points.size() / 4 || j == points.size() / 2 ||
          j == 3 * points.size() / 4 || j + 1 == points.size()))
      continue;
    const StatePoint& s = points[j];
    const double per_row = s.rows ? static_cast<double>(s.bytes) / s.rows : 0;
    std::printf("%30lld %8lld %7.1f %10.1f %7.2fx %12.1f %10.1f\n",
                static_cast<long long>(s.batch) + 1, static_cast<long long>(s.rows),
                s.bytes / 1e6, per_row, per_row / kRawRowBytes,
                s.rows ? static_cast<double>(s.live) / s.rows : 0, s.rss / 1e6);
  }
  int64_t early_peak = 0, late_peak = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    int64_t& peak = j < points.size() / 2 ? early_peak : late_peak;
    peak = std::max(peak, points[j].rows);
  }
  std::printf(
      "%-46s first half peak %lld rows, second half peak %lld rows (%s; raw row %d B)\n",
      "state bounded by the watermarks", static_cast<long long>(early_peak),
      static_cast<long long>(late_peak),
      late_peak <= early_peak * 11 / 10 ? "flat" : "GROWING", kRawRowBytes);
}

// Records the join's state after every batch of a query.
class StateRecorder final : public api::StreamingQueryListener {
 public:
  void onQueryProgress(const stream::QueryProgressEvent& e) override {
    const auto& p = e.progress;
    if (p.state_operators.empty()) return;
    std::lock_guard lock(mu_);
    points_.push_back({p.batch_id, p.state_operators[0].num_rows_total,
                       p.state_operators[0].memory_used_bytes, RssBytes(),
                       LiveBytes(p.state_operators[0])});
  }
  std::vector<StatePoint> points() const {
    std::lock_guard lock(mu_);
    return points_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<StatePoint> points_;
};

}  // namespace

int main(int argc, char** argv) {
  const int64_t events = argc > 1 ? std::atoll(argv[1]) : 4000000;
  const int batches = argc > 2 ? std::atoi(argv[2]) : 40;
  const int64_t keys = argc > 3 ? std::atoll(argv[3]) : 100000;
  const int64_t per_side = events / 2;
  const int64_t per_batch = per_side / batches;
  const char* tmp = std::getenv("TMPDIR");
  const std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                        "spate-join-bench-" + stream::RandomUuid());
  auto spark = api::SparkSession::builder()
                   .appName("stream-join-bench")
                   .config("spark.sql.shuffle.partitions", "2")
                   .config("spark.sql.streaming.numRecentProgressUpdates", "100000")
                   .config("spark.sql.warehouse.dir", io::JoinPath(root, "wh"))
                   .getOrCreate();
  std::printf(
      "events: %lld (%lld per side), %d micro-batches of %lld + %lld, %lld keys\n",
      static_cast<long long>(events), static_cast<long long>(per_side), batches,
      static_cast<long long>(per_batch), static_cast<long long>(per_batch),
      static_cast<long long>(keys));

  // ---- 1 + 2. in-memory sources
  {
    const std::string schema_a =
        "a_k BIGINT, a_ts TIMESTAMP, a_v BIGINT, a_payload STRING";
    const std::string schema_b =
        "b_k BIGINT, b_ts TIMESTAMP, b_v BIGINT, b_payload STRING";
    api::MemoryStream ma(spark, schema_a), mb(spark, schema_b);
    auto q = Join(ma.toDF(), mb.toDF())
                 .writeStream()
                 .format("noop")
                 .outputMode("append")
                 .option("checkpointLocation", io::JoinPath(root, "chk-mem"))
                 .start();
    double cpu = 0, wall = 0;
    int64_t out_rows = 0;
    std::vector<StatePoint> points;
    // SPATE_BENCH_MEM_ONLY=1: every slice is made first (then "profile from here" is
    // printed, for perf record --delay) and the Parquet part is skipped.
    const bool mem_only = std::getenv("SPATE_BENCH_MEM_ONLY") != nullptr;
    std::vector<std::vector<BatchPtr>> slices[2];
    if (mem_only) {
      for (int i = 0; i < batches; ++i) {
        for (int side = 0; side < 2; ++side) {
          slices[side].push_back(
              Slice(spark, side, i * per_batch, (i + 1) * per_batch, keys)
                  .collectBatches());
        }
      }
      std::printf("profile from here\n");
      std::fflush(stdout);
    }
    for (int i = 0; i < batches; ++i) {
      auto sa = mem_only ? std::move(slices[0][static_cast<size_t>(i)])
                         : Slice(spark, 0, i * per_batch, (i + 1) * per_batch, keys)
                               .collectBatches();
      auto sb = mem_only ? std::move(slices[1][static_cast<size_t>(i)])
                         : Slice(spark, 1, i * per_batch, (i + 1) * per_batch, keys)
                               .collectBatches();
      const double c0 = bench::ProcessCpuSeconds();
      const auto w0 = Steady::now();
      for (const auto& b : sa) ma.impl()->AddData(b);
      for (const auto& b : sb) mb.impl()->AddData(b);
      q.processAllAvailable();
      wall += Seconds(w0);
      cpu += bench::ProcessCpuSeconds() - c0;
      auto p = q.lastProgress();
      if (p && !p->state_operators.empty()) {
        points.push_back({i, p->state_operators[0].num_rows_total,
                          p->state_operators[0].memory_used_bytes, RssBytes(),
                          LiveBytes(p->state_operators[0])});
      }
    }
    // Where the time went (ms summed over the batches, wall time of the phases).
    std::map<std::string, int64_t> phases;
    for (const auto& p : q.recentProgress()) {
      out_rows += std::max<int64_t>(0, p.sink.num_output_rows);
      for (const auto& [k, v] : p.duration_ms) phases[k] += v;
      for (const auto& op : p.state_operators) {
        phases["join: allUpdatesTimeMs"] += op.all_updates_time_ms;
        phases["join: allRemovalsTimeMs"] += op.all_removals_time_ms;
        phases["join: commitTimeMs"] += op.commit_time_ms;
      }
    }
    q.stop();
    const int64_t in_events = per_batch * batches * 2;
    std::printf(
        "%-46s %.2f s wall %.2f s cpu  %.2f M events/cpu-s  %.2f M events/s wall\n",
        "interval join, in-memory sources -> noop", wall, cpu, in_events / cpu / 1e6,
        in_events / wall / 1e6);
    std::printf("%-46s %lld (expected %lld)\n", "joined rows",
                static_cast<long long>(out_rows),
                static_cast<long long>(per_batch) * batches);
    std::printf("%-46s", "phases (ms over all batches)");
    for (const auto& [k, v] : phases)
      std::printf(" %s %lld,", k.c_str(), static_cast<long long>(v));
    std::printf("\n");
    PrintState(
        "in-memory sources (RSS includes the MemoryStreams' input: kept for replay, "
        "as Spark's)",
        points);
  }

  if (std::getenv("SPATE_BENCH_MEM_ONLY")) {
    (void)io::LocalFileSystem::Get()->Delete(root, true);
    return 0;
  }
  // ---- 3. Parquet files, beside Spark
  const std::string dir_a = io::JoinPath(root, "a"), dir_b = io::JoinPath(root, "b");
  for (int i = 0; i < batches; ++i) {
    for (int side = 0; side < 2; ++side) {
      Slice(spark, side, i * per_batch, (i + 1) * per_batch, keys)
          .coalesce(1)
          .write()
          .mode("append")
          .parquet(side == 0 ? dir_a : dir_b);
    }
  }
  auto read = [&](const std::string& dir, const std::string& schema) {
    return spark.readStream().schema(schema).option("maxFilesPerTrigger", 1).parquet(dir);
  };
  auto recorder = std::make_shared<StateRecorder>();
  spark.streams().addListener(recorder);
  const double c0 = bench::ProcessCpuSeconds();
  const auto w0 = Steady::now();
  auto q = Join(read(dir_a, "a_k BIGINT, a_ts TIMESTAMP, a_v BIGINT, a_payload STRING"),
                read(dir_b, "b_k BIGINT, b_ts TIMESTAMP, b_v BIGINT, b_payload STRING"))
               .writeStream()
               .format("noop")
               .outputMode("append")
               .option("checkpointLocation", io::JoinPath(root, "chk-files"))
               .trigger(api::Trigger::AvailableNow())
               .start();
  q.awaitTermination();
  const double wall = Seconds(w0), cpu = bench::ProcessCpuSeconds() - c0;
  const int64_t in_events = per_batch * batches * 2;
  const double spate_rate = in_events / cpu;
  std::printf("%-46s %.2f s wall %.2f s cpu  %.2f M events/cpu-s  (%zu batches)\n",
              "interval join, Parquet files -> noop", wall, cpu, spate_rate / 1e6,
              q.recentProgress().size());
  spark.streams().removeListener(recorder);
  PrintState("Parquet sources", recorder->points());

  const std::string py = std::string(SPATE_SOURCE_DIR) + "/build/spark-venv/bin/python";
  if (std::getenv("SPATE_BENCH_NO_SPARK")) {
    std::printf("Spark run skipped (SPATE_BENCH_NO_SPARK)\n");
  } else if (access(py.c_str(), X_OK) == 0) {
    const std::string cmd = py + " " + SPATE_SOURCE_DIR + "/bench/stream_join_spark.py " +
                            dir_a + " " + dir_b + " " + std::to_string(in_events) + " " +
                            io::JoinPath(root, "spark") + " 2>/dev/null";
    std::fflush(stdout);
    FILE* pipe = popen(cmd.c_str(), "r");
    double spark_rate = 0;
    char line[512];
    while (pipe && std::fgets(line, sizeof(line), pipe)) {
      std::fputs(line, stdout);
      std::sscanf(line, "SPARK_EVENTS_PER_CPU_S %lf", &spark_rate);
    }
    if (pipe) pclose(pipe);
    if (spark_rate > 0) {
      std::printf("%-46s spate %.2f M / Spark %.2f M events/cpu-s = %.1fx\n", "ratio",
                  spate_rate / 1e6, spark_rate / 1e6, spate_rate / spark_rate);
    } else {
      std::printf("Spark run failed (see bench/stream_join_spark.py)\n");
    }
  } else {
    std::printf("Spark run skipped (no %s: scripts/install-spark.sh)\n", py.c_str());
  }
  (void)io::LocalFileSystem::Get()->Delete(root, true);
  return 0;
}
