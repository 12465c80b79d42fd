// Copyright spate authors.
// Schema inference throughput (issue 17):
//   build/release/bench/spate_infer_bench [json_mb] [csv_mb] [repetitions] [bronze]
// With a fourth argument "bronze", only the bronze stream below runs (the JSON file, its
// inferred schema, then each repetition's M events per CPU second and per wall second
// on its own line): the quick A/B measurement of the ingest path. With
// SPATE_BRONZE_AB=<NAME>, the environment variable NAME is set (=1) on odd repetitions
// and unset on even ones, and the medians of both are printed (a switch a change under
// measurement keeps for the old path, interleaved in one process).
// SPATE_BRONZE_KEEP=<dir> keeps a copy of the last run's Delta table there (to compare
// two builds' files). Writes an NDJSON and a CSV file of events and measures, in the same
// run (best of the repetitions, MB/s of file bytes):
//   JSON  1. the inference spate had before (bench/legacy_json_infer.h: whole file in
//            memory, a new parser and a DataType tree per record, one thread);
//         2. the new inference on one thread over the whole file (sequential);
//         3. the new inference over splits on all cores (wall and CPU time: per core);
//         4. the typed parse with the schema known, one thread (LineFileDataSource
//            batches), the per-core yardstick of the issue;
//         5. spark.read.json(file) with inference + an aggregate over every column, all
//            cores (file -> schema -> batches);
//   CSV   the same (the old CSV inference was one thread per file: 2. is it for one
//   file).
// and DuckDB (the npm build installed by tests/interop `npm ci`) on the same files:
// DESCRIBE over read_json / read_csv with sample_size=-1 (inference over every record, as
// samplingRatio=1.0), on 1 thread and on all cores, and the same aggregate query.
// Then the ingest into tables: JSON -> Delta (inferred), the bronze stream
// (schema given) and CSV -> Delta, beside DuckDB's COPY of the same reads into Parquet
// files.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "legacy_json_infer.h"
#include "timing.h"

#include "spate/api/streaming.h"
#include "spate/base/thread_pool.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/json_source.h"
#include "spate/spate.h"

using namespace spate;  // NOLINT
using api::ValueOrThrow;
using bench::ProcessCpuSeconds;
using bench::Seconds;
using bench::Steady;
namespace F = spate::api::functions;

namespace {

constexpr int64_t kWholeFiles = int64_t{1} << 60;

void WriteEvents(const std::string& json_path, size_t json_bytes,
                 const std::string& csv_path, size_t csv_bytes) {
  std::mt19937_64 rng(42);
  const char* kTypes[] = {"click", "view", "purchase", "signup"};
  char buf[640];
  {
    std::ofstream out(json_path, std::ios::binary);
    size_t written = 0;
    for (int64_t id = 0; written < json_bytes; ++id) {
      // Mostly the same fields; now and then an extra one, a null or a wider number.
      const uint64_t r = rng();
      int n = std::snprintf(
          buf, sizeof(buf),
          "{\"event_id\":%lld,\"user_id\":%llu,\"type\":\"%s\",\"ts\":\"2024-05-%02d "
          "%02d:%02d:%02d\","
          "\"amount\":%.2f,\"tags\":[\"a%llu\",\"b\"],\"ok\":%s,\"device\":{\"os\":"
          "\"linux\",\"ver\":%llu}%s}\n",
          static_cast<long long>(id), static_cast<unsigned long long>(rng() % 1000000),
          kTypes[rng() % 4], static_cast<int>(1 + rng() % 28),
          static_cast<int>(rng() % 24), static_cast<int>(rng() % 60),
          static_cast<int>(rng() % 60), (rng() % 100000) / 100.0,
          static_cast<unsigned long long>(rng() % 10), rng() % 2 ? "true" : "false",
          static_cast<unsigned long long>(rng() % 20),
          r % 1000 == 0   ? ",\"coupon\":null"
          : r % 1000 == 2 ? ",\"coupon\":\"c1\""
          : r % 1000 == 1 ? ",\"ref\":{\"id\":12345678901234567890}"
                          : "");
      out.write(buf, n);
      written += static_cast<size_t>(n);
    }
  }
  std::ofstream out(csv_path, std::ios::binary);
  out << "event_id,user_id,type,ts,amount,ok,day,note\n";
  size_t written = 0;
  for (int64_t id = 0; written < csv_bytes; ++id) {
    int n = std::snprintf(
        buf, sizeof(buf),
        "%lld,%llu,%s,2024-05-%02d %02d:%02d:%02d,%.2f,%s,2024-05-%02d,%s\n",
        static_cast<long long>(id),
        static_cast<unsigned long long>(rng() % 5000000000ull), kTypes[rng() % 4],
        static_cast<int>(1 + rng() % 28), static_cast<int>(rng() % 24),
        static_cast<int>(rng() % 60), static_cast<int>(rng() % 60),
        (rng() % 100000) / 100.0, rng() % 2 ? "true" : "false",
        static_cast<int>(1 + rng() % 28), rng() % 50 == 0 ? "\"a, quoted note\"" : "");
    out.write(buf, n);
    written += static_cast<size_t>(n);
  }
}

struct Timing {
  double wall = 1e18, cpu = 1e18;
};

template <class Fn>
Timing Best(int reps, Fn fn) {
  Timing t;
  for (int r = 0; r < reps; ++r) {
    const double c0 = ProcessCpuSeconds();
    const auto t0 = Steady::now();
    fn();
    t.wall = std::min(t.wall, Seconds(t0));
    t.cpu = std::min(t.cpu, ProcessCpuSeconds() - c0);
  }
  return t;
}

void Line(const char* what, double mb, Timing t) {
  std::printf("  %-58s %8.1f MB/s  (%.3f s wall, %.3f s CPU: %.1f MB/s per core)\n", what,
              mb / t.wall, t.wall, t.cpu, mb / t.cpu);
}

// Reads every batch of every split on this thread.
int64_t ReadAll(const DataSource& src) {
  ScanSpec spec;
  for (int c = 0; c < src.schema()->num_fields(); ++c) spec.columns.push_back(c);
  int64_t rows = 0;
  for (int s = 0; s < src.num_splits(); ++s) {
    auto reader = ValueOrThrow(src.OpenSplit(s, spec));
    while (auto b = ValueOrThrow(reader->Next())) rows += b->num_rows();
  }
  return rows;
}

std::string Run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof(buf), p)) out += buf;
    pclose(p);
  }
  return out;
}

double Num(const std::string& json, const std::string& key) {
  std::smatch m;
  std::regex re("\"" + key + "\":([0-9.eE+-]+)");
  return std::regex_search(json, m, re) ? std::stod(m[1]) : -1.0;
}

// The bronze stream alone: readStream.schema(inferred).json(dir) -> Delta, AvailableNow,
// one line per repetition.
int BronzeOnly(const std::string& json_file, int reps) {
  auto fs = io::LocalFileSystem::Get();
  const auto files =
      ValueOrThrow(formats::ListInputFiles(*fs, {json_file}, {}, nullptr, "UTC")).files;
  const auto schema = ValueOrThrow(formats::LineFileDataSource::InferJsonSchema(
      *fs, files, formats::json::JsonOptions{}, false, "\n", true, {},
      ThreadPool::Default().num_threads(), 0));
  std::string ddl;
  for (const auto& f : schema->fields())
    ddl += (ddl.empty() ? "" : ", ") + ("`" + f.name + "` " + f.type->Sql());
  int64_t events = 0;
  {
    std::ifstream in(json_file, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) ++events;
  }
  const std::string root = std::filesystem::path(json_file).parent_path().string();
  const std::string in_dir = root + "/stream_in", out = root + "/bronze_out";
  std::filesystem::create_directories(in_dir);
  std::filesystem::remove(in_dir + "/events.json");
  std::filesystem::create_hard_link(json_file, in_dir + "/events.json");
  auto spark = api::SparkSession::builder().getOrCreate().newSession();
  const char* ab = std::getenv("SPATE_BRONZE_AB");
  std::vector<double> cpu_rate[2];
  for (int r = 0; r < reps; ++r) {
    const int side = ab ? r % 2 : 0;
    if (ab && side) setenv(ab, "1", 1);
    if (ab && !side) unsetenv(ab);
    std::filesystem::remove_all(out);
    std::filesystem::remove_all(out + "_chk");
    const double c0 = ProcessCpuSeconds();
    const auto t0 = Steady::now();
    spark.readStream()
        .schema(ddl)
        .json(in_dir)
        .writeStream()
        .format("delta")
        .option("checkpointLocation", out + "_chk")
        .trigger(api::Trigger::AvailableNow())
        .start(out)
        .awaitTermination();
    const double wall = Seconds(t0), cpu = ProcessCpuSeconds() - c0;
    std::printf("bronze%s %lld events: %.3f M events/cpu-s, %.3f M events/s wall\n",
                !ab    ? ""
                : side ? " (A: switch set)"
                       : " (B: unset)",
                static_cast<long long>(events), events / cpu / 1e6, events / wall / 1e6);
    std::fflush(stdout);
    cpu_rate[side].push_back(events / cpu / 1e6);
  }
  if (const char* keep = std::getenv("SPATE_BRONZE_KEEP")) {
    // The last run's table, kept for comparing the files two builds write.
    std::filesystem::remove_all(keep);
    std::filesystem::copy(out, keep, std::filesystem::copy_options::recursive);
  }
  if (ab) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : v[v.size() / 2];
    };
    const double a = median(cpu_rate[1]), b = median(cpu_rate[0]);
    std::printf("medians, M events/cpu-s: A (%s set) %.3f, B %.3f, B/A %.3fx\n", ab, a, b,
                b / a);
  }
  std::filesystem::remove_all(root);
  return 0;
}

}  // namespace

int Run(int argc, char** argv) {
  const size_t json_mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 160;
  const size_t csv_mb = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 100;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string dir =
      (std::filesystem::temp_directory_path() / "spate_infer_bench").string();
  std::filesystem::create_directories(dir);
  const std::string json_file = dir + "/events.json", csv_file = dir + "/events.csv";
  WriteEvents(json_file, json_mb << 20, csv_file, csv_mb << 20);
  auto fs = io::LocalFileSystem::Get();
  const int threads = ThreadPool::Default().num_threads();
  std::printf("%u hardware threads, pool %d\n", std::thread::hardware_concurrency(),
              threads);

  if (argc > 4 && std::string(argv[4]) == "bronze") return BronzeOnly(json_file, reps);

  // ---- JSON ----
  const auto json_files =
      ValueOrThrow(formats::ListInputFiles(*fs, {json_file}, {}, nullptr, "UTC")).files;
  const double jmb = static_cast<double>(json_files[0].size) / 1e6;
  formats::json::JsonOptions jo;
  std::string legacy_schema, seq_schema, par_schema;
  Timing legacy = Best(reps, [&] {
    std::string text = ValueOrThrow(formats::ReadSplitText(
        *fs, json_file, 0, json_files[0].size, json_files[0].size, "\n"));
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos < text.size();) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      lines.emplace_back(text.data() + pos, nl - pos);
      pos = nl + 1;
    }
    legacy_schema = ValueOrThrow(bench::legacy::InferSchemaSequential(lines, jo))->Sql();
  });
  Timing seq = Best(reps, [&] {
    seq_schema =
        ValueOrThrow(formats::LineFileDataSource::InferJsonSchema(
                         *fs, json_files, jo, false, "\n", true, {}, 1, kWholeFiles))
            ->Sql();
  });
  Timing par = Best(reps, [&] {
    par_schema = ValueOrThrow(formats::LineFileDataSource::InferJsonSchema(
                                  *fs, json_files, jo, false, "\n", true, {}, threads, 0))
                     ->Sql();
  });
  const auto jschema = std::make_shared<const Schema>(
      ValueOrThrow(formats::LineFileDataSource::InferJsonSchema(
                       *fs, json_files, jo, false, "\n", true, {}, threads, 0))
          ->fields());
  Timing typed = Best(reps, [&] {
    auto src = ValueOrThrow(
        formats::LineFileDataSource::Make(fs, formats::LineFileDataSource::Format::kJson,
                                          {json_file}, jschema, {}, "UTC", kWholeFiles));
    ReadAll(*src);
  });
  auto spark = api::SparkSession::builder().getOrCreate().newSession();
  Timing e2e = Best(reps, [&] {
    spark.read()
        .json(json_file)
        .agg({F::count("*"), F::sum("event_id"), F::max("type"), F::sum("amount"),
              F::max(F::size(F::col("tags"))), F::max(F::col("device").getField("os"))})
        .collect();
  });
  std::printf("JSON %s: %.1f MB, schema %s\n", json_file.c_str(), jmb,
              seq_schema.c_str());
  std::printf("  schemas equal (old, sequential, parallel): %s\n",
              legacy_schema == seq_schema && seq_schema == par_schema ? "yes" : "NO");
  Line("old inference (whole file, parser per record, 1 thread)", jmb, legacy);
  Line("new inference, 1 thread, 1 split", jmb, seq);
  Line("new inference, all cores, splits", jmb, par);
  Line("typed parse, schema known, 1 thread", jmb, typed);
  Line("spark.read.json(file) + agg, inferred, all cores", jmb, e2e);
  std::printf(
      "  ratios: parallel/old %.2fx, sequential/old %.2fx, parallel/sequential %.2fx,\n"
      "          inference per core / typed parse per core %.2fx\n",
      legacy.wall / par.wall, legacy.wall / seq.wall, seq.wall / par.wall,
      (jmb / par.cpu) / (jmb / typed.cpu));

  // ---- CSV ----
  const auto csv_files =
      ValueOrThrow(formats::ListInputFiles(*fs, {csv_file}, {}, nullptr, "UTC")).files;
  const double cmb = static_cast<double>(csv_files[0].size) / 1e6;
  const std::map<std::string, std::string> copts = {{"header", "true"},
                                                    {"inferSchema", "true"}};
  const auto co =
      ValueOrThrow(formats::csv::CsvOptions::FromMap(copts, "UTC", "_corrupt_record"));
  std::string cseq_schema, cpar_schema;
  auto describe = [](const std::vector<Field>& f) {
    std::string s;
    for (const auto& x : f) s += x.name + ":" + x.type->SimpleString() + " ";
    return s;
  };
  Timing cseq = Best(reps, [&] {
    cseq_schema = describe(ValueOrThrow(
        formats::CsvDataSource::InferDataFields(*fs, csv_files, co, {}, 1, kWholeFiles)));
  });
  Timing cpar = Best(reps, [&] {
    cpar_schema = describe(ValueOrThrow(
        formats::CsvDataSource::InferDataFields(*fs, csv_files, co, {}, threads, 0)));
  });
  const auto cschema = std::make_shared<const Schema>(ValueOrThrow(
      formats::CsvDataSource::InferDataFields(*fs, csv_files, co, {}, threads, 0)));
  Timing ctyped = Best(reps, [&] {
    auto src = ValueOrThrow(formats::CsvDataSource::Make(
        fs, {csv_file}, cschema, copts, "UTC", "_corrupt_record", kWholeFiles));
    ReadAll(*src);
  });
  Timing ce2e = Best(reps, [&] {
    spark.read()
        .option("header", "true")
        .option("inferSchema", "true")
        .csv(csv_file)
        .agg({F::count("*"), F::sum("event_id"), F::max("type"), F::sum("amount"),
              F::max("day")})
        .collect();
  });
  std::printf("CSV %s: %.1f MB, schema %s\n", csv_file.c_str(), cmb, cseq_schema.c_str());
  std::printf("  schemas equal (sequential, parallel): %s\n",
              cseq_schema == cpar_schema ? "yes" : "NO");
  Line("inference, 1 thread (the old inference's work for one file)", cmb, cseq);
  Line("inference, all cores, splits", cmb, cpar);
  Line("typed parse, schema known, 1 thread", cmb, ctyped);
  Line("spark.read.csv(file) + agg, inferred, all cores", cmb, ce2e);
  std::printf(
      "  ratios: parallel/sequential %.2fx, inference per core / typed parse per core "
      "%.2fx\n",
      cseq.wall / cpar.wall, (cmb / cpar.cpu) / (cmb / ctyped.cpu));

  // ---- Into tables: the ingest targets ----
  // JSON -> Delta with inference (the CTAS of the issue: read.json + write.delta), the
  // bronze stream (schema given, AvailableNow -> Delta), CSV -> Delta with inference; all
  // cores. DuckDB does the same reads into Parquet files (it writes no Delta) below.
  const std::string tables = dir + "/tables";
  auto fresh = [&](const std::string& name) {
    std::filesystem::remove_all(tables + "/" + name);
    return tables + "/" + name;
  };
  Timing jdelta = Best(reps, [&] {
    spark.read().json(json_file).write().format("delta").save(fresh("json_ctas"));
  });
  const std::string stream_in = dir + "/stream_in";
  std::filesystem::create_directories(stream_in);
  std::filesystem::remove(stream_in + "/events.json");
  std::filesystem::create_hard_link(json_file, stream_in + "/events.json");
  std::string ddl;
  for (const auto& f : jschema->fields())
    ddl += (ddl.empty() ? "" : ", ") + ("`" + f.name + "` " + f.type->Sql());
  Timing bronze = Best(reps, [&] {
    const std::string out = fresh("bronze");
    spark.readStream()
        .schema(ddl)
        .json(stream_in)
        .writeStream()
        .format("delta")
        .option("checkpointLocation", fresh("bronze_chk"))
        .trigger(api::Trigger::AvailableNow())
        .start(out)
        .awaitTermination();
  });
  Timing cdelta = Best(reps, [&] {
    spark.read()
        .option("header", "true")
        .option("inferSchema", "true")
        .csv(csv_file)
        .write()
        .format("delta")
        .save(fresh("csv_ctas"));
  });
  int64_t events = 0;
  {
    std::ifstream in(json_file, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) ++events;
  }
  std::printf("Into Delta tables (all cores):\n");
  Line("JSON -> Delta, schema inferred", jmb, jdelta);
  Line("bronze stream JSON -> Delta, schema given (AvailableNow)", jmb, bronze);
  std::printf("    bronze stream: %.2f M events/s wall, %.2f M events/s per core (CPU)\n",
              events / bronze.wall / 1e6, events / bronze.cpu / 1e6);
  Line("CSV -> Delta, schema inferred", cmb, cdelta);

  // ---- DuckDB on the same files ----
  const std::string interop = SPATE_SOURCE_DIR "/tests/interop";
  if (!std::filesystem::exists(interop + "/node_modules/@duckdb/node-api")) {
    std::printf("(DuckDB comparison skipped: run `npm ci` in tests/interop)\n");
    return 0;
  }
  const std::string out =
      Run("node " + interop + "/duckdb_infer_bench.mjs '" + json_file + "' '" + csv_file +
          "' " + std::to_string(threads) + " " + std::to_string(reps));
  const double dj1 = Num(out, "json_infer_1"), djn = Num(out, "json_infer_n"),
               djr = Num(out, "json_read_n");
  const double dc1 = Num(out, "csv_infer_1"), dcn = Num(out, "csv_infer_n"),
               dcr = Num(out, "csv_read_n");
  const double djp = Num(out, "json_to_parquet_n"),
               djs = Num(out, "json_schema_to_parquet_n"),
               dcp = Num(out, "csv_to_parquet_n");
  if (dj1 <= 0 || dc1 <= 0) {
    std::printf("DuckDB comparison failed: %s\n", out.c_str());
    return 0;
  }
  std::smatch version;
  std::regex_search(out, version, std::regex("\"version\":\"([^\"]*)\""));
  std::printf("DuckDB %s (npm build), sample_size=-1 (every record):\n",
              version.size() > 1 ? version[1].str().c_str() : "?");
  std::printf(
      "  JSON inference: 1 thread %.3f s, %d threads %.3f s; read_json + agg %.3f s\n",
      dj1, threads, djn, djr);
  std::printf(
      "  CSV  inference: 1 thread %.3f s, %d threads %.3f s; read_csv + agg %.3f s\n",
      dc1, threads, dcn, dcr);
  std::printf("  ratio spate/DuckDB speed (DuckDB time / spate time):\n");
  std::printf(
      "    JSON inference 1 thread %.2fx (old spate %.2fx), all cores %.2fx (old spate "
      "%.2fx); infer+read+agg %.2fx\n",
      dj1 / seq.wall, dj1 / legacy.wall, djn / par.wall, djn / legacy.wall,
      djr / e2e.wall);
  std::printf(
      "    CSV  inference 1 thread %.2fx, all cores %.2fx (old spate, one file: %.2fx); "
      "infer+read+agg %.2fx\n",
      dc1 / cseq.wall, dcn / cpar.wall, dcn / cseq.wall, dcr / ce2e.wall);
  std::printf(
      "  into files, %d threads: JSON inferred -> Parquet %.3f s, JSON columns given -> "
      "Parquet %.3f s, CSV inferred -> Parquet %.3f s\n",
      threads, djp, djs, dcp);
  std::printf(
      "    JSON -> Delta inferred %.2fx (target >= 1.5x), bronze stream %.2fx (>= 1.5x), "
      "CSV -> Delta %.2fx (>= 1.5x)\n",
      djp / jdelta.wall, djs / bronze.wall, dcp / cdelta.wall);
  std::filesystem::remove_all(dir);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "infer_bench: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "infer_bench: unknown exception\n");
  }
  return 1;
}
