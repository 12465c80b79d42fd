// Copyright spate authors.
// CSV -> columns throughput: `build/release/bench/spate_csv_bench [megabytes]
// [repetitions]`. Generates CSV rows in memory (ints, a quoted string with a comma now
// and then, a timestamp, a double, a boolean) and reports, in the same run, MB/s on one
// core of
//   1. a plain memchr-style scan: newline by newline, counting the delimiters of each
//   line
//      (no quotes, no conversion: a lower bound on the work of any CSV reader);
//   2. spate's CsvTokenizer alone (fields found, quotes handled, nothing converted);
//   3. spate's tokenizer + CsvConverter building typed columns (the reader's hot path);
//   4. the whole reader: a CsvDataSource over an in-memory file read split by split
//      (file read, tokenize, convert, batches of 16384 rows), on one thread;
// and the ratios of 3 and 4 to 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "spate/formats/csv/parser.h"
#include "spate/formats/csv_source.h"

using namespace spate;                // NOLINT
using namespace spate::formats::csv;  // NOLINT

namespace {

double Seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string MakeRows(size_t bytes, size_t* rows) {
  std::mt19937_64 rng(42);
  const char* kNames[] = {"alpha", "\"beta, gamma\"", "delta", "epsilon zeta",
                          "\"eta \"\"x\"\"\""};
  std::string out;
  out.reserve(bytes + 256);
  char buf[256];
  int64_t id = 0;
  while (out.size() < bytes) {
    int n = std::snprintf(
        buf, sizeof(buf), "%lld,%llu,%s,2024-05-%02d %02d:%02d:%02d,%.2f,%s\n",
        static_cast<long long>(id++), static_cast<unsigned long long>(rng() % 1000000),
        kNames[rng() % 5], static_cast<int>(1 + rng() % 28), static_cast<int>(rng() % 24),
        static_cast<int>(rng() % 60), static_cast<int>(rng() % 60),
        (rng() % 100000) / 100.0, rng() % 2 ? "true" : "false");
    out.append(buf, static_cast<size_t>(n));
    ++*rows;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100;
  int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  size_t nrows = 0;
  std::string data = MakeRows(mb << 20, &nrows);
  double size_mb = static_cast<double>(data.size()) / (1 << 20);
  std::printf("%zu rows, %.1f MB CSV\n", nrows, size_mb);
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"id", DataType::Long(), true},
      {"user", DataType::Int(), true},
      {"name", DataType::String(), true},
      {"ts", DataType::Timestamp(), true},
      {"amount", DataType::Double(), true},
      {"ok", DataType::Boolean(), true},
  });
  CsvOptions o = *CsvOptions::FromMap({});
  // Optional third argument: the columns to convert, e.g. "0,2" (default: all six).
  std::vector<int> needed = {0, 1, 2, 3, 4, 5};
  if (argc > 3) {
    needed.clear();
    for (const char* p = argv[3]; *p; ++p) {
      if (*p >= '0' && *p <= '5') needed.push_back(*p - '0');
    }
  }
  double best_scan = 1e9, best_tok = 1e9, best_conv = 1e9, best_file = 1e9;
  auto mem = std::make_shared<io::MemoryFileSystem>();
  if (!mem->WriteAtomic("/bench/data.csv", data).ok()) return 1;
  auto source =
      std::move(formats::CsvDataSource::Make(mem, {"/bench/data.csv"}, schema, {}, "UTC",
                                             "_corrupt_record", 32ll << 20))
          .value();
  uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    {
      auto t0 = std::chrono::steady_clock::now();
      const char* p = data.data();
      const char* end = p + data.size();
      uint64_t fields = 0, lines = 0;
      while (p < end) {
        const char* nl =
            static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!nl) nl = end;
        const char* q = p;
        while ((q = static_cast<const char*>(
                    std::memchr(q, ',', static_cast<size_t>(nl - q))))) {
          ++fields;
          ++q;
        }
        ++lines;
        p = nl + 1;
      }
      sink += fields + lines;
      best_scan = std::min(best_scan, Seconds(t0, std::chrono::steady_clock::now()));
    }
    {
      auto t0 = std::chrono::steady_clock::now();
      CsvTokenizer tok(o);
      CsvRecords recs;
      size_t pos = 0, total = 0;
      while (pos < data.size()) {
        recs.Clear();
        pos = tok.Tokenize(data, pos, 16384, &recs);
        total += recs.size();
      }
      sink += total;
      best_tok = std::min(best_tok, Seconds(t0, std::chrono::steady_clock::now()));
    }
    {
      auto t0 = std::chrono::steady_clock::now();
      CsvTokenizer tok(o);
      auto conv = std::move(CsvConverter::Make(schema, o)).value();
      CsvRecords recs;
      size_t pos = 0;
      int64_t total = 0;
      while (pos < data.size()) {
        recs.Clear();
        pos = tok.Tokenize(data, pos, 16384, &recs);
        int64_t rows = 0;
        auto cols = conv->Convert(data, recs, needed, &rows);
        if (!cols.ok()) return 1;
        total += rows;
      }
      if (total != static_cast<int64_t>(nrows))
        std::printf("row count mismatch: %lld\n", static_cast<long long>(total));
      best_conv = std::min(best_conv, Seconds(t0, std::chrono::steady_clock::now()));
    }
    {
      auto t0 = std::chrono::steady_clock::now();
      ScanSpec spec;
      for (int c : needed) spec.columns.push_back(c);
      int64_t total = 0;
      for (int split = 0; split < source->num_splits(); ++split) {
        auto reader = std::move(source->OpenSplit(split, spec)).value();
        while (true) {
          auto b = std::move(reader->Next()).value();
          if (!b) break;
          total += b->num_rows();
        }
      }
      if (total != static_cast<int64_t>(nrows))
        std::printf("reader row count mismatch: %lld\n", static_cast<long long>(total));
      best_file = std::min(best_file, Seconds(t0, std::chrono::steady_clock::now()));
    }
  }
  std::printf("memchr line + field scan (no quotes/conversion): %8.1f MB/s\n",
              size_mb / best_scan);
  std::printf("spate CsvTokenizer (fields only):                %8.1f MB/s\n",
              size_mb / best_tok);
  std::printf("spate tokenizer + typed columns (%zu cols):        %8.1f MB/s\n",
              needed.size(), size_mb / best_conv);
  std::printf("spate CsvDataSource file -> batches (%d splits):    %8.1f MB/s\n",
              source->num_splits(), size_mb / best_file);
  std::printf(
      "ratio spate columns / memchr scan: %.2fx slower; whole reader / scan: %.2fx; "
      "tokenizer / scan: %.2fx (sink %llu)\n",
      best_conv / best_scan, best_file / best_scan, best_tok / best_scan,
      static_cast<unsigned long long>(sink % 7));
  return 0;
}
