// Copyright spate authors.
// Child process of the crash tests (crash_test.cc): runs one streaming query over files
// until everything available is processed, then exits 0. The parent kills it with
// SIGKILL at random instants, or SPATE_FAULT=<point>[:<hit>] makes it kill itself at a
// named point of the micro-batch protocol (stream/batch_source.h FaultPoint).
//
//   spate_stream_crash_driver <sink: files|delta|foreachbatch> <input> <output>
//   <checkpoint>
//
// The query: JSON files (id BIGINT, payload STRING) -> filter/project -> the sink, with
// maxFilesPerTrigger=1 so a run has several batches. Sinks: `files` (parquet with
// _spark_metadata), `delta` (the Delta sink), `foreachbatch` (a function appending each
// batch to a Delta table with txnAppId/txnVersion = batch id: Delta's idempotent write,
// the usual way to make foreachBatch exactly-once). SPATE_FAULT_TRACE_FD reports the
// protocol points passed (stream/batch_source.h). Exit codes: 0 done, 2 usage, 3 error
// (its message on stderr).

#include <cstdio>
#include <exception>
#include <string>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: %s <files|delta|foreachbatch> <input> <output> <checkpoint>\n",
                 argv[0]);
    return 2;
  }
  std::string sink = argv[1], input = argv[2], output = argv[3], checkpoint = argv[4];
  try {
    auto spark =
        spate::api::SparkSession::builder().appName("crash-driver").getOrCreate();
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
      writer.foreachBatch([output](spate::api::DataFrame batch, int64_t id) {
        batch.write()
            .format("delta")
            .mode("append")
            .option("txnAppId", "crash-driver")
            .option("txnVersion", std::to_string(id))
            .save(output);
      });
      writer.start().awaitTermination();
    } else {
      writer.format(sink == "delta" ? "delta" : "parquet")
          .start(output)
          .awaitTermination();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}
