// Copyright spate authors.
#include "spate/monitor/render.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "spate/base/redact.h"
#include "spate/types/format.h"

namespace spate::monitor {

namespace {

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<int64_t>(v));
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

void AppendLabelValue(std::string_view v, std::string* out) {
  for (char c : v) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '"') {
      *out += "\\\"";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      *out += c;
    }
  }
}

using Labels = std::vector<std::pair<std::string, std::string>>;

/// One metric family: HELP and TYPE, then its samples.
class Family {
 public:
  Family(std::string name, std::string type, std::string help)
      : name_(std::move(name)), type_(std::move(type)), help_(std::move(help)) {}
  void Add(const Labels& labels, double value, const std::string& suffix = "") {
    std::string& o = samples_;
    o += name_ + suffix;
    if (!labels.empty()) {
      o += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i) o += ',';
        o += labels[i].first + "=\"";
        AppendLabelValue(labels[i].second, &o);
        o += '"';
      }
      o += '}';
    }
    o += ' ' + FormatNumber(value) + '\n';
  }
  void AppendTo(std::string* out) const {
    *out += "# HELP " + name_ + ' ' + help_ + '\n';
    *out += "# TYPE " + name_ + ' ' + type_ + '\n';
    *out += samples_;
  }

 private:
  std::string name_, type_, help_, samples_;
};

/// The run whose gauges represent a query id: its newest active run, else its newest.
std::map<std::string, const QueryRun*> CurrentRuns(const StatusSnapshot& s) {
  std::map<std::string, const QueryRun*> current;
  for (const QueryRun& r : s.runs) {  // oldest first
    auto& c = current[r.id];
    if (!c || r.active || !c->active) c = &r;
  }
  return current;
}

void SumLeaves(const Json& end, const Json& latest, double* sum, bool* any) {
  if (end.is_number() && latest.is_number()) {
    *sum += latest.double_value() - end.double_value();
    *any = true;
    return;
  }
  if (end.is_object() && latest.is_object()) {
    for (const auto& [k, v] : end.fields()) {
      if (const Json* l = latest.Find(k)) SumLeaves(v, *l, sum, any);
    }
  }
}

}  // namespace

std::optional<double> OffsetsBehindLatest(const Json& end, const Json& latest) {
  double sum = 0;
  bool any = false;
  SumLeaves(end, latest, &sum, &any);
  if (!any) return std::nullopt;
  return sum;
}

std::string RenderPrometheus(const StatusSnapshot& snapshot) {
  Family active("spate_stream_active", "gauge",
                "Whether the streaming query is running (1) or terminated (0).");
  Family start("spate_stream_start_timestamp_seconds", "gauge",
               "Start time of the query's current run (Unix seconds).");
  Family batches("spate_stream_batches_total", "counter",
                 "Micro-batches completed (progress events) since the process started.");
  Family input_rows("spate_stream_input_rows_total", "counter",
                    "Rows read from the query's sources (sum of numInputRows).");
  Family failures("spate_stream_failures_total", "counter",
                  "Runs of the query that terminated with an exception.");
  Family dropped("spate_stream_late_rows_dropped_total", "counter",
                 "Rows dropped by stateful operators as later than the watermark "
                 "(sum of stateOperators[].numRowsDroppedByWatermark).");
  Family input_rate(
      "spate_stream_input_rows_per_second", "gauge",
      "Rate at which rows arrived in the last batch (Spark's inputRate-total, "
      "inputRowsPerSecond).");
  Family process_rate("spate_stream_processed_rows_per_second", "gauge",
                      "Rate at which the last batch processed rows (Spark's "
                      "processingRate-total, processedRowsPerSecond).");
  Family last_duration("spate_stream_last_batch_duration_seconds", "gauge",
                       "Duration of the last batch (Spark's latency, "
                       "durationMs.triggerExecution).");
  Family duration("spate_stream_batch_duration_seconds", "histogram",
                  "Durations of the batches (durationMs.triggerExecution).");
  Family operation(
      "spate_stream_operation_duration_seconds", "gauge",
      "Duration of each phase of the last batch (durationMs: addBatch, "
      "getBatch, latestOffset, queryPlanning, walCommit, commitOffsets, ...).");
  Family batch_id("spate_stream_latest_batch_id", "gauge",
                  "Id of the last batch that reported progress.");
  Family progress_ts("spate_stream_last_progress_timestamp_seconds", "gauge",
                     "Trigger start time of the last batch (Unix seconds).");
  Family watermark("spate_stream_watermark_timestamp_seconds", "gauge",
                   "The global event-time watermark of the last batch (Spark's "
                   "eventTime-watermark; Unix seconds).");
  Family watermark_lag("spate_stream_watermark_lag_seconds", "gauge",
                       "Batch timestamp minus the global watermark (the UI's Global "
                       "Watermark Gap).");
  Family state_rows(
      "spate_stream_state_rows", "gauge",
      "Rows held in state by all stateful operators (Spark's states-rowsTotal).");
  Family state_updated("spate_stream_state_updated_rows", "gauge",
                       "State rows updated by the last batch (sum of numRowsUpdated).");
  Family state_memory("spate_stream_state_memory_bytes", "gauge",
                      "Memory used by the state stores (Spark's states-usedBytes).");
  Family lag("spate_stream_source_lag_records", "gauge",
             "Offsets between the source's end offset in the last batch and its latest "
             "available offset (summed over partitions), i.e. offsets behind latest.");

  auto current = CurrentRuns(snapshot);
  for (const auto& [id, run] : current) {
    Labels q = {{"query_id", id}, {"query_name", run->name.value_or("")}};
    bool any_active = false;
    for (const QueryRun& r : snapshot.runs)
      any_active = any_active || (r.id == id && r.active);
    active.Add(q, any_active ? 1 : 0);
    start.Add(q, static_cast<double>(run->start_ms) / 1000.0);

    auto t = snapshot.totals.find(id);
    QueryTotals totals = t != snapshot.totals.end() ? t->second : QueryTotals{};
    batches.Add(q, static_cast<double>(totals.batches));
    input_rows.Add(q, static_cast<double>(totals.input_rows));
    failures.Add(q, static_cast<double>(totals.failures));
    dropped.Add(q, static_cast<double>(totals.late_rows_dropped));
    for (int b = 0; b <= kNumBatchDurationBuckets; ++b) {
      Labels l = q;
      l.emplace_back("le", b < kNumBatchDurationBuckets
                               ? FormatNumber(kBatchDurationBuckets[b])
                               : "+Inf");
      duration.Add(l, static_cast<double>(totals.batch_buckets[b]), "_bucket");
    }
    duration.Add(q, totals.batch_seconds_sum, "_sum");
    duration.Add(q, static_cast<double>(totals.batches), "_count");

    if (run->progress.empty()) continue;
    const stream::StreamingQueryProgress& p = run->progress.back();
    if (std::isfinite(p.input_rows_per_second))
      input_rate.Add(q, p.input_rows_per_second);
    if (std::isfinite(p.processed_rows_per_second)) {
      process_rate.Add(q, p.processed_rows_per_second);
    }
    auto trig = p.duration_ms.find("triggerExecution");
    last_duration.Add(
        q, static_cast<double>(trig != p.duration_ms.end() ? trig->second
                                                           : p.batch_duration) /
               1000.0);
    for (const auto& [op, ms] : p.duration_ms) {
      Labels l = q;
      l.emplace_back("operation", op);
      operation.Add(l, static_cast<double>(ms) / 1000.0);
    }
    batch_id.Add(q, static_cast<double>(p.batch_id));
    auto ts = stream::ParseTimestampMs(p.timestamp);
    if (ts) progress_ts.Add(q, static_cast<double>(*ts) / 1000.0);
    auto wm = p.event_time.find("watermark");
    if (wm != p.event_time.end()) {
      if (auto wm_ms = stream::ParseTimestampMs(wm->second)) {
        watermark.Add(q, static_cast<double>(*wm_ms) / 1000.0);
        if (ts) watermark_lag.Add(q, static_cast<double>(*ts - *wm_ms) / 1000.0);
      }
    }
    if (!p.state_operators.empty()) {
      int64_t rows = 0, updated = 0, memory = 0;
      for (const auto& op : p.state_operators) {
        rows += op.num_rows_total;
        updated += op.num_rows_updated;
        memory += op.memory_used_bytes;
      }
      state_rows.Add(q, static_cast<double>(rows));
      state_updated.Add(q, static_cast<double>(updated));
      state_memory.Add(q, static_cast<double>(memory));
    }
    for (size_t i = 0; i < p.sources.size(); ++i) {
      const auto& s = p.sources[i];
      if (!s.end_offset || !s.latest_offset) continue;
      auto behind = OffsetsBehindLatest(*s.end_offset, *s.latest_offset);
      if (!behind) continue;
      Labels l = q;
      l.emplace_back("source", RedactText(s.description));
      l.emplace_back("source_index", std::to_string(i));
      lag.Add(l, *behind);
    }
  }

  std::string out;
  for (const Family* f :
       {&active, &start, &batches, &input_rows, &failures, &dropped, &input_rate,
        &process_rate, &last_duration, &duration, &operation, &batch_id, &progress_ts,
        &watermark, &watermark_lag, &state_rows, &state_updated, &state_memory, &lag}) {
    f->AppendTo(&out);
  }
  return out;
}

void RedactJson(Json* v) {
  if (v->is_string()) {
    std::string r = RedactText(v->string_value());
    if (r != v->string_value()) *v = Json::String(std::move(r));
    return;
  }
  if (v->is_array()) {
    Json out = Json::Array();
    for (Json item : v->items()) {
      RedactJson(&item);
      out.Append(std::move(item));
    }
    *v = std::move(out);
    return;
  }
  if (v->is_object()) {
    Json out = Json::Object();
    for (const auto& [k, field] : v->fields()) {
      if (IsSecretKey(k) && !field.is_null()) {
        out.Set(k, Json::String(std::string(kRedactedText)));
      } else {
        Json f = field;
        RedactJson(&f);
        out.Set(k, std::move(f));
      }
    }
    *v = std::move(out);
  }
}

std::string RunStatus(const QueryRun& run) {
  if (run.active) return "RUNNING";
  return run.exception ? "FAILED" : "FINISHED";
}

Json RunJson(const QueryRun& run, int64_t now_ms) {
  auto opt_string = [](const std::optional<std::string>& s) {
    return s ? Json::String(RedactText(*s)) : Json::Null();
  };
  Json v = Json::Object();
  v.Set("name", opt_string(run.name));
  v.Set("id", Json::String(run.id));
  v.Set("runId", Json::String(run.run_id));
  v.Set("status", Json::String(RunStatus(run)));
  v.Set("isActive", Json::Bool(run.active));
  v.Set("startTimestamp", Json::Int(run.start_ms));
  v.Set("endTimestamp", run.end_ms ? Json::Int(*run.end_ms) : Json::Null());
  v.Set("durationMs",
        Json::Int(std::max<int64_t>(0, run.end_ms.value_or(now_ms) - run.start_ms)));
  v.Set("numBatches", Json::Int(static_cast<int64_t>(run.progress.size())));
  // Spark's list page: Avg Input /sec and Avg Process /sec over the retained progress.
  auto avg = [&](const std::function<double(const stream::StreamingQueryProgress&)>& f) {
    double sum = 0;
    int n = 0;
    for (const auto& p : run.progress) {
      double x = f(p);
      if (std::isfinite(x)) {
        sum += x;
        ++n;
      }
    }
    return n ? Json::NumberText(FormatDouble(sum / n)) : Json::Null();
  };
  v.Set("avgInputRowsPerSecond", avg([](const stream::StreamingQueryProgress& p) {
          return p.input_rows_per_second;
        }));
  v.Set("avgProcessedRowsPerSecond", avg([](const stream::StreamingQueryProgress& p) {
          return p.processed_rows_per_second;
        }));
  v.Set("latestBatchId",
        run.progress.empty() ? Json::Null() : Json::Int(run.progress.back().batch_id));
  v.Set("exception", opt_string(run.exception));
  v.Set("errorClass", run.error_class ? Json::String(*run.error_class) : Json::Null());
  return v;
}

Json StreamsJson(const StatusSnapshot& snapshot, int64_t now_ms,
                 const std::string& filter) {
  Json out = Json::Array();
  for (bool want_active : {true, false}) {
    if ((filter == "active" && !want_active) || (filter == "finished" && want_active))
      continue;
    for (auto it = snapshot.runs.rbegin(); it != snapshot.runs.rend(); ++it) {
      if (it->active == want_active) out.Append(RunJson(*it, now_ms));
    }
  }
  return out;
}

Json ProgressJson(const QueryRun& run) {
  Json out = Json::Array();
  for (const auto& p : run.progress) {
    Json j = p.ToJson();
    RedactJson(&j);
    out.Append(std::move(j));
  }
  return out;
}

}  // namespace spate::monitor
