// Copyright spate authors.
// Observability end to end (issue 16): the monitoring server started by the session conf
// watching real queries (/metrics checked by promtool, /api/v1 against the queries' own
// progress), and `checkpoint describe` on checkpoints made by real runs (stateless file
// source; stateful aggregation with both state store providers), which it must not
// change.

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "spate/api/monitoring.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/base/test_data.h"
#include "spate/base/text_parse.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_describe.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/stream_test.h"
#include "spate/testing/temp_files.h"

namespace spate::testing {
namespace {

using api::MemoryStream;
using api::SparkSession;
namespace fs = std::filesystem;

SparkSession Spark() {
  static SparkSession s = TestSession("observability-tests");
  return s;
}

std::string TempDir(const std::string& what) { return MakeTestDir("spate-obs", what); }

/// Every file under `dir` with its bytes (to show that describe changes nothing).
std::map<std::string, std::string> Tree(const std::string& dir) { return FileTree(dir); }

/// count() per k of `input` into the memory sink `name` in output mode `mode`.
api::DataStreamWriter CountPerKeyInto(const MemoryStream& input, const std::string& name,
                                      const std::string& mode) {
  api::DataStreamWriter w = input.toDF().groupBy("k").count().writeStream();
  w.format("memory").queryName(name).outputMode(mode);
  return w;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Observability, MonitoringServerWatchesRealQueries) {
  ASSERT_FALSE(Spark().uiWebUrl().has_value());  // off unless asked for
  auto spark = SparkSession::builder()
                   .config("spark.ui.enabled", "true")
                   .config("spark.ui.port", "0")
                   .config("spark.hadoop.fs.s3a.secret.key", "s3cr3t")
                   .getOrCreate();
  auto url = spark.uiWebUrl();
  ASSERT_TRUE(url.has_value());
  ASSERT_EQ(url->rfind("http://127.0.0.1:", 0), 0u) << *url;  // loopback by default
  int port = ParseInt32(url->substr(url->rfind(':') + 1)).value();
  httplib::Client c("127.0.0.1", port);

  MemoryStream input(spark, "k STRING, v INT");
  auto q = CountPerKeyInto(input, "obs_agg", "complete").start();
  input.addData(
      {{Value::String("a"), Value::Int(1)}, {Value::String("b"), Value::Int(2)}});
  q.processAllAvailable();
  input.addData(
      {{Value::String("a"), Value::Int(3)}, {Value::String("c"), Value::Int(4)}});
  q.processAllAvailable();
  const int64_t batches = q.lastProgress()->batch_id + 1;

  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->status, 200);
  const std::string labels = "{query_id=\"" + q.id() + "\",query_name=\"obs_agg\"}";
  EXPECT_TRUE(Contains(m->body, "spate_stream_active" + labels + " 1\n")) << m->body;
  EXPECT_TRUE(Contains(m->body, "spate_stream_batches_total" + labels + " " +
                                    std::to_string(batches) + "\n"));
  EXPECT_TRUE(Contains(m->body, "spate_stream_input_rows_total" + labels + " 4\n"));
  EXPECT_TRUE(Contains(m->body, "spate_stream_state_rows" + labels + " 3\n"));
  EXPECT_TRUE(Contains(m->body, "spate_stream_state_memory_bytes" + labels + " "));
  EXPECT_TRUE(Contains(m->body, "spate_stream_batch_duration_seconds_count" + labels +
                                    " " + std::to_string(batches) + "\n"));
  std::string promtool = FindOnPath("promtool");
  if (promtool.empty()) {
    if (MissingTestDataFails()) {
      ADD_FAILURE() << "promtool is missing (CI=true): install Debian's prometheus";
    }
  } else {
    auto [rc, out] = PromtoolCheckMetrics(promtool, m->body);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(out, "");
  }

  auto streams = Json::Parse(c.Get("/api/v1/streams")->body);
  ASSERT_TRUE(streams.ok());
  const Json* run = nullptr;
  for (const auto& r : streams->items()) {
    if (r.Find("runId")->string_value() == q.runId()) run = &r;
  }
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->Find("status")->string_value(), "RUNNING");
  EXPECT_EQ(run->Find("name")->string_value(), "obs_agg");
  EXPECT_EQ(run->Find("latestBatchId")->int_value(), batches - 1);
  // The progress served is the query's own, as StreamingQueryProgress.json() prints it.
  auto progress = Json::Parse(c.Get("/api/v1/streams/" + q.runId() + "/progress")->body);
  ASSERT_TRUE(progress.ok());
  ASSERT_EQ(static_cast<int64_t>(progress->items().size()), batches);
  EXPECT_EQ(progress->items().back(), q.lastProgress()->ToJson());

  // Confs are shown with secrets redacted.
  auto apps = Json::Parse(c.Get("/api/v1/applications")->body);
  std::string app_id = apps->items()[0].Find("id")->string_value();
  auto env = c.Get("/api/v1/applications/" + app_id + "/environment");
  ASSERT_TRUE(env);
  EXPECT_TRUE(
      Contains(env->body, "\"spark.hadoop.fs.s3a.secret.key\", \"*********(redacted)\""))
      << env->body;
  EXPECT_FALSE(Contains(env->body, "s3cr3t"));

  q.stop();
  auto one = Json::Parse(c.Get("/api/v1/streams/" + q.runId())->body);
  EXPECT_EQ(one->Find("status")->string_value(), "FINISHED");
  EXPECT_TRUE(Contains(c.Get("/metrics")->body, "spate_stream_active" + labels + " 0\n"));

  api::StopMonitoring();
  EXPECT_FALSE(spark.uiWebUrl().has_value());
  EXPECT_FALSE(httplib::Client("127.0.0.1", port).Get("/metrics"));
  spark.conf().unset("spark.ui.enabled");
  spark.conf().unset("spark.ui.port");
  spark.conf().unset("spark.hadoop.fs.s3a.secret.key");
}

TEST(Observability, DescribeStatelessCheckpoint) {
  std::string landing = TempDir("landing"), out = TempDir("out"), chk = TempDir("chk");
  fs::remove_all(chk);
  auto land = [&](int file, int rows) {
    std::ofstream f(landing + "/part-" + std::to_string(file) + ".json");
    for (int i = 0; i < rows; ++i) f << "{\"id\":" << file * 100 + i << "}\n";
  };
  auto run = [&] {
    auto q = Spark()
                 .readStream()
                 .schema("id INT")
                 .json(landing)
                 .writeStream()
                 .format("parquet")
                 .option("checkpointLocation", chk)
                 .trigger(api::Trigger::AvailableNow())
                 .start(out);
    q.awaitTermination();
    return q.id();
  };
  land(0, 3);
  land(1, 2);
  std::string id = run();
  land(2, 4);
  run();

  auto before = Tree(chk);
  auto d = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), chk);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(Tree(chk), before);  // read-only
  EXPECT_EQ(d->query_id, id);
  ASSERT_EQ(d->batches.size(), 2u);
  EXPECT_EQ(d->last_committed_batch, 1);
  for (const auto& b : d->batches) {
    EXPECT_TRUE(b.committed());
    ASSERT_TRUE(b.offsets.has_value());
    EXPECT_GT(b.offsets->metadata.batch_timestamp_ms, 0);
  }
  ASSERT_EQ(d->sources.size(), 1u);
  EXPECT_TRUE(d->sources[0].has_log);
  EXPECT_EQ(d->sources[0].log_entries, 3);  // the three files seen
  EXPECT_EQ(d->sources[0].committed_offset, d->batches[1].offsets->offsets[0]);
  EXPECT_TRUE(d->operators.empty());

  Json j = d->ToJson();
  EXPECT_EQ(j.Find("queryId")->string_value(), id);
  EXPECT_EQ(j.Find("batches")->items().size(), 2u);
  EXPECT_EQ(j.Find("batches")->items()[1].Find("committed")->bool_value(), true);
  EXPECT_TRUE(
      j.Find("batches")->items()[0].Find("conf")->Find("spark.sql.shuffle.partitions"));
  EXPECT_EQ(j.Find("sources")->items()[0].Find("log")->Find("entries")->int_value(), 3);
  EXPECT_TRUE(j.Find("state")->Find("operators")->items().empty());
  std::string text = d->ToText();
  EXPECT_TRUE(Contains(text, "  query id:              " + id + "\n")) << text;
  EXPECT_TRUE(Contains(text, "last committed batch:  1\n")) << text;
  EXPECT_TRUE(Contains(text, "log sources/0: 3 entries, latest batch 1\n")) << text;
  EXPECT_TRUE(Contains(text, "(none: a stateless query)")) << text;

  // A batch planned but not committed (a crash between offsets/1 and commits/1): the
  // committed offset is batch 0's, the latest batch 1's.
  fs::remove(chk + "/commits/1");
  auto pending = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), chk);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->last_committed_batch, 0);
  EXPECT_FALSE(pending->batches[1].committed());
  EXPECT_EQ(pending->sources[0].committed_offset, d->batches[0].offsets->offsets[0]);
  EXPECT_EQ(pending->sources[0].latest_offset, d->batches[1].offsets->offsets[0]);
  EXPECT_NE(pending->sources[0].committed_offset, pending->sources[0].latest_offset);
  EXPECT_TRUE(Contains(pending->ToText(), "  1      no ")) << pending->ToText();

  // Not a checkpoint: an error naming the folder.
  auto bad = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), landing);
  ASSERT_ERROR_HAS(bad, landing + " is not a streaming checkpoint");
  // A corrupt offsets file: the log's error naming the file.
  std::ofstream(chk + "/offsets/1", std::ios::trunc) << "garbage";
  auto corrupt = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), chk);
  ASSERT_ERROR_HAS(corrupt, chk + "/offsets/1");
  for (const auto& d2 : {landing, out, chk}) fs::remove_all(d2);
}

class DescribeStateful : public ::testing::TestWithParam<std::string> {};

TEST_P(DescribeStateful, AggregationState) {
  SparkSession spark = Spark().newSession();
  spark.conf().set("spark.sql.shuffle.partitions", "3");
  spark.conf().set("spark.sql.streaming.stateStore.providerClass", GetParam());
  std::string chk = TempDir("state");
  fs::remove_all(chk);
  MemoryStream input(spark, "k STRING, v INT");
  auto q = CountPerKeyInto(input, "obs_state_" + GetParam(), "update")
               .option("checkpointLocation", chk)
               .start();
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::vector<Value>> rows;
    for (int i = 0; i <= batch * 2; ++i) {
      rows.push_back({Value::String("key" + std::to_string(i)), Value::Int(i)});
    }
    input.addData(rows);
    q.processAllAvailable();
  }
  int64_t last = q.lastProgress()->batch_id;
  int64_t rows_total = q.lastProgress()->state_operators.at(0).num_rows_total;
  q.stop();

  auto before = Tree(chk);
  auto d = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), chk);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(Tree(chk), before);  // read-only, for RocksDB too
  EXPECT_EQ(d->query_id, q.id());
  EXPECT_EQ(d->last_committed_batch, last);
  EXPECT_EQ(d->state_provider, GetParam());
  ASSERT_EQ(d->operators.size(), 1u);
  const auto& op = d->operators[0];
  EXPECT_EQ(op.operator_id, 0);
  EXPECT_EQ(op.num_partitions, 3);
  ASSERT_TRUE(op.schemas.has_value());
  EXPECT_EQ(op.schemas->key->ToString(), "struct<k:string>");
  ASSERT_EQ(op.stores.size(), 3u);
  for (const auto& s : op.stores) {
    EXPECT_EQ(s.load_error, std::nullopt);
    EXPECT_EQ(s.loaded_version, last + 1);  // batch N commits version N+1
    EXPECT_EQ(s.versions.back(), last + 1);
    EXPECT_GT(s.bytes_on_disk, 0);
    EXPECT_GT(s.num_files, 0);
  }
  EXPECT_EQ(op.num_rows(), 5);  // key0..key4
  EXPECT_EQ(op.num_rows(), rows_total);
  EXPECT_GT(op.bytes_on_disk(), 0);

  Json j = d->ToJson();
  const Json& jop = j.Find("state")->Find("operators")->items().at(0);
  EXPECT_EQ(jop.Find("numPartitions")->int_value(), 3);
  EXPECT_EQ(jop.Find("numRowsTotal")->int_value(), 5);
  EXPECT_EQ(jop.Find("stores")->items().size(), 3u);
  EXPECT_EQ(jop.Find("stores")->items()[0].Find("loadedVersion")->int_value(), last + 1);
  EXPECT_EQ(j.Find("state")->Find("provider")->string_value(), GetParam());
  std::string text = d->ToText();
  EXPECT_TRUE(Contains(text, "operator 0: 3 partitions, 5 rows")) << text;
  EXPECT_TRUE(Contains(text, "key schema:   struct<k:string>")) << text;

  // The last batch's commit lost (state committed, commits/N not written): the state of
  // the last committed batch is what a restart loads, so that version is described.
  fs::remove(chk + "/commits/" + std::to_string(last));
  auto pending = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), chk);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->last_committed_batch, last - 1);
  for (const auto& s : pending->operators.at(0).stores) {
    EXPECT_EQ(s.loaded_version, last);
    EXPECT_EQ(s.versions.back(), last + 1);
  }
  EXPECT_EQ(pending->operators.at(0).num_rows(), 3);  // key0..key2 after batch 1
  fs::remove_all(chk);
}

INSTANTIATE_TEST_SUITE_P(Providers, DescribeStateful,
                         ::testing::Values("memory", "rocksdb"));

}  // namespace
}  // namespace spate::testing
