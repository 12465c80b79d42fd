// Copyright spate authors.
#pragma once

// The `rate` and `rate-micro-batch` sources (Spark's RateStreamProvider and
// RatePerMicroBatchProvider): rows (timestamp TIMESTAMP, value BIGINT).
//
//  - rate: rowsPerSecond (default 1), rampUpTime (default 0s), numPartitions. The offset
//    is the number of whole seconds since the source was first started (a JSON number);
//    the start time is kept in <checkpoint>/sources/<i>/0 ("v1\n<ms>") so a restart
//    continues the same sequence. Values in a second follow Spark's valueAtSecond (linear
//    ramp-up), timestamps are spread evenly over the second.
//  - rate-micro-batch: rowsPerBatch (required), numPartitions, startTimestamp (default
//  0),
//    advanceMillisPerBatch (default 1000). Every trigger has exactly rowsPerBatch new
//    rows; the offset is {"offset":<rows so far>,"timestamp":<ms>}.
//
// Ownership: owned by the query. Thread safety: the query thread only. Failure: invalid
// options -> IllegalArgumentException-style errors at start.

#include <map>
#include <memory>
#include <string>

#include "spate/stream/source.h"

namespace spate::connectors {

/// Schema of both: timestamp TIMESTAMP, value BIGINT.
SchemaPtr RateSchema();

/// Validates options and returns the factory of a `rate` source.
Result<stream::SourceFactory> MakeRateSourceFactory(
    const std::map<std::string, std::string>& options);
/// Validates options and returns the factory of a `rate-micro-batch` source.
Result<stream::SourceFactory> MakeRatePerMicroBatchFactory(
    const std::map<std::string, std::string>& options);

/// Spark's RateStreamProvider.valueAtSecond.
int64_t RateValueAtSecond(int64_t seconds, int64_t rows_per_second,
                          int64_t ramp_up_seconds);

}  // namespace spate::connectors
