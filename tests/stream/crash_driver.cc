// Copyright spate authors.
// Child process of the crash tests (crash_test.cc): runs one streaming query over files
// until everything available is processed, then exits 0. The parent kills it with
// SIGKILL at random instants, or SPATE_FAULT=<point>[:<hit>] makes it kill itself at a
// named point of the micro-batch protocol (stream/batch_source.h FaultPoint).
//
//   spate_stream_crash_driver <query> <input> <output> <checkpoint>
//
// Stateless queries: JSON files (id BIGINT, payload STRING) -> filter/project -> the
// sink, with maxFilesPerTrigger=1 so a run has several batches. Sinks: `files` (parquet
// with _spark_metadata), `delta` (the Delta sink), `foreachbatch` (a function appending
// each batch to a Delta table with txnAppId/txnVersion = batch id: Delta's idempotent
// write, the usual way to make foreachBatch exactly-once), `merge` (a function upserting
// each batch into a Delta table by id with MERGE: a replayed batch updates the rows it
// already wrote, the seeds' way to make foreachBatch effectively exactly-once).
//
// Stateful queries, `<name>:<provider>` with provider `memory` or `rocksdb` (the state
// store, spark.sql.streaming.stateStore.providerClass), over JSON files (id BIGINT,
// k STRING, v BIGINT, ts TIMESTAMP), one file per batch:
//   window    withWatermark(ts, 10 s) -> groupBy(window(ts, 20 s, 10 s), k)
//             .agg(count, sum(v)), append mode -> the Delta sink;
//   update    groupBy(k).agg(count, sum(v)) without a watermark, update mode ->
//             foreachBatch appending (batch id, k, n, s) to Delta with
//             txnAppId/txnVersion;
//   complete  the same aggregation in complete mode -> the Delta sink (overwrite per
//   batch); dedup     withWatermark(ts, 10 s) -> dropDuplicates(id, ts) -> the file sink;
//   join      the input read as two streams (views: even v, buys: odd v; watermark 10 s
//             each), a left outer range join `vk = bk AND bts BETWEEN vts AND vts +
//             INTERVAL 5 SECONDS` (a stream-stream join, append mode) -> the Delta sink.
// The state lives in <checkpoint>/state; RocksDB's working folders under
// <output>-rocksdb.
//
// SPATE_FAULT_TRACE_FD reports the protocol points passed (stream/batch_source.h). Exit
// codes: 0 done, 2 usage, 3 error (its message on stderr).

#include <cstdio>
#include <exception>
#include <string>

#include "spate/api/datetime_functions.h"
#include "spate/api/delta_merge.h"
#include "spate/api/delta_table.h"
#include "spate/api/readwriter.h"
#include "spate/api/scalar_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"

namespace {

namespace F = spate::api::functions;
using spate::api::DataFrame;
using spate::api::DataStreamWriter;

void AppendToDelta(const DataFrame& batch, int64_t id, const std::string& output) {
  batch.write()
      .format("delta")
      .mode("append")
      .option("txnAppId", "crash-driver")
      .option("txnVersion", std::to_string(id))
      .save(output);
}

void MergeIntoDelta(const spate::api::SparkSession& spark, const DataFrame& batch,
                    const std::string& output) {
  if (!spate::api::DeltaTable::isDeltaTable(spark, output))
    batch.limit(0).write().format("delta").mode("append").save(output);
  spate::api::DeltaTable::forPath(spark, output)
      .alias("t")
      .merge(batch.alias("s"), "t.id = s.id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute();
}

int RunStateless(const std::string& sink, const std::string& input,
                 const std::string& output, const std::string& checkpoint) {
  auto spark = spate::api::SparkSession::builder().appName("crash-driver").getOrCreate();
  auto df = spark.readStream()
                .schema("id BIGINT, payload STRING")
                .option("maxFilesPerTrigger", 1)
                .json(input)
                .where("id >= 0")
                .selectExpr("id", "upper(payload) AS payload");
  auto writer = df.writeStream()
                    .option("checkpointLocation", checkpoint)
                    .trigger(spate::api::Trigger::AvailableNow());
  if (sink == "foreachbatch") {
    writer.foreachBatch([output](const DataFrame& batch, int64_t id) {
      AppendToDelta(batch, id, output);
    });
    writer.start().awaitTermination();
  } else if (sink == "merge") {
    writer.foreachBatch([spark, output](const DataFrame& batch, int64_t) {
      MergeIntoDelta(spark, batch, output);
    });
    writer.start().awaitTermination();
  } else if (sink == "files" || sink == "delta") {
    writer.format(sink == "delta" ? "delta" : "parquet").start(output).awaitTermination();
  } else {
    std::fprintf(stderr, "unknown query %s\n", sink.c_str());
    return 2;
  }
  return 0;
}

int RunStateful(const std::string& query, const std::string& provider,
                const std::string& input, const std::string& output,
                const std::string& checkpoint) {
  if (provider != "memory" && provider != "rocksdb") {
    std::fprintf(stderr, "unknown state store provider %s\n", provider.c_str());
    return 2;
  }
  auto spark =
      spate::api::SparkSession::builder()
          .appName("crash-driver")
          .config("spark.sql.streaming.stateStore.providerClass",
                  provider == "rocksdb"
                      ? "org.apache.spark.sql.execution.streaming.state."
                        "RocksDBStateStoreProvider"
                      : "org.apache.spark.sql.execution.streaming.state."
                        "HDFSBackedStateStoreProvider")
          .config("spark.sql.streaming.stateStore.rocksdb.localDir", output + "-rocksdb")
          .getOrCreate();
  auto events = spark.readStream()
                    .schema("id BIGINT, k STRING, v BIGINT, ts TIMESTAMP")
                    .option("maxFilesPerTrigger", 1)
                    .json(input);
  DataStreamWriter writer = events.writeStream();
  if (query == "window") {
    auto df =
        events.withWatermark("ts", "10 seconds")
            .groupBy(F::window(F::col("ts"), "20 seconds", "10 seconds"), F::col("k"))
            .agg(F::count(F::lit(1)).alias("n"), F::sum(F::col("v")).alias("s"))
            .selectExpr("CAST(window.start AS STRING) AS start", "k", "n", "s");
    writer = df.writeStream().outputMode("append").format("delta");
  } else if (query == "update" || query == "complete") {
    auto df = events.groupBy("k").agg(F::count(F::lit(1)).alias("n"),
                                      F::sum(F::col("v")).alias("s"));
    writer = df.writeStream().outputMode(query);
    if (query == "update") {
      writer.foreachBatch([output](const DataFrame& batch, int64_t id) {
        AppendToDelta(batch.withColumn("batch", F::lit(id)), id, output);
      });
    } else {
      writer.format("delta");
    }
  } else if (query == "dedup") {
    auto df = events.withWatermark("ts", "10 seconds").dropDuplicates({"id", "ts"});
    writer = df.writeStream().outputMode("append").format("parquet");
  } else if (query == "join") {
    auto views = events.where("v % 2 = 0")
                     .selectExpr("id AS vid", "k AS vk", "ts AS vts")
                     .withWatermark("vts", "10 seconds");
    auto buys = spark.readStream()
                    .schema("id BIGINT, k STRING, v BIGINT, ts TIMESTAMP")
                    .option("maxFilesPerTrigger", 1)
                    .json(input)
                    .where("v % 2 = 1")
                    .selectExpr("id AS bid", "k AS bk", "ts AS bts")
                    .withWatermark("bts", "10 seconds");
    auto df =
        views
            .join(buys,
                  F::expr("vk = bk AND bts BETWEEN vts AND vts + INTERVAL 5 SECONDS"),
                  "left_outer")
            .selectExpr("vid", "vk", "CAST(vts AS STRING) AS vts", "bid",
                        "CAST(bts AS STRING) AS bts");
    writer = df.writeStream().outputMode("append").format("delta");
  } else {
    std::fprintf(stderr, "unknown query %s\n", query.c_str());
    return 2;
  }
  writer.option("checkpointLocation", checkpoint)
      .trigger(spate::api::Trigger::AvailableNow());
  (query == "update" ? writer.start() : writer.start(output)).awaitTermination();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(
        stderr,
        "usage: %s <files|delta|foreachbatch|window:P|update:P|complete:P|dedup:P|join:P>"
        " <input> <output> <checkpoint>   (P: memory|rocksdb)\n",
        argv[0]);
    return 2;
  }
  std::string query = argv[1], input = argv[2], output = argv[3], checkpoint = argv[4];
  try {
    auto colon = query.find(':');
    if (colon == std::string::npos) return RunStateless(query, input, output, checkpoint);
    return RunStateful(query.substr(0, colon), query.substr(colon + 1), input, output,
                       checkpoint);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
}
