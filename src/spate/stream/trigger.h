// Copyright spate authors.
#pragma once

// Triggers (org.apache.spark.sql.streaming.Trigger): when the micro-batch loop runs.
//  - default: ProcessingTime(0): the next batch as soon as the previous one ends
//    (polling for new data when there is none).
//  - ProcessingTime(interval): a batch every interval, aligned to multiples of it; a
//  batch
//    that takes longer is followed immediately by the next.
//  - Once: one batch with everything available, then stop (deprecated in Spark).
//  - AvailableNow: everything available at start, in as many batches as the sources'
//    rate limits make, then stop.
//  - Continuous: refused when the query starts (not supported).
//  - RealTime(duration): Spark 4.1's real-time mode: long-running batches of `duration`
//    (default 5 minutes; at least spark.sql.streaming.realTimeMode.minBatchDuration) that
//    hand records to the sink as they arrive and checkpoint at the batch's end
//    (docs/real-time-mode.md).
// Values; thread-safe to copy. Failure: Parse reports bad interval strings.

#include <cstdint>
#include <string>

#include "spate/base/status.h"

namespace spate::stream {

struct Trigger {
  enum class Kind : uint8_t {
    kProcessingTime,
    kOnce,
    kAvailableNow,
    kContinuous,
    kRealTime
  };
  Kind kind = Kind::kProcessingTime;
  int64_t interval_ms = 0;

  static Trigger Default() { return Trigger(); }
  static Trigger ProcessingTime(int64_t ms) { return Trigger{Kind::kProcessingTime, ms}; }
  static Trigger Once() { return Trigger{Kind::kOnce, 0}; }
  static Trigger AvailableNow() { return Trigger{Kind::kAvailableNow, 0}; }
  static Trigger Continuous(int64_t ms) { return Trigger{Kind::kContinuous, ms}; }
  /// Spark's default real-time batch duration: 5 minutes.
  static constexpr int64_t kDefaultRealTimeMs = 5 * 60 * 1000;
  static Trigger RealTime(int64_t ms = kDefaultRealTimeMs) {
    return Trigger{Kind::kRealTime, ms};
  }
  /// "30 seconds", "1 minute", "interval 10 seconds", "500 milliseconds", "2 hours".
  static Result<int64_t> ParseIntervalMs(const std::string& text);
  std::string ToString() const;
};

}  // namespace spate::stream
