"""The reference for bench/kafka_bench.cc: real Spark's Kafka source (spark-sql-kafka-0-10 from
build/spark-kafka-jars, local[2]) on the same broker and topics as the spate run.

  1. throughput (after an unmeasured warm-up on the first 100000 records): the bronze ingest (from_json of the value, kafka_ts, _ingested_at) of the
     whole topic into Delta, AvailableNow with maxOffsetsPerTrigger as the spate run; prints
     the JVM's CPU seconds and `SPARK_EVENTS_PER_CPU_S <rate>`;
  2. latency at a fixed input rate (the C++ bench produces at that rate meanwhile): a Kafka ->
     Delta query from the latest offsets, each batch appended to Delta in foreachBatch, then
     every row's latency = the time the append returned - the record's Kafka timestamp; runs
     SECONDS after its first non-empty batch and prints `SPARK_LATENCY_MS <p50> <p99> <n>`.

    build/spark-venv/bin/python bench/kafka_spark.py BOOTSTRAP TOPIC EVENTS TMP LAT_TOPIC SECONDS

Needs scripts/install-spark.sh. Printed, not checked.
"""
import glob
import os
import shutil
import sys
import time

from pyspark.sql import SparkSession

from stream_join_spark import jvm_cpu_seconds  # bench/, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "order_id STRING, user_id BIGINT, amount DOUBLE, country STRING"


def main():
    bootstrap, topic, events, tmp, lat_topic, seconds = sys.argv[1:7]
    events, seconds = int(events), float(seconds)
    jars = sorted(glob.glob(os.path.join(ROOT, "build", "spark-jars", "*.jar")) +
                  glob.glob(os.path.join(ROOT, "build", "spark-kafka-jars", "*.jar")))
    spark = (SparkSession.builder.master("local[2]").appName("kafka-reference")
             .config("spark.jars", ",".join(jars))
             .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()

    def kafka(t, starting):
        return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
                .option("subscribe", t).option("startingOffsets", starting))

    # Warm-up (not measured): the same parse and Delta write of the topic's first 100000
    # records as a batch query, so that the measured run is not the JVM's first (class
    # loading and JIT compilation count as the JVM's CPU time).
    (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("subscribe", topic)
     .load().limit(100000)
     .selectExpr(f"from_json(CAST(value AS STRING), '{SCHEMA}') AS o", "timestamp AS kafka_ts")
     .selectExpr("o.*", "kafka_ts").write.format("delta").save(os.path.join(tmp, "warm-up")))
    cpu0, wall0 = jvm_cpu_seconds(pid), time.monotonic()
    q = (kafka(topic, "earliest").option("maxOffsetsPerTrigger", "500000").load()
         .selectExpr(f"from_json(CAST(value AS STRING), '{SCHEMA}') AS o", "timestamp AS kafka_ts")
         .selectExpr("o.*", "kafka_ts", "current_timestamp() AS _ingested_at")
         .writeStream.format("delta").option("checkpointLocation", os.path.join(tmp, "chk"))
         .trigger(availableNow=True).start(os.path.join(tmp, "bronze")))
    q.awaitTermination()
    cpu, wall = jvm_cpu_seconds(pid) - cpu0, time.monotonic() - wall0
    n = sum(p["numInputRows"] for p in q.recentProgress)
    rate = n / cpu
    print(f"{'Spark ' + spark.version + ' Kafka -> Delta bronze (from_json)':<46} {n / wall:9.0f} events/s "
          f"{rate:9.0f} events/cpu-s  ({wall:.1f} s wall, {len(q.recentProgress)} batches)")
    print(f"SPARK_EVENTS_PER_CPU_S {rate}")
    sys.stdout.flush()

    latencies, first = [], []
    out = os.path.join(tmp, "latency")

    def each(df, batch_id):
        df = df.selectExpr("CAST(value AS STRING) AS v", "timestamp")
        df.write.format("delta").mode("append").save(out)
        ts = [r[0] for r in df.selectExpr("unix_millis(timestamp)").collect()]
        now = time.time() * 1000
        if ts and not first:
            first.append(time.monotonic())
        latencies.extend(now - t for t in ts)

    q = (kafka(lat_topic, "latest").load().writeStream.foreachBatch(each)
         .option("checkpointLocation", os.path.join(tmp, "chk-latency")).start())
    print("SPARK_LATENCY_STARTED")
    sys.stdout.flush()
    while not first or time.monotonic() - first[0] < seconds:
        time.sleep(0.1)
    q.stop()
    lat = sorted(latencies)
    if lat:
        p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        print(f"{'Spark fixed-rate Kafka -> Delta latency':<46} n={len(lat)} p50={p50:.1f} ms "
              f"p99={p99:.1f} ms")
        print(f"SPARK_LATENCY_MS {p50} {p99} {len(lat)}")
    spark.stop()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
