// Copyright spate authors.
// StreamingQuery's progress reports (Spark's ProgressReporter / ProgressContext): the
// StreamingQueryProgress of a trigger, and the recentProgress buffer.
#include <algorithm>
#include <cmath>

#include "spate/base/text_parse.h"
#include "spate/stream/streaming_query.h"
#include "spate/stream/streaming_query_internal.h"

namespace spate::stream {

StreamingQueryProgress StreamingQuery::MakeProgress(
    int64_t trigger_start, std::map<std::string, int64_t>* durations,
    const std::vector<int64_t>& input_rows, int64_t output_rows, bool executed) {
  (*durations)["triggerExecution"] = ElapsedMs(trigger_begin_);
  double input_sec = last_trigger_start_ms_ >= 0
                         ? (trigger_start - last_trigger_start_ms_) / 1000.0
                         : INFINITY;
  double processing_sec = std::max<int64_t>(1, (*durations)["triggerExecution"]) / 1000.0;
  StreamingQueryProgress p;
  p.id = id_;
  p.run_id = run_id_;
  p.name = config_.name;
  p.timestamp = FormatTimestampMs(trigger_start);
  p.batch_id = current_batch_id_;
  p.batch_duration = (*durations)["triggerExecution"];
  p.duration_ms = *durations;
  for (size_t i = 0; i < sources_.size(); ++i) {
    SourceProgress s;
    s.description = sources_[i]->Describe();
    s.start_offset = committed_offsets_[i];
    s.end_offset = available_offsets_[i];
    s.latest_offset = sources_[i]->ReportLatestOffset();
    s.num_input_rows = i < input_rows.size() ? input_rows[i] : 0;
    s.input_rows_per_second = s.num_input_rows / input_sec;
    s.processed_rows_per_second = s.num_input_rows / processing_sec;
    for (const auto& [k, v] : sources_[i]->Metrics()) s.metrics[k] = v;
    p.num_input_rows += s.num_input_rows;
    p.sources.push_back(std::move(s));
  }
  p.input_rows_per_second = p.num_input_rows / input_sec;
  p.processed_rows_per_second = p.num_input_rows / processing_sec;
  p.sink.description = config_.sink->Describe();
  p.sink.num_output_rows = output_rows;
  if (!executed) {
    // A trigger without a batch (Spark's resetExecStatsForNoExecution): before any batch
    // of the run nothing but the offsets; after one, that batch's state operators with
    // the per-batch counts zeroed, the watermark alone and 0 output rows.
    if (last_executed_) {
      p.state_operators = last_executed_->state_operators;
      for (auto& op : p.state_operators) {
        op.num_rows_updated = 0;
        op.num_rows_dropped_by_watermark = 0;
      }
      auto wm = last_executed_->event_time.find("watermark");
      if (wm != last_executed_->event_time.end())
        p.event_time["watermark"] = FormatTimestampMs(batch_metadata_.batch_watermark_ms);
      p.sink.num_output_rows = 0;
    }
    return p;
  }
  p.state_operators = stateful_->Progress();
  {
    EventTimeStats all;
    for (const auto& st : last_event_stats_) all.Merge(st);
    if (all.count > 0) {
      auto floor_ms = [](double us) {
        return static_cast<int64_t>(std::floor(us / 1000.0));
      };
      p.event_time["avg"] = FormatTimestampMs(floor_ms(all.avg));
      p.event_time["max"] = FormatTimestampMs(floor_ms(static_cast<double>(all.max)));
      p.event_time["min"] = FormatTimestampMs(floor_ms(static_cast<double>(all.min)));
    }
    if (!stateful_->watermark_delays().empty())
      p.event_time["watermark"] = FormatTimestampMs(batch_metadata_.batch_watermark_ms);
  }
  return p;
}

void StreamingQuery::KeepProgress(const StreamingQueryProgress& p,
                                  sql::BoundPlanPtr executed) {
  int64_t keep = ParseInt64(config_.runner->GetConf(
                                "spark.sql.streaming.numRecentProgressUpdates", "100"))
                     .value_or(100);
  {
    MutexLock lock(mu_);
    if (executed)
      last_plan_ = executed;  // the batch plan (stateful operators), not its rows
    // As Spark's ProgressReporter.addNewProgress: append, then drop from the front while
    // the buffer holds at least numRecentProgressUpdates (so it keeps one fewer).
    progress_.push_back(p);
    while (!progress_.empty() && static_cast<int64_t>(progress_.size()) >= keep)
      progress_.pop_front();
  }
}

}  // namespace spate::stream
