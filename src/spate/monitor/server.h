// Copyright spate authors.
#pragma once

// MonitoringServer: the in-process HTTP server of the monitoring UI (cpp-httplib), fed
// only by its StreamingQueryStatusListener (register listener() with every
// StreamingQueryManager to watch; the api does that for every session when
// spark.ui.enabled=true). Endpoints (docs/observability.md):
//
//   GET /                                     redirects to /StreamingQuery/
//   GET /StreamingQuery/                      the live page: active and completed queries
//   GET /StreamingQuery/statistics/?id=<runId>  the live charts of one run
//   GET /static/spate-streaming.{js,css}      the page's script and style (ui_page.h)
//   GET /metrics                              Prometheus text format
//   GET /api/v1/version                       {"spark": "<spate version>"}
//   GET /api/v1/applications                  Spark's application list (this process)
//   GET /api/v1/applications/<app>/environment  sparkProperties, secrets redacted
//   GET /api/v1/streams[?status=active|finished]  the queries' runs
//   GET /api/v1/streams/<runId>               one run
//   GET /api/v1/streams/<runId>/progress      its recent StreamingQueryProgress JSON
//
// It binds to loopback unless told otherwise (`host`), serves no files (the page is
// embedded in the binary and reads the JSON endpoints), answers only GET
// (405 otherwise) and 404 for anything else.
//
// Ownership: owns its listener (shared), its socket and its thread; the destructor stops
// it. Thread safety: Start/Stop/url from any thread; requests are served on httplib's
// worker threads and read the listener's snapshot only. Failure: Start fails with a
// Status naming host and port when no port can be bound.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spate/base/status.h"
#include "spate/monitor/status_listener.h"

namespace httplib {
class Server;
}

namespace spate::monitor {

struct MonitorOptions {
  /// Address to bind; loopback unless set otherwise (spate.ui.host).
  std::string host = "127.0.0.1";
  /// spark.ui.port; 0 binds any free port.
  int port = 4040;
  /// When `port` is taken, port+1 ... port+max_port_retries are tried
  /// (spark.port.maxRetries).
  int max_port_retries = 16;
  int retained_queries = 100;   // spark.sql.streaming.ui.retainedQueries
  int retained_progress = 100;  // spark.sql.streaming.ui.retainedProgressUpdates
  std::string app_id = "local-spate";
  std::string app_name = "spate";
  std::string version = "0.1.0";
  /// The confs the environment endpoint shows (redacted there); may be empty.
  std::function<std::vector<std::pair<std::string, std::string>>()> environment;
};

class MonitoringServer {
 public:
  static Result<std::unique_ptr<MonitoringServer>> Start(MonitorOptions options);
  ~MonitoringServer();
  MonitoringServer(const MonitoringServer&) = delete;
  MonitoringServer& operator=(const MonitoringServer&) = delete;

  int port() const { return port_; }
  const std::string& host() const { return options_.host; }
  /// "http://<host>:<port>" (IPv6 hosts in brackets).
  std::string url() const;
  const std::shared_ptr<StreamingQueryStatusListener>& listener() const {
    return listener_;
  }
  /// Stops serving and joins the thread. Idempotent.
  void Stop();

 private:
  explicit MonitoringServer(MonitorOptions options);
  void Route();

  MonitorOptions options_;
  std::shared_ptr<StreamingQueryStatusListener> listener_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
  int64_t start_ms_ = 0;
};

}  // namespace spate::monitor
