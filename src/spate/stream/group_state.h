// Copyright spate authors.
#pragma once

// flatMapGroupsWithState's GroupState (Spark's older arbitrary-state API), run as a
// transformWithState processor: per grouping key the user function gets the key's new
// rows and its GroupState (one value of the state schema, plus a timeout) and returns
// output rows.
//
// Timeouts (GroupStateTimeout): with ProcessingTimeTimeout, setTimeoutDuration(d) during
// a call times the key out once the processing time passes the batch's timestamp + d;
// with EventTimeTimeout, setTimeoutTimestamp(t) once the watermark passes t (strictly, as
// Spark). A timeout set in one call holds until the next call of the key, which clears it
// (set it again to keep one). A timed-out key is called with no rows and hasTimedOut()
// true.
//
// Ownership: a GroupState lives for one call. Thread safety: one call at a time per
// partition. Failure: get() without a value throws (Spark's NoSuchElementException); the
// operator reports a function's exception as TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spate/stream/stateful_processor.h"

namespace spate::stream {

enum class GroupStateTimeout : uint8_t {
  kNoTimeout,
  kProcessingTimeTimeout,
  kEventTimeTimeout
};
/// "NoTimeout", "ProcessingTimeTimeout", "EventTimeTimeout" (case-insensitive; Python's
/// GroupStateTimeout.NoTimeout etc. are these strings), else nullopt.
std::optional<GroupStateTimeout> ParseGroupStateTimeout(const std::string& s);

class GroupState {
 public:
  GroupState(std::optional<ProcessorRow> value, bool timed_out, GroupStateTimeout timeout,
             const TimerValues& timers)
      : value_(std::move(value)),
        timed_out_(timed_out),
        timeout_(timeout),
        timers_(timers) {}

  bool exists() const { return value_.has_value(); }
  /// The value; throws std::out_of_range when there is none.
  const ProcessorRow& get() const;
  const std::optional<ProcessorRow>& getOption() const { return value_; }
  void update(ProcessorRow value);
  void remove();
  bool hasTimedOut() const { return timed_out_; }
  /// ProcessingTimeTimeout only (else throws std::logic_error, as Spark's
  /// UnsupportedOperationException); d > 0.
  void setTimeoutDuration(int64_t duration_ms);
  /// EventTimeTimeout only.
  void setTimeoutTimestamp(int64_t timestamp_ms);
  int64_t getCurrentWatermarkMs() const { return timers_.current_watermark_ms; }
  int64_t getCurrentProcessingTimeMs() const {
    return timers_.current_processing_time_ms;
  }

  // For the operator: what the call did.
  bool updated() const { return updated_; }
  bool removed() const { return removed_; }
  /// The instant (ms) the key times out at, if one was set by this call.
  std::optional<int64_t> timeout_at() const { return timeout_at_; }

 private:
  std::optional<ProcessorRow> value_;
  bool timed_out_;
  GroupStateTimeout timeout_;
  TimerValues timers_;
  bool updated_ = false, removed_ = false;
  std::optional<int64_t> timeout_at_;
};

using GroupStateFunction = std::function<std::vector<ProcessorRow>(
    const ProcessorRow& key, const std::vector<ProcessorRow>& rows, GroupState& state)>;

/// The processor that runs `fn` with a GroupState of `state_schema` per key.
StatefulProcessorFactory GroupStateProcessorFactory(GroupStateFunction fn,
                                                    SchemaPtr state_schema,
                                                    GroupStateTimeout timeout);

}  // namespace spate::stream
