// Copyright spate authors.
// Child process of the Kafka crash test (kafka_test.cc, KafkaCrash): runs one streaming
// query from a Kafka topic until everything available when it started is processed
// (Trigger.AvailableNow, maxOffsetsPerTrigger=100 so a run has several batches), then
// exits 0. The parent kills it with SIGKILL at random points of the micro-batch protocol.
//
//   spate_kafka_crash_driver delta <bootstrap> <topic> <output path> <checkpoint>
//       (partition, offset, value) rows into the Delta sink (exactly-once: txn per batch)
//   spate_kafka_crash_driver kafka <bootstrap> <topic> <output topic> <checkpoint>
//       key/value into the Kafka sink with exactlyOnce=true
//
// SPATE_FAULT_TRACE_FD reports the protocol points passed (stream/batch_source.h). Exit
// codes: 0 done, 2 usage, 3 error (its message on stderr).

#include <cstdio>
#include <exception>
#include <string>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr,
                 "usage: %s delta|kafka <bootstrap> <topic> <output> <checkpoint>\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1], bootstrap = argv[2], topic = argv[3], output = argv[4],
              checkpoint = argv[5];
  try {
    auto spark =
        spate::api::SparkSession::builder().appName("kafka-crash-driver").getOrCreate();
    auto df = spark.readStream()
                  .format("kafka")
                  .option("kafka.bootstrap.servers", bootstrap)
                  .option("subscribe", topic)
                  .option("startingOffsets", "earliest")
                  .option("maxOffsetsPerTrigger", "100")
                  .load();
    if (mode == "delta") {
      df.selectExpr("partition", "offset", "CAST(value AS STRING) AS v")
          .writeStream()
          .format("delta")
          .option("checkpointLocation", checkpoint)
          .trigger(spate::api::Trigger::AvailableNow())
          .start(output)
          .awaitTermination();
    } else if (mode == "kafka") {
      df.selectExpr("key", "value")
          .writeStream()
          .format("kafka")
          .option("kafka.bootstrap.servers", bootstrap)
          .option("topic", output)
          .option("exactlyOnce", "true")
          .option("checkpointLocation", checkpoint)
          .trigger(spate::api::Trigger::AvailableNow())
          .start()
          .awaitTermination();
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}
