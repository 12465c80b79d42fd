// Copyright spate authors.
#pragma once

// Structured log lines of streaming queries (docs/observability.md "Log lines"): a query
// started, each batch (the progress's numbers), idle triggers, the end (or the failure).
// Every session's StreamingQueryManager has one QueryLogListener; what it writes, and
// how, comes from the session's conf, read at each event:
//
//   spate.log.level   OFF | ERROR | WARN (default) | INFO | DEBUG | TRACE | ALL — log4j's
//                     names, as SparkContext.setLogLevel takes them. A batch is an INFO
//                     line; a failed query an ERROR line; DEBUG adds the full progress.
//   spate.log.format  text (default): `2026-12-06 09:30:00.123 INFO spate.streaming:
//   ...`;
//                     json: one JSON object per line ({"ts", "level", "logger", "msg",
//                     "queryId", "runId", "queryName", "batchId", "numInputRows", ...}).
//
// Sources' and sinks' descriptions and error messages are redacted (base/redact.h).
// Lines go to stderr unless SetQueryLogSink says otherwise (tests).
//
// Thread safety: events of different queries arrive concurrently; each line is written
// whole under a process-wide mutex. Failure: a bad level or format falls back to the
// defaults (a listener must not fail the query).

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "spate/stream/progress.h"

namespace spate::api {

struct SessionState;

enum class LogLevel { kOff = 0, kError, kWarn, kInfo, kDebug, kTrace };
/// "INFO" -> kInfo (case-insensitive; ALL is kTrace); nullopt for other text.
std::optional<LogLevel> ParseLogLevel(const std::string& text);
const char* LogLevelName(LogLevel level);

class QueryLogListener : public stream::StreamingQueryListener {
 public:
  explicit QueryLogListener(std::weak_ptr<SessionState> session)
      : session_(std::move(session)) {}
  void onQueryStarted(const stream::QueryStartedEvent& e) override;
  void onQueryProgress(const stream::QueryProgressEvent& e) override;
  void onQueryIdle(const stream::QueryIdleEvent& e) override;
  void onQueryTerminated(const stream::QueryTerminatedEvent& e) override;

 private:
  struct Settings {
    LogLevel level = LogLevel::kWarn;
    bool json = false;
  };
  Settings Current() const;
  std::weak_ptr<SessionState> session_;
};

/// Where log lines go (each line without its newline); nullptr restores stderr.
void SetQueryLogSink(std::function<void(const std::string&)> sink);

}  // namespace spate::api
