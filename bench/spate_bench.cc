// Copyright spate authors.
// Benchmarks of the batch engine. Each workload runs a SQL query over generated data with
// 1 thread and with all threads, and compares it with a bound measured in the same run on
// the same machine (a plain loop over the same values, memcpy bandwidth, std::sort):
//
//   workload            rows     threads  ms     Mrows/s  Mrows/s/core  bound Mrows/s
//   ratio
//
// Ratios, not absolute times, are the figures to compare across runs. Never a pass/fail
// test.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "spate/spate.h"

namespace {

using namespace spate::api;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename Fn>
double Best(int reps, Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    fn();
    best = std::min(best, Seconds(start));
  }
  return best;
}

volatile int64_t g_sink;

struct Workload {
  const char* name;
  std::string sql;
  int64_t rows;
  // The bound: a plain loop doing the irreducible work on the same number of values.
  const char* bound_name;
  double bound_seconds;
};

void Report(const Workload& w, int threads, double secs) {
  double mrows = static_cast<double>(w.rows) / secs / 1e6;
  double bound = static_cast<double>(w.rows) / w.bound_seconds / 1e6;
  std::printf("%-28s %10lld %7d %9.1f %9.1f %12.1f %14.1f %7.3f  (%s)\n", w.name,
              static_cast<long long>(w.rows), threads, secs * 1e3, mrows, mrows / threads,
              bound, mrows / threads / bound, w.bound_name);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 10'000'000;
  int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  int cores = static_cast<int>(std::thread::hardware_concurrency());

  // Bounds, on the same values the queries see (ids 0..n-1).
  std::vector<int64_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  double sum_loop = Best(reps, [&] {
    int64_t s = 0;
    for (int64_t v : ids) s += v;
    g_sink = s;
  });
  std::vector<int64_t> copy(ids.size());
  double memcpy_secs = Best(reps, [&] {
    std::memcpy(copy.data(), ids.data(), ids.size() * sizeof(int64_t));
    g_sink = copy[ids.size() / 2];
  });
  double group10_loop = Best(reps, [&] {
    int64_t sums[10] = {0};
    int64_t counts[10] = {0};
    for (int64_t v : ids) {
      sums[v % 10] += v;
      counts[v % 10]++;
    }
    g_sink = sums[3] + counts[7];
  });
  double group_high_loop = Best(1, [&] {
    std::unordered_map<int64_t, int64_t> m;
    m.reserve(static_cast<size_t>(n / 4));
    for (int64_t v : ids) m[v % (n / 4)] += v;
    g_sink = static_cast<int64_t>(m.size());
  });
  std::vector<int64_t> shuffled = ids;
  std::mt19937_64 rng(42);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  double sort_secs = Best(1, [&] {
    std::vector<int64_t> v = shuffled;
    std::sort(v.begin(), v.end());
    g_sink = v[0];
  });
  int64_t build = n / 10;
  double join_loop = Best(1, [&] {
    std::unordered_map<int64_t, int64_t> m;
    m.reserve(static_cast<size_t>(build));
    for (int64_t i = 0; i < build; ++i) m[i] = i;
    int64_t hits = 0;
    for (int64_t v : ids) hits += m.count(v % build);
    g_sink = hits;
  });

  std::string N = std::to_string(n);
  std::vector<Workload> workloads = {
      {"filter+project",
       "SELECT count(*), sum(x) FROM (SELECT id * 2 AS x FROM range(" + N +
           ") WHERE id % 3 <> 0)",
       n, "sum loop", sum_loop},
      {"hash agg, 10 groups",
       "SELECT k, count(*), sum(id) FROM (SELECT id % 10 AS k, id FROM range(" + N +
           ")) GROUP BY k",
       n, "array group loop", group10_loop},
      {"hash agg, n/4 groups",
       "SELECT count(*) FROM (SELECT id % " + std::to_string(n / 4) +
           " AS k, sum(id) FROM range(" + N + ") GROUP BY 1)",
       n, "unordered_map loop", group_high_loop},
      {"hash join (n x n/10)",
       "SELECT count(*) FROM range(" + N + ") a JOIN range(" + std::to_string(build) +
           ") b ON a.id % " + std::to_string(build) + " = b.id",
       n, "unordered_map probe", join_loop},
      {"sort",
       "SELECT id FROM (SELECT (id * 7919) % " + N + " AS id FROM range(" + N +
           ")) ORDER BY id LIMIT 1 OFFSET " + std::to_string(n - 1),
       n, "std::sort", sort_secs},
  };

  std::printf("spate bench: n=%lld, %d cores; memcpy %.1f GB/s, sum loop %.0f Mrows/s\n",
              static_cast<long long>(n), cores,
              static_cast<double>(n) * 8 / memcpy_secs / 1e9,
              static_cast<double>(n) / sum_loop / 1e6);
  std::printf("%-28s %10s %7s %9s %9s %12s %14s %7s\n", "workload", "rows", "threads",
              "ms", "Mrows/s", "Mrows/s/core", "bound Mrows/s", "ratio");
  auto spark = SparkSession::builder().appName("bench").getOrCreate();
  for (int threads : {1, cores}) {
    spark.conf().set("spark.default.parallelism", static_cast<int64_t>(threads));
    spark.conf().set("spark.sql.shuffle.partitions", static_cast<int64_t>(threads));
    for (const auto& w : workloads) {
      try {
        auto df = spark.sql(w.sql);
        double secs =
            Best(reps, [&] { g_sink = static_cast<int64_t>(df.collect().size()); });
        Report(w, threads, secs);
      } catch (const std::exception& e) {
        std::printf("%-28s failed: %s\n", w.name, e.what());
      }
    }
    if (cores == 1) break;
  }
  return 0;
}
