// Copyright spate authors.
#include "spate/stream/streaming_query.h"

#include <algorithm>
#include <chrono>

#include "spate/base/text_parse.h"
#include "spate/exec/executor.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint_check.h"
#include "spate/stream/streaming_plan.h"
#include "spate/stream/streaming_query_internal.h"
#include "spate/stream/unsupported_checker.h"

namespace spate::stream {

namespace {

/// The session's runner with the confs pinned in the offsets log applied.
class PinnedRunner final : public BatchRunner {
 public:
  PinnedRunner(std::shared_ptr<BatchRunner> inner, int shuffle_partitions)
      : inner_(std::move(inner)), shuffle_partitions_(shuffle_partitions) {}
  Result<sql::BoundPlanPtr> Analyze(const sql::PlanPtr& plan) override {
    return inner_->Analyze(plan);
  }
  exec::ExecOptions MakeExecOptions() override {
    auto o = inner_->MakeExecOptions();
    if (shuffle_partitions_ > 0) o.shuffle_partitions = shuffle_partitions_;
    return o;
  }
  std::string GetConf(const std::string& key, const std::string& dflt) override {
    return inner_->GetConf(key, dflt);
  }
  Result<std::string> ShowString(const sql::PlanPtr& plan, int num_rows,
                                 int truncate) override {
    return inner_->ShowString(plan, num_rows, truncate);
  }

 private:
  std::shared_ptr<BatchRunner> inner_;
  int shuffle_partitions_;
};

}  // namespace

// ---- StreamingQuery

StreamingQuery::StreamingQuery(QueryConfig config, std::string id,
                               StreamingQueryManager* manager)
    : config_(std::move(config)),
      id_(std::move(id)),
      run_id_(RandomUuid()),
      manager_(manager) {}

StreamingQuery::~StreamingQuery() {
  stop_requested_ = true;
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
}

std::vector<std::pair<std::string, std::string>> StreamingQuery::PinnedConf() const {
  // The confs Spark 4.2 pins in every offsets/N (OffsetSeqMetadata's relevant confs), in
  // the order its JSON lists them (a Scala HashMap's), with Spark's defaults; a value the
  // session sets is recorded as set.
  static const std::pair<const char*, const char*> kPinned[] = {
      {"spark.sql.streaming.stateStore.providerClass",
       "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"},
      {"spark.sql.streaming.stateStore.rocksdb.mergeOperatorVersion", "2"},
      {"spark.sql.streaming.stateStore.rocksdb.formatVersion", "5"},
      {"spark.sql.streaming.queryEvolution.enableSourceEvolution", "false"},
      {"spark.sql.streaming.stateStore.encodingFormat", "unsaferow"},
      {"spark.sql.streaming.statefulOperator.useStrictDistribution", "true"},
      {"spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion", "2"},
      {"spark.sql.streaming.multipleWatermarkPolicy", "min"},
      {"spark.sql.streaming.stateStore.rowChecksum.enabled", "false"},
      {"spark.sql.streaming.aggregation.stateFormatVersion", "2"},
      {"spark.sql.function.protobufExtensions.enabled", "false"},
      {"spark.sql.shuffle.partitions", nullptr},
      {"spark.sql.streaming.join.stateFormatVersion", "2"},
      {"spark.sql.streaming.stateStore.compression.codec", "lz4"},
      {"spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan", "false"},
  };
  auto& r = *config_.runner;
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, dflt] : kPinned) {
    std::string d = dflt ? dflt : std::to_string(r.MakeExecOptions().shuffle_partitions);
    out.emplace_back(key, r.GetConf(key, d));
  }
  return out;
}

std::string StreamingQuery::PinnedValue(const std::string& key,
                                        const std::string& dflt) const {
  for (const auto& [k, v] : pinned_conf_) {
    if (k == key) return v;
  }
  return config_.runner->GetConf(key, dflt);
}

void StreamingQuery::UpdateWatermark() {
  last_event_stats_ = stateful_->TakeEventTimeStats();
  const auto& delays = stateful_->watermark_delays();
  if (delays.empty()) return;
  max_event_ms_.resize(delays.size());
  for (size_t i = 0; i < delays.size() && i < last_event_stats_.size(); ++i) {
    const auto& st = last_event_stats_[i];
    if (st.count == 0) continue;
    // Event times in ms as Spark's EventTimeStats (microsToMillis floors).
    int64_t max_ms = st.max >= 0 ? st.max / 1000 : -((-st.max + 999) / 1000);
    if (!max_event_ms_[i] || max_ms > *max_event_ms_[i]) max_event_ms_[i] = max_ms;
  }
  const bool use_max =
      ToLower(PinnedValue("spark.sql.streaming.multipleWatermarkPolicy", "min")) == "max";
  std::optional<int64_t> chosen;
  for (size_t i = 0; i < delays.size(); ++i) {
    if (!max_event_ms_[i]) {
      if (!use_max) return;  // min: wait until every watermarked input has data
      continue;
    }
    int64_t wm = *max_event_ms_[i] - delays[i];
    if (!chosen || (use_max ? wm > *chosen : wm < *chosen)) chosen = wm;
  }
  if (chosen && *chosen > watermark_ms_) watermark_ms_ = *chosen;
}

Status StreamingQuery::Initialize() {
  auto& fs = config_.fs;
  offset_log_ =
      std::make_unique<OffsetSeqLog>(fs, io::JoinPath(config_.checkpoint, "offsets"));
  commit_log_ =
      std::make_unique<CommitLog>(fs, io::JoinPath(config_.checkpoint, "commits"));
  min_batches_to_retain_ = std::max<int64_t>(
      1,
      ParseInt64(config_.runner->GetConf("spark.sql.streaming.minBatchesToRetain", "100"))
          .value_or(100));
  pinned_conf_ = PinnedConf();
  SPATE_ASSIGN_OR_RETURN(auto analyzed, config_.runner->Analyze(config_.plan));
  relations_ = FindStreamingRelations(analyzed);
  auto runner = config_.runner;
  for (size_t i = 0; i < relations_.size(); ++i) {
    SourceContext ctx;
    ctx.fs = fs;
    ctx.metadata_path =
        io::JoinPath(io::JoinPath(config_.checkpoint, "sources"), std::to_string(i));
    ctx.clock = config_.clock;
    ctx.conf = [runner](const std::string& k, const std::string& d) {
      return runner->GetConf(k, d);
    };
    SPATE_ASSIGN_OR_RETURN(SourcePtr src, relations_[i]->factory()(ctx));
    sources_.push_back(std::move(src));
  }
  committed_offsets_.assign(sources_.size(), std::nullopt);
  available_offsets_.assign(sources_.size(), std::nullopt);
  return config_.sink->Start(id_);
}

bool StreamingQuery::IsActive() const {
  MutexLock lock(mu_);
  return active_;
}

StreamingQueryStatus StreamingQuery::status() const {
  MutexLock lock(mu_);
  return status_;
}

std::optional<StreamingQueryProgress> StreamingQuery::LastProgress() const {
  MutexLock lock(mu_);
  if (progress_.empty()) return std::nullopt;
  return progress_.back();
}

std::vector<StreamingQueryProgress> StreamingQuery::RecentProgress() const {
  MutexLock lock(mu_);
  return {progress_.begin(), progress_.end()};
}

std::string StreamingQuery::ExplainString() const {
  sql::BoundPlanPtr plan;
  {
    MutexLock lock(mu_);
    plan = last_plan_;
  }
  if (!plan) return "No physical plan. Waiting for data.";
  auto physical = exec::CreatePhysicalPlan(plan, config_.runner->MakeExecOptions());
  if (!physical.ok()) return physical.status().ToString();
  return "== Physical Plan ==\n" + exec::ExplainString(**physical);
}

std::optional<Status> StreamingQuery::exception() const {
  MutexLock lock(mu_);
  return exception_;
}

Status StreamingQuery::AwaitTermination() {
  MutexLock lock(mu_);
  lock.Wait(cv_, [&]() SPATE_REQUIRES(mu_) { return terminated_; });
  return exception_ ? *exception_ : Status::OK();
}

Result<bool> StreamingQuery::AwaitTermination(int64_t timeout_ms) {
  MutexLock lock(mu_);
  bool done = lock.WaitFor(cv_, std::chrono::milliseconds(timeout_ms),
                           [&]() SPATE_REQUIRES(mu_) { return terminated_; });
  if (done && exception_) return *exception_;
  return done;
}

Status StreamingQuery::ProcessAllAvailable() {
  MutexLock lock(mu_);
  // Done when a trigger that started after this call found nothing new.
  int64_t called_at = trigger_seq_;
  poll_wake_ = true;
  config_.clock->Wake();
  cv_.notify_all();
  lock.Wait(cv_, [&]() SPATE_REQUIRES(mu_) {
    return last_no_data_seq_ > called_at || terminated_;
  });
  return exception_ ? *exception_ : Status::OK();
}

void StreamingQuery::Stop() {
  stop_requested_ = true;
  config_.clock->Wake();
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) {
    thread_.join();
  }
}

void StreamingQuery::SetStatus(const std::string& message, bool data_available,
                               bool trigger_active) {
  MutexLock lock(mu_);
  status_.message = message;
  status_.is_data_available = data_available;
  status_.is_trigger_active = trigger_active;
}

void StreamingQuery::Post(const std::function<void(StreamingQueryListener&)>& fn) {
  if (!manager_) return;
  for (const auto& l : manager_->Listeners()) {
    // A failing listener must not stop the query (Spark logs and continues).
    try {
      fn(*l);
    } catch (...) {
    }
  }
}

void StreamingQuery::Run() {
  Status st;
  try {
    st = RunActivated();
  } catch (const std::exception& e) {
    // Connector code reports errors as Status; anything thrown is a bug, but it must stop
    // this query, not the process.
    st = Status::Internal(std::string("unexpected exception in the streaming query: ") +
                          e.what());
  } catch (...) {
    st = Status::Internal("unexpected exception in the streaming query");
  }
  for (auto& s : sources_) s->Stop();
  config_.sink->Stop();
  // The state stores are released before termination is reported: the query object may
  // be destroyed later on this thread, after awaitTermination() returned and while the
  // process exits (RocksDB closed during the library's own teardown crashed).
  if (stateful_) stateful_->Close();
  std::optional<Status> error;
  if (!st.ok()) {
    error = Status::Error("STREAM_FAILED",
                          {{"id", id_}, {"runId", run_id_}, {"message", st.ToString()}});
  }
  if (!error && config_.temp_checkpoint)
    (void)config_.fs->Delete(config_.checkpoint, true);
  {
    MutexLock lock(mu_);
    exception_ = error;
    status_.message = "Stopped";
    status_.is_data_available = false;
    status_.is_trigger_active = false;
  }
  QueryTerminatedEvent ev{id_, run_id_, std::nullopt, std::nullopt};
  if (error) {
    ev.exception = error->ToString();
    ev.error_class_on_exception = st.error_class().empty()
                                      ? std::nullopt
                                      : std::optional<std::string>(st.error_class());
  }
  Post([&](StreamingQueryListener& l) { l.onQueryTerminated(ev); });
  if (manager_) manager_->NotifyTerminated(this, error);
  {
    MutexLock lock(mu_);
    active_ = false;
    terminated_ = true;
  }
  cv_.notify_all();
}

Status StreamingQuery::PopulateStartOffsets() {
  SPATE_ASSIGN_OR_RETURN(auto latest, offset_log_->LatestBatchId());
  if (!latest) {
    current_batch_id_ = 0;
    batch_constructed_ = false;
    return Status::OK();
  }
  int64_t n = *latest;
  SPATE_ASSIGN_OR_RETURN(auto seq, offset_log_->Get(n));
  if (!seq)
    return Status::Error("BATCH_METADATA_NOT_FOUND",
                         {{"batchMetadataFile", offset_log_->PathOf(n)}});
  if (seq->offsets.size() != sources_.size()) {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "There are [" + std::to_string(seq->offsets.size()) +
                     "] sources in the checkpoint offsets and now there are [" +
                     std::to_string(sources_.size()) +
                     "] sources requested by the query. Cannot continue."}});
  }
  batch_metadata_ = seq->metadata;
  for (const auto& [k, v] : seq->metadata.conf) {
    for (auto& [pk, pv] : pinned_conf_) {
      if (pk == k) pv = v;
    }
  }
  available_offsets_ = seq->offsets;
  if (n > 0) {
    SPATE_ASSIGN_OR_RETURN(auto prev, offset_log_->Get(n - 1));
    if (!prev)
      return Status::Error("BATCH_METADATA_NOT_FOUND",
                           {{"batchMetadataFile", offset_log_->PathOf(n - 1)}});
    committed_offsets_ = prev->offsets;
    if (committed_offsets_.size() != sources_.size())
      committed_offsets_.assign(sources_.size(), std::nullopt);
    prev_batch_watermark_ms_ = prev->metadata.batch_watermark_ms;
  }
  watermark_ms_ = batch_metadata_.batch_watermark_ms;
  SPATE_ASSIGN_OR_RETURN(auto latest_commit, commit_log_->LatestBatchId());
  if (latest_commit) {
    SPATE_ASSIGN_OR_RETURN(auto wm,
                           commit_log_->Get(*latest_commit));  // validates the file
    if (wm && *latest_commit == n) {
      // Batch n finished: its watermark is the previous one for n + 1, and the commit
      // holds the watermark n + 1 starts from (nextBatchWatermarkMs).
      prev_batch_watermark_ms_ = batch_metadata_.batch_watermark_ms;
      watermark_ms_ = std::max(watermark_ms_, *wm);
    }
  }
  current_batch_id_ = n;
  if (latest_commit && *latest_commit == n) {
    // Batch n finished: continue with n + 1 from its end offsets.
    committed_offsets_ = available_offsets_;
    current_batch_id_ = n + 1;
    batch_constructed_ = false;
    last_committed_ = n;
  } else {
    // Batch n was planned but not committed: run it again on the same offsets.
    batch_constructed_ = true;
  }
  return Status::OK();
}

std::optional<Json> StreamingQuery::CommittedOffset(const Source* source) const {
  MutexLock lock(mu_);
  for (size_t i = 0; i < sources_.size() && i < committed_snapshot_.size(); ++i) {
    if (sources_[i].get() == source) return committed_snapshot_[i];
  }
  return std::nullopt;
}

bool StreamingQuery::WaitFor(const std::function<bool()>& pred, int64_t timeout_ms) {
  auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (pred()) return true;
    MutexLock lock(mu_);
    if (terminated_) break;
    if (lock.WaitUntil(
            cv_, std::min(deadline, SteadyClock::now() + std::chrono::milliseconds(5))) ==
            std::cv_status::timeout &&
        SteadyClock::now() >= deadline) {
      break;
    }
  }
  return pred();
}

Status StreamingQuery::CheckStatefulOperators(const sql::BoundPlanPtr& analyzed) {
  // As Spark 4.2 on a restart: the stateful operators must be the ones the checkpoint's
  // operator metadata records (checkpoint_check.h). Planning errors are left to the
  // batch.
  SPATE_ASSIGN_OR_RETURN(auto committed, commit_log_->LatestBatchId());
  if (!committed) return Status::OK();
  auto planned = StatefulRuntime::PlanStatefulOperators(analyzed, record_partitions_);
  if (!planned.ok()) return Status::OK();
  const std::string root = io::JoinPath(config_.checkpoint, "state");
  std::vector<int64_t> ids;
  auto listed = config_.fs->List(root, false);
  if (listed.ok()) {
    for (const io::FileInfo& f : *listed) {
      const std::string name = io::BaseName(f.path);
      if (f.is_directory && !name.empty() &&
          name.find_first_not_of("0123456789") == std::string::npos)
        ids.push_back(ParseInt64(name).value_or(-1));
    }
  } else if (listed.status().code() != StatusCode::kNotFound) {
    return listed.status();
  }
  return CheckStatefulOperatorsAgainstState(*config_.fs, root, ids, *planned, true);
}

Status StreamingQuery::RunActivated() {
  SetStatus("Initializing sources", false, false);
  SPATE_RETURN_IF_ERROR(PopulateStartOffsets());
  {
    MutexLock lock(mu_);
    committed_snapshot_ = committed_offsets_;
  }
  int shuffle = 0;
  for (const auto& [k, v] : pinned_conf_) {
    if (k == "spark.sql.shuffle.partitions") shuffle = ParseInt32(v).value_or(0);
  }
  config_.runner = std::make_shared<PinnedRunner>(config_.runner, shuffle);
  {
    auto runner = config_.runner;
    auto pinned = pinned_conf_;
    SPATE_ASSIGN_OR_RETURN(auto store_conf, state::StateStoreConf::FromConf(
                                                [runner, pinned](const std::string& k,
                                                                 const std::string& d) {
                                                  for (const auto& [pk, pv] : pinned) {
                                                    if (pk == k) return pv;
                                                  }
                                                  return runner->GetConf(k, d);
                                                }));
    record_partitions_ =
        shuffle > 0 ? shuffle : config_.runner->MakeExecOptions().shuffle_partitions;
    stateful_ = std::make_unique<StatefulRuntime>(
        config_.fs, io::JoinPath(config_.checkpoint, "state"), std::move(store_conf),
        record_partitions_);
    SPATE_ASSIGN_OR_RETURN(auto analyzed, config_.runner->Analyze(config_.plan));
    materialize_ = !StatefulNodes(*analyzed).empty();
    SPATE_RETURN_IF_ERROR(CheckStatefulOperators(analyzed));
  }
  const Trigger& trigger = config_.trigger;
  if (trigger.kind == Trigger::Kind::kAvailableNow) {
    for (auto& s : sources_) SPATE_RETURN_IF_ERROR(s->PrepareForAvailableNow());
  }
  if (trigger.kind == Trigger::Kind::kOnce) {
    for (auto& s : sources_) s->SetReadAllAvailable();
  }
  if (trigger.kind == Trigger::Kind::kRealTime)
    SPATE_RETURN_IF_ERROR(CheckRealTimeQuery());
  for (;;) {
    if (StopRequested()) return Status::OK();
    if (trigger.kind == Trigger::Kind::kRealTime) {
      if (batch_constructed_) {
        // A batch logged before a restart but not committed: replayed on its logged
        // offsets as an ordinary batch, then real-time batches go on.
        bool has_data = false;
        SPATE_RETURN_IF_ERROR(RunTrigger(&has_data));
      } else {
        SPATE_RETURN_IF_ERROR(RunRealTimeBatch());
      }
      continue;
    }
    int64_t trigger_start = config_.clock->NowMs();
    int64_t seq;
    {
      MutexLock lock(mu_);
      seq = ++trigger_seq_;
      poll_wake_ = false;
    }
    bool has_data = false;
    SPATE_RETURN_IF_ERROR(RunTrigger(&has_data));
    if (!has_data) {
      MutexLock lock(mu_);
      last_no_data_seq_ = seq;
    }
    cv_.notify_all();
    if (trigger.kind == Trigger::Kind::kOnce) return Status::OK();
    if (trigger.kind == Trigger::Kind::kAvailableNow && !has_data) return Status::OK();
    if (StopRequested()) return Status::OK();
    if (trigger.kind == Trigger::Kind::kProcessingTime && trigger.interval_ms > 0) {
      int64_t next =
          trigger_start / trigger.interval_ms * trigger.interval_ms + trigger.interval_ms;
      SetStatus("Waiting for next trigger", false, false);
      config_.clock->WaitUntil(next, [this] { return StopRequested(); });
    } else if (!has_data) {
      // spark.sql.streaming.pollingDelay: a short real-time pause before polling again.
      MutexLock lock(mu_);
      lock.WaitFor(cv_, std::chrono::milliseconds(10), [this]() SPATE_REQUIRES(mu_) {
        return StopRequested() || poll_wake_;
      });
    }
  }
}

Status StreamingQuery::RunTrigger(bool* has_data) {
  trigger_begin_ = SteadyClock::now();
  int64_t trigger_start = config_.clock->NowMs();
  std::map<std::string, int64_t> durations;
  *has_data = false;
  if (!batch_constructed_) {
    SetStatus("Getting offsets from sources", false, true);
    auto t = SteadyClock::now();
    bool has_new = false;
    for (size_t i = 0; i < sources_.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto end, sources_[i]->LatestOffset(committed_offsets_[i]));
      available_offsets_[i] = end ? end : committed_offsets_[i];
      has_new |= !SameOffset(available_offsets_[i], committed_offsets_[i]);
    }
    durations["latestOffset"] = ElapsedMs(t);
    FaultPoint("after_planning");
    // A batch without new data still runs when the watermark moved and a stateful
    // operator would emit or evict (spark.sql.streaming.noDataMicroBatches.enabled).
    const bool no_data_batch =
        !has_new && (run_no_data_batch_ || stateful_->HasDueTimers(trigger_start)) &&
        config_.runner->GetConf("spark.sql.streaming.noDataMicroBatches.enabled",
                                "true") != "false";
    if (has_new || no_data_batch) {
      run_no_data_batch_ = false;
      prev_batch_watermark_ms_ = batch_metadata_.batch_watermark_ms;
      batch_metadata_.batch_watermark_ms = watermark_ms_;
      batch_metadata_.batch_timestamp_ms = trigger_start;
      batch_metadata_.conf = pinned_conf_;
      SPATE_RETURN_IF_ERROR(WriteOffsetLog(&durations));
      batch_constructed_ = true;
    }
  }
  if (!batch_constructed_) {
    SetStatus("Waiting for data to arrive", false, false);
    // A time conf: "10s", "10000" (ms), as Spark's timeConf.
    int64_t interval =
        TimeStringAsMs(config_.runner->GetConf(
                           "spark.sql.streaming.noDataProgressEventInterval", "10s"))
            .ValueOr(10000);
    // As Spark 4.2's ProgressReporter.updateIdleness: at most once per
    // noDataProgressEventInterval (counted from the last executed batch or the last idle
    // report) a trigger without a batch adds a progress without input to recentProgress
    // (the next batch id, 0 rows) and posts no progress event; listeners get a
    // QueryIdleEvent, except for the run's very first report.
    const int64_t now = config_.clock->NowMs();
    if (!last_no_execution_report_ms_ ||
        now - interval >= *last_no_execution_report_ms_) {
      KeepProgress(MakeProgress(trigger_start, &durations, {}, -1, false), nullptr);
      if (last_no_execution_report_ms_) {
        QueryIdleEvent ev{id_, run_id_, FormatTimestampMs(trigger_start)};
        Post([&](StreamingQueryListener& l) { l.onQueryIdle(ev); });
      }
      last_no_execution_report_ms_ = now;
    }
    last_trigger_start_ms_ = trigger_start;
    return Status::OK();
  }
  *has_data = true;
  SetStatus("Processing new data", true, true);
  SPATE_RETURN_IF_ERROR(RunBatch(trigger_start, &durations));
  last_trigger_start_ms_ = trigger_start;
  SetStatus("Waiting for next trigger", false, false);
  return Status::OK();
}

Status StreamingQuery::BatchInputs(
    const std::vector<std::optional<Json>>& from,
    const std::vector<std::optional<Json>>& to, std::vector<DataSourcePtr>* inputs,
    std::vector<std::shared_ptr<CountingDataSource>>* counters) {
  for (size_t i = 0; i < sources_.size(); ++i) {
    DataSourcePtr ds;
    if (!to[i] || SameOffset(from[i], to[i])) {
      ds = std::make_shared<BatchesDataSource>(
          sources_[i]->schema(), std::vector<BatchPtr>{}, sources_[i]->Describe());
    } else {
      SPATE_ASSIGN_OR_RETURN(ds, sources_[i]->GetBatch(from[i], *to[i]));
    }
    counters->push_back(std::make_shared<CountingDataSource>(ds));
    inputs->push_back(counters->back());
  }
  return Status::OK();
}

Status StreamingQuery::RunBatch(int64_t trigger_start,
                                std::map<std::string, int64_t>* durations) {
  std::vector<DataSourcePtr> inputs;
  std::vector<std::shared_ptr<CountingDataSource>> counters;
  auto t = SteadyClock::now();
  SPATE_RETURN_IF_ERROR(
      BatchInputs(committed_offsets_, available_offsets_, &inputs, &counters));
  (*durations)["getBatch"] = ElapsedMs(t);
  t = SteadyClock::now();
  MicroBatch mb;
  mb.batch_id = current_batch_id_;
  // The plan is analyzed every batch (a static side is read again), then the streaming
  // leaves read this batch's rows and the stateful operators run against the stores.
  SPATE_ASSIGN_OR_RETURN(auto analyzed, config_.runner->Analyze(config_.plan));
  StatefulBatch sb;
  sb.batch_id = current_batch_id_;
  sb.mode = config_.output_mode;
  sb.late_watermark_ms = prev_batch_watermark_ms_;
  sb.eviction_watermark_ms = batch_metadata_.batch_watermark_ms;
  sb.batch_timestamp_ms = batch_metadata_.batch_timestamp_ms;
  sb.query_id = id_;
  SPATE_ASSIGN_OR_RETURN(mb.analyzed,
                         stateful_->PrepareBatch(analyzed, relations_, inputs, sb));
  mb.runner = config_.runner.get();
  mb.output_mode = config_.output_mode;
  mb.query_id = id_;
  (*durations)["queryPlanning"] = ElapsedMs(t);
  FaultPoint("during_processing");
  t = SteadyClock::now();
  sql::BoundPlanPtr executed = mb.analyzed;
  if (materialize_) {
    // Stateful: the engine runs the batch once; the sink (and a foreachBatch function,
    // however often it reads it) gets the rows, so state is never touched twice.
    auto run = exec::Collect(mb.analyzed, config_.runner->MakeExecOptions());
    if (!run.ok()) {
      stateful_->AbortBatch();
      return run.status();
    }
    auto local = std::make_shared<sql::BoundPlan>(sql::BoundKind::kLocal);
    local->output = mb.analyzed->output;
    local->batches = std::move(*run);
    mb.analyzed = local;
  }
  auto wrapped = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kAnalyzed);
  wrapped->bound = mb.analyzed;
  mb.plan = wrapped;
  auto added = config_.sink->AddBatch(mb);
  if (!added.ok()) {
    stateful_->AbortBatch();
    return added.status();
  }
  const int64_t output_rows = *added;
  (*durations)["addBatch"] = ElapsedMs(t);
  FaultPoint("before_state_commit");
  SPATE_RETURN_IF_ERROR(stateful_->CommitBatch());
  FaultPoint("after_state_commit");
  UpdateWatermark();
  SPATE_RETURN_IF_ERROR(WriteCommitLog(durations));
  run_no_data_batch_ = stateful_->ShouldRunAnotherBatch(watermark_ms_);
  if (!record_written_) {
    // What `spate checkpoint check` compares a changed query with (sources, sink, output
    // mode, watermarks, operators: checkpoint_check.h), once per run after its first
    // commit. An aid, not part of the protocol: a failure to write it is not the query's.
    record_written_ = true;
    if (!config_.temp_checkpoint) {
      auto analyzed = config_.runner->Analyze(config_.plan);
      if (analyzed.ok()) {
        auto shape = ShapeOfQuery(*analyzed, config_.output_mode,
                                  config_.sink->Describe(), record_partitions_);
        if (shape.ok()) (void)WriteQueryRecord(*config_.fs, config_.checkpoint, *shape);
      }
    }
  }

  std::vector<int64_t> input_rows;
  for (const auto& c : counters) input_rows.push_back(c->rows());
  FinishBatch(trigger_start, durations, input_rows, output_rows, executed);
  return Status::OK();
}

Status StreamingQuery::WriteOffsetLog(std::map<std::string, int64_t>* durations) {
  auto t = SteadyClock::now();
  SPATE_RETURN_IF_ERROR(offset_log_->Add(current_batch_id_,
                                         OffsetSeq{available_offsets_, batch_metadata_}));
  (*durations)["walCommit"] = ElapsedMs(t);
  FaultPoint("after_offsets_write");
  if (current_batch_id_ >= min_batches_to_retain_) {
    SPATE_RETURN_IF_ERROR(offset_log_->Purge(current_batch_id_ - min_batches_to_retain_));
    SPATE_RETURN_IF_ERROR(commit_log_->Purge(current_batch_id_ - min_batches_to_retain_));
  }
  return Status::OK();
}

Status StreamingQuery::WriteCommitLog(std::map<std::string, int64_t>* durations) {
  FaultPoint("before_commit_log");
  auto t = SteadyClock::now();
  SPATE_RETURN_IF_ERROR(commit_log_->Add(current_batch_id_, watermark_ms_));
  (*durations)["commitOffsets"] = ElapsedMs(t);
  FaultPoint("after_commit_log");
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (available_offsets_[i])
      SPATE_RETURN_IF_ERROR(sources_[i]->Commit(*available_offsets_[i]));
  }
  last_committed_ = current_batch_id_;
  return Status::OK();
}

void StreamingQuery::FinishBatch(int64_t trigger_start,
                                 std::map<std::string, int64_t>* durations,
                                 const std::vector<int64_t>& input_rows,
                                 int64_t output_rows, sql::BoundPlanPtr executed) {
  QueryProgressEvent ev{
      MakeProgress(trigger_start, durations, input_rows, output_rows, true)};
  last_no_execution_report_ms_ = config_.clock->NowMs();  // idle reports count from here
  last_executed_ = ev.progress;
  KeepProgress(ev.progress, std::move(executed));
  committed_offsets_ = available_offsets_;
  {
    MutexLock lock(mu_);
    committed_snapshot_ = committed_offsets_;
  }
  ++current_batch_id_;
  batch_constructed_ = false;
  Post([&](StreamingQueryListener& l) { l.onQueryProgress(ev); });
}

}  // namespace spate::stream
