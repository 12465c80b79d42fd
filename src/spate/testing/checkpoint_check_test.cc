// Copyright spate authors.
// `spate checkpoint check` end to end (stream/checkpoint_check.h): checkpoints made by
// real runs of an original query, then changed queries handed to the check through the
// start hook (never started). Each change's verdict and error class; the planned state
// schemas equal the ones the runtime wrote; the check writes nothing. The verdicts are
// checked against real Spark 4.2 by tests/differential/test_checkpoint_check.py.

#include "spate/stream/checkpoint_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "spate/api/column.h"
#include "spate/api/datetime_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/state/state_store.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/stream_test.h"
#include "spate/testing/temp_files.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::SparkSession;
namespace fs = std::filesystem;
namespace F = api::functions;
using Verdict = stream::CheckFinding::Verdict;

SparkSession Spark() {
  static SparkSession s = [] {
    SparkSession x = TestSession("checkpoint-check-tests");
    x.conf().set("spark.sql.shuffle.partitions", "2");
    return x;
  }();
  return s;
}

std::string TempDir(const std::string& what) {
  return MakeTestDir("spate-ckcheck", what);
}

struct Fixture {
  std::string in = TempDir("in"), in2 = TempDir("in2"), chk = TempDir("chk");
  int files = 0;
  Fixture() {
    fs::remove_all(chk);
    Land();
    Land();
  }
  void Land() {
    for (const std::string& dir : {in, in2}) {
      std::ofstream f(dir + "/f" + std::to_string(files) + ".json");
      for (int j = 0; j < 3; ++j) {
        f << "{\"k\":\"k" << j % 2 << "\",\"v\":" << files * 10 + j
          << ",\"ts\":\"2026-01-01T00:0" << files << ":0" << j << "Z\"}\n";
      }
    }
    ++files;
  }
  DataFrame Src(bool second = false) const {
    return Spark()
        .readStream()
        .schema("k STRING, v LONG, ts TIMESTAMP")
        .json(second ? in2 : in);
  }
  api::StreamingQuery Start(const DataFrame& df, const std::string& mode,
                            const std::string& sink = "noop") const {
    auto w = df.writeStream()
                 .format(sink)
                 .outputMode(mode)
                 .option("checkpointLocation", chk)
                 .trigger(api::Trigger::AvailableNow());
    if (sink == "console") w.option("numRows", "1");
    return w.start();
  }
  void Run(const DataFrame& df, const std::string& mode) {
    auto q = Start(df, mode);
    q.awaitTermination();
    Land();
  }
  /// The check of the query `start` would start (handed over by the hook).
  stream::CheckpointCheck Check(const std::function<void()>& start) const {
    std::optional<stream::QueryConfig> captured;
    stream::SetQueryStartHook([&](const stream::QueryConfig& c) {
      if (!captured) captured = c;
      return Status::OK();
    });
    bool refused = false;
    try {
      start();
    } catch (const std::exception& e) {
      refused = std::string(e.what()).find(stream::kQueryNotStarted) != std::string::npos;
    }
    stream::SetQueryStartHook(nullptr);
    EXPECT_TRUE(refused) << "start() must fail with " << stream::kQueryNotStarted;
    EXPECT_TRUE(captured.has_value());
    auto c =
        stream::CheckQueryAgainstCheckpoint(io::LocalFileSystem::Get(), chk, *captured);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : stream::CheckpointCheck{};
  }
};

const stream::CheckFinding* FindingOf(const stream::CheckpointCheck& c,
                                      const std::string& change) {
  for (const auto& f : c.findings) {
    if (f.change == change) return &f;
  }
  return nullptr;
}

// The original: groupBy(k).count() in Update mode; each change against it.
TEST(CheckpointCheck, AggregationChanges) {
  Fixture fx;
  fx.Run(fx.Src().groupBy("k").count(), "update");
  auto before = FileTree(fx.chk);

  struct Case {
    std::string name;
    std::function<void()> start;
    int exit_code;
    std::string change;
    std::optional<std::string> error_class;
  };
  std::vector<Case> cases = {
      {"unchanged", [&] { fx.Start(fx.Src().groupBy("k").count(), "update"); }, 0,
       "unchanged", std::nullopt},
      {"keys", [&] { fx.Start(fx.Src().groupBy("k", "v").count(), "update"); }, 2,
       "state_key_schema_changed", "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"},
      {"aggregate added",
       [&] {
         fx.Start(fx.Src().groupBy("k").agg({F::count(F::lit(1)), F::sum(F::col("v"))}),
                  "update");
       },
       2, "state_value_schema_changed", "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"},
      {"dedup instead", [&] { fx.Start(fx.Src().dropDuplicates({"k"}), "append"); }, 2,
       "stateful_operator_changed",
       "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
      {"stateless", [&] { fx.Start(fx.Src().select("k", "v"), "append"); }, 2,
       "stateful_operator_removed",
       "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"},
      {"source added",
       [&] {
         fx.Start(fx.Src().unionByName(fx.Src(true)).groupBy("k").count(), "update");
       },
       2, "source_added", std::nullopt},
      {"source folder", [&] { fx.Start(fx.Src(true).groupBy("k").count(), "update"); }, 2,
       "source_changed", std::nullopt},
      {"complete", [&] { fx.Start(fx.Src().groupBy("k").count(), "complete"); }, 1,
       "output_mode_changed", std::nullopt},
      {"filter",
       [&] { fx.Start(fx.Src().where("v > 0").groupBy("k").count(), "update"); }, 0,
       "filter_added", std::nullopt},
      {"sink", [&] { fx.Start(fx.Src().groupBy("k").count(), "update", "console"); }, 1,
       "sink_changed", std::nullopt},
      {"unsupported",
       [&] { fx.Start(fx.Src().groupBy("k").count(), "append"); },  // no watermark
       2, "unsupported_query", "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = fx.Check(c.start);
    EXPECT_EQ(r.ExitCode(), c.exit_code) << r.ToText();
    const auto* f = FindingOf(r, c.change);
    ASSERT_NE(f, nullptr) << r.ToText();
    EXPECT_EQ(f->error_class, c.error_class) << r.ToText();
  }
  // The source count message is Spark's assertion.
  auto r = fx.Check([&] {
    fx.Start(fx.Src().unionByName(fx.Src(true)).groupBy("k").count(), "update");
  });
  EXPECT_EQ(
      FindingOf(r, "source_added")->message,
      "assertion failed: There are [1] sources in the checkpoint offsets and now there "
      "are [2] sources requested by the query. Cannot continue.");
  // The JSON document.
  Json j = r.ToJson();
  EXPECT_EQ(j.Find("exitCode")->int_value(), 2);
  EXPECT_EQ(j.Find("verdict")->string_value(), "refused");
  EXPECT_TRUE(j.Find("queryRecord")->bool_value());
  EXPECT_EQ(FileTree(fx.chk), before);              // the check writes nothing
  EXPECT_TRUE(Spark().streams().active().empty());  // nothing started
}

TEST(CheckpointCheck, StatelessOriginal) {
  Fixture fx;
  fx.Run(fx.Src().select("k", "v"), "append");
  auto r = fx.Check([&] { fx.Start(fx.Src().groupBy("k").count(), "update"); });
  EXPECT_EQ(r.ExitCode(), 2) << r.ToText();
  const auto* f = FindingOf(r, "stateful_operator_added");
  ASSERT_NE(f, nullptr) << r.ToText();
  EXPECT_EQ(f->error_class, "STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY");
  EXPECT_NE(f->message.find("(OperatorId: 0 -> OperatorName: stateStoreSave)"),
            std::string::npos);

  r = fx.Check([&] { fx.Start(fx.Src().where("v > 0").select("k", "v"), "append"); });
  EXPECT_EQ(r.ExitCode(), 0) << r.ToText();
  EXPECT_NE(FindingOf(r, "filter_added"), nullptr);
  // A projection with the same output schema is safe; noop keeps no schema either way.
  r = fx.Check([&] {
    fx.Start(fx.Src().select({F::col("k"), (F::col("v") * F::lit(2)).alias("v")}),
             "append");
  });
  EXPECT_EQ(r.ExitCode(), 0) << r.ToText();
  EXPECT_NE(FindingOf(r, "projection_changed"), nullptr) << r.ToText();
  // Append and Update write the same rows without state.
  r = fx.Check([&] { fx.Start(fx.Src().select("k", "v"), "update"); });
  EXPECT_EQ(r.ExitCode(), 0) << r.ToText();
}

TEST(CheckpointCheck, WatermarkChanges) {
  Fixture fx;
  auto windowed = [&](const std::string& column, const std::string& delay) {
    return fx.Src()
        .withColumn("t2", F::col("ts"))
        .withWatermark(column, delay)
        .groupBy({F::window(F::col(column), "1 minute")})
        .count();
  };
  fx.Run(windowed("ts", "1 minute"), "append");
  auto r = fx.Check([&] { fx.Start(windowed("t2", "1 minute"), "append"); });
  EXPECT_EQ(r.ExitCode(), 1) << r.ToText();
  EXPECT_NE(FindingOf(r, "watermark_column_changed"), nullptr) << r.ToText();
  r = fx.Check([&] { fx.Start(windowed("ts", "5 minutes"), "append"); });
  EXPECT_EQ(r.ExitCode(), 0) << r.ToText();
  EXPECT_NE(FindingOf(r, "watermark_delay_changed"), nullptr) << r.ToText();
}

// What the check plans is what the runtime wrote: the same code computes both.
TEST(CheckpointCheck, PlannedSchemasAreTheWrittenOnes) {
  Fixture fx;
  auto df = fx.Src()
                .withWatermark("ts", "1 minute")
                .dropDuplicates({"k", "ts"})
                .groupBy({F::window(F::col("ts"), "1 minute"), F::col("k")})
                .agg({F::count(F::lit(1)), F::avg(F::col("v")), F::max(F::col("v"))});
  fx.Run(df, "append");
  const auto& analyzed = df.analyzed();
  auto planned = stream::StatefulRuntime::PlanStatefulOperators(analyzed, 2);
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  ASSERT_EQ(planned->size(), 2u);
  EXPECT_EQ((*planned)[0].name, "stateStoreSave");
  EXPECT_EQ((*planned)[1].name, "dedupe");
  for (const auto& p : *planned) {
    auto stored = state::ReadStateSchema(*io::LocalFileSystem::Get(), fx.chk + "/state",
                                         p.operator_id);
    ASSERT_TRUE(stored.ok() && stored->has_value());
    EXPECT_EQ((*stored)->key->ToString(), p.key_schema->ToString());
    EXPECT_EQ((*stored)->value->ToString(), p.value_schema->ToString());
  }
  auto record = stream::ReadQueryRecord(*io::LocalFileSystem::Get(), fx.chk);
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_EQ((*record)->operators.size(), 2u);
  EXPECT_EQ((*record)->output_mode, "Append");
  ASSERT_EQ((*record)->watermarks.size(), 1u);
  EXPECT_EQ((*record)->watermarks[0].column, "ts");
  EXPECT_EQ((*record)->watermarks[0].delay_ms, 60000);
}

// The runtime refuses what the check calls refused for the operator list, as Spark.
TEST(CheckpointCheck, RuntimeRefusesAChangedOperatorList) {
  Fixture fx;
  fx.Run(fx.Src().groupBy("k").count(), "update");
  auto q = fx.Start(fx.Src().dropDuplicates({"k"}), "append");
  try {
    q.awaitTermination();
    ADD_FAILURE() << "the restart must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "[STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA] Streaming "
                  "stateful "
                  "operator name does not match with the operator in state metadata."),
              std::string::npos)
        << e.what();
    EXPECT_NE(
        std::string(e.what()).find(
            "Stateful operators in the metadata: [(OperatorId: 0 -> OperatorName: "
            "stateStoreSave)]; Stateful operators in current batch: [(OperatorId: 0 -> "
            "OperatorName: dedupe)]"),
        std::string::npos)
        << e.what();
  }
  Fixture stateless;
  stateless.Run(stateless.Src().select("k", "v"), "append");
  q = stateless.Start(stateless.Src().groupBy("k").count(), "update");
  try {
    q.awaitTermination();
    ADD_FAILURE() << "the restart must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(
        std::string(e.what()).find("STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY"),
        std::string::npos)
        << e.what();
  }
  // The same query restarts as before.
  fx.Run(fx.Src().groupBy("k").count(), "update");
}

TEST(CheckpointCheck, NewCheckpointAndNotACheckpoint) {
  Fixture fx;
  auto r = fx.Check([&] { fx.Start(fx.Src().groupBy("k").count(), "update"); });
  EXPECT_EQ(r.ExitCode(), 0);
  EXPECT_NE(FindingOf(r, "new_checkpoint"), nullptr) << r.ToText();
}

}  // namespace
}  // namespace spate::testing
