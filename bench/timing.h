// Copyright spate authors.
#pragma once

// Wall-clock helpers shared by the benchmarks: seconds since a point, and p50/p99 lines.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace spate::bench {

using Steady = std::chrono::steady_clock;

inline double Seconds(Steady::time_point since) {
  return std::chrono::duration<double>(Steady::now() - since).count();
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
