// Copyright spate authors.
// Parquet write/read throughput: `build/release/bench/spate_parquet_bench [rows] [dir]`.
// Columns (bigint, double, string); reports rows/s and MB/s for the raw writer/reader
// (one thread, best of 3) and for df.write().parquet / spark.read().parquet (all cores).
// When the interop test's node modules are installed (tests/interop: `npm ci`), DuckDB's
// npm build does the same work on the same file in the same run, one thread
// (tests/interop/duckdb_parquet_bench.mjs), and the ratios are printed; spate also reads
// the file DuckDB wrote.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <regex>

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

  // Raw writer, one thread, best of 3.
  std::string file = dir + "/raw.parquet";
  double wsec = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    cpu0 = CpuNow();
    auto w = ValueOrThrow(
        formats::parquet::ParquetWriter::Make(ValueOrThrow(fs->Create(file)), *schema));
    for (const auto& b : batches) CheckOrThrow(w->Write(b));
    CheckOrThrow(w->Close());
    wsec = std::min(wsec, Seconds(t0));
  }
  int64_t fsize = ValueOrThrow(fs->Stat(file)).size;
  Report("ParquetWriter (1 thread, snappy)", rows, wsec, fsize);

  // Raw reader, one thread, best of 3.
  auto read_file = [&](const std::string& path, int64_t* got) {
    auto r = ValueOrThrow(formats::parquet::ParquetFileReader::Open(fs, path));
    *got = 0;
    for (const auto& b : ValueOrThrow(r->ReadAll())) *got += b->num_rows();
    return r->num_row_groups();
  };
  double rsec = 1e9;
  int64_t got = 0;
  int row_groups = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    cpu0 = CpuNow();
    row_groups = read_file(file, &got);
    rsec = std::min(rsec, Seconds(t0));
  }
  if (got != rows) std::cerr << "row count mismatch\n";
  Report("ParquetFileReader (1 thread, all columns)", rows, rsec, fsize);
  std::printf("  file %.1f MB, %d row groups\n", fsize / 1e6, row_groups);

  // DuckDB on the same file, in the same run.
  const std::string interop = SPATE_SOURCE_DIR "/tests/interop";
  if (std::filesystem::exists(interop + "/node_modules/@duckdb/node-api")) {
    std::string cmd =
        "node " + interop + "/duckdb_parquet_bench.mjs '" + file + "' '" + dir + "'";
    std::string json;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[512];
      while (fgets(buf, sizeof(buf), p)) json += buf;
      pclose(p);
    }
    std::smatch m;
    auto num = [&](const char* key) {
      std::regex re(std::string("\"") + key + "\":([0-9.eE+-]+)");
      return std::regex_search(json, m, re) ? std::stod(m[1]) : -1.0;
    };
    double dread = num("read_s"), dwrite = num("write_s");
    double dbytes = num("out_bytes");
    if (dread > 0 && dwrite > 0) {
      std::printf(
          "DuckDB %s (npm build, 1 thread): read %.0f rows/s, write %.0f rows/s "
          "(%.1f MB file)\n",
          "1.5", rows / dread, rows / dwrite, dbytes / 1e6);
      std::printf("  ratio spate/DuckDB rows per second: read %.2f, write %.2f\n",
                  dread / rsec, dwrite / wsec);
      int64_t dgot = 0;
      auto t0 = std::chrono::steady_clock::now();
      cpu0 = CpuNow();
      read_file(dir + "/duckdb.parquet", &dgot);
      Report("ParquetFileReader on DuckDB's file", dgot, Seconds(t0),
             static_cast<int64_t>(dbytes));
      if (dgot != rows) std::cerr << "row count mismatch reading DuckDB's file\n";
    } else {
      std::printf("DuckDB comparison failed: %s\n", json.c_str());
    }
  } else {
    std::printf("(DuckDB comparison skipped: run `npm ci` in tests/interop)\n");
  }

  // DataFrame API, all cores.
  auto t0 = std::chrono::steady_clock::now();
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
