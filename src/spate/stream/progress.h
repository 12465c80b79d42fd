// Copyright spate authors.
#pragma once

// StreamingQueryProgress and friends, with Spark's JSON field names, nesting and rules
// (apache/spark sql/api/.../streaming/progress.scala): maps (durationMs, eventTime,
// metrics) are printed with sorted keys and left out when empty; NaN/infinite rates are
// left out; a null name or offset prints as null; json() is compact, prettyJson() is
// Jackson's default pretty printer. Also the query status and the listener events.
//
// Ownership: plain values. Thread safety: values, safe to copy between threads.
// Failure: none (building and printing cannot fail).

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/json.h"

namespace spate::stream {

struct StateOperatorProgress {
  std::string operator_name;
  int64_t num_rows_total = 0;
  int64_t num_rows_updated = 0;
  int64_t all_updates_time_ms = 0;
  int64_t num_rows_removed = 0;
  int64_t all_removals_time_ms = 0;
  int64_t commit_time_ms = 0;
  int64_t memory_used_bytes = 0;
  int64_t num_rows_dropped_by_watermark = 0;
  int64_t num_shuffle_partitions = 0;
  int64_t num_state_store_instances = 0;
  std::map<std::string, int64_t> custom_metrics;
  Json ToJson() const;
};

struct SourceProgress {
  std::string description;
  std::optional<Json> start_offset, end_offset, latest_offset;
  int64_t num_input_rows = 0;
  double input_rows_per_second = NAN;
  double processed_rows_per_second = NAN;
  std::map<std::string, std::string> metrics;
  Json ToJson() const;
};

struct SinkProgress {
  std::string description;
  int64_t num_output_rows = -1;
  std::map<std::string, std::string> metrics;
  Json ToJson() const;
};

struct StreamingQueryProgress {
  std::string id, run_id;
  std::optional<std::string> name;
  std::string timestamp;  // ISO-8601 UTC with milliseconds, the trigger's start
  int64_t batch_id = 0;
  int64_t batch_duration = 0;
  int64_t num_input_rows = 0;
  double input_rows_per_second = NAN;
  double processed_rows_per_second = NAN;
  std::map<std::string, int64_t> duration_ms;
  std::map<std::string, std::string> event_time;
  std::vector<StateOperatorProgress> state_operators;
  std::vector<SourceProgress> sources;
  SinkProgress sink;

  Json ToJson() const;
  std::string json() const { return ToJson().ToString(); }
  std::string prettyJson() const { return ToJson().ToPrettyString(); }
};

/// StreamingQueryStatus: {"message":..., "isDataAvailable":..., "isTriggerActive":...}.
struct StreamingQueryStatus {
  std::string message = "Initializing sources";
  bool is_data_available = false;
  bool is_trigger_active = false;
  Json ToJson() const;
  std::string json() const { return ToJson().ToString(); }
  std::string prettyJson() const { return ToJson().ToPrettyString(); }
};

/// "2016-12-14T18:45:24.873Z".
std::string FormatTimestampMs(int64_t ms);
/// The inverse of FormatTimestampMs ("YYYY-MM-DDTHH:MM:SS[.fff]Z"); nullopt for other
/// text.
std::optional<int64_t> ParseTimestampMs(std::string_view text);

// Listener events (StreamingQueryListener.QueryStartedEvent ...).
struct QueryStartedEvent {
  std::string id, run_id;
  std::optional<std::string> name;
  std::string timestamp;
};
struct QueryProgressEvent {
  StreamingQueryProgress progress;
};
struct QueryIdleEvent {
  std::string id, run_id;
  std::string timestamp;
};
struct QueryTerminatedEvent {
  std::string id, run_id;
  std::optional<std::string> exception;  // the error's text when the query failed
  std::optional<std::string> error_class_on_exception;
};

/// StreamingQueryListener. Ownership: shared (StreamingQueryListenerPtr) by whoever
/// registered it and the StreamingQueryManager until removeListener. Thread safety:
/// callbacks run on the query's thread (onQueryStarted on the thread calling start()),
/// one query's events in order, different queries' events concurrently. Failure: an
/// exception escaping a callback is swallowed by the runtime (the query goes on, as in
/// Spark); callbacks should not block for long.
class StreamingQueryListener {
 public:
  virtual ~StreamingQueryListener() = default;
  virtual void onQueryStarted(const QueryStartedEvent& event) { (void)event; }
  virtual void onQueryProgress(const QueryProgressEvent& event) { (void)event; }
  virtual void onQueryIdle(const QueryIdleEvent& event) { (void)event; }
  virtual void onQueryTerminated(const QueryTerminatedEvent& event) { (void)event; }
};
using StreamingQueryListenerPtr = std::shared_ptr<StreamingQueryListener>;

}  // namespace spate::stream
