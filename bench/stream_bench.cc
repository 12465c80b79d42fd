// Copyright spate authors.
// Streaming benchmarks (printed, never pass/fail):
//  1. ingest: JSON files -> Delta table as one AvailableNow streaming query, beside the
//     batch engine doing the same read + write in the same run (streaming overhead
//     ratio).
//  2. micro-batch latency: a 1-row batch (plan, offsets WAL, process, sink, commit log)
//     and an empty trigger, p50/p99 over many batches, into the noop sink and into Delta,
//     beside the same run's floor: the batch's durable writes (8 fsyncs) done alone.
//
//   build/release/bench/spate_stream_bench [rows=1000000] [files=20] [batches=1000]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "timing.h"

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

using namespace spate;
using bench::Percentiles;
using bench::Seconds;
using bench::Steady;

namespace {}  // namespace

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 1000000;
  int files = argc > 2 ? std::atoi(argv[2]) : 20;
  int batches = argc > 3 ? std::atoi(argv[3]) : 1000;
  auto fs = io::LocalFileSystem::Get();
  const char* tmp = std::getenv("TMPDIR");
  std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                  "spate-stream-bench-" + stream::RandomUuid());
  auto spark = api::SparkSession::builder().appName("stream-bench").getOrCreate();

  // ---- 1. ingest
  std::string in = io::JoinPath(root, "in");
  (void)fs->MakeDirs(in);
  int64_t per_file = rows / files;
  int64_t bytes = 0;
  for (int f = 0; f < files; ++f) {
    std::string text;
    text.reserve(static_cast<size_t>(per_file) * 80);
    for (int64_t i = f * per_file; i < (f + 1) * per_file; ++i) {
      text += "{\"event_id\":" + std::to_string(i) +
              ",\"user_id\":" + std::to_string(i % 9973) + ",\"kind\":\"" +
              (i % 3 ? "view" : "buy") +
              "\",\"amount\":" + std::to_string((i % 1000) / 10.0) +
              ",\"ts\":\"2026-09-09T14:35:00.000Z\"}\n";
    }
    bytes += static_cast<int64_t>(text.size());
    (void)fs->WriteAtomic(io::JoinPath(in, "part-" + std::to_string(f) + ".json"), text);
  }
  const char* schema =
      "event_id BIGINT, user_id BIGINT, kind STRING, amount DOUBLE, ts TIMESTAMP";
  int64_t total = per_file * files;
  std::printf("ingest: %lld rows, %d files, %.1f MB of JSON\n",
              static_cast<long long>(total), files, bytes / 1e6);

  auto t0 = Steady::now();
  spark.read()
      .schema(schema)
      .json(in)
      .write()
      .format("delta")
      .mode("overwrite")
      .save(io::JoinPath(root, "batch"));
  double batch_s = Seconds(t0);

  t0 = Steady::now();
  auto q = spark.readStream()
               .schema(schema)
               .option("maxFilesPerTrigger", files)
               .json(in)
               .writeStream()
               .format("delta")
               .option("checkpointLocation", io::JoinPath(root, "chk"))
               .trigger(api::Trigger::AvailableNow())
               .start(io::JoinPath(root, "stream"));
  q.awaitTermination();
  double stream_s = Seconds(t0);
  std::printf("%-40s %.2f s  %.2f M rows/s  (%.2f M rows/s/core on 2 cores)\n",
              "batch  read.json -> write.delta", batch_s, total / batch_s / 1e6,
              total / batch_s / 2e6);
  std::printf("%-40s %.2f s  %.2f M rows/s  (%.2f M rows/s/core on 2 cores)\n",
              "stream json -> delta (AvailableNow)", stream_s, total / stream_s / 1e6,
              total / stream_s / 2e6);
  std::printf("%-40s %.2fx\n", "streaming / batch time", stream_s / batch_s);

  // ---- 2. latency
  auto latency = [&](const std::string& format, int n) {
    api::MemoryStream input(spark, "a BIGINT");
    auto w = input.toDF().writeStream().format(format).option(
        "checkpointLocation", io::JoinPath(root, "lat-chk-" + format));
    auto lq = format == "delta" ? w.start(io::JoinPath(root, "lat-delta")) : w.start();
    std::vector<double> one_row, empty;
    for (int i = 0; i < n; ++i) {
      auto t = Steady::now();
      input.addData({{Value::Long(i)}});
      lq.processAllAvailable();
      one_row.push_back(Seconds(t) * 1e6);
    }
    for (int i = 0; i < std::min(n, 200); ++i) {
      auto t = Steady::now();
      lq.processAllAvailable();  // waits for one trigger that finds nothing new
      empty.push_back(Seconds(t) * 1e6);
    }
    std::vector<double> trig;
    for (const auto& p : lq.recentProgress())
      trig.push_back(static_cast<double>(p.duration_ms.at("triggerExecution")) * 1000);
    lq.stop();
    Percentiles(("1-row batch round trip -> " + format).c_str(), one_row);
    Percentiles(("  triggerExecution (ms resolution) " + format).c_str(), trig);
    Percentiles(("empty trigger round trip -> " + format).c_str(), empty);
    std::sort(one_row.begin(), one_row.end());
    return one_row[one_row.size() / 2];
  };
  // The floor: the durable writes a 1-row batch into Delta needs, alone (no planning, no
  // Parquet encoding): offsets/N, the Delta commit and commits/N are each a put-if-absent
  // (temp file, fsync, link, fsync of the folder), and the data file is synced with its
  // folder before the commit names it. 8 fsyncs, the count strace shows per batch.
  auto floor = [&](int n) {
    std::string dir = io::JoinPath(root, "floor");
    (void)fs->MakeDirs(dir);
    std::vector<double> us;
    std::string row(220, 'x');  // the size of the 1-row Parquet file
    for (int i = 0; i < n; ++i) {
      auto t = Steady::now();
      std::string id = std::to_string(i);
      (void)fs->PutIfAbsent(io::JoinPath(dir, "offsets-" + id), std::string(640, 'o'));
      if (auto f = fs->Create(io::JoinPath(dir, "part-" + id)); f.ok()) {
        (void)(*f)->Append(row);
        (void)(*f)->Sync();
        (void)(*f)->Close();
      }
      (void)fs->SyncDir(dir);
      (void)fs->PutIfAbsent(io::JoinPath(dir, "commit-" + id + ".json"),
                            std::string(800, 'c'));
      (void)fs->PutIfAbsent(io::JoinPath(dir, "commits-" + id), std::string(40, 'v'));
      us.push_back(Seconds(t) * 1e6);
    }
    Percentiles("durable writes alone (8 fsyncs)", us);
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  };
  // Real-time mode: a 1-row piece of a long batch into a foreach writer (no per-record
  // checkpoint writes), beside the 1-row micro-batch above.
  auto real_time = [&](int n) {
    // A foreach writer counting rows: the round trip ends when it has seen the row.
    struct Counter final : api::ForeachWriter {
      std::atomic<int64_t> rows{0};
      void process(const api::Row&) override { rows.fetch_add(1); }
    };
    auto counter = std::make_shared<Counter>();
    api::MemoryStream input(spark, "a BIGINT");
    auto lq = input.toDF()
                  .writeStream()
                  .foreach (counter)
                  .outputMode("update")
                  .option("checkpointLocation", io::JoinPath(root, "lat-chk-rtm"))
                  .trigger(api::Trigger::RealTime("1 hour"))
                  .start();
    std::vector<double> one_row;
    for (int i = 0; i < n; ++i) {
      auto t = Steady::now();
      input.addData({{Value::Long(i)}});
      while (counter->rows.load() <= i) {
      }
      one_row.push_back(Seconds(t) * 1e6);
    }
    if (auto e = lq.exception()) std::printf("real-time query failed: %s\n", e->what());
    lq.stop();
    Percentiles("1-row piece, real-time mode -> foreach", one_row);
    std::sort(one_row.begin(), one_row.end());
    return one_row[one_row.size() / 2];
  };
  spark.conf().set("spark.sql.streaming.numRecentProgressUpdates", "100000");
  double micro_p50 = latency("noop", batches);
  double rtm_p50 = real_time(batches);
  std::printf("%-44s %.1fx\n", "1-row micro-batch p50 / real-time piece p50",
              micro_p50 / rtm_p50);
  double floor_p50 = floor(std::max(1, batches / 5));
  double delta_p50 = latency("delta", std::max(1, batches / 5));
  std::printf("%-44s %.2fx\n", "1-row batch -> delta p50 / durable writes p50",
              delta_p50 / floor_p50);
  (void)fs->Delete(root, true);
  return 0;
}
