// Copyright spate authors.
#pragma once

// Arbitrary state: transformWithState's StatefulProcessor (Spark 4's API) and the plan
// node that runs one per grouping key.
//
// A query `df.groupBy(keys).transformWithState(factory, outputSchema, outputMode,
// timeMode)` runs, every micro-batch and per shuffle partition, a fresh processor from
// `factory`: init(handle) declares the state variables (ValueState, ListState, MapState;
// each with an optional TTL); then per grouping key that has new rows
// handleInputRows(key, rows, timers); then per key whose timer expired (processing time:
// at or before the batch's timestamp; event time: at or before the operator's watermark)
// handleExpiredTimer(key, timers, expired), the timer deleted first; then close(). State
// variables and timers read and write the grouping key the processor is called for.
// Values whose TTL passed (processing time: batch timestamp >= update time + TTL) read as
// absent and are removed at the end of the batch. The rows the processor returns are the
// operator's output (append or update mode: passed as they are).
//
// State lives in the operator's state store, one per partition (checkpointed and
// recovered after a crash as every stateful operator's): variable `name` of key K at
//   "v" 0 name 0 K -> expiry µs | RowCodec(value)                   ValueState
//   "l" 0 name 0 K -> count | per element: expiry, length, RowCodec  ListState
//   "m" 0 name 0 K -> count | per entry: expiry, key len, key, value len, value  MapState
//   "t" 0 K        -> the key's timers (sorted int64 ms)
// With an initial state (InitialState, below) the query's first batch (and a batch query)
// first calls handleInitialState(key, row, timers) once per row of it.
// In a batch query the processor runs over the whole input once with empty state.
//
// Ownership: the plan node owns the factory; processors and handles live for one
// partition of one batch. Thread safety: partitions run concurrently, each with its own
// processor and handle (a factory must be callable from any thread). Failure: an
// exception thrown by the processor fails the batch
// (TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR); state is then not committed and the batch
// replays.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spate/exec/planner.h"
#include "spate/sql/bound_plan.h"
#include "spate/stream/source.h"

namespace spate::stream {

using ProcessorRow = std::vector<Value>;

enum class TimeMode : uint8_t { kNone, kProcessingTime, kEventTime };
/// "None", "ProcessingTime", "EventTime" (case-insensitive), else nullopt.
std::optional<TimeMode> ParseTimeMode(const std::string& s);

/// Spark's TTLConfig: how long a value lives after its last update (0: forever, Spark's
/// TTLConfig.NONE). A TTL is allowed only in TimeMode ProcessingTime, and must be
/// positive: declaring one otherwise throws StateVariableError (below), as Spark's handle
/// does.
struct TTLConfig {
  int64_t ttl_ms = 0;
};

/// Thrown by StatefulProcessorHandle::get*State when Spark refuses the declaration: a TTL
/// in time mode None or EventTime (STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL),
/// a negative TTL (STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE). A processor may
/// catch it; uncaught, it fails the batch with `status()` itself (not wrapped in
/// TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR), as Spark fails the query with its
/// exception.
class StateVariableError : public std::runtime_error {
 public:
  explicit StateVariableError(Status status)
      : std::runtime_error(status.ToString()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

/// The batch's clocks as the processor sees them (Spark's TimerValues).
struct TimerValues {
  int64_t current_processing_time_ms = 0;
  int64_t current_watermark_ms = 0;  // 0 when the query has no watermark
};

/// The timer that fired (Spark's ExpiredTimerInfo).
struct ExpiredTimerInfo {
  int64_t expiry_time_ms = 0;
};

class StatefulProcessorHandle;

/// One state variable of the current grouping key. Values are rows of the variable's
/// schema.
class ValueState {
 public:
  bool exists() const;
  /// The value, or nullopt.
  std::optional<ProcessorRow> get() const;
  void update(const ProcessorRow& value);
  void clear();

 private:
  friend class StatefulProcessorHandle;
  ValueState(StatefulProcessorHandle* h, int var) : h_(h), var_(var) {}
  StatefulProcessorHandle* h_;
  int var_;
};

class ListState {
 public:
  bool exists() const;
  std::vector<ProcessorRow> get() const;
  /// Replaces the list.
  void put(const std::vector<ProcessorRow>& values);
  void appendValue(const ProcessorRow& value);
  void appendList(const std::vector<ProcessorRow>& values);
  void clear();

 private:
  friend class StatefulProcessorHandle;
  ListState(StatefulProcessorHandle* h, int var) : h_(h), var_(var) {}
  StatefulProcessorHandle* h_;
  int var_;
};

class MapState {
 public:
  bool exists() const;
  std::optional<ProcessorRow> getValue(const ProcessorRow& key) const;
  bool containsKey(const ProcessorRow& key) const;
  void updateValue(const ProcessorRow& key, const ProcessorRow& value);
  /// (key, value) pairs in key-encoding order.
  std::vector<std::pair<ProcessorRow, ProcessorRow>> iterator() const;
  std::vector<ProcessorRow> keys() const;
  std::vector<ProcessorRow> values() const;
  void removeKey(const ProcessorRow& key);
  void clear();

 private:
  friend class StatefulProcessorHandle;
  MapState(StatefulProcessorHandle* h, int var) : h_(h), var_(var) {}
  StatefulProcessorHandle* h_;
  int var_;
};

/// What a processor reaches state through (Spark's StatefulProcessorHandle). Implemented
/// by the operator (transform_with_state.cc).
class StatefulProcessorHandle {
 public:
  virtual ~StatefulProcessorHandle() = default;
  /// Declared in init(); the same name must keep its schema across batches.
  virtual ValueState getValueState(const std::string& name, const Schema& schema,
                                   TTLConfig ttl = {}) = 0;
  virtual ListState getListState(const std::string& name, const Schema& schema,
                                 TTLConfig ttl = {}) = 0;
  virtual MapState getMapState(const std::string& name, const Schema& key_schema,
                               const Schema& value_schema, TTLConfig ttl = {}) = 0;
  /// Timers of the current grouping key (ms: processing time or event time per the mode).
  virtual void registerTimer(int64_t expiry_ms) = 0;
  virtual void deleteTimer(int64_t expiry_ms) = 0;
  virtual std::vector<int64_t> listTimers() = 0;
  /// Removes every value of the variable `name` (all keys).
  virtual void deleteIfExists(const std::string& name) = 0;
  virtual std::string queryId() const = 0;
  virtual int64_t batchId() const = 0;
  virtual int partitionId() const = 0;

 protected:
  friend class ValueState;
  friend class ListState;
  friend class MapState;
  // For implementations: the variable objects over variable number `var`.
  static ValueState MakeValueState(StatefulProcessorHandle* h, int var) {
    return ValueState(h, var);
  }
  static ListState MakeListState(StatefulProcessorHandle* h, int var) {
    return ListState(h, var);
  }
  static MapState MakeMapState(StatefulProcessorHandle* h, int var) {
    return MapState(h, var);
  }
  // Per-variable access for the current key (a value whose TTL passed reads as absent).
  virtual bool VarExists(int var) = 0;
  virtual void VarClear(int var) = 0;
  virtual std::optional<ProcessorRow> ValueGet(int var) = 0;
  virtual void ValuePut(int var, const ProcessorRow& v) = 0;
  virtual std::vector<ProcessorRow> ListGet(int var) = 0;
  virtual void ListPut(int var, const std::vector<ProcessorRow>& v, bool append) = 0;
  virtual std::vector<std::pair<ProcessorRow, ProcessorRow>> MapGet(int var) = 0;
  virtual std::optional<ProcessorRow> MapGetValue(int var, const ProcessorRow& key) = 0;
  virtual void MapPut(int var, const ProcessorRow& key, const ProcessorRow& value) = 0;
  virtual void MapRemove(int var, const ProcessorRow& key) = 0;
};

/// Spark's StatefulProcessor. Subclass and return rows of the operator's output schema.
class StatefulProcessor {
 public:
  virtual ~StatefulProcessor() = default;
  virtual void init(StatefulProcessorHandle& handle, OutputMode mode,
                    TimeMode time_mode) = 0;
  virtual std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                                    const std::vector<ProcessorRow>& rows,
                                                    const TimerValues& timers) = 0;
  virtual std::vector<ProcessorRow> handleExpiredTimer(const ProcessorRow& key,
                                                       const TimerValues& timers,
                                                       const ExpiredTimerInfo& expired) {
    (void)key;
    (void)timers;
    (void)expired;
    return {};
  }
  /// With an initial state (transformWithState's initialState): called in the query's
  /// first batch, before any input row, once per row of the initial state with the row's
  /// grouping key and the whole row (all its columns). A key may appear only once
  /// (STATEFUL_PROCESSOR_CANNOT_REINITIALIZE_STATE_ON_KEY). A no-op unless overridden, as
  /// PySpark's.
  virtual void handleInitialState(const ProcessorRow& key,
                                  const ProcessorRow& initial_state,
                                  const TimerValues& timers) {
    (void)key;
    (void)initial_state;
    (void)timers;
  }
  /// All the initial state rows of one key (more than one only when
  /// acceptsRepeatedInitialStateKeys()); by default handleInitialState per row.
  virtual void handleInitialStateRows(const ProcessorRow& key,
                                      const std::vector<ProcessorRow>& rows,
                                      const TimerValues& timers) {
    for (const auto& r : rows) handleInitialState(key, r, timers);
  }
  /// Whether a key may appear in several initial state rows: PySpark's processors take
  /// them all (a pandas DataFrame of the key's rows, or one Row at a time), Scala's (and
  /// the C++ API's) fail with STATEFUL_PROCESSOR_CANNOT_REINITIALIZE_STATE_ON_KEY.
  virtual bool acceptsRepeatedInitialStateKeys() const { return false; }
  virtual void close() {}
};

using StatefulProcessorFactory = std::function<std::unique_ptr<StatefulProcessor>()>;

/// The initial state of a transformWithState / flatMapGroupsWithState query: `load`
/// returns its rows (a batch query run once, in the query's first batch; a batch query
/// runs it too) whose first `num_keys` columns are the grouping keys, typed as the
/// query's keys, and the rest the row handed to handleInitialState.
struct InitialState {
  std::function<Result<std::vector<BatchPtr>>()> load;
  SchemaPtr schema;
  int num_keys = 0;
  /// flatMapGroupsWithState's rules: a key found only in the initial state is still
  /// called (with no rows) unless `skip_keys_without_rows`; a duplicate key fails with
  /// Spark's IllegalArgumentException text instead of transformWithState's error class.
  bool group_state = false;
  bool skip_keys_without_rows = false;
};

/// The payload of the plan node (BoundKind::kExtension whose group_exprs are the grouping
/// keys over its child): planned in a batch query with empty state; a streaming query's
/// runtime replaces it with the stateful operator.
class TransformWithStateNode final
    : public exec::PhysicalExtension,
      public std::enable_shared_from_this<TransformWithStateNode> {
 public:
  /// `operator_name`: the progress name ("transformWithStateExec";
  /// "flatMapGroupsWithState" for the GroupState API built on it).
  TransformWithStateNode(StatefulProcessorFactory factory, SchemaPtr output,
                         OutputMode mode, TimeMode time_mode,
                         std::string operator_name = "transformWithStateExec")
      : factory_(std::move(factory)),
        output_(std::move(output)),
        mode_(mode),
        time_mode_(time_mode),
        operator_name_(std::move(operator_name)) {}
  std::string Describe() const override;
  Result<exec::PhysicalOpPtr> PlanPhysical(
      std::vector<exec::PhysicalOpPtr> children,
      const exec::ExecOptions& options) const override;
  std::shared_ptr<const sql::BoundExtension> WithGroupKeys(
      std::vector<BoundExprPtr> keys,
      std::vector<sql::Attribute> key_attributes) const override;
  /// The grouping keys over the child (set by the analyzer through WithGroupKeys).
  const std::vector<BoundExprPtr>& keys() const { return keys_; }
  const std::vector<sql::Attribute>& key_attributes() const { return key_attributes_; }
  const StatefulProcessorFactory& factory() const { return factory_; }
  const SchemaPtr& output() const { return output_; }
  OutputMode mode() const { return mode_; }
  TimeMode time_mode() const { return time_mode_; }
  const std::string& operator_name() const { return operator_name_; }
  /// The initial state, or nullptr.
  const std::shared_ptr<const InitialState>& initial_state() const {
    return initial_state_;
  }
  void set_initial_state(std::shared_ptr<const InitialState> s) {
    initial_state_ = std::move(s);
  }
  /// mapGroupsWithState (one row per call; Update mode only, as Spark checks).
  bool map_groups_with_state() const { return map_groups_; }
  void set_map_groups_with_state(bool v) { map_groups_ = v; }

 private:
  StatefulProcessorFactory factory_;
  SchemaPtr output_;
  OutputMode mode_;
  TimeMode time_mode_;
  std::string operator_name_;
  std::vector<BoundExprPtr> keys_;
  std::vector<sql::Attribute> key_attributes_;
  std::shared_ptr<const InitialState> initial_state_;
  bool map_groups_ = false;
};

/// The TransformWithStateNode of a plan node, or nullptr.
const TransformWithStateNode* TransformWithStateOf(const sql::BoundPlan& node);

}  // namespace spate::stream
