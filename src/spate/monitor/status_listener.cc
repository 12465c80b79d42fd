// Copyright spate authors.
#include "spate/monitor/status_listener.h"

#include <algorithm>
#include <chrono>

namespace spate::monitor {

namespace {
int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

QueryRun& StreamingQueryStatusListener::RunOf(const std::string& id,
                                              const std::string& run_id) {
  auto [it, inserted] = runs_.try_emplace(run_id);
  if (inserted) {
    it->second.id = id;
    it->second.run_id = run_id;
    it->second.start_ms = WallMs();
    it->second.seq = next_seq_++;
  }
  return it->second;
}

void StreamingQueryStatusListener::onQueryStarted(const stream::QueryStartedEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  QueryRun& r = RunOf(e.id, e.run_id);
  r.name = e.name;
  if (auto ms = stream::ParseTimestampMs(e.timestamp)) r.start_ms = *ms;
  totals_.try_emplace(e.id);
}

void StreamingQueryStatusListener::onQueryProgress(const stream::QueryProgressEvent& e) {
  const stream::StreamingQueryProgress& p = e.progress;
  std::lock_guard<std::mutex> lock(mu_);
  QueryRun& r = RunOf(p.id, p.run_id);
  if (p.name) r.name = p.name;
  r.progress.push_back(p);
  while (static_cast<int>(r.progress.size()) > retained_progress_) r.progress.pop_front();

  QueryTotals& t = totals_[p.id];
  t.batches += 1;
  t.input_rows += p.num_input_rows;
  for (const auto& op : p.state_operators)
    t.late_rows_dropped += op.num_rows_dropped_by_watermark;
  auto it = p.duration_ms.find("triggerExecution");
  double seconds =
      static_cast<double>(it != p.duration_ms.end() ? it->second : p.batch_duration) /
      1000.0;
  t.batch_seconds_sum += seconds;
  for (int b = 0; b < kNumBatchDurationBuckets; ++b) {
    if (seconds <= kBatchDurationBuckets[b]) t.batch_buckets[b] += 1;
  }
  t.batch_buckets[kNumBatchDurationBuckets] += 1;
}

void StreamingQueryStatusListener::onQueryTerminated(
    const stream::QueryTerminatedEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  QueryRun& r = RunOf(e.id, e.run_id);
  r.active = false;
  r.end_ms = WallMs();
  r.exception = e.exception;
  r.error_class = e.error_class_on_exception;
  if (e.exception) totals_[e.id].failures += 1;
  EvictFinished();
}

void StreamingQueryStatusListener::EvictFinished() {
  std::vector<const QueryRun*> finished;
  for (const auto& [run_id, r] : runs_) {
    if (!r.active) finished.push_back(&r);
  }
  if (static_cast<int>(finished.size()) <= retained_queries_) return;
  std::sort(finished.begin(), finished.end(),
            [](const QueryRun* a, const QueryRun* b) { return a->seq < b->seq; });
  size_t drop = finished.size() - static_cast<size_t>(retained_queries_);
  std::vector<std::string> dropped;
  for (size_t i = 0; i < drop; ++i) dropped.push_back(finished[i]->run_id);
  for (const auto& run_id : dropped) runs_.erase(run_id);
  // Totals live as long as some run of the query is retained.
  for (auto it = totals_.begin(); it != totals_.end();) {
    bool kept = std::any_of(runs_.begin(), runs_.end(),
                            [&](const auto& kv) { return kv.second.id == it->first; });
    it = kept ? std::next(it) : totals_.erase(it);
  }
}

StatusSnapshot StreamingQueryStatusListener::Snapshot(size_t max_progress) const {
  StatusSnapshot s;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [run_id, r] : runs_) {
    if (r.progress.size() <= max_progress) {
      s.runs.push_back(r);
      continue;
    }
    QueryRun copy;
    static_cast<QueryRunInfo&>(copy) = r;
    copy.progress.assign(r.progress.end() - static_cast<std::ptrdiff_t>(max_progress),
                         r.progress.end());
    s.runs.push_back(std::move(copy));
  }
  s.totals = totals_;
  std::sort(s.runs.begin(), s.runs.end(),
            [](const QueryRun& a, const QueryRun& b) { return a.seq < b.seq; });
  return s;
}

}  // namespace spate::monitor
