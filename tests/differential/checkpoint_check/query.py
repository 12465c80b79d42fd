"""The queries of the checkpoint-check differential test: one PySpark program, run by real
Spark (build/spark-venv) and by spate, and handed to `spate checkpoint check`.

    python query.py ROOT VARIANT     # reads ROOT/in (and ROOT/in2), checkpoint ROOT/chk

`start(spark, root, variant)` starts VARIANT with availableNow into the noop sink.
"""

import sys

from pyspark.sql import SparkSession, functions as F

SCHEMA = "k STRING, v LONG, ts TIMESTAMP"


def _src(spark, root, name="in"):
    return spark.readStream.schema(SCHEMA).json(f"{root}/{name}")


def _windowed(df, column, delay):
    return (df.withColumn("t2", F.col("ts")).withWatermark(column, delay)
            .groupBy(F.window(column, "1 minute")).count())


# variant -> (DataFrame builder, output mode)
VARIANTS = {
    "agg": (lambda s, r: _src(s, r).groupBy("k").count(), "update"),
    "agg_keys_changed": (lambda s, r: _src(s, r).groupBy("k", "v").count(), "update"),
    "agg_added": (lambda s, r: _src(s, r).groupBy("k").agg(F.count("*"), F.sum("v")), "update"),
    "agg_filtered": (lambda s, r: _src(s, r).where("v > 0").groupBy("k").count(), "update"),
    "agg_complete": (lambda s, r: _src(s, r).groupBy("k").count(), "complete"),
    "agg_renamed": (lambda s, r: _src(s, r).groupBy("k").agg(F.count("*").alias("n")), "update"),
    "dedup": (lambda s, r: _src(s, r).dropDuplicates(["k"]), "append"),
    "select": (lambda s, r: _src(s, r).select("k", "v"), "append"),
    "select_filtered": (lambda s, r: _src(s, r).where("v > 0").select("k", "v"), "append"),
    "select_doubled": (lambda s, r: _src(s, r).select("k", (F.col("v") * 2).alias("v")), "append"),
    "select_agg": (lambda s, r: _src(s, r).groupBy("k").count(), "update"),
    "union": (lambda s, r: _src(s, r).union(_src(s, r, "in2")).select("k", "v"), "append"),
    "select_in2": (lambda s, r: _src(s, r, "in2").select("k", "v"), "append"),
    "window_ts": (lambda s, r: _windowed(_src(s, r), "ts", "1 minute"), "append"),
    "window_t2": (lambda s, r: _windowed(_src(s, r), "t2", "1 minute"), "append"),
    "window_ts_5m": (lambda s, r: _windowed(_src(s, r), "ts", "5 minutes"), "append"),
    "window_dedup": (lambda s, r: _src(s, r).withWatermark("ts", "1 minute")
                     .dropDuplicates(["k", "ts"]).groupBy(F.window("ts", "1 minute")).count(),
                     "append"),
}


def start(spark, root, variant):
    build, mode = VARIANTS[variant]
    return (build(spark, root).writeStream.format("noop").outputMode(mode)
            .option("checkpointLocation", f"{root}/chk").trigger(availableNow=True).start())


if __name__ == "__main__":
    spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "2").getOrCreate()
    start(spark, sys.argv[1], sys.argv[2]).awaitTermination()
