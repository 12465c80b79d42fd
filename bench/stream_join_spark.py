"""The reference for bench/stream_join_bench.cc: the same stream-stream interval join on
real Spark (local[2], the machine's cores, spark.sql.shuffle.partitions=2 as the spate run)
over the same Parquet files (one per side per micro-batch, maxFilesPerTrigger=1,
availableNow) -> noop. Prints the JVM's CPU seconds and `SPARK_EVENTS_PER_CPU_S <rate>`,
which the C++ bench reads to print the spate/Spark ratio.

    build/spark-venv/bin/python bench/stream_join_spark.py <dir_a> <dir_b> <events> <tmp>

Needs scripts/install-spark.sh (build/spark-venv). Printed, not checked.
"""
import os
import shutil
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

CONDITION = "a_k = b_k AND b_ts BETWEEN a_ts AND a_ts + INTERVAL 1 MINUTE"


def jvm_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def main():
    dir_a, dir_b, events, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    spark = (SparkSession.builder.master("local[2]").appName("stream-join-reference")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()

    def read(path, schema):
        return spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(path)

    a = read(dir_a, "a_k BIGINT, a_ts TIMESTAMP, a_v BIGINT, a_payload STRING")
    b = read(dir_b, "b_k BIGINT, b_ts TIMESTAMP, b_v BIGINT, b_payload STRING")
    joined = (a.withWatermark("a_ts", "10 seconds")
              .join(b.withWatermark("b_ts", "10 seconds"), F.expr(CONDITION)))
    cpu0, wall0 = jvm_cpu_seconds(pid), time.monotonic()
    q = (joined.writeStream.format("noop").outputMode("append")
         .option("checkpointLocation", os.path.join(tmp, "chk"))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    cpu, wall = jvm_cpu_seconds(pid) - cpu0, time.monotonic() - wall0
    batches = len(q.recentProgress)
    rate = events / cpu
    print(f"{'Spark ' + spark.version + ' interval join, Parquet -> noop':<46} {wall:.2f} s wall "
          f"{cpu:.2f} s cpu  {rate / 1e6:.2f} M events/cpu-s  ({batches} batches)")
    print(f"SPARK_EVENTS_PER_CPU_S {rate}")
    spark.stop()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
