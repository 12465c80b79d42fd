// Copyright spate authors.
// Trigger.RealTime (docs/real-time-mode.md): the checks Spark makes when the query starts
// and when its first batch is planned, and the long-running batch itself.
#include <algorithm>
#include <chrono>
#include <set>

#include "spate/base/text_parse.h"
#include "spate/exec/executor.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/streaming_plan.h"
#include "spate/stream/streaming_query.h"
#include "spate/stream/streaming_query_internal.h"

namespace spate::stream {

namespace {

// Spark's class name for a sink or source description (the errors name classes).
std::string SparkClassName(const std::string& description) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"ForeachBatchSink",
       "org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink"},
      {"MemorySink", "org.apache.spark.sql.execution.streaming.sources.MemorySink"},
      {"NoopSink", "org.apache.spark.sql.execution.datasources.noop.NoopTable$"},
      {"RateStreamV2",
       "org.apache.spark.sql.execution.streaming.sources.RateStreamMicroBatchStream"},
      {"RatePerMicroBatchStream",
       "org.apache.spark.sql.execution.streaming.sources.RatePerMicroBatchStream"},
      {"FileStreamSource", "org.apache.spark.sql.execution.streaming.FileStreamSource"},
      {"TextSocketV2",
       "org.apache.spark.sql.execution.streaming.sources.TextSocketMicroBatchStream"},
      {"DeltaSource", "org.apache.spark.sql.delta.sources.DeltaSource"}};
  std::string head = description.substr(0, description.find('['));
  for (const auto& [name, cls] : kNames) {
    if (head == name) return cls;
  }
  return head;
}

bool RealTimeAllowlistCheck(BatchRunner& runner) {
  return ToLower(runner.GetConf("spark.sql.streaming.realTimeMode.allowlistCheck",
                                "true")) != "false";
}

}  // namespace

// Checked when the query starts, in Spark's order: output mode, batch duration, sink.
Status CheckRealTimeStart(const QueryConfig& config) {
  if (config.output_mode != OutputMode::kUpdate) {
    return Status::Error(
        "STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED",
        {{"outputMode", std::string(OutputModeName(config.output_mode))}});
  }
  std::string min_text =
      config.runner->GetConf("spark.sql.streaming.realTimeMode.minBatchDuration", "5000");
  int64_t min_ms = ParseInt64(min_text).value_or(-1);
  if (min_ms < 0) {
    auto parsed = Trigger::ParseIntervalMs(min_text);
    min_ms = parsed.ok() ? *parsed : 5000;
  }
  if (config.trigger.interval_ms < min_ms) {
    return Status::Error("INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL",
                         {{"interval", std::to_string(config.trigger.interval_ms)},
                          {"minBatchDuration", std::to_string(min_ms)}});
  }
  const std::string sink = config.sink->Describe();
  const bool allowlisted =
      sink == "ConsoleSink" || sink == "KafkaSink" || sink == "ForeachSink";
  if (!allowlisted && RealTimeAllowlistCheck(*config.runner)) {
    return Status::Error(
        "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
        {{"errorType", "sink"}, {"message", SparkClassName(sink) + " is"}});
  }
  if (!config.sink->SupportsRealTime()) {
    // Beyond the allowlist (allowlistCheck=false), a sink that cannot take a batch in
    // pieces would lose rows (Delta's txn would skip every piece after the first).
    return Status::Error("STREAMING_REAL_TIME_MODE.SINK_NOT_SUPPORTED",
                         {{"className", SparkClassName(sink)}});
  }
  return Status::OK();
}

// Spark checks these when it plans the first real-time batch (the query fails then, not
// at start): every source must read in real time, and (Spark 4.2) no stateful operator.
Status StreamingQuery::CheckRealTimeQuery() {
  for (const auto& src : sources_) {
    if (!src->SupportsRealTime()) {
      return Status::Error("STREAMING_REAL_TIME_MODE.INPUT_STREAM_NOT_SUPPORTED",
                           {{"className", SparkClassName(src->Describe())}});
    }
  }
  // One source read twice (a DataFrame unioned with itself), or two alike.
  // (Spark's MemoryStream descriptions carry unique column ids; spate's do not, so two
  // memory streams count as alike only when they are the same one.)
  std::vector<std::string> seen;
  std::vector<const StreamingRelation*> seen_rel;
  bool identical = false;
  for (const auto& rel : FindStreamingRelations(config_.plan)) {
    std::string d = rel->description();
    for (size_t i = 0; i < sources_.size() && i < relations_.size(); ++i) {
      if (relations_[i].get() == rel.get()) d = sources_[i]->Describe();
    }
    const bool same_one =
        std::find(seen_rel.begin(), seen_rel.end(), rel.get()) != seen_rel.end();
    const bool alike = d.rfind("MemoryStream", 0) != 0 &&
                       std::find(seen.begin(), seen.end(), d) != seen.end();
    identical |= same_one || alike;
    seen.push_back(d);
    seen_rel.push_back(rel.get());
  }
  if (identical) {
    std::string all;
    for (const auto& d : seen) all += (all.empty() ? "" : ", ") + d;
    return Status::Error(
        "STREAMING_REAL_TIME_MODE.IDENTICAL_SOURCES_IN_UNION_NOT_SUPPORTED",
        {{"sources", all}});
  }
  SPATE_ASSIGN_OR_RETURN(auto analyzed, config_.runner->Analyze(config_.plan));
  auto nodes = StatefulNodes(*analyzed);
  if (!nodes.empty() && RealTimeAllowlistCheck(*config_.runner)) {
    // Spark names the physical operators outside its allowlist, sorted: the stateful
    // operator's own, the exchange before it, and an aggregation's partial aggregate.
    const std::string stateful =
        "org.apache.spark.sql.execution.streaming.operators.stateful.";
    std::set<std::string> ops;
    for (const auto* n : nodes) {
      auto kind = StatefulKindOf(*n);
      if (!kind) continue;
      ops.insert("org.apache.spark.sql.execution.exchange.ShuffleExchangeExec");
      switch (*kind) {
        case StatefulKind::kAggregate:
          ops.insert("org.apache.spark.sql.execution.aggregate.HashAggregateExec");
          ops.insert(stateful + "StateStoreRestoreExec");
          ops.insert(stateful + "StateStoreSaveExec");
          break;
        case StatefulKind::kDeduplicate:
          ops.insert(stateful + "StreamingDeduplicateExec");
          break;
        case StatefulKind::kDedupWithinWatermark:
          ops.insert(stateful + "StreamingDeduplicateWithinWatermarkExec");
          break;
        case StatefulKind::kGlobalLimit:
          ops.insert(stateful + "StreamingGlobalLimitExec");
          break;
        case StatefulKind::kStreamJoin:
          ops.insert(stateful + "join.StreamingSymmetricHashJoinExec");
          break;
        case StatefulKind::kTransformWithState:
          ops.insert(stateful + "transformwithstate.TransformWithStateExec");
          break;
      }
    }
    std::string names;
    for (const auto& o : ops) names += (names.empty() ? "" : ", ") + o;
    return Status::Error("STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
                         {{"errorType", "operator"}, {"message", names + " are"}});
  }
  if (!nodes.empty()) {
    // Without the allowlist check, spate still runs no stateful operator in real time:
    // its state would have to take a batch in pieces.
    return Status::Error("SPATE_STREAMING_UNSUPPORTED",
                         {{"msg", "stateful operators in real-time mode"}});
  }
  return Status::OK();
}

// Real-time mode: one batch of the trigger's duration. The sources are polled
// continuously; each piece of new data runs through the (stateless) plan and goes to the
// sink at once, as one more AddBatch of this batch id; at the end of the duration the
// sink finishes the batch, then the offsets reached are logged (offsets/N, commits/N).
// Offsets are thus committed after their records are in the sink, as Spark's real-time
// mode does: a crash mid-batch replays the batch's records from its start offsets (the
// sinks allowed here deliver at least once either way).
Status StreamingQuery::RunRealTimeBatch() {
  trigger_begin_ = SteadyClock::now();
  const int64_t trigger_start = config_.clock->NowMs();
  const auto deadline =
      trigger_begin_ + std::chrono::milliseconds(config_.trigger.interval_ms);
  std::map<std::string, int64_t> durations = {
      {"latestOffset", 0}, {"getBatch", 0}, {"queryPlanning", 0}, {"addBatch", 0}};
  std::vector<int64_t> input_rows(sources_.size(), 0);
  int64_t output_rows = 0;
  available_offsets_ = committed_offsets_;
  sql::BoundPlanPtr executed;
  batch_metadata_.batch_timestamp_ms = trigger_start;
  batch_metadata_.batch_watermark_ms = watermark_ms_;
  batch_metadata_.conf = pinned_conf_;
  SetStatus("Processing new data", true, true);
  while (!StopRequested() && SteadyClock::now() < deadline) {
    int64_t seq;
    {
      MutexLock lock(mu_);
      seq = ++trigger_seq_;
      poll_wake_ = false;
    }
    auto t = SteadyClock::now();
    std::vector<std::optional<Json>> next = available_offsets_;
    bool any = false;
    for (size_t i = 0; i < sources_.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto end, sources_[i]->LatestOffset(available_offsets_[i]));
      if (end && !SameOffset(end, available_offsets_[i])) {
        next[i] = end;
        any = true;
      }
    }
    durations["latestOffset"] += ElapsedMs(t);
    if (!any) {
      {
        MutexLock lock(mu_);
        last_no_data_seq_ = seq;
      }
      cv_.notify_all();
      // Poll again soon: a short real-time pause, cut short by ProcessAllAvailable/Stop.
      MutexLock lock(mu_);
      lock.WaitFor(cv_, std::chrono::microseconds(500), [this]() SPATE_REQUIRES(mu_) {
        return StopRequested() || poll_wake_;
      });
      continue;
    }
    t = SteadyClock::now();
    std::vector<DataSourcePtr> inputs;
    std::vector<std::shared_ptr<CountingDataSource>> counters;
    SPATE_RETURN_IF_ERROR(BatchInputs(available_offsets_, next, &inputs, &counters));
    durations["getBatch"] += ElapsedMs(t);
    t = SteadyClock::now();
    SPATE_ASSIGN_OR_RETURN(auto analyzed, config_.runner->Analyze(config_.plan));
    StatefulBatch sb;
    sb.batch_id = current_batch_id_;
    sb.mode = config_.output_mode;
    sb.batch_timestamp_ms = trigger_start;
    sb.query_id = id_;
    MicroBatch mb;
    mb.batch_id = current_batch_id_;
    mb.real_time_piece = true;
    SPATE_ASSIGN_OR_RETURN(mb.analyzed,
                           stateful_->PrepareBatch(analyzed, relations_, inputs, sb));
    mb.runner = config_.runner.get();
    mb.output_mode = config_.output_mode;
    mb.query_id = id_;
    auto wrapped = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kAnalyzed);
    wrapped->bound = mb.analyzed;
    mb.plan = wrapped;
    executed = mb.analyzed;
    durations["queryPlanning"] += ElapsedMs(t);
    t = SteadyClock::now();
    SPATE_ASSIGN_OR_RETURN(int64_t added, config_.sink->AddBatch(mb));
    durations["addBatch"] += ElapsedMs(t);
    if (added > 0) output_rows += added;
    for (size_t i = 0; i < sources_.size(); ++i) input_rows[i] += counters[i]->rows();
    available_offsets_ = std::move(next);
  }
  auto t = SteadyClock::now();
  SPATE_RETURN_IF_ERROR(config_.sink->FinishRealTimeBatch(current_batch_id_));
  durations["addBatch"] += ElapsedMs(t);
  FaultPoint("after_real_time_batch");
  // The batch's offsets, logged at its end, then its commit.
  SPATE_RETURN_IF_ERROR(WriteOffsetLog(&durations));
  SPATE_RETURN_IF_ERROR(WriteCommitLog(&durations));
  FinishBatch(trigger_start, &durations, input_rows, output_rows, executed);
  last_trigger_start_ms_ = trigger_start;
  SetStatus("Waiting for next trigger", false, false);
  return Status::OK();
}

}  // namespace spate::stream
