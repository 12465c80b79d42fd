// Copyright spate authors.
// StreamingQueryManager: the session's registry of active queries and listeners.
#include <algorithm>

#include "spate/stream/checkpoint_check.h"
#include "spate/stream/streaming_plan.h"
#include "spate/stream/streaming_query.h"
#include "spate/stream/streaming_query_internal.h"
#include "spate/stream/unsupported_checker.h"

namespace spate::stream {

// ---- StreamingQueryManager

StreamingQueryManager::~StreamingQueryManager() { StopAll(); }

Result<StreamingQueryPtr> StreamingQueryManager::StartQuery(QueryConfig config) {
  if (QueryStartHook hook = GetQueryStartHook()) {
    // `spate checkpoint check`: the query is handed over, never started.
    Status st = hook(config);
    if (!st.ok()) return st;
    return Status::Error(kQueryNotStarted,
                         {{"msg",
                           "The query was handed to `spate checkpoint check` and not "
                           "started"}});
  }
  if (config.trigger.kind == Trigger::Kind::kRealTime) {
    SPATE_RETURN_IF_ERROR(CheckRealTimeStart(config));
  }
  if (config.trigger.kind == Trigger::Kind::kContinuous) {
    return Status::Error(
        "SPATE_STREAMING_UNSUPPORTED",
        {{"msg",
          "Continuous processing (Trigger.Continuous) is not supported: use the "
          "default trigger, ProcessingTime, AvailableNow or Once"}});
  }
  {
    SPATE_ASSIGN_OR_RETURN(auto analyzed, config.runner->Analyze(config.plan));
    SPATE_RETURN_IF_ERROR(CheckStreamingQuery(*analyzed, config.output_mode));
  }
  if (!config.clock) config.clock = SystemClock::Get();
  SPATE_ASSIGN_OR_RETURN(
      std::string id,
      ReadOrCreateStreamMetadata(*config.fs, config.checkpoint, RandomUuid()));
  auto query =
      std::shared_ptr<StreamingQuery>(new StreamingQuery(std::move(config), id, this));
  {
    MutexLock lock(mu_);
    if (query->name()) {
      for (const auto& [qid, q] : active_) {
        if (q->name() == query->name()) {
          return Status::Invalid(
              "Cannot start query with name " + *query->name() +
              " as a query with that name is already active in this SparkSession");
        }
      }
    }
    if (active_.count(id)) return Status::Error("CONCURRENT_QUERY");
    active_[id] = query;
  }
  Status st = query->Initialize();
  if (!st.ok()) {
    MutexLock lock(mu_);
    active_.erase(id);
    return st;
  }
  {
    MutexLock lock(query->mu_);
    query->active_ = true;
  }
  QueryStartedEvent ev{query->id(), query->run_id(), query->name(),
                       FormatTimestampMs(query->config_.clock->NowMs())};
  for (const auto& l : Listeners()) {
    try {
      l->onQueryStarted(ev);
    } catch (...) {
    }
  }
  auto self = query;
  query->thread_ = std::thread([self]() mutable {
    self->Run();
    self.reset();
  });
  return query;
}

std::vector<StreamingQueryPtr> StreamingQueryManager::Active() const {
  MutexLock lock(mu_);
  std::vector<StreamingQueryPtr> out;
  for (const auto& [id, q] : active_) out.push_back(q);
  return out;
}

StreamingQueryPtr StreamingQueryManager::Get(const std::string& id) const {
  MutexLock lock(mu_);
  auto it = active_.find(id);
  return it == active_.end() ? nullptr : it->second;
}

Status StreamingQueryManager::AwaitAnyTermination() {
  MutexLock lock(mu_);
  lock.Wait(cv_, [&]() SPATE_REQUIRES(mu_) { return any_terminated_; });
  return last_terminated_error_ ? *last_terminated_error_ : Status::OK();
}

Result<bool> StreamingQueryManager::AwaitAnyTermination(int64_t timeout_ms) {
  MutexLock lock(mu_);
  bool done = lock.WaitFor(cv_, std::chrono::milliseconds(timeout_ms),
                           [&]() SPATE_REQUIRES(mu_) { return any_terminated_; });
  if (done && last_terminated_error_) return *last_terminated_error_;
  return done;
}

void StreamingQueryManager::ResetTerminated() {
  MutexLock lock(mu_);
  any_terminated_ = false;
  last_terminated_error_.reset();
}

void StreamingQueryManager::AddListener(StreamingQueryListenerPtr listener) {
  MutexLock lock(mu_);
  listeners_.push_back(std::move(listener));
}

void StreamingQueryManager::RemoveListener(const StreamingQueryListenerPtr& listener) {
  MutexLock lock(mu_);
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), listener),
                   listeners_.end());
}

std::vector<StreamingQueryListenerPtr> StreamingQueryManager::Listeners() const {
  MutexLock lock(mu_);
  return listeners_;
}

void StreamingQueryManager::StopAll() {
  for (const auto& q : Active()) q->Stop();
}

void StreamingQueryManager::NotifyTerminated(StreamingQuery* q,
                                             const std::optional<Status>& error) {
  StreamingQueryPtr keep;
  {
    MutexLock lock(mu_);
    auto it = active_.find(q->id());
    if (it != active_.end() && it->second.get() == q) {
      keep = it->second;
      active_.erase(it);
    }
    any_terminated_ = true;
    if (error && !last_terminated_error_) last_terminated_error_ = error;
  }
  cv_.notify_all();
  // `keep` is released here, on the query thread, while the thread lambda still holds
  // its own reference.
}

}  // namespace spate::stream
