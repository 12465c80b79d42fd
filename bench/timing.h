// Copyright spate authors.
#pragma once

// Timing helpers shared by the benchmarks: wall seconds since a point, process CPU
// seconds, and p50/p99 lines.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace spate::bench {

using Steady = std::chrono::steady_clock;

inline double Seconds(Steady::time_point since) {
  return std::chrono::duration<double>(Steady::now() - since).count();
}

/// CPU seconds (user + system) of the whole process, all threads.
inline double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

/// Prints "what n=.. p50=.. ms p99=.. ms" of latencies in microseconds.
inline void Percentiles(const char* what, std::vector<double> us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  auto at = [&](double q) {
    return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))];
  };
  std::printf("%-44s n=%zu p50=%.2f ms p99=%.2f ms\n", what, us.size(), at(0.50) / 1000,
              at(0.99) / 1000);
}

}  // namespace spate::bench
