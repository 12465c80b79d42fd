// Copyright spate authors.
#pragma once

// The process's monitoring server (monitor/server.h), started from the session conf as
// Spark starts its UI with the SparkContext: one per process, watching the streaming
// queries of every session (its StreamingQueryStatusListener is added to every session's
// StreamingQueryManager). docs/observability.md.
//
//   spark.ui.enabled                                 true starts it (spate's default:
//   false) spark.ui.port                                    4040; 0 = any free port
//   spate.ui.host                                    127.0.0.1 (loopback)
//   spark.port.maxRetries                            16 (port+1, ... when taken)
//   spark.sql.streaming.ui.retainedQueries           100 finished runs kept
//   spark.sql.streaming.ui.retainedProgressUpdates   100 progress entries per run
//
// Ownership: the server is a process-wide object owned here. Thread safety: every
// function may be called from any thread. Failure: a server that cannot bind throws
// (SparkException with the Status naming host and port).

#include <memory>
#include <optional>
#include <string>

#include "spate/stream/progress.h"

namespace spate::api {

struct SessionState;

/// Starts the server when `state`'s conf has spark.ui.enabled=true and none runs yet.
void StartMonitoringIfEnabled(const std::shared_ptr<SessionState>& state);
/// "http://127.0.0.1:4040" while the server runs (SparkContext.uiWebUrl), else nullopt.
std::optional<std::string> MonitoringUrl();
/// The server's listener while it runs, else nullptr (StreamsOf adds it to new managers).
stream::StreamingQueryListenerPtr MonitoringListener();
/// Stops the server (SparkSession.stop()); a later getOrCreate with the conf starts a new
/// one.
void StopMonitoring();

}  // namespace spate::api
