// Copyright spate authors.
#include "spate/monitor/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "spate/base/redact.h"
#include "spate/monitor/render.h"
#include "spate/monitor/ui_page.h"

namespace spate::monitor {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Spark's REST API date text: "2015-02-03T16:42:40.000GMT".
std::string SparkRestDate(int64_t ms) {
  std::string iso = stream::FormatTimestampMs(ms);  // ...Z
  return iso.substr(0, iso.size() - 1) + "GMT";
}

void SendJson(httplib::Response& res, const Json& v) {
  res.set_content(v.ToPrettyString() + "\n", "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  Json v = Json::Object();
  v.Set("error", Json::String(message));
  SendJson(res, v);
}

/// One of the page's embedded files. The policy lets it load only this server's own
/// script, style sheet and JSON (no inline script, nothing from elsewhere).
void SendAsset(httplib::Response& res, std::string_view body, const char* content_type) {
  res.set_header(
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
      "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors "
      "'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
  res.set_content(body.data(), body.size(), content_type);
}

}  // namespace

MonitoringServer::MonitoringServer(MonitorOptions options)
    : options_(std::move(options)),
      listener_(std::make_shared<StreamingQueryStatusListener>(
          options_.retained_queries, options_.retained_progress)),
      http_(std::make_unique<httplib::Server>()),
      start_ms_(WallMs()) {}

MonitoringServer::~MonitoringServer() { Stop(); }

std::string MonitoringServer::url() const {
  const std::string& h = options_.host;
  std::string shown = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  if (h == "0.0.0.0" || h.empty()) shown = "127.0.0.1";
  return "http://" + shown + ":" + std::to_string(port_);
}

void MonitoringServer::Route() {
  httplib::Server& s = *http_;
  // Two workers are plenty for a monitoring endpoint (httplib's default is 8+).
  s.new_task_queue = [] { return new httplib::ThreadPool(2); };
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second
  // server would silently share a port that is in use instead of moving on.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  auto listener = listener_;
  const MonitorOptions& o = options_;

  // The live page (the paths of Spark's Structured Streaming tab): one embedded HTML
  // shell for the list and the statistics pages, its script and its style sheet, filled
  // from /api/v1/streams by the script. Fixed paths only: nothing is read from the file
  // system.
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/StreamingQuery/");
  });
  s.Get("/StreamingQuery", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/StreamingQuery/");
  });
  auto page = [](const httplib::Request&, httplib::Response& res) {
    SendAsset(res, UiHtml(), "text/html; charset=utf-8");
  };
  s.Get("/StreamingQuery/", page);
  s.Get("/StreamingQuery/statistics/?", page);
  s.Get(R"(/static/spate-streaming\.js)",
        [](const httplib::Request&, httplib::Response& res) {
          SendAsset(res, UiScript(), "text/javascript; charset=utf-8");
        });
  s.Get(R"(/static/spate-streaming\.css)",
        [](const httplib::Request&, httplib::Response& res) {
          SendAsset(res, UiStyle(), "text/css; charset=utf-8");
        });
  s.Get("/metrics", [listener](const httplib::Request&, httplib::Response& res) {
    res.set_content(RenderPrometheus(listener->Snapshot(/*max_progress=*/1)),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/api/v1/version", [&o](const httplib::Request&, httplib::Response& res) {
    Json v = Json::Object();
    v.Set("spark", Json::String(o.version));
    SendJson(res, v);
  });
  s.Get("/api/v1/applications",
        [this, &o](const httplib::Request&, httplib::Response& res) {
          int64_t now = WallMs();
          Json attempt = Json::Object();
          attempt.Set("startTime", Json::String(SparkRestDate(start_ms_)));
          attempt.Set("endTime", Json::String("1969-12-31T23:59:59.999GMT"));
          attempt.Set("lastUpdated", Json::String(SparkRestDate(now)));
          attempt.Set("duration", Json::Int(now - start_ms_));
          const char* user = std::getenv("USER");
          attempt.Set("sparkUser", Json::String(user ? user : ""));
          attempt.Set("completed", Json::Bool(false));
          attempt.Set("appSparkVersion", Json::String(o.version));
          attempt.Set("startTimeEpoch", Json::Int(start_ms_));
          attempt.Set("endTimeEpoch", Json::Int(-1));
          attempt.Set("lastUpdatedEpoch", Json::Int(now));
          Json app = Json::Object();
          app.Set("id", Json::String(o.app_id));
          app.Set("name", Json::String(o.app_name));
          Json attempts = Json::Array();
          attempts.Append(std::move(attempt));
          app.Set("attempts", std::move(attempts));
          Json list = Json::Array();
          list.Append(std::move(app));
          SendJson(res, list);
        });
  s.Get(R"(/api/v1/applications/([^/]+)/environment)",
        [&o](const httplib::Request& req, httplib::Response& res) {
          if (req.matches[1] != o.app_id) {
            return SendError(res, 404, "unknown app: " + std::string(req.matches[1]));
          }
          Json runtime = Json::Object();
          runtime.Set("sparkVersion", Json::String(o.version));
          Json props = Json::Array();
          if (o.environment) {
            for (const auto& [k, v] : o.environment()) {
              Json kv = Json::Array();
              kv.Append(Json::String(k));
              kv.Append(Json::String(RedactText(RedactValue(k, v))));
              props.Append(std::move(kv));
            }
          }
          Json env = Json::Object();
          env.Set("runtime", std::move(runtime));
          env.Set("sparkProperties", std::move(props));
          SendJson(res, env);
        });
  s.Get(
      "/api/v1/streams", [listener](const httplib::Request& req, httplib::Response& res) {
        std::string status = req.has_param("status") ? req.get_param_value("status") : "";
        if (!status.empty() && status != "active" && status != "finished") {
          return SendError(
              res, 400,
              "status must be 'active' or 'finished', not '" + RedactText(status) + "'");
        }
        SendJson(res, StreamsJson(listener->Snapshot(), WallMs(), status));
      });
  s.Get(R"(/api/v1/streams/([^/]+)(/progress)?)",
        [listener](const httplib::Request& req, httplib::Response& res) {
          std::string run_id = req.matches[1];
          bool progress = req.matches[2].matched;
          StatusSnapshot snap = listener->Snapshot();
          for (const QueryRun& r : snap.runs) {
            if (r.run_id != run_id) continue;
            return SendJson(res, progress ? ProgressJson(r) : RunJson(r, WallMs()));
          }
          SendError(res, 404, "no streaming query run with runId " + RedactText(run_id));
        });
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    SendError(res, 405, "the monitoring server is read-only: only GET is served");
  };
  s.Post(".*", not_allowed);
  s.Put(".*", not_allowed);
  s.Patch(".*", not_allowed);
  s.Delete(".*", not_allowed);
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) {
      SendError(res, 404, "not found: " + RedactText(req.path));
    }
  });
}

Result<std::unique_ptr<MonitoringServer>> MonitoringServer::Start(
    MonitorOptions options) {
  if (options.port < 0 || options.port > 65535) {
    return Status::Invalid("spark.ui.port must be between 0 and 65535, not " +
                           std::to_string(options.port));
  }
  std::unique_ptr<MonitoringServer> server(new MonitoringServer(std::move(options)));
  server->Route();
  const MonitorOptions& o = server->options_;
  httplib::Server& http = *server->http_;
  if (o.port == 0) {
    server->port_ = http.bind_to_any_port(o.host);
    if (server->port_ <= 0) {
      return Status::IOError("cannot start the monitoring server on " + o.host +
                             " (any port): bind failed");
    }
  } else {
    int retries = std::max(0, o.max_port_retries);
    bool bound = false;
    for (int i = 0; i <= retries && o.port + i <= 65535; ++i) {
      if (http.bind_to_port(o.host, o.port + i)) {
        server->port_ = o.port + i;
        bound = true;
        break;
      }
    }
    if (!bound) {
      return Status::IOError("cannot start the monitoring server on " + o.host + ":" +
                             std::to_string(o.port) + " (tried " +
                             std::to_string(retries + 1) +
                             " ports; set spark.ui.port, or 0 for any free port)");
    }
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  server->thread_ = std::thread([&http, done] {
    http.listen_after_bind();
    done->store(true);
  });
  // stop() before the accept loop runs would be lost: wait until it runs.
  while (!http.is_running() && !done->load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (done->load() && !http.is_running()) {
    server->thread_.join();
    return Status::IOError("the monitoring server on " + server->url() +
                           " stopped at start");
  }
  return server;
}

void MonitoringServer::Stop() {
  if (!thread_.joinable()) return;
  http_->stop();
  thread_.join();
}

}  // namespace spate::monitor
