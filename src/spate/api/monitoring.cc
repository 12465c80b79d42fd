// Copyright spate authors.
#include "spate/api/monitoring.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/api/streaming.h"
#include "spate/base/text_parse.h"
#include "spate/monitor/server.h"
#include "spate/stream/streaming_query.h"

namespace spate::api {

namespace {

std::mutex g_monitor_mu;
std::unique_ptr<monitor::MonitoringServer>& Server() {
  static auto* s = new std::unique_ptr<monitor::MonitoringServer>();
  return *s;
}

int IntConf(const SessionState& s, const std::string& key, int dflt, int min, int max) {
  std::string text = s.conf.GetOr(key, std::to_string(dflt));
  std::optional<int32_t> v = ParseInt32(text);
  if (!v || *v < min || *v > max) {
    ThrowStatus(Status::Invalid(key + " should be an integer between " +
                                std::to_string(min) + " and " + std::to_string(max) +
                                ", but was " + text));
  }
  return *v;
}

void AddOnce(stream::StreamingQueryManager& m,
             const stream::StreamingQueryListenerPtr& l) {
  auto ls = m.Listeners();
  if (std::find(ls.begin(), ls.end(), l) == ls.end()) m.AddListener(l);
}

}  // namespace

void StartMonitoringIfEnabled(const std::shared_ptr<SessionState>& state) {
  const std::string enabled = ToLower(state->conf.GetOr("spark.ui.enabled", "false"));
  if (enabled != "true" && enabled != "false") {
    ThrowStatus(Status::Invalid("spark.ui.enabled should be boolean, but was " +
                                state->conf.GetOr("spark.ui.enabled", "")));
  }
  if (enabled != "true") return;
  stream::StreamingQueryListenerPtr listener;
  {
    std::lock_guard<std::mutex> lock(g_monitor_mu);
    if (Server()) return;
    monitor::MonitorOptions o;
    o.host = state->conf.GetOr("spate.ui.host", "127.0.0.1");
    o.port = IntConf(*state, "spark.ui.port", 4040, 0, 65535);
    o.max_port_retries = IntConf(*state, "spark.port.maxRetries", 16, 0, 65535);
    o.retained_queries =
        IntConf(*state, "spark.sql.streaming.ui.retainedQueries", 100, 0, 1 << 30);
    o.retained_progress = IntConf(
        *state, "spark.sql.streaming.ui.retainedProgressUpdates", 100, 1, 1 << 30);
    o.app_name = state->app_name;
    o.app_id =
        "local-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
    std::weak_ptr<SessionState> weak = state;
    o.environment = [weak] {
      std::vector<std::pair<std::string, std::string>> confs;
      if (auto s = weak.lock()) confs = s->conf.SetEntries();
      return confs;
    };
    Server() = ValueOrThrow(monitor::MonitoringServer::Start(std::move(o)));
    listener = Server()->listener();
  }
  // A server still running when the program exits stops before the static objects its
  // requests use are destroyed.
  static const bool registered = [] {
    return std::atexit([] { StopMonitoring(); }) == 0;
  }();
  (void)registered;
  // Outside g_monitor_mu: StreamsOf takes its own lock and then asks
  // MonitoringListener().
  for (const auto& m : AllStreamsManagers()) AddOnce(*m, listener);
}

std::optional<std::string> MonitoringUrl() {
  std::lock_guard<std::mutex> lock(g_monitor_mu);
  if (!Server()) return std::nullopt;
  return Server()->url();
}

stream::StreamingQueryListenerPtr MonitoringListener() {
  std::lock_guard<std::mutex> lock(g_monitor_mu);
  return Server() ? Server()->listener() : nullptr;
}

void StopMonitoring() {
  std::unique_ptr<monitor::MonitoringServer> server;
  {
    std::lock_guard<std::mutex> lock(g_monitor_mu);
    server = std::move(Server());
  }
  if (!server) return;
  stream::StreamingQueryListenerPtr listener = server->listener();
  for (const auto& m : AllStreamsManagers()) m->RemoveListener(listener);
  server->Stop();
}

}  // namespace spate::api
