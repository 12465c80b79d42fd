// Copyright spate authors.
#include "spate/stream/group_state.h"

#include <cctype>
#include <stdexcept>

namespace spate::stream {

std::optional<GroupStateTimeout> ParseGroupStateTimeout(const std::string& s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "notimeout") return GroupStateTimeout::kNoTimeout;
  if (l == "processingtimetimeout") return GroupStateTimeout::kProcessingTimeTimeout;
  if (l == "eventtimetimeout") return GroupStateTimeout::kEventTimeTimeout;
  return std::nullopt;
}

const ProcessorRow& GroupState::get() const {
  if (!value_)
    throw std::out_of_range("State is either not defined or has already been removed");
  return *value_;
}

void GroupState::update(ProcessorRow value) {
  value_ = std::move(value);
  updated_ = true;
  removed_ = false;
}

void GroupState::remove() {
  value_.reset();
  removed_ = true;
  updated_ = false;
}

void GroupState::setTimeoutDuration(int64_t duration_ms) {
  if (timeout_ != GroupStateTimeout::kProcessingTimeTimeout) {
    throw std::logic_error(
        "Cannot set timeout duration without enabling processing time timeout in "
        "[map|flatMap]GroupsWithState");
  }
  if (duration_ms <= 0) throw std::invalid_argument("Timeout duration must be positive");
  timeout_at_ = timers_.current_processing_time_ms + duration_ms;
}

void GroupState::setTimeoutTimestamp(int64_t timestamp_ms) {
  if (timeout_ != GroupStateTimeout::kEventTimeTimeout) {
    throw std::logic_error(
        "Cannot set timeout timestamp without enabling event time timeout in "
        "[map|flatMapGroupsWithState");
  }
  if (timers_.current_watermark_ms > 0 && timestamp_ms < timers_.current_watermark_ms) {
    throw std::invalid_argument("Timeout timestamp (" + std::to_string(timestamp_ms) +
                                ") cannot be earlier than the current watermark (" +
                                std::to_string(timers_.current_watermark_ms) + ")");
  }
  timeout_at_ = timestamp_ms;
}

namespace {

// The state value in ValueState "groupState"; the timeout as the key's one timer, at the
// timeout instant + 1 ms (timers fire at or before the clock, Spark's timeouts strictly
// before it).
class GroupStateProcessor final : public StatefulProcessor {
 public:
  GroupStateProcessor(GroupStateFunction fn, SchemaPtr schema, GroupStateTimeout timeout)
      : fn_(std::move(fn)), schema_(std::move(schema)), timeout_(timeout) {}
  void init(StatefulProcessorHandle& h, OutputMode, TimeMode) override {
    handle_ = &h;
    state_.emplace(h.getValueState("groupState", *schema_));
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const TimerValues& tv) override {
    return Call(key, rows, tv, false);
  }
  std::vector<ProcessorRow> handleExpiredTimer(const ProcessorRow& key,
                                               const TimerValues& tv,
                                               const ExpiredTimerInfo&) override {
    return Call(key, {}, tv, true);
  }
  // The initial state's row is the state value (the API selects the state's columns).
  void handleInitialState(const ProcessorRow&, const ProcessorRow& initial_state,
                          const TimerValues&) override {
    state_->update(initial_state);
  }

 private:
  std::vector<ProcessorRow> Call(const ProcessorRow& key,
                                 const std::vector<ProcessorRow>& rows,
                                 const TimerValues& tv, bool timed_out) {
    for (int64_t t : handle_->listTimers()) handle_->deleteTimer(t);
    GroupState gs(state_->get(), timed_out, timeout_, tv);
    std::vector<ProcessorRow> out = fn_(key, rows, gs);
    if (gs.removed()) {
      state_->clear();
    } else if (gs.updated()) {
      state_->update(*gs.getOption());
    }
    if (gs.timeout_at() && !gs.removed()) handle_->registerTimer(*gs.timeout_at() + 1);
    return out;
  }

  GroupStateFunction fn_;
  SchemaPtr schema_;
  GroupStateTimeout timeout_;
  StatefulProcessorHandle* handle_ = nullptr;
  std::optional<ValueState> state_;
};

}  // namespace

StatefulProcessorFactory GroupStateProcessorFactory(GroupStateFunction fn,
                                                    SchemaPtr state_schema,
                                                    GroupStateTimeout timeout) {
  return [fn = std::move(fn), state_schema = std::move(state_schema), timeout]() {
    return std::unique_ptr<StatefulProcessor>(
        std::make_unique<GroupStateProcessor>(fn, state_schema, timeout));
  };
}

}  // namespace spate::stream
