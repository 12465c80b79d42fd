"""The aggregation-buffer queries of the checkpoint-check differential test: one PySpark
program per aggregate list, run by real Spark (which writes its aggregation buffers as the
state value schema) and handed to `spate checkpoint check`.

    python aggregates.py ROOT INDEX     # reads ROOT/in, checkpoint ROOT/chk

`start(spark, root, index)` runs `groupBy(k).agg(AGGREGATES[index])` with availableNow
into the noop sink; `land(root)` writes the input.
"""

import json
import os
import sys

SCHEMA = ("k STRING, v LONG, i INT, d DOUBLE, d5 DECIMAL(5,2), d14 DECIMAL(14,2), "
          "d30 DECIMAL(30,3), s STRING, b BOOLEAN, ts TIMESTAMP")

# Each entry: the aggregates of one query (SQL expressions).
AGGREGATES = [
    "count(*)", "count(v)", "count_if(b)", "sum(v)", "sum(i)", "sum(d)", "sum(d5)", "sum(d14)",
    "sum(d30)", "avg(v)", "avg(d5)", "avg(d14)", "mean(d30)", "min(v)", "max(s)", "min(ts)",
    "max(d14)", "first(v)", "last(s)", "any_value(d)", "first_value(i)", "stddev(d)",
    "var_pop(v)", "skewness(d)", "kurtosis(d)", "collect_list(v)", "collect_set(s)",
    "percentile_approx(d, 0.5)", "median(d)", "mode(s)", "percentile(d, 0.5)", "bool_and(b)",
    "bool_or(b)", "max_by(s, v)", "min_by(d5, s)", "approx_count_distinct(v)",
    "approx_count_distinct(s, 0.2)", "bit_and(v)", "bit_or(i)", "bit_xor(v)",
    "count(*); sum(v)", "sum(v); sum(v)", "avg(v); count(*); min(s)",
]


def land(root: str) -> None:
    os.makedirs(os.path.join(root, "in"), exist_ok=True)
    with open(os.path.join(root, "in", "f0.json"), "w") as f:
        for j in range(4):
            f.write(json.dumps({"k": f"k{j % 2}", "v": j, "i": j, "d": j * 1.5, "d5": 1.25,
                                "d14": 2.5, "d30": 3.125, "s": f"s{j}", "b": j % 2 == 0,
                                "ts": f"2026-01-01T00:00:0{j}Z"}) + "\n")


def start(spark, root, index):
    from pyspark.sql import functions as F  # imported here: the test lists AGGREGATES first

    aggs = [F.expr(e.strip()) for e in AGGREGATES[int(index)].split(";")]
    return (spark.readStream.schema(SCHEMA).json(f"{root}/in").groupBy("k").agg(*aggs)
            .writeStream.format("noop").outputMode("update")
            .option("checkpointLocation", f"{root}/chk").trigger(availableNow=True).start())


if __name__ == "__main__":
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "2").getOrCreate()
    start(spark, sys.argv[1], sys.argv[2]).awaitTermination()
