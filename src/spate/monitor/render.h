// Copyright spate authors.
#pragma once

// What the monitoring server serves, rendered from a StatusSnapshot (pure functions, so
// tests check them without a socket):
//
//  * RenderPrometheus: the Prometheus text exposition format (version 0.0.4), one family
//    per metric with # HELP and # TYPE lines, labels query_id and query_name (plus
//    operation / source where a query has several). Names follow
//    ../shared/reference/ecosystem.md §3.5 (Spark's MetricsReporter gauges renamed to
//    Prometheus conventions: base units, _total counters). docs/observability.md lists
//    them.
//  * StreamsJson / RunJson / ProgressJson: the /api/v1/streams documents (the columns of
//    Spark's Structured Streaming tab, and recent progress exactly as
//    StreamingQueryProgress.json() prints it), secrets redacted.
//
// Thread safety: pure functions. Failure: none.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/base/json.h"
#include "spate/monitor/status_listener.h"

namespace spate::monitor {

/// The /metrics body.
std::string RenderPrometheus(const StatusSnapshot& snapshot);

/// Total offsets between a source's endOffset and latestOffset: the sum, over the numeric
/// leaves the two JSON values share (Kafka's {topic:{partition:offset}}, a bare number),
/// of latest - end; nullopt when they have no numeric leaf in common.
std::optional<double> OffsetsBehindLatest(const Json& end, const Json& latest);

/// Replaces the value of every object member whose key names a secret, and redacts free
/// text in every string (base/redact.h).
void RedactJson(Json* v);

/// "RUNNING", "FINISHED" or "FAILED" (Spark's UI status).
std::string RunStatus(const QueryRun& run);
/// One run: name, id, runId, status, isActive, startTimestamp, endTimestamp, durationMs,
/// numBatches, latestBatchId, avg rates, exception, errorClass (docs/observability.md).
Json RunJson(const QueryRun& run, int64_t now_ms);
/// The runs as an array: active ones first, then finished ones, newest first within each;
/// `filter` "active" or "finished" keeps only those ("" keeps all).
Json StreamsJson(const StatusSnapshot& snapshot, int64_t now_ms,
                 const std::string& filter = "");
/// The run's retained progress, oldest first, redacted.
Json ProgressJson(const QueryRun& run);

}  // namespace spate::monitor
