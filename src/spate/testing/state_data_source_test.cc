// Copyright spate authors.
// State as a table (issue 15): spark.read.format("statestore") and
// format("state-metadata") over checkpoints made by real runs (aggregation with and
// without an event-time key, deduplication, a stream-stream join), against both state
// store providers: batchId selection, joinSide and named stores, the change feed, a
// checkpoint without the operator metadata file, and Spark's errors.

#include <gtest/gtest.h>

#include <filesystem>

#include "spate/api/datetime_functions.h"
#include "spate/api/readwriter.h"
#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/stateful_processor.h"
#include "spate/stream/tws_state_schema.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::MemoryStream;
using api::SparkSession;
namespace F = api::functions;
namespace fs = std::filesystem;

SparkSession Spark() {
  static SparkSession s = TestSession("state-data-source-tests");
  return s;
}

std::string TempDir(const std::string& what) {
  const char* tmp = std::getenv("TMPDIR");
  std::string d = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                               "spate-stds-" + what + "-" + stream::RandomUuid());
  fs::remove_all(d);
  return d;
}

Value I(int32_t v) { return Value::Int(v); }
Value S(const std::string& v) { return Value::String(v); }
Value T(int minutes) {
  return Value::Timestamp((1767225600LL + 12 * 3600 + minutes * 60LL) * 1000000LL);
}

/// Rows of `df` as sorted strings.
std::vector<std::string> Strings(const DataFrame& df) {
  Rows rows;
  for (const auto& r : df.collect()) rows.push_back(r.values());
  return RowStrings(rows);
}

/// The error text of loading `format` from `chk` with `opts`; "" when it loads.
std::string LoadError(const SparkSession& spark, const std::string& format,
                      const std::string& chk,
                      const std::map<std::string, std::string>& opts) {
  try {
    spark.read().format(format).options(opts).load(chk).collect();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class StateDataSource : public ::testing::TestWithParam<std::string> {
 protected:
  SparkSession NewSpark() {
    SparkSession spark = Spark().newSession();
    spark.conf().set("spark.sql.shuffle.partitions", "3");
    spark.conf().set("spark.sql.streaming.stateStore.providerClass", GetParam());
    return spark;
  }
};

TEST_P(StateDataSource, Aggregation) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("agg");
  MemoryStream input(spark, "k STRING, v INT");
  auto q = input.toDF()
               .groupBy("k")
               .agg(F::count(F::col("v")).alias("n"), F::sum(F::col("v")).alias("s"))
               .writeStream()
               .format("memory")
               .queryName("stds_agg_" + GetParam())
               .outputMode("update")
               .option("checkpointLocation", chk)
               .start();
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::vector<Value>> rows;
    for (int i = 0; i <= batch * 2; ++i)
      rows.push_back({S("key" + std::to_string(i)), I(i)});
    input.addData(rows);
    q.processAllAvailable();
  }
  q.stop();

  DataFrame state = spark.read().format("statestore").load(chk);
  EXPECT_EQ(state.schema().ToSchema()->field(0).name, "key");
  EXPECT_EQ(state.schema().ToSchema()->field(1).name, "value");
  EXPECT_EQ(state.schema().ToSchema()->field(2).name, "partition_id");
  auto flat = state.selectExpr("key.k", "value.*");
  // count's state, then sum's (sum, count of non-null inputs).
  EXPECT_EQ(Strings(flat), (std::vector<std::string>{"[key0, 3, 0, 3]", "[key1, 2, 2, 2]",
                                                     "[key2, 2, 4, 2]", "[key3, 1, 3, 1]",
                                                     "[key4, 1, 4, 1]"}));
  // The partitions are the operator's three.
  auto parts = Strings(state.selectExpr("partition_id").distinct());
  EXPECT_LE(parts.size(), 3u);
  for (const auto& p : parts) EXPECT_TRUE(p == "[0]" || p == "[1]" || p == "[2]") << p;

  // batchId picks the state after that batch.
  EXPECT_EQ(Strings(spark.read()
                        .format("statestore")
                        .option("batchId", "0")
                        .load(chk)
                        .selectExpr("key.k", "value.*")),
            (std::vector<std::string>{"[key0, 1, 0, 1]"}));
  EXPECT_EQ(spark.read()
                .format("statestore")
                .option("batchId", "1")
                .option("operatorId", "0")
                .option("storeName", "default")
                .load(chk)
                .count(),
            3);

  // The change feed: batch 1's three keys and batch 2's five.
  DataFrame feed = spark.read()
                       .format("statestore")
                       .option("readChangeFeed", "true")
                       .option("changeStartBatchId", "1")
                       .load(chk);
  EXPECT_EQ(Strings(feed.selectExpr("batch_id", "change_type", "key.k")),
            (std::vector<std::string>{"[1, update, key0]", "[1, update, key1]",
                                      "[1, update, key2]", "[2, update, key0]",
                                      "[2, update, key1]", "[2, update, key2]",
                                      "[2, update, key3]", "[2, update, key4]"}));
  EXPECT_EQ(spark.read()
                .format("statestore")
                .option("readChangeFeed", "true")
                .option("changeStartBatchId", "0")
                .option("changeEndBatchId", "0")
                .load(chk)
                .count(),
            1);

  // state-metadata: the one operator.
  EXPECT_EQ(Strings(spark.read().format("state-metadata").load(chk)),
            (std::vector<std::string>{"[0, stateStoreSave, default, 3, 0, 2, null]"}));

  // Spark's errors.
  auto err = [&](const std::map<std::string, std::string>& o) {
    return LoadError(spark, "statestore", chk, o);
  };
  EXPECT_NE(err({{"batchId", "-1"}}).find("STDS_INVALID_OPTION_VALUE.IS_NEGATIVE"),
            std::string::npos);
  EXPECT_NE(err({{"batchId", "x"}}).find("STDS_INVALID_OPTION_VALUE.WITH_MESSAGE"),
            std::string::npos);
  std::string later = err({{"batchId", "7"}});
  EXPECT_NE(later.find("STDS_INVALID_OPTION_VALUE"), std::string::npos) << later;
  EXPECT_NE(later.find("last committed batch"), std::string::npos) << later;
  EXPECT_NE(
      err({{"operatorId", "4"}}).find("STDS_NO_PARTITION_DISCOVERED_IN_STATE_STORE"),
      std::string::npos);
  EXPECT_NE(err({{"storeName", "nope"}}).find("has no store 'nope'"), std::string::npos);
  EXPECT_NE(err({{"joinSide", "left"}}).find("not a stream-stream join"),
            std::string::npos);
  EXPECT_NE(err({{"joinSide", "middle"}}).find("STDS_INVALID_OPTION_VALUE"),
            std::string::npos);
  EXPECT_NE(err({{"joinSide", "left"}, {"storeName", "x"}}).find("STDS_CONFLICT_OPTIONS"),
            std::string::npos);
  EXPECT_NE(err({{"readChangeFeed", "true"}}).find("STDS_REQUIRED_OPTION_UNSPECIFIED"),
            std::string::npos);
  EXPECT_NE(
      err({{"readChangeFeed", "true"}, {"changeStartBatchId", "0"}, {"batchId", "1"}})
          .find("STDS_CONFLICT_OPTIONS"),
      std::string::npos);
  EXPECT_NE(err({{"changeStartBatchId", "0"}}).find("readChangeFeed"), std::string::npos);

  // An empty folder: no committed batch.
  const std::string empty = TempDir("empty");
  fs::create_directories(empty + "/commits");
  fs::create_directories(empty + "/offsets");
  stream::ReadOrCreateStreamMetadata(*io::LocalFileSystem::Get(), empty, "q").status();
  EXPECT_NE(
      LoadError(spark, "statestore", empty, {}).find("STDS_COMMITTED_BATCH_UNAVAILABLE"),
      std::string::npos);

  // A checkpoint written before _metadata/operator existed reads the same.
  fs::remove(chk + "/state/0/_metadata/operator");
  EXPECT_EQ(
      Strings(spark.read().format("statestore").load(chk).selectExpr("key.k", "value.*")),
      Strings(flat));
  EXPECT_EQ(Strings(spark.read().format("state-metadata").load(chk)),
            (std::vector<std::string>{"[0, stateStoreSave, default, 3, 0, 2, null]"}));
  fs::remove_all(chk);
  fs::remove_all(empty);
}

// An event-time grouping key: the value starts with the key's event time.
// snapshotStartBatchId + snapshotPartitionId: one partition's state at batchId rebuilt
// from the base file of version snapshotStartBatchId+1 (memory .snapshot, rocksdb
// .checkpoint, written every 2 versions here) and the delta / changelog files after it;
// Spark's errors.
TEST_P(StateDataSource, SnapshotStartBatchId) {
  SparkSession spark = NewSpark();
  spark.conf().set("spark.sql.streaming.stateStore.minDeltasForSnapshot", "2");
  const std::string chk = TempDir("snap");
  MemoryStream input(spark, "k STRING, v INT");
  auto q = input.toDF()
               .groupBy("k")
               .agg(F::count(F::col("v")).alias("n"))
               .writeStream()
               .format("memory")
               .queryName("stds_snap_" + GetParam())
               .outputMode("update")
               .option("checkpointLocation", chk)
               .start();
  for (int batch = 0; batch < 5; ++batch) {
    std::vector<std::vector<Value>> rows;
    for (int i = 0; i <= batch * 2; ++i)
      rows.push_back({S("key" + std::to_string(i)), I(i)});
    input.addData(rows);
    q.processAllAvailable();
  }
  q.stop();
  const bool memory = GetParam() == "memory";
  const std::string base = memory ? ".snapshot" : ".checkpoint";
  const std::string incremental = memory ? ".delta" : ".changelog";
  auto part_dir = [&](int p) { return chk + "/state/0/" + std::to_string(p); };
  // Version 2's base file is written after batch 1, before batch 2 starts.
  for (int p = 0; p < 3; ++p)
    ASSERT_TRUE(fs::exists(part_dir(p) + "/2" + base)) << part_dir(p);

  auto read = [&](const std::map<std::string, std::string>& opts) {
    return Strings(spark.read()
                       .format("statestore")
                       .options(opts)
                       .load(chk)
                       .selectExpr("key.k", "value.count", "partition_id"));
  };
  auto filter = [](const std::vector<std::string>& rows, int p) {
    std::vector<std::string> out;
    const std::string tail = ", " + std::to_string(p) + "]";
    for (const auto& r : rows) {
      if (r.size() >= tail.size() &&
          r.compare(r.size() - tail.size(), tail.size(), tail) == 0)
        out.push_back(r);
    }
    return out;
  };
  const auto all = read({});
  const auto at_1 = read({{"batchId", "1"}});
  ASSERT_EQ(all.size(), 9u);
  size_t total = 0;
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE(p);
    const std::string part = std::to_string(p);
    const auto rows =
        read({{"snapshotStartBatchId", "1"}, {"snapshotPartitionId", part}});
    EXPECT_EQ(rows, filter(all, p));
    total += rows.size();
    EXPECT_EQ(read({{"snapshotStartBatchId", "1"},
                    {"snapshotPartitionId", part},
                    {"batchId", "1"}}),
              filter(at_1, p));
    EXPECT_EQ(read({{"snapshotStartBatchId", "1"},
                    {"snapshotPartitionId", part},
                    {"batchId", "2"}}),
              filter(read({{"batchId", "2"}}), p));
  }
  EXPECT_EQ(total, all.size());
  // Rebuilt from version 2's base and the files after it: versions 1-2's incremental
  // files are not read, version 3's is.
  fs::remove(part_dir(0) + "/1" + incremental);
  fs::remove(part_dir(0) + "/2" + incremental);
  EXPECT_EQ(read({{"snapshotStartBatchId", "1"}, {"snapshotPartitionId", "0"}}),
            filter(all, 0));
  fs::remove(part_dir(0) + "/3" + incremental);
  EXPECT_NE(LoadError(spark, "statestore", chk,
                      {{"snapshotStartBatchId", "1"}, {"snapshotPartitionId", "0"}})
                .find("3" + incremental + " does not exist"),
            std::string::npos);

  // Spark's errors.
  auto error = [&](const std::map<std::string, std::string>& opts) {
    return LoadError(spark, "statestore", chk, opts);
  };
  EXPECT_NE(error({{"snapshotStartBatchId", "0"}, {"snapshotPartitionId", "1"}})
                .find("[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] "
                      "[CANNOT_LOAD_STATE_STORE.CANNOT_READ_MISSING_SNAPSHOT_FILE] "
                      "An error occurred during loading "
                      "state. Error reading snapshot file " +
                      part_dir(1) + "/1" + base),
            std::string::npos);
  EXPECT_NE(error({{"snapshotStartBatchId", "1"}, {"snapshotPartitionId", "3"}})
                .find("[CANNOT_LOAD_STATE_STORE.SNAPSHOT_PARTITION_ID_NOT_FOUND] An "
                      "error occurred during loading "
                      "state. Partition id 3 not found for state of operator 0 at " +
                      chk + "/state."),
            std::string::npos);
  EXPECT_NE(error({{"snapshotStartBatchId", "1"}})
                .find("[STDS_REQUIRED_OPTION_UNSPECIFIED] 'snapshotPartitionId' must be "
                      "specified."),
            std::string::npos);
  EXPECT_NE(error({{"snapshotPartitionId", "1"}})
                .find("[STDS_REQUIRED_OPTION_UNSPECIFIED] 'snapshotStartBatchId' must be "
                      "specified."),
            std::string::npos);
  EXPECT_NE(
      error(
          {{"snapshotStartBatchId", "3"}, {"snapshotPartitionId", "0"}, {"batchId", "2"}})
          .find("[STDS_INVALID_OPTION_VALUE.WITH_MESSAGE] Invalid value for source "
                "option 'snapshotStartBatchId': "
                "value should be less than or equal to 2"),
      std::string::npos);
  EXPECT_NE(error({{"snapshotStartBatchId", "-1"}, {"snapshotPartitionId", "0"}})
                .find("[STDS_INVALID_OPTION_VALUE.IS_NEGATIVE] Invalid value for source "
                      "option 'snapshotStartBatchId': "
                      "cannot be negative."),
            std::string::npos);
  EXPECT_NE(error({{"snapshotStartBatchId", "0"}, {"snapshotPartitionId", "-1"}})
                .find("'snapshotPartitionId': cannot be negative."),
            std::string::npos);
  EXPECT_NE(error({{"snapshotStartBatchId", "0"},
                   {"snapshotPartitionId", "0"},
                   {"readChangeFeed", "true"},
                   {"changeStartBatchId", "0"}})
                .find("[STDS_CONFLICT_OPTIONS] The options ['snapshotStartBatchId', "
                      "'readChangeFeed'] cannot be "
                      "specified together."),
            std::string::npos);
  fs::remove_all(chk);
}

TEST_P(StateDataSource, AggregationByEventTime) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("wm");
  MemoryStream input(spark, "ts TIMESTAMP, k STRING");
  auto q = input.toDF()
               .withWatermark("ts", "1 hour")
               .groupBy(F::window(F::col("ts"), "10 minutes"), F::col("k"))
               .count()
               .writeStream()
               .format("memory")
               .queryName("stds_wm_" + GetParam())
               .outputMode("update")
               .option("checkpointLocation", chk)
               .start();
  input.addData({{T(1), S("a")}, {T(2), S("a")}, {T(15), S("b")}});
  q.processAllAvailable();
  // Far later: the watermark passes both windows, which leave the state.
  input.addData({{T(200), S("c")}});
  q.processAllAvailable();
  q.stop();
  std::vector<std::string> want = {"[a, 2]", "[b, 1]"};
  auto read = [&] {
    return Strings(spark.read()
                       .format("statestore")
                       .option("batchId", "0")
                       .load(chk)
                       .selectExpr("key.k", "value.*"));
  };
  EXPECT_EQ(read(), want);
  EXPECT_EQ(
      Strings(spark.read().format("statestore").load(chk).selectExpr("key.k", "value.*")),
      (std::vector<std::string>{"[c, 1]"}));
  // The change feed: the evictions are deletes with a NULL value.
  auto feed = Strings(spark.read()
                          .format("statestore")
                          .option("readChangeFeed", "true")
                          .option("changeStartBatchId", "0")
                          .load(chk)
                          .selectExpr("change_type", "key.k", "value IS NULL"));
  EXPECT_EQ(feed, (std::vector<std::string>{"[delete, a, true]", "[delete, b, true]",
                                            "[update, a, false]", "[update, b, false]",
                                            "[update, c, false]"}));
  fs::remove(chk + "/state/0/_metadata/operator");
  EXPECT_EQ(read(), want);  // the prefix guessed
  fs::remove_all(chk);
}

TEST_P(StateDataSource, Deduplication) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("dedup");
  MemoryStream input(spark, "k STRING, v INT");
  auto q = input.toDF()
               .dropDuplicates({"k"})
               .writeStream()
               .format("memory")
               .queryName("stds_dedup_" + GetParam())
               .outputMode("append")
               .option("checkpointLocation", chk)
               .start();
  input.addData({{S("a"), I(1)}, {S("b"), I(2)}, {S("a"), I(3)}});
  q.processAllAvailable();
  input.addData({{S("c"), I(1)}});
  q.processAllAvailable();
  q.stop();
  EXPECT_EQ(
      Strings(spark.read().format("statestore").load(chk).selectExpr("key.k", "value")),
      (std::vector<std::string>{"[a, {NULL}]", "[b, {NULL}]", "[c, {NULL}]"}));
  EXPECT_EQ(spark.read().format("statestore").option("batchId", "0").load(chk).count(),
            2);
  EXPECT_EQ(Strings(spark.read().format("state-metadata").load(chk)),
            (std::vector<std::string>{"[0, dedupe, default, 3, 0, 1, null]"}));
  fs::remove_all(chk);
}

// A processor that registers one event-time timer per key: 12:00 + the key's last v
// hours.
class TimerProcessor final : public stream::StatefulProcessor {
 public:
  void init(stream::StatefulProcessorHandle& h, stream::OutputMode,
            stream::TimeMode) override {
    h_ = &h;
    count_.emplace(
        h.getValueState("count", *api::StructType::fromDDL("n BIGINT").ToSchema()));
  }
  std::vector<stream::ProcessorRow> handleInputRows(
      const stream::ProcessorRow& key, const std::vector<stream::ProcessorRow>& rows,
      const stream::TimerValues&) override {
    for (int64_t t : h_->listTimers()) h_->deleteTimer(t);
    h_->registerTimer(1767268800000LL + rows.back()[1].i64() * 3600000LL);
    count_->update({Value::Long(static_cast<int64_t>(rows.size()))});
    return {{key[0]}};
  }

 private:
  stream::StatefulProcessorHandle* h_ = nullptr;
  std::optional<stream::ValueState> count_;
};

// transformWithState: readRegisteredTimers lists (key, expiration_timestamp_ms) as
// Spark 4.2 does; stateVarName reads a variable; neither is Spark's required-option
// error.
TEST_P(StateDataSource, TransformWithStateTimers) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("tws");
  MemoryStream input(spark, "k STRING, v INT, ts TIMESTAMP");
  auto q =
      input.toDF()
          .withWatermark("ts", "1 minute")
          .groupBy(std::vector<std::string>{"k"})
          .transformWithState([] { return std::make_unique<TimerProcessor>(); },
                              api::StructType::fromDDL("k STRING"), "update", "EventTime")
          .writeStream()
          .format("memory")
          .queryName("stds_tws_" + GetParam())
          .outputMode("update")
          .option("checkpointLocation", chk)
          .start();
  input.addData({{S("a"), I(1), T(0)}, {S("a"), I(2), T(1)}, {S("b"), I(3), T(2)}});
  q.processAllAvailable();
  q.stop();
  DataFrame timers =
      spark.read().format("statestore").option("readRegisteredTimers", "true").load(chk);
  EXPECT_EQ(
      timers.schema().simpleString(),
      "struct<key:struct<k:string>,expiration_timestamp_ms:bigint,partition_id:int>");
  EXPECT_EQ(Strings(timers.select("key.k", "expiration_timestamp_ms")),
            (std::vector<std::string>{"[a, 1767276000000]", "[b, 1767279600000]"}));
  EXPECT_NE(
      LoadError(spark, "statestore", chk, {})
          .find("[STDS_REQUIRED_OPTION_UNSPECIFIED] 'stateVarName' must be specified."),
      std::string::npos);
  EXPECT_EQ(Strings(spark.read()
                        .format("statestore")
                        .option("stateVarName", "count")
                        .load(chk)
                        .selectExpr("key.k", "value.n")),
            (std::vector<std::string>{"[a, 2]", "[b, 1]"}));
  EXPECT_NE(LoadError(spark, "statestore", chk,
                      {{"stateVarName", "count"}, {"readRegisteredTimers", "true"}})
                .find("STDS_CONFLICT_OPTIONS"),
            std::string::npos);
  fs::remove_all(chk);
}

// A processor with a ValueState, a ListState (with a TTL) and a MapState: per key the sum
// of v, the v's seen, and per parity of v (user key) the count and sum.
class VariablesProcessor final : public stream::StatefulProcessor {
 public:
  void init(stream::StatefulProcessorHandle& h, stream::OutputMode,
            stream::TimeMode) override {
    auto schema = [](const char* ddl) {
      return *api::StructType::fromDDL(ddl).ToSchema();
    };
    total_.emplace(h.getValueState("total", schema("t BIGINT, note STRING")));
    seen_.emplace(h.getListState("seen", schema("n INT"), stream::TTLConfig{3600000}));
    per_.emplace(h.getMapState("per", schema("mk STRING"), schema("c INT, s BIGINT")));
  }
  std::vector<stream::ProcessorRow> handleInputRows(
      const stream::ProcessorRow& key, const std::vector<stream::ProcessorRow>& rows,
      const stream::TimerValues&) override {
    int64_t t = total_->exists() ? total_->get()->at(0).i64() : 0;
    for (const auto& r : rows) {
      const int32_t v = static_cast<int32_t>(r[1].i64());
      t += v;
      seen_->appendValue({Value::Int(v)});
      const stream::ProcessorRow mk = {Value::String(v % 2 ? "odd" : "even")};
      auto old = per_->getValue(mk);
      per_->updateValue(mk,
                        {Value::Int(old ? static_cast<int32_t>(old->at(0).i64()) + 1 : 1),
                         Value::Long((old ? old->at(1).i64() : 0) + v)});
    }
    total_->update({Value::Long(t), Value::String("w" + key[0].ToString())});
    return {{key[0]}};
  }

 private:
  std::optional<stream::ValueState> total_;
  std::optional<stream::ListState> seen_;
  std::optional<stream::MapState> per_;
};

// stateVarName reads each kind of variable with Spark 4.2's columns (flattened and not),
// at a batch, as a change feed (ValueState), across a restart; the schema file lists the
// variables as Spark's v3 file; state-metadata carries Spark's operator properties.
TEST_P(StateDataSource, TransformWithStateVariables) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("tws-vars");
  MemoryStream input(spark, "k STRING, v INT");
  auto start = [&] {
    return input.toDF()
        .groupBy(std::vector<std::string>{"k"})
        .transformWithState([] { return std::make_unique<VariablesProcessor>(); },
                            api::StructType::fromDDL("k STRING"), "update",
                            "ProcessingTime")
        .writeStream()
        .format("memory")
        .queryName("stds_tws_vars_" + GetParam())
        .outputMode("update")
        .option("checkpointLocation", chk)
        .start();
  };
  auto q = start();
  input.addData({{S("a"), I(1)}, {S("b"), I(2)}, {S("a"), I(3)}});
  q.processAllAvailable();
  q.stop();
  q = start();  // a restart: the next batch reads and extends the same variables
  input.addData({{S("a"), I(4)}, {S("c"), I(5)}});
  q.processAllAvailable();
  q.stop();
  auto read = [&](const std::map<std::string, std::string>& opts) {
    return spark.read().format("statestore").options(opts).load(chk);
  };
  DataFrame total = read({{"stateVarName", "total"}});
  EXPECT_EQ(
      total.schema().simpleString(),
      "struct<key:struct<k:string>,value:struct<t:bigint,note:string>,partition_id:int>");
  EXPECT_EQ(Strings(total.selectExpr("key.k", "value.t", "value.note")),
            (std::vector<std::string>{"[a, 8, wa]", "[b, 2, wb]", "[c, 5, wc]"}));
  EXPECT_EQ(Strings(read({{"stateVarName", "total"}, {"batchId", "0"}})
                        .selectExpr("key.k", "value.t")),
            (std::vector<std::string>{"[a, 4]", "[b, 2]"}));
  // A TTL's values are struct<value, ttlExpirationMs>, as Spark stores them.
  DataFrame seen = read({{"stateVarName", "seen"}});
  EXPECT_EQ(seen.schema().simpleString(),
            "struct<key:struct<k:string>,list_element:struct<value:struct<n:int>,"
            "ttlExpirationMs:bigint>,partition_id:int>");
  EXPECT_EQ(Strings(seen.selectExpr("key.k", "list_element.value.n",
                                    "list_element.ttlExpirationMs > 3600000")),
            (std::vector<std::string>{"[a, 1, true]", "[a, 3, true]", "[a, 4, true]",
                                      "[b, 2, true]", "[c, 5, true]"}));
  DataFrame lists = read({{"stateVarName", "seen"}, {"flattenCollectionTypes", "false"}});
  EXPECT_EQ(lists.schema().simpleString(),
            "struct<key:struct<k:string>,list_value:array<struct<value:struct<n:int>,"
            "ttlExpirationMs:bigint>>,partition_id:int>");
  EXPECT_EQ(Strings(lists.selectExpr("key.k", "transform(list_value, e -> e.value.n)")),
            (std::vector<std::string>{"[a, [1, 3, 4]]", "[b, [2]]", "[c, [5]]"}));
  DataFrame per = read({{"stateVarName", "per"}});
  EXPECT_EQ(per.schema().simpleString(),
            "struct<key:struct<k:string>,user_map_key:struct<mk:string>,"
            "user_map_value:struct<c:int,s:bigint>,partition_id:int>");
  EXPECT_EQ(Strings(per.selectExpr("key.k", "user_map_key.mk", "user_map_value.c",
                                   "user_map_value.s")),
            (std::vector<std::string>{"[a, even, 1, 4]", "[a, odd, 2, 4]",
                                      "[b, even, 1, 2]", "[c, odd, 1, 5]"}));
  DataFrame maps = read({{"stateVarName", "per"}, {"flattenCollectionTypes", "false"}});
  EXPECT_EQ(maps.schema().simpleString(),
            "struct<key:struct<k:string>,map_value:map<struct<mk:string>,struct<c:int,s:"
            "bigint>>,"
            "partition_id:int>");
  EXPECT_EQ(Strings(maps.selectExpr("key.k", "map_value[named_struct('mk', 'odd')].s")),
            (std::vector<std::string>{"[a, 4]", "[b, null]", "[c, 5]"}));
  EXPECT_EQ(Strings(read({{"stateVarName", "total"},
                          {"readChangeFeed", "true"},
                          {"changeStartBatchId", "1"}})
                        .selectExpr("change_type", "key.k", "value.t")),
            (std::vector<std::string>{"[update, a, 8]", "[update, c, 5]"}));
  EXPECT_NE(
      LoadError(spark, "statestore", chk, {{"stateVarName", "nope"}})
          .find(
              "State variable nope is not defined for the transformWithState operator."),
      std::string::npos);
  EXPECT_NE(LoadError(spark, "statestore", chk,
                      {{"stateVarName", "seen"},
                       {"readChangeFeed", "true"},
                       {"changeStartBatchId", "0"}})
                .find("STDS_INVALID_OPTION_VALUE.WITH_MESSAGE"),
            std::string::npos);
  // The schema file: the variables and the timers' family, in Spark's v3 layout.
  auto local = io::LocalFileSystem::Get();
  auto meta =
      stream::ReadTwsStateMetadata(*local, io::JoinPath(chk, "state"), 0, std::nullopt);
  ASSERT_TRUE(meta.ok() && meta->has_value()) << meta.status().ToString();
  std::vector<std::string> families;
  for (const auto& f : (*meta)->families) families.push_back(f.name);
  EXPECT_EQ(families, (std::vector<std::string>{"$procTimers_keyToTimestamp", "per",
                                                "seen", "total"}));
  EXPECT_GE((*meta)->batch_id, 1);  // the restart's first batch wrote the metadata again
  auto bytes = local->ReadAll(io::JoinPath(
      io::JoinPath(chk, "state/0/_stateSchema/default"),
      io::BaseName(fs::directory_iterator(chk + "/state/0/_stateSchema/default")
                       ->path()
                       .string())));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(stream::EncodeStateSchemaV3((*meta)->families), *bytes);
  EXPECT_EQ(std::distance(fs::directory_iterator(chk + "/state/0/_stateSchema/default"),
                          fs::directory_iterator()),
            1);  // the same schema after the restart: no second file
  EXPECT_EQ(
      Strings(
          spark.read().format("state-metadata").load(chk).select("operatorProperties")),
      (std::vector<std::string>{"[{\"timeMode\":\"ProcessingTime\",\"outputMode\":"
                                "\"Update\",\"stateVariables\":["
                                "{\"stateName\":\"total\",\"stateVariableType\":"
                                "\"ValueState\",\"ttlEnabled\":false},"
                                "{\"stateName\":\"$procTimers_keyToTimestamp\","
                                "\"stateVariableType\":\"TimerState\","
                                "\"ttlEnabled\":false},"
                                "{\"stateName\":\"per\",\"stateVariableType\":"
                                "\"MapState\",\"ttlEnabled\":false},"
                                "{\"stateName\":\"seen\",\"stateVariableType\":"
                                "\"ListState\",\"ttlEnabled\":true}]}]"}));
  fs::remove_all(chk);
}

// The join state layouts (spate.streaming.join.stateFormatVersion: 1, Spark's four
// stores; 2, one entry per key; 3, one entry per key, the key columns rebuilt from the
// keys) read as Spark's four stores, the same rows.
TEST_P(StateDataSource, StreamStreamJoin) {
  for (const char* format : {"1", "2", "3"}) {
    SCOPED_TRACE(std::string("join state format ") + format);
    SparkSession spark = NewSpark();
    spark.conf().set("spate.streaming.join.stateFormatVersion", format);
    const std::string chk = TempDir("join");
    MemoryStream a(spark, "k INT, av STRING");
    MemoryStream b(spark, "k2 INT, bv STRING");
    // Both sides' rows before the start: one batch (batch 0) whatever the timing; added
    // after it, the query could run a batch between the two addData calls (maxBatchId 1).
    a.addData({{I(1), S("a1")}, {I(2), S("a2")}, {I(1), S("a1x")}});
    b.addData({{I(1), S("b1")}});
    auto q = a.toDF()
                 .join(b.toDF(), F::col("k") == F::col("k2"))
                 .writeStream()
                 .format("memory")
                 .queryName(std::string("stds_join_") + format + "_" + GetParam())
                 .outputMode("append")
                 .option("checkpointLocation", chk)
                 .start();
    q.processAllAvailable();
    auto read = [&](const std::map<std::string, std::string>& o) {
      return spark.read().format("statestore").options(o).load(chk);
    };
    DataFrame left = read({{"joinSide", "left"}});
    EXPECT_EQ(Strings(left.selectExpr("key.*", "value.*")),
              (std::vector<std::string>{"[1, 1, a1]", "[1, 1, a1x]", "[2, 2, a2]"}));
    EXPECT_EQ(Strings(read({{"joinSide", "right"}}).selectExpr("key.*", "value.*")),
              (std::vector<std::string>{"[1, 1, b1]"}));
    EXPECT_EQ(
        Strings(
            read({{"storeName", "left-keyToNumValues"}}).selectExpr("key.*", "value.*")),
        (std::vector<std::string>{"[1, 2]", "[2, 1]"}));
    auto rows = Strings(
        read({{"storeName", "left-keyWithIndexToValue"}}).selectExpr("key.*", "value.*"));
    // An inner join keeps no matched flags (only outer and semi sides read them).
    EXPECT_EQ(rows,
              (std::vector<std::string>{"[1, 0, 1, a1, false]", "[1, 1, 1, a1x, false]",
                                        "[2, 0, 2, a2, false]"}));
    EXPECT_NE(LoadError(spark, "statestore", chk, {}).find("set joinSide"),
              std::string::npos);
    auto meta = Strings(spark.read().format("state-metadata").load(chk));
    EXPECT_EQ(meta,
              (std::vector<std::string>{
                  "[0, symmetricHashJoin, left-keyToNumValues, 3, 0, 0, null]",
                  "[0, symmetricHashJoin, left-keyWithIndexToValue, 3, 0, 0, null]",
                  "[0, symmetricHashJoin, right-keyToNumValues, 3, 0, 0, null]",
                  "[0, symmetricHashJoin, right-keyWithIndexToValue, 3, 0, 0, null]"}));
    // A second batch: the change feed of each store, per batch.
    b.addData({{I(2), S("b2")}, {I(1), S("b1y")}});
    q.processAllAvailable();
    q.stop();
    auto feed = [&](const std::string& store) {
      return Strings(read({{"storeName", store},
                           {"readChangeFeed", "true"},
                           {"changeStartBatchId", "0"}})
                         .selectExpr("batch_id", "change_type", "key.*", "value.*"));
    };
    EXPECT_EQ(feed("right-keyToNumValues"),
              (std::vector<std::string>{"[0, update, 1, 1]", "[1, update, 1, 2]",
                                        "[1, update, 2, 1]"}));
    // A new row keeps whether it matched on arrival.
    EXPECT_EQ(feed("right-keyWithIndexToValue"),
              (std::vector<std::string>{"[0, update, 1, 0, 1, b1, true]",
                                        "[1, update, 1, 1, 1, b1y, true]",
                                        "[1, update, 2, 0, 2, b2, true]"}));
    EXPECT_EQ(feed("left-keyToNumValues"),
              (std::vector<std::string>{"[0, update, 1, 2]", "[0, update, 2, 1]"}));
    fs::remove_all(chk);
  }
}

// Session windows: one row per stored session of a key.
TEST_P(StateDataSource, SessionWindows) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("session");
  MemoryStream input(spark, "ts TIMESTAMP, k STRING");
  auto q = input.toDF()
               .withWatermark("ts", "1 hour")
               .groupBy(F::col("k"), F::session_window(F::col("ts"), "5 minutes"))
               .count()
               .writeStream()
               .format("memory")
               .queryName("stds_session_" + GetParam())
               .outputMode("append")
               .option("checkpointLocation", chk)
               .start();
  input.addData({{T(1), S("a")}, {T(3), S("a")}, {T(20), S("a")}, {T(2), S("b")}});
  // (the watermark moves: a no-data batch 1 runs, which evicts nothing yet)
  q.processAllAvailable();
  q.stop();
  DataFrame state = spark.read().format("statestore").load(chk);
  EXPECT_EQ(
      Strings(state.selectExpr("key.k", "CAST(value.sessionStart AS STRING)",
                               "CAST(value.sessionEnd AS STRING)", "value.count")),
      (std::vector<std::string>{"[a, 2026-01-01 12:01:00, 2026-01-01 12:08:00, 2]",
                                "[a, 2026-01-01 12:20:00, 2026-01-01 12:25:00, 1]",
                                "[b, 2026-01-01 12:02:00, 2026-01-01 12:07:00, 1]"}));
  EXPECT_EQ(Strings(spark.read().format("state-metadata").load(chk)),
            (std::vector<std::string>{
                "[0, sessionWindowStateStoreSaveExec, default, 3, 0, 1, null]"}));
  fs::remove_all(chk);
}

// dropDuplicatesWithinWatermark keeps each key's expiry; a global limit its count; a
// stateless query has no state operators.
TEST_P(StateDataSource, DedupWithinWatermarkLimitAndStateless) {
  SparkSession spark = NewSpark();
  const std::string chk = TempDir("within");
  MemoryStream input(spark, "ts TIMESTAMP, k STRING");
  auto q = input.toDF()
               .withWatermark("ts", "10 minutes")
               .dropDuplicatesWithinWatermark({"k"})
               .writeStream()
               .format("memory")
               .queryName("stds_within_" + GetParam())
               .outputMode("append")
               .option("checkpointLocation", chk)
               .start();
  input.addData({{T(1), S("a")}, {T(2), S("b")}, {T(3), S("a")}});
  q.processAllAvailable();
  q.stop();
  // Expiry: the first row's event time + the 10 minute delay, in microseconds.
  const int64_t a_exp = T(11).i64(), b_exp = T(12).i64();
  EXPECT_EQ(
      Strings(spark.read().format("statestore").load(chk).selectExpr("key.k", "value.*")),
      (std::vector<std::string>{"[a, " + std::to_string(a_exp) + "]",
                                "[b, " + std::to_string(b_exp) + "]"}));
  auto meta =
      Strings(spark.read().format("state-metadata").load(chk).selectExpr("operatorName"));
  EXPECT_EQ(meta, (std::vector<std::string>{"[dedupeWithinWatermark]"}));
  fs::remove_all(chk);

  const std::string lchk = TempDir("limit");
  MemoryStream in2(spark, "k STRING, v INT");
  auto lq = in2.toDF()
                .limit(3)
                .writeStream()
                .format("memory")
                .queryName("stds_limit_" + GetParam())
                .outputMode("append")
                .option("checkpointLocation", lchk)
                .start();
  in2.addData({{S("a"), I(1)}, {S("b"), I(2)}});
  lq.processAllAvailable();
  in2.addData({{S("c"), I(1)}, {S("d"), I(2)}});
  lq.processAllAvailable();
  lq.stop();
  EXPECT_EQ(Strings(spark.read()
                        .format("statestore")
                        .load(lchk)
                        .selectExpr("value.*", "partition_id")),
            (std::vector<std::string>{"[3, 0]"}));
  EXPECT_EQ(Strings(spark.read()
                        .format("statestore")
                        .option("batchId", "0")
                        .load(lchk)
                        .selectExpr("value.*")),
            (std::vector<std::string>{"[2]"}));
  // A corrupt operator metadata file is an error naming it.
  std::FILE* f = std::fopen((lchk + "/state/0/_metadata/operator").c_str(), "w");
  std::fputs("{not json", f);
  std::fclose(f);
  std::string err = LoadError(spark, "statestore", lchk, {});
  EXPECT_NE(err.find("CANNOT_LOAD_STATE_STORE"), std::string::npos) << err;
  EXPECT_NE(err.find("_metadata/operator"), std::string::npos) << err;
  fs::remove_all(lchk);

  const std::string schk = TempDir("stateless");
  MemoryStream in3(spark, "k STRING, v INT");
  auto sq = in3.toDF()
                .writeStream()
                .format("memory")
                .queryName("stds_stateless_" + GetParam())
                .option("checkpointLocation", schk)
                .start();
  in3.addData({{S("a"), I(1)}});
  sq.processAllAvailable();
  sq.stop();
  EXPECT_EQ(spark.read().format("state-metadata").load(schk).count(), 0);
  err = LoadError(spark, "statestore", schk, {});
  EXPECT_NE(err.find("STDS_NO_PARTITION_DISCOVERED_IN_STATE_STORE"), std::string::npos)
      << err;
  fs::remove_all(schk);
}

INSTANTIATE_TEST_SUITE_P(Providers, StateDataSource,
                         ::testing::Values("memory", "rocksdb"));

}  // namespace
}  // namespace spate::testing
