// Copyright spate authors.
// Parquet write/read throughput: `build/release/bench/spate_parquet_bench [rows] [dir]`.
// Columns (bigint, double, string); reports rows/s and MB/s for the raw writer/reader
// (one thread) and for df.write().parquet / spark.read().parquet (all cores).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "spate/formats/parquet/reader.h"
#include "spate/formats/parquet/writer.h"
#include "spate/spate.h"

using namespace spate;       // NOLINT
using namespace spate::api;  // NOLINT
namespace F = spate::api::functions;

namespace {
double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
// CPU seconds of the whole process (all threads): the machine is shared, so wall time
// alone says little.
double CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
double cpu0 = 0;
void Report(const char* what, int64_t rows, double secs, int64_t bytes) {
  double cpu = CpuNow() - cpu0;
  std::printf(
      "%-44s wall %7.3f s %11.0f rows/s | cpu %7.3f s %11.0f rows/cpu-s %7.1f MB/cpu-s\n",
      what, secs, rows / secs, cpu, rows / cpu, bytes / cpu / 1e6);
}
}  // namespace

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 10000000;
  std::string dir = argc > 2 ? argv[2] : "/tmp/spate_parquet_bench";
  auto fs = io::LocalFileSystem::Get();
  (void)fs->Delete(dir, true);
  CheckOrThrow(fs->MakeDirs(dir));
  auto spark = SparkSession::builder().getOrCreate();
  auto df = spark.range(0, rows, 1, 2)
                .selectExpr({"id", "id * 0.5 AS d",
                             "CONCAT('name-', CAST(id % 10000 AS STRING)) AS s"});
  auto batches = df.collectBatches();
  auto schema = df.analyzed()->OutputSchema();

  // Raw writer, one thread.
  std::string file = dir + "/raw.parquet";
  auto t0 = std::chrono::steady_clock::now();
  cpu0 = CpuNow();
  {
    auto w = ValueOrThrow(
        formats::parquet::ParquetWriter::Make(ValueOrThrow(fs->Create(file)), *schema));
    for (const auto& b : batches) CheckOrThrow(w->Write(b));
    CheckOrThrow(w->Close());
  }
  double wsec = Seconds(t0);
  int64_t fsize = ValueOrThrow(fs->Stat(file)).size;
  Report("ParquetWriter (1 thread, snappy)", rows, wsec, fsize);

  // Raw reader, one thread.
  t0 = std::chrono::steady_clock::now();
  cpu0 = CpuNow();
  auto r = ValueOrThrow(formats::parquet::ParquetFileReader::Open(fs, file));
  int64_t got = 0;
  for (const auto& b : ValueOrThrow(r->ReadAll())) got += b->num_rows();
  double rsec = Seconds(t0);
  if (got != rows) std::cerr << "row count mismatch\n";
  Report("ParquetFileReader (1 thread, all columns)", rows, rsec, fsize);
  std::printf("  file %.1f MB, %d row groups\n", fsize / 1e6, r->num_row_groups());

  // DataFrame API, all cores.
  t0 = std::chrono::steady_clock::now();
  cpu0 = CpuNow();
  df.write().mode("overwrite").parquet(dir + "/df");
  double dwsec = Seconds(t0);
  int64_t dsize = 0;
  for (const auto& f : ValueOrThrow(fs->List(dir + "/df", false))) dsize += f.size;
  Report("df.write().parquet (range + write, 2 parts)", rows, dwsec, dsize);
  t0 = std::chrono::steady_clock::now();
  cpu0 = CpuNow();
  auto res = spark.read()
                 .parquet(dir + "/df")
                 .agg({F::count("*"), F::sum("id"), F::sum("d"), F::max("s")})
                 .collect();
  double drsec = Seconds(t0);
  Report("spark.read().parquet + count/sum/sum/max", rows, drsec, dsize);
  std::cout << "  " << res[0].toString() << "\n";
  (void)fs->Delete(dir, true);
  return 0;
}
