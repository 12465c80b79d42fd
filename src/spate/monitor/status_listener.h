// Copyright spate authors.
#pragma once

// StreamingQueryStatusListener: what the monitoring server knows about streaming queries,
// built only from StreamingQueryListener events (as Spark's UI builds its Structured
// Streaming tab from its own StreamingQueryStatusListener): one record per run (runId)
// with its start/end, exception and recent progress, and per query id the running totals
// that Prometheus counters need (batches, input rows, rows dropped by the watermark,
// failures, the batch-duration histogram), kept across runs of the same query in this
// process. Finished runs beyond `retained_queries` (Spark's
// spark.sql.streaming.ui.retainedQueries) are forgotten, oldest first; each run keeps its
// `retained_progress` latest progress entries (spark.sql.streaming.ui.
// retainedProgressUpdates).
//
// Ownership: shared (registered with one or more StreamingQueryManagers, and held by the
// server). Thread safety: callbacks may come from any query thread; Snapshot() from any
// thread (one internal mutex; callbacks only copy small values under it). Failure:
// none; events of unknown runs (a listener added after start) create their record.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "spate/stream/progress.h"

namespace spate::monitor {

/// Upper bounds (seconds) of the batch-duration histogram's buckets (+Inf is implied).
inline constexpr double kBatchDurationBuckets[] = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
inline constexpr int kNumBatchDurationBuckets =
    sizeof(kBatchDurationBuckets) / sizeof(kBatchDurationBuckets[0]);

/// One run of a query.
struct QueryRunInfo {
  std::string id, run_id;
  std::optional<std::string> name;
  int64_t start_ms = 0;
  std::optional<int64_t> end_ms;
  bool active = true;
  std::optional<std::string> exception;
  std::optional<std::string> error_class;
  int64_t seq = 0;  // order of start (ties in start_ms)
};
struct QueryRun : QueryRunInfo {
  /// Oldest first.
  std::deque<stream::StreamingQueryProgress> progress;
};

/// Running totals of one query id (Prometheus counters never go back).
struct QueryTotals {
  int64_t batches = 0;
  int64_t input_rows = 0;
  int64_t late_rows_dropped = 0;
  int64_t failures = 0;
  double batch_seconds_sum = 0;
  /// Cumulative counts per bucket of kBatchDurationBuckets, then +Inf (= batches).
  std::vector<int64_t> batch_buckets =
      std::vector<int64_t>(kNumBatchDurationBuckets + 1, 0);
};

struct StatusSnapshot {
  /// By start, oldest first.
  std::vector<QueryRun> runs;
  std::map<std::string, QueryTotals> totals;  // by query id
};

class StreamingQueryStatusListener : public stream::StreamingQueryListener {
 public:
  explicit StreamingQueryStatusListener(int retained_queries = 100,
                                        int retained_progress = 100)
      : retained_queries_(retained_queries < 0 ? 0 : retained_queries),
        retained_progress_(retained_progress < 1 ? 1 : retained_progress) {}

  void onQueryStarted(const stream::QueryStartedEvent& event) override;
  void onQueryProgress(const stream::QueryProgressEvent& event) override;
  void onQueryTerminated(const stream::QueryTerminatedEvent& event) override;

  /// A copy of what is known; each run keeps at most its `max_progress` latest progress
  /// entries in the copy (/metrics needs only the last one).
  StatusSnapshot Snapshot(size_t max_progress = SIZE_MAX) const;

 private:
  QueryRun& RunOf(const std::string& id, const std::string& run_id);
  void EvictFinished();

  const int retained_queries_;
  const int retained_progress_;
  mutable std::mutex mu_;
  std::map<std::string, QueryRun> runs_;  // by run id
  std::map<std::string, QueryTotals> totals_;
  int64_t next_seq_ = 0;
};

}  // namespace spate::monitor
