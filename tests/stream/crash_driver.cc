// Copyright spate authors.
// Child process of the crash tests (crash_test.cc): runs one streaming query over files
// until everything available is processed, then exits 0. The parent kills it with
// SIGKILL at random instants, or SPATE_FAULT=<point>[:<hit>] makes it kill itself at a
// named point of the micro-batch protocol (stream/batch_source.h FaultPoint).
//
//   spate_stream_crash_driver <sink: files|delta> <input dir> <output dir> <checkpoint>
//
// The query: JSON files (id BIGINT, payload STRING) -> filter/project -> the sink, with
// maxFilesPerTrigger=1 so a run has several batches. Exit codes: 0 done, 2 usage, 3
// error.

#include <cstdio>
#include <exception>
#include <string>

#include "spate/api/session.h"
#include "spate/api/streaming.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <files|delta> <input> <output> <checkpoint>\n",
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
    auto q = df.writeStream()
                 .format(sink == "delta" ? "delta" : "parquet")
                 .option("checkpointLocation", checkpoint)
                 .trigger(spate::api::Trigger::AvailableNow())
                 .start(output);
    q.awaitTermination();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}
