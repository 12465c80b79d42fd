// Copyright spate authors.
#pragma once

// Helpers shared by the files that implement StreamingQuery and StreamingQueryManager
// (streaming_query.cc: the micro-batch loop; query_progress.cc: progress reports;
// real_time_batch.cc: Trigger.RealTime; streaming_query_manager.cc: the registry). Not
// part of the stream module's interface.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "spate/base/status.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/streaming_query.h"

namespace spate::stream {

using SteadyClock = std::chrono::steady_clock;

inline int64_t ElapsedMs(SteadyClock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - since)
      .count();
}

inline bool SameOffset(const std::optional<Json>& a, const std::optional<Json>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || *a == *b;
}

/// Trigger.RealTime's checks when the query starts, in Spark 4.2's order and messages:
/// output mode, batch duration, sink (real_time_batch.cc).
Status CheckRealTimeStart(const QueryConfig& config);

}  // namespace spate::stream
