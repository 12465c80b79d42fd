// Copyright spate authors.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "spate/base/test_data.h"
#include "spate/monitor/render.h"
#include "spate/monitor/server.h"
#include "spate/monitor/ui_page.h"
#include "spate/testing/status_matchers.h"

namespace spate::monitor {
namespace {

stream::StreamingQueryProgress MakeProgress(int64_t batch, int64_t rows, int64_t ms,
                                            const std::string& id = "q-1",
                                            const std::string& run_id = "run-1") {
  stream::StreamingQueryProgress p;
  p.id = id;
  p.run_id = run_id;
  p.name = "agg \"q\"";
  p.timestamp = stream::FormatTimestampMs(1700000000000 + batch * 1000);
  p.batch_id = batch;
  p.batch_duration = ms;
  p.num_input_rows = rows;
  p.input_rows_per_second = 10.5;
  p.processed_rows_per_second = 200;
  p.duration_ms = {{"triggerExecution", ms}, {"addBatch", ms - 1}, {"walCommit", 1}};
  p.event_time = {
      {"watermark", stream::FormatTimestampMs(1700000000000 + batch * 1000 - 5000)}};
  stream::StateOperatorProgress op;
  op.operator_name = "stateStoreSave";
  op.num_rows_total = 7 + batch;
  op.num_rows_updated = 2;
  op.memory_used_bytes = 1024;
  op.num_rows_dropped_by_watermark = 3;
  p.state_operators.push_back(op);
  stream::SourceProgress s;
  s.description = "KafkaV2[Subscribe[t]]";
  s.end_offset = *Json::Parse(R"({"t":{"0":10,"1":20}})");
  s.latest_offset = *Json::Parse(R"({"t":{"0":15,"1":20}})");
  s.metrics = {{"kafka.sasl.jaas.config", "x password=\"p\";"}};
  p.sources.push_back(s);
  p.sink.description = "MemorySink";
  return p;
}

std::shared_ptr<StreamingQueryStatusListener> Fed() {
  auto l = std::make_shared<StreamingQueryStatusListener>();
  l->onQueryStarted({"q-1", "run-1", std::string("agg \"q\""),
                     stream::FormatTimestampMs(1700000000000)});
  l->onQueryProgress({MakeProgress(0, 4, 20)});
  l->onQueryProgress({MakeProgress(1, 6, 2000)});
  l->onQueryStarted(
      {"q-2", "run-2", std::nullopt, stream::FormatTimestampMs(1700000001000)});
  l->onQueryTerminated({"q-2", "run-2", std::string("boom: password=hunter2"),
                        std::string("STREAM_FAILED")});
  return l;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Monitor, PrometheusText) {
  std::string text = RenderPrometheus(Fed()->Snapshot());
  EXPECT_TRUE(Contains(text, "# HELP spate_stream_input_rows_per_second "));
  EXPECT_TRUE(Contains(text, "# TYPE spate_stream_batch_duration_seconds histogram\n"));
  const std::string q1 = "{query_id=\"q-1\",query_name=\"agg \\\"q\\\"\"";
  EXPECT_TRUE(Contains(text, "spate_stream_active" + q1 + "} 1\n")) << text;
  EXPECT_TRUE(
      Contains(text, "spate_stream_active{query_id=\"q-2\",query_name=\"\"} 0\n"));
  EXPECT_TRUE(Contains(
      text, "spate_stream_failures_total{query_id=\"q-2\",query_name=\"\"} 1\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_batches_total" + q1 + "} 2\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_input_rows_total" + q1 + "} 10\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_input_rows_per_second" + q1 + "} 10.5\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_processed_rows_per_second" + q1 + "} 200\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_last_batch_duration_seconds" + q1 + "} 2\n"));
  EXPECT_TRUE(Contains(
      text, "spate_stream_batch_duration_seconds_bucket" + q1 + ",le=\"0.025\"} 1\n"));
  EXPECT_TRUE(Contains(
      text, "spate_stream_batch_duration_seconds_bucket" + q1 + ",le=\"2.5\"} 2\n"));
  EXPECT_TRUE(Contains(
      text, "spate_stream_batch_duration_seconds_bucket" + q1 + ",le=\"+Inf\"} 2\n"));
  EXPECT_TRUE(
      Contains(text, "spate_stream_batch_duration_seconds_sum" + q1 + "} 2.02\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_batch_duration_seconds_count" + q1 + "} 2\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_operation_duration_seconds" + q1 +
                                 ",operation=\"addBatch\"} 1.999\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_latest_batch_id" + q1 + "} 1\n"));
  EXPECT_TRUE(
      Contains(text, "spate_stream_watermark_timestamp_seconds" + q1 + "} 1699999996\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_watermark_lag_seconds" + q1 + "} 5\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_state_rows" + q1 + "} 8\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_state_memory_bytes" + q1 + "} 1024\n"));
  EXPECT_TRUE(Contains(text, "spate_stream_late_rows_dropped_total" + q1 + "} 6\n"));
  EXPECT_TRUE(
      Contains(text, "spate_stream_source_lag_records" + q1 +
                         ",source=\"KafkaV2[Subscribe[t]]\",source_index=\"0\"} 5\n"));

  std::string promtool = FindOnPath("promtool");
  if (promtool.empty()) {
    if (MissingTestDataFails())
      FAIL() << "promtool is missing (CI=true): install Debian's prometheus";
    GTEST_SKIP() << "promtool is missing (Debian package prometheus)";
  }
  auto [rc, out] = PromtoolCheckMetrics(promtool, text);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "");
  // promtool does catch what it should.
  auto bad =
      PromtoolCheckMetrics(promtool, "# HELP x_ms a\n# TYPE x_ms counter\nx_ms 1\n");
  EXPECT_NE(bad.first, 0);
}

TEST(Monitor, OffsetsBehindLatest) {
  EXPECT_EQ(OffsetsBehindLatest(Json::Int(3), Json::Int(10)), 7);
  EXPECT_EQ(OffsetsBehindLatest(*Json::Parse(R"({"a":{"0":1,"1":2},"b":{"0":5}})"),
                                *Json::Parse(R"({"a":{"0":4,"1":2,"2":9},"b":{"0":6}})")),
            4);
  EXPECT_FALSE(OffsetsBehindLatest(Json::String("x"), Json::Int(1)));
}

TEST(Monitor, RetainedRuns) {
  StreamingQueryStatusListener l(/*retained_queries=*/1, /*retained_progress=*/2);
  for (int i = 0; i < 3; ++i) {
    std::string run = "r" + std::to_string(i);
    l.onQueryStarted({"q", run, std::nullopt, stream::FormatTimestampMs(i)});
    for (int b = 0; b < 3; ++b) {
      l.onQueryProgress({MakeProgress(b, 1, 1, "q", run)});
    }
    l.onQueryTerminated({"q", run, std::nullopt, std::nullopt});
  }
  auto s = l.Snapshot();
  ASSERT_EQ(s.runs.size(), 1u);
  EXPECT_EQ(s.runs[0].run_id, "r2");
  ASSERT_EQ(s.runs[0].progress.size(), 2u);
  EXPECT_EQ(s.runs[0].progress.front().batch_id, 1);
  EXPECT_EQ(s.totals.at("q").batches, 9);  // counters count every batch of the query
}

TEST(Monitor, ServerEndpoints) {
  MonitorOptions o;
  o.port = 0;
  o.app_id = "local-1";
  o.environment = [] {
    return std::vector<std::pair<std::string, std::string>>{
        {"spark.sql.shuffle.partitions", "4"},
        {"kafka.sasl.jaas.config", "PlainLoginModule required password=\"p\";"},
        {"fs.s3a.secret.key", "abc"}};
  };
  auto server = MonitoringServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto& srv = **server;
  EXPECT_GT(srv.port(), 0);
  EXPECT_EQ(srv.url(), "http://127.0.0.1:" + std::to_string(srv.port()));
  auto fed = Fed();
  // Feed the server's own listener the same events.
  for (const auto& r : fed->Snapshot().runs) {
    srv.listener()->onQueryStarted(
        {r.id, r.run_id, r.name, stream::FormatTimestampMs(r.start_ms)});
    for (const auto& p : r.progress) srv.listener()->onQueryProgress({p});
    if (!r.active)
      srv.listener()->onQueryTerminated({r.id, r.run_id, r.exception, r.error_class});
  }

  httplib::Client c("127.0.0.1", srv.port());
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_EQ(m->get_header_value("Content-Type"),
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(m->body, RenderPrometheus(srv.listener()->Snapshot()));
  auto last_only = srv.listener()->Snapshot(1);
  EXPECT_EQ(last_only.runs.at(0).progress.size(), 1u);
  EXPECT_EQ(last_only.runs.at(0).progress.back().batch_id, 1);
  EXPECT_EQ(last_only.runs.at(0).name, std::optional<std::string>("agg \"q\""));

  auto streams = c.Get("/api/v1/streams");
  ASSERT_TRUE(streams);
  EXPECT_EQ(streams->status, 200);
  auto list = Json::Parse(streams->body);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items().size(), 2u);
  EXPECT_EQ(list->items()[0].Find("runId")->string_value(), "run-1");
  EXPECT_EQ(list->items()[0].Find("status")->string_value(), "RUNNING");
  EXPECT_EQ(list->items()[0].Find("latestBatchId")->int_value(), 1);
  EXPECT_EQ(list->items()[0].Find("avgInputRowsPerSecond")->double_value(), 10.5);
  EXPECT_EQ(list->items()[1].Find("status")->string_value(), "FAILED");
  EXPECT_EQ(list->items()[1].Find("exception")->string_value(),
            "boom: password=*********(redacted)");
  auto active = Json::Parse(c.Get("/api/v1/streams?status=active")->body);
  EXPECT_EQ(active->items().size(), 1u);
  EXPECT_EQ(c.Get("/api/v1/streams?status=bogus")->status, 400);

  auto progress = c.Get("/api/v1/streams/run-1/progress");
  ASSERT_TRUE(progress);
  auto pj = Json::Parse(progress->body);
  ASSERT_TRUE(pj.ok());
  ASSERT_EQ(pj->items().size(), 2u);
  // Spark's progress JSON, with the secret in the source metrics redacted.
  auto expected = MakeProgress(1, 6, 2000);
  expected.sources[0].metrics["kafka.sasl.jaas.config"] = "*********(redacted)";
  EXPECT_EQ(pj->items()[1], expected.ToJson());
  EXPECT_FALSE(Contains(progress->body, "password"));

  auto one = Json::Parse(c.Get("/api/v1/streams/run-2")->body);
  EXPECT_EQ(one->Find("errorClass")->string_value(), "STREAM_FAILED");
  EXPECT_EQ(c.Get("/api/v1/streams/nope")->status, 404);
  EXPECT_EQ(c.Get("/api/v1/streams/nope/progress")->status, 404);
  EXPECT_EQ(c.Get("/etc/passwd")->status, 404);
  EXPECT_EQ(c.Get("/../../etc/passwd")->status, 404);
  EXPECT_EQ(c.Post("/metrics", "x", "text/plain")->status, 405);

  auto apps = Json::Parse(c.Get("/api/v1/applications")->body);
  EXPECT_EQ(apps->items()[0].Find("id")->string_value(), "local-1");
  auto env = c.Get("/api/v1/applications/local-1/environment");
  EXPECT_TRUE(Contains(env->body, "\"spark.sql.shuffle.partitions\", \"4\""));
  EXPECT_TRUE(Contains(env->body, "\"kafka.sasl.jaas.config\", \"*********(redacted)\""));
  EXPECT_TRUE(Contains(env->body, "\"fs.s3a.secret.key\", \"*********(redacted)\""));
  EXPECT_FALSE(Contains(env->body, "abc"));
  EXPECT_EQ(c.Get("/api/v1/applications/other/environment")->status, 404);
  EXPECT_EQ(Json::Parse(c.Get("/api/v1/version")->body)->Find("spark")->string_value(),
            "0.1.0");

  srv.Stop();
  srv.Stop();  // idempotent
  EXPECT_FALSE(httplib::Client("127.0.0.1", srv.port()).Get("/metrics"));
}

// The live page: fixed paths serving the embedded files (the browser test,
// tests/ui/live_page.mjs, checks what the page shows).
TEST(Monitor, LivePageIsEmbedded) {
  MonitorOptions o;
  o.port = 0;
  auto server = MonitoringServer::Start(o);
  ASSERT_TRUE(server.ok());
  httplib::Client c("127.0.0.1", (*server)->port());
  auto root = c.Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 302);
  EXPECT_EQ(root->get_header_value("Location"), "/StreamingQuery/");
  EXPECT_EQ(c.Get("/StreamingQuery")->get_header_value("Location"), "/StreamingQuery/");
  for (const char* path : {"/StreamingQuery/", "/StreamingQuery/statistics/?id=run-1",
                           "/StreamingQuery/statistics?id=x"}) {
    auto page = c.Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_EQ(page->status, 200) << path;
    EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_EQ(page->body, UiHtml());
    EXPECT_TRUE(
        Contains(page->get_header_value("Content-Security-Policy"), "script-src 'self'"));
  }
  EXPECT_TRUE(
      Contains(std::string(UiHtml()), "<script src=\"/static/spate-streaming.js\""));
  auto js = c.Get("/static/spate-streaming.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js->body, UiScript());
  EXPECT_TRUE(Contains(js->body, "window.spateStreaming"));
  auto css = c.Get("/static/spate-streaming.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->body, UiStyle());
  EXPECT_GT(UiStyle().size(), 100u);
  // Nothing else under /static, and no way out of it.
  for (const char* path :
       {"/static/", "/static/spate-streamingXjs", "/static/../etc/passwd",
        "/static/spate-streaming.js/../../etc/passwd", "/StreamingQuery/x"}) {
    EXPECT_EQ(c.Get(path)->status, 404) << path;
  }
}

// Scrapes while a query thread reports progress (a TSan build checks the locking).
TEST(Monitor, ScrapesWhileQueriesReport) {
  MonitorOptions o;
  o.port = 0;
  auto server = MonitoringServer::Start(o);
  ASSERT_TRUE(server.ok());
  auto listener = (*server)->listener();
  listener->onQueryStarted({"q-1", "run-1", std::nullopt, stream::FormatTimestampMs(0)});
  std::thread reporter([&] {
    for (int b = 0; b < 300; ++b) listener->onQueryProgress({MakeProgress(b, 1, 5)});
    listener->onQueryTerminated({"q-1", "run-1", std::nullopt, std::nullopt});
  });
  httplib::Client c("127.0.0.1", (*server)->port());
  for (int i = 0; i < 20; ++i) {
    auto m = c.Get("/metrics");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->status, 200);
    auto streams = c.Get("/api/v1/streams/run-1/progress");
    ASSERT_TRUE(streams);
    EXPECT_TRUE(Json::Parse(streams->body).ok());
  }
  reporter.join();
  auto m = c.Get("/metrics");
  EXPECT_TRUE(Contains(
      m->body,
      "spate_stream_batches_total{query_id=\"q-1\",query_name=\"agg \\\"q\\\"\"} 300\n"))
      << m->body;
}

TEST(Monitor, TakenPortMovesOn) {
  MonitorOptions o;
  o.port = 0;
  auto first = MonitoringServer::Start(o);
  ASSERT_TRUE(first.ok());
  o.port = (*first)->port();
  o.max_port_retries = 16;
  auto second = MonitoringServer::Start(o);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE((*second)->port(), (*first)->port());
  o.max_port_retries = 0;
  auto third = MonitoringServer::Start(o);
  ASSERT_ERROR_HAS(third, "spark.ui.port");
  o.port = 70000;
  EXPECT_ERROR_HAS(MonitoringServer::Start(o),
                   "spark.ui.port must be between 0 and 65535, not 70000");
}

}  // namespace
}  // namespace spate::monitor
