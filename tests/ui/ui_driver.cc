// Copyright spate authors.
// The streaming job the browser test (tests/ui/live_page.mjs) watches: a session with the
// monitoring server on (spark.ui.enabled, any free port, retainedProgressUpdates from
// argv[1]), one query that ran two batches and finished, and one that keeps running until
// standard input closes: rate source -> 1-second watermark -> 1-second windowed count
// (stateful, append mode) -> memory sink, triggered every 500 ms, so every chart of the
// page (rates, rows, durations, watermark gap, state rows) has data.
//
// Prints, one per line: "URL <url>", "FINISHED <runId>", "RUNNING <runId>", then waits
// for EOF on stdin (the test closes it, or dies), stops the query and exits 0. Any
// failure: a message on stderr and exit code 1.

#include <iostream>
#include <string>

#include "spate/api/datetime_functions.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"

namespace F = spate::api::functions;
using spate::Value;
using spate::api::MemoryStream;
using spate::api::SparkSession;
using spate::api::Trigger;

int main(int argc, char** argv) {
  try {
    std::string retained = argc > 1 ? argv[1] : "100";
    auto spark = SparkSession::builder()
                     .appName("spate-ui-test")
                     .config("spark.ui.enabled", "true")
                     .config("spark.ui.port", "0")
                     .config("spark.sql.streaming.ui.retainedProgressUpdates", retained)
                     .config("spark.sql.shuffle.partitions", "2")
                     .getOrCreate();
    auto url = spark.uiWebUrl();
    if (!url)
      throw std::runtime_error("spark.ui.enabled=true started no monitoring server");
    std::cout << "URL " << *url << std::endl;

    // A query that finished: two batches over a memory stream, then stop().
    MemoryStream words(spark, "word STRING");
    auto done = words.toDF()
                    .groupBy("word")
                    .count()
                    .writeStream()
                    .format("memory")
                    .queryName("ui_finished_counts")
                    .outputMode("complete")
                    .start();
    words.addData({{Value::String("a")}, {Value::String("b")}});
    done.processAllAvailable();
    words.addData({{Value::String("a")}});
    done.processAllAvailable();
    done.stop();
    std::cout << "FINISHED " << done.runId() << std::endl;

    auto q = spark.readStream()
                 .format("rate")
                 .option("rowsPerSecond", 50)
                 .load()
                 .withWatermark("timestamp", "1 second")
                 .groupBy(F::window(F::col("timestamp"), "1 second"))
                 .count()
                 .writeStream()
                 .format("memory")
                 .queryName("ui_rate_windows")
                 .outputMode("append")
                 .trigger(Trigger::ProcessingTime(500))
                 .start();
    std::cout << "RUNNING " << q.runId() << std::endl;

    std::string line;
    while (std::getline(std::cin, line)) {
    }
    q.stop();
    spark.stop();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ui_driver: " << e.what() << std::endl;
    return 1;
  }
}
