// Copyright spate authors.
#include "spate/api/query_log.h"

#include <chrono>
#include <cmath>

#include "spate/api/session_state.h"
#include "spate/base/line_sink.h"
#include "spate/base/redact.h"
#include "spate/types/data_type.h"
#include "spate/types/format.h"

namespace spate::api {

namespace {

LineSink& Sink() {
  static LineSink sink;
  return sink;
}

void Emit(const std::string& line) { Sink().Write(line); }

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One line: JSON ({"ts","level","logger","msg", fields...}) or text
// ("2026-12-06 09:30:00.123 INFO spate.streaming: msg (k=v, ...)").
void Write(bool json, LogLevel level, const std::string& msg, const Json& fields) {
  const std::string ts = stream::FormatTimestampMs(NowMs());
  if (json) {
    Json o = Json::Object();
    o.Set("ts", Json::String(ts));
    o.Set("level", Json::String(LogLevelName(level)));
    o.Set("logger", Json::String("spate.streaming"));
    o.Set("msg", Json::String(msg));
    for (const auto& [k, v] : fields.fields()) o.Set(k, v);
    Emit(o.ToString());
    return;
  }
  std::string line = ts.substr(0, 10) + " " + ts.substr(11, 12) + " " +
                     LogLevelName(level) + " spate.streaming: " + msg;
  std::string kv;
  for (const auto& [k, v] : fields.fields()) {
    if (v.is_object() || v.is_array()) continue;
    kv += (kv.empty() ? "" : ", ") + k + "=" +
          (v.is_string() ? v.string_value() : v.ToString());
  }
  // One line per event: a multi-line message (a traceback) keeps its breaks as \n.
  for (size_t i = 0; (i = kv.find('\n', i)) != std::string::npos; i += 2)
    kv.replace(i, 1, "\\n");
  if (!kv.empty()) line += " (" + kv + ")";
  Emit(line);
}

Json Ids(const std::string& id, const std::string& run_id,
         const std::optional<std::string>& name) {
  Json o = Json::Object();
  o.Set("queryId", Json::String(id));
  o.Set("runId", Json::String(run_id));
  o.Set("queryName", name ? Json::String(*name) : Json::Null());
  return o;
}

Json Number(double v) {
  return std::isfinite(v) ? Json::NumberText(FormatDouble(v)) : Json::Null();
}

}  // namespace

std::optional<LogLevel> ParseLogLevel(const std::string& text) {
  const std::string t = ToLower(text);
  if (t == "off") return LogLevel::kOff;
  if (t == "error" || t == "fatal") return LogLevel::kError;
  if (t == "warn" || t == "warning") return LogLevel::kWarn;
  if (t == "info") return LogLevel::kInfo;
  if (t == "debug") return LogLevel::kDebug;
  if (t == "trace" || t == "all") return LogLevel::kTrace;
  return std::nullopt;
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kOff:
      return "OFF";
    case LogLevel::kError:
      return "ERROR";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kDebug:
      return "DEBUG";
    default:
      return "TRACE";
  }
}

void SetQueryLogSink(std::function<void(const std::string&)> sink) {
  Sink().Set(std::move(sink));
}

QueryLogListener::Settings QueryLogListener::Current() const {
  Settings s;
  auto session = session_.lock();
  if (!session) {
    s.level = LogLevel::kOff;
    return s;
  }
  if (auto l = ParseLogLevel(session->conf.GetOr("spate.log.level", "WARN")))
    s.level = *l;
  s.json = ToLower(session->conf.GetOr("spate.log.format", "text")) == "json";
  return s;
}

void QueryLogListener::onQueryStarted(const stream::QueryStartedEvent& e) {
  Settings s = Current();
  if (s.level < LogLevel::kInfo) return;
  Write(s.json, LogLevel::kInfo, "Streaming query started", Ids(e.id, e.run_id, e.name));
}

void QueryLogListener::onQueryProgress(const stream::QueryProgressEvent& e) {
  Settings s = Current();
  if (s.level < LogLevel::kInfo) return;
  const stream::StreamingQueryProgress& p = e.progress;
  Json o = Ids(p.id, p.run_id, p.name);
  o.Set("batchId", Json::Int(p.batch_id));
  o.Set("numInputRows", Json::Int(p.num_input_rows));
  o.Set("inputRowsPerSecond", Number(p.input_rows_per_second));
  o.Set("processedRowsPerSecond", Number(p.processed_rows_per_second));
  o.Set("batchDurationMs", Json::Int(p.batch_duration));
  auto wm = p.event_time.find("watermark");
  if (wm != p.event_time.end()) o.Set("watermark", Json::String(wm->second));
  int64_t state_rows = 0, dropped = 0;
  for (const auto& op : p.state_operators) {
    state_rows += op.num_rows_total;
    dropped += op.num_rows_dropped_by_watermark;
  }
  if (!p.state_operators.empty()) {
    o.Set("stateRows", Json::Int(state_rows));
    o.Set("rowsDroppedByWatermark", Json::Int(dropped));
  }
  Json sources = Json::Array();
  for (const auto& src : p.sources)
    sources.Append(Json::String(RedactText(src.description)));
  o.Set("sources", std::move(sources));
  o.Set("sink", Json::String(RedactText(p.sink.description)));
  if (s.level >= LogLevel::kDebug) {
    // The whole progress, as lastProgress shows it (its descriptions redacted).
    o.Set("progress", Json::String(RedactText(p.json())));
  }
  Write(s.json, LogLevel::kInfo, "Streaming query made progress", o);
}

void QueryLogListener::onQueryIdle(const stream::QueryIdleEvent& e) {
  Settings s = Current();
  if (s.level < LogLevel::kDebug) return;
  Write(s.json, LogLevel::kDebug, "Streaming query has been idle",
        Ids(e.id, e.run_id, std::nullopt));
}

void QueryLogListener::onQueryTerminated(const stream::QueryTerminatedEvent& e) {
  Settings s = Current();
  const LogLevel level = e.exception ? LogLevel::kError : LogLevel::kInfo;
  if (s.level < level) return;
  Json o = Ids(e.id, e.run_id, std::nullopt);
  if (e.exception) {
    o.Set("exception", Json::String(RedactText(*e.exception)));
    if (e.error_class_on_exception) {
      o.Set("errorClass", Json::String(*e.error_class_on_exception));
    }
  }
  Write(s.json, level,
        e.exception ? "Streaming query failed" : "Streaming query terminated", o);
}

}  // namespace spate::api
