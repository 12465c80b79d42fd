// Copyright spate authors.
#pragma once

// StatefulRuntime: the incremental half of a streaming query's execution (Spark's
// IncrementalExecution + the stateful physical operators).
//
// Every micro-batch the query analyzes its plan and hands the analyzed plan to
// PrepareBatch, which returns an ordinary batch plan in which
//   * each streaming leaf reads the batch's rows of its source;
//   * each withWatermark node over a stream records the event times it passes
//     (EventTimeWatermarkExec: max, min, avg, count per batch);
//   * each streaming aggregation becomes partial aggregation -> exchange by key ->
//     StateStoreSave: the partial states of the batch merged with the state store's, one
//     row per key written back, and the output mode's rows emitted (Update: the keys
//     changed by the batch; Complete: every key; Append: the keys whose event time fell
//     to the watermark, which are then evicted). Keys whose event time is at or below the
//     previous batch's watermark are late: dropped and counted;
//   * each streaming dropDuplicates / distinct / dropDuplicatesWithinWatermark becomes
//     exchange by key -> StreamingDeduplicate (first row per key emitted, key stored;
//     rows older than the watermark dropped; keys evicted by event time / expiry).
// The engine (not the sink) executes that plan once; the stores each partition opened
// stay uncommitted until CommitBatch, which the query calls after the sink wrote the
// batch and before commits/N. Operator ids are the stateful nodes' pre-order positions
// (StatefulNodes), state lives at <checkpoint>/state/<operatorId>/<partition>/, and each
// partition's store version N is loaded by batch N and version N+1 committed by it.
//
// Ownership: owned by its StreamingQuery; plans returned by PrepareBatch reference it and
// must not outlive it. Thread safety: PrepareBatch / CommitBatch / AbortBatch and the
// accessors are called from the query thread; the physical operators run partitions on
// the thread pool (each partition touches only its own store; shared metrics are locked).
// Failure: store and schema errors (CANNOT_LOAD_STATE_STORE,
// STATE_STORE_*_NOT_COMPATIBLE) come back from execution; after a failure AbortBatch
// discards the open stores.

#include <cstdint>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "spate/io/file_system.h"
#include "spate/sql/bound_plan.h"
#include "spate/state/state_store.h"
#include "spate/stream/progress.h"
#include "spate/stream/source.h"
#include "spate/stream/streaming_plan.h"

namespace spate::stream {

/// Event times (µs) seen by one withWatermark node in one batch (Spark's EventTimeStats).
struct EventTimeStats {
  int64_t max = std::numeric_limits<int64_t>::min();
  int64_t min = std::numeric_limits<int64_t>::max();
  double avg = 0;
  int64_t count = 0;
  void Add(int64_t v) {
    if (v > max) max = v;
    if (v < min) min = v;
    ++count;
    avg += (static_cast<double>(v) - avg) / static_cast<double>(count);
  }
  void Merge(const EventTimeStats& o);
};

/// What one batch's stateful operators run with.
struct StatefulBatch {
  int64_t batch_id = 0;
  OutputMode mode = OutputMode::kAppend;
  /// Rows (keys) with event time at or before it are late: the previous batch's
  /// watermark (Spark's eventTimeWatermarkForLateEvents).
  int64_t late_watermark_ms = 0;
  /// The watermark of this batch (eventTimeWatermarkForEviction).
  int64_t eviction_watermark_ms = 0;
  /// The batch's processing time (offsets/N's batchTimestampMs) and the query's id.
  int64_t batch_timestamp_ms = 0;
  std::string query_id;
};

/// One stateful operator as the runtime plans it (PlanStatefulOperators): what its state
/// would hold if the plan ran.
struct PlannedStatefulOperator {
  int64_t operator_id = 0;
  StatefulKind kind = StatefulKind::kAggregate;
  /// Spark's operator name, as written to state/<id>/_metadata/operator and progress.
  std::string name;
  int num_partitions = 1;
  std::vector<std::string> store_names = {"default"};
  SchemaPtr key_schema, value_schema;
  /// An aggregation's state value as Spark writes it (its aggregation buffers; see
  /// spark_state_schema.h), nullptr when not an aggregation or not known: compared with
  /// the value schema of a checkpoint Spark wrote.
  SchemaPtr spark_value_schema;
  bool event_time_key = false;
};

class StatefulRuntime {
 public:
  /// `state_root` = <checkpoint>/state; `num_partitions` the pinned
  /// spark.sql.shuffle.partitions.
  StatefulRuntime(io::FileSystemPtr fs, std::string state_root,
                  state::StateStoreConf conf, int num_partitions);
  ~StatefulRuntime();
  StatefulRuntime(const StatefulRuntime&) = delete;
  StatefulRuntime& operator=(const StatefulRuntime&) = delete;

  /// The batch plan for `analyzed` (see the file comment). `relations[i]` reads
  /// `inputs[i]`.
  Result<sql::BoundPlanPtr> PrepareBatch(
      const sql::BoundPlanPtr& analyzed,
      const std::vector<std::shared_ptr<const StreamingRelation>>& relations,
      const std::vector<DataSourcePtr>& inputs, const StatefulBatch& batch);
  /// The stateful operators `analyzed` would run with (ids in the runtime's pre-order,
  /// names, partitions, store names, key and value schemas), computed by the very code
  /// PrepareBatch runs — in a mode that records each operator instead of checking or
  /// writing its schema and opens no store. `checkpoint check` compares them with what
  /// a checkpoint recorded. Errors: those planning would raise (e.g. a
  /// dropDuplicatesWithinWatermark without a watermark).
  static Result<std::vector<PlannedStatefulOperator>> PlanStatefulOperators(
      const sql::BoundPlanPtr& analyzed, int num_partitions);

  /// Commits version batch_id + 1 of every store the batch opened; gathers progress.
  Status CommitBatch();
  /// Discards the batch's open stores (a failed batch: it will be replayed).
  void AbortBatch();
  /// Aborts what is open and closes every provider (RocksDB instances, loaded maps): the
  /// query calls it when its run ends, before it reports termination. A later batch
  /// would reopen the providers.
  void Close();

  /// Per withWatermark node over a stream (plan order): its delay (ms).
  const std::vector<int64_t>& watermark_delays() const { return watermark_delays_; }
  /// Per withWatermark node: the event times of the last executed batch.
  std::vector<EventTimeStats> TakeEventTimeStats();
  /// Progress "stateOperators" of the last committed batch.
  std::vector<StateOperatorProgress> Progress() const;
  /// Spark's shouldRunAnotherBatch: an operator of the last batch would evict or emit if
  /// the global watermark moved to `new_watermark_ms` (each operator judged by its own
  /// input watermark, propagated through the plan).
  bool ShouldRunAnotherBatch(int64_t new_watermark_ms) const;
  /// A processing-time timer of the last batch is due at `now_ms` (the query's clock): a
  /// batch must run for it even without new data.
  bool HasDueTimers(int64_t now_ms) const;
  bool has_stateful_operators() const { return !ops_.empty(); }

  struct Operator;  // one stateful operator's stores and metrics (stateful.cc)
  struct Rewriter;

 private:
  void WaitForMaintenance();

  // PlanStatefulOperators: streaming leaves are left as they are, operators are recorded
  // in planned_ and no schema is checked or written.
  bool dry_run_ = false;
  std::vector<PlannedStatefulOperator> planned_;
  io::FileSystemPtr fs_;
  std::string root_;
  state::StateStoreConf conf_;
  int num_partitions_;
  StatefulBatch batch_;
  std::vector<std::unique_ptr<Operator>> ops_;
  std::vector<int64_t> watermark_delays_;
  std::mutex stats_mu_;
  std::vector<EventTimeStats> stats_;
  std::vector<StateOperatorProgress> progress_;
  // The last batch's analyzed plan and its operators' input watermarks (by operator id).
  sql::BoundPlanPtr last_plan_;
  std::vector<int64_t> op_late_ms_, op_eviction_ms_;
  std::future<void> maintenance_;  // the providers' DoMaintenance after the last commit
};

}  // namespace spate::stream
