// Copyright spate authors.
// State stays bounded (issue 12; the seed's practice exercise 1): a windowed aggregation
// with a watermark over a long synthetic stream (rate-micro-batch, many micro-batches)
// keeps progress stateOperators[0].numRowsTotal under a fixed bound, read by a listener
// the way the seed's article reads it; the same aggregation without a watermark keeps
// every window and grows with the number of windows x keys. Both state store providers.
// Also: a query releases its state stores when it terminates.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "spate/api/datetime_functions.h"
#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

namespace F = api::functions;
using api::SparkSession;

SparkSession Spark() {
  static SparkSession s = TestSession("state-bounded-tests");
  return s;
}

std::string ProviderClass(const std::string& p) {
  return p == "rocksdb"
             ? "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
             : "org.apache.spark.sql.execution.streaming.state."
               "HDFSBackedStateStoreProvider";
}

struct Folder {
  std::string path;
  Folder() {
    const char* tmp = std::getenv("TMPDIR");
    path =
        io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-bounded-" + stream::RandomUuid());
  }
  ~Folder() { (void)io::LocalFileSystem::Get()->Delete(path, true); }
};

// The article's listener: stateOperators[0].numRowsTotal of every batch of one query.
class StateRowsListener : public api::StreamingQueryListener {
 public:
  void onQueryProgress(const stream::QueryProgressEvent& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (e.progress.id != id_ || e.progress.state_operators.empty()) return;
    rows_[e.progress.batch_id] = e.progress.state_operators[0].num_rows_total;
    cv_.notify_all();
  }
  void Follow(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    id_ = id;
  }
  // Waits (bounded) until batch `last` has reported; returns batch id -> numRowsTotal.
  std::map<int64_t, int64_t> WaitFor(int64_t last) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(120), [&] { return rows_.count(last) > 0; });
    return rows_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::string id_;
  std::map<int64_t, int64_t> rows_;
};

constexpr int kKeys = 20;           // value % 20
constexpr int kBatches = 60;        // one minute of event time each
constexpr int kRowsPerBatch = 200;  // 300 ms apart

// Runs 5-minute windowed counts per key in update mode over rate-micro-batch, with or
// without a 10-minute watermark, for kBatches batches; returns numRowsTotal per batch.
std::map<int64_t, int64_t> RunWindowedCounts(const std::string& provider,
                                             bool watermark) {
  Spark().conf().set("spark.sql.streaming.stateStore.providerClass",
                     ProviderClass(provider));
  Folder chk;
  auto events = Spark()
                    .readStream()
                    .format("rate-micro-batch")
                    .option("rowsPerBatch", kRowsPerBatch)
                    .option("startTimestamp", 0)
                    .option("advanceMillisPerBatch", 60000)
                    .load();
  if (watermark) events = events.withWatermark("timestamp", "10 minutes");
  auto counts = events.withColumn("key", F::col("value") % kKeys)
                    .groupBy(F::window(F::col("timestamp"), "5 minutes"), F::col("key"))
                    .count();
  auto listener = std::make_shared<StateRowsListener>();
  Spark().streams().addListener(listener);
  auto q = counts.writeStream()
               .format("noop")
               .outputMode("update")
               .option("checkpointLocation", chk.path)
               .start();
  listener->Follow(q.id());
  auto rows = listener->WaitFor(kBatches - 1);
  q.stop();
  Spark().streams().removeListener(listener);
  Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
  EXPECT_FALSE(q.exception().has_value()) << q.exception()->what();
  return rows;
}

class StateBounded : public ::testing::TestWithParam<std::string> {};

TEST_P(StateBounded, WatermarkKeepsWindowedStateUnderABound) {
  auto rows = RunWindowedCounts(GetParam(), true);
  ASSERT_GE(rows.size(), static_cast<size_t>(kBatches));
  // Batch b evicts the windows that end at or before the watermark it runs with
  // (b minutes - 300 ms - 10 minutes); what is left ends within 16 minutes of event
  // time: at most 4 five-minute windows of 20 keys.
  const int64_t bound = 4 * kKeys;
  int64_t max_rows = 0;
  for (const auto& [batch, n] : rows) {
    EXPECT_LE(n, bound) << "batch " << batch;
    max_rows = std::max(max_rows, n);
  }
  EXPECT_GE(max_rows, 3 * kKeys);  // the bound is not met by keeping nothing
  // Late in the stream the state is as small as early on: flat, not growing.
  EXPECT_LE(rows.at(kBatches - 1), bound);
  std::printf("state rows with a watermark [%s]: max %lld over %d batches (bound %lld)\n",
              GetParam().c_str(), static_cast<long long>(max_rows), kBatches,
              static_cast<long long>(bound));
}

TEST_P(StateBounded, WithoutWatermarkStateGrowsWithTheWindows) {
  auto rows = RunWindowedCounts(GetParam(), false);
  ASSERT_GE(rows.size(), static_cast<size_t>(kBatches));
  // Nothing is ever evicted: after batch b the state holds every (window, key) seen,
  // b / 5 + 1 windows of 20 keys.
  for (const auto& [batch, n] : rows) {
    EXPECT_EQ(n, (batch / 5 + 1) * kKeys) << "batch " << batch;
  }
  EXPECT_GE(rows.at(kBatches - 1), 3 * 4 * kKeys);  // 3x the bound with a watermark
  std::printf("state rows without a watermark [%s]: %lld after %d batches\n",
              GetParam().c_str(), static_cast<long long>(rows.at(kBatches - 1)),
              kBatches);
}

INSTANTIATE_TEST_SUITE_P(Providers, StateBounded, ::testing::Values("memory", "rocksdb"));

// A terminated query has released its state stores (here: RocksDB's working folders are
// gone) while its handle is still held. They used to be closed only when the query
// object was destroyed, which could happen on the query's thread while the process
// exited, after main returned: RocksDB closed during its own static teardown crashed.
TEST(StateStoreLifetime, ReleasedWhenTheQueryTerminates) {
  Folder dir;
  const std::string local = io::JoinPath(dir.path, "rocksdb-local");
  Spark().conf().set("spark.sql.streaming.stateStore.providerClass",
                     ProviderClass("rocksdb"));
  Spark().conf().set("spark.sql.streaming.stateStore.rocksdb.localDir", local);
  auto q = Spark()
               .readStream()
               .format("rate-micro-batch")
               .option("rowsPerBatch", 10)
               .load()
               .groupBy(F::col("value") % 3)
               .count()
               .writeStream()
               .format("noop")
               .outputMode("update")
               .option("checkpointLocation", io::JoinPath(dir.path, "chk"))
               .trigger(api::Trigger::AvailableNow())
               .start();
  q.awaitTermination();
  Spark().conf().unset("spark.sql.streaming.stateStore.providerClass");
  Spark().conf().unset("spark.sql.streaming.stateStore.rocksdb.localDir");
  ASSERT_FALSE(q.exception().has_value()) << q.exception()->what();
  ASSERT_TRUE(q.lastProgress().has_value());
  EXPECT_EQ(q.lastProgress()->state_operators.size(), 1u);
  ASSERT_TRUE(std::filesystem::is_directory(local));  // the providers worked there
  EXPECT_TRUE(std::filesystem::is_empty(local)) << "a RocksDB instance is still open";
}

}  // namespace
}  // namespace spate::testing
