"""The course's stateful streaming module (topics 11.07, 11.08, 11.10, 11.11 and 11.15) as
unmodified PySpark: the same file runs on spate and on real Spark and prints the same.

    build/release/cli/spate submit examples/python/stateful_pipeline.py [work-dir]

Event files (500 events a batch, 10 seconds apart in event time) land in a folder. One job of
availableNow queries, each with its own checkpoint, runs bronze (files -> table), silver (valid
rows, deduplicated within a 10-minute watermark), gold (30-minute windows per event type, append
mode: a window is written once the watermark passes its end) and the 5-minute windows of topic
11.07. The job runs after each landing; an event hours late arrives with batch 3 and is dropped
from the windows (counted in numRowsDroppedByWatermark) while bronze keeps it.
"""
import os
import sys
import tempfile

from pyspark.sql import SparkSession, functions as F

work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="spate-stateful-")
base = os.path.join(work, "stream")
src = f"{base}/events"

spark = (SparkSession.builder.appName("stateful-pipeline")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.warehouse.dir", os.path.join(work, "warehouse"))
         .getOrCreate())
spark.sql("CREATE SCHEMA IF NOT EXISTS dbx_course")
spark.sql("USE dbx_course")

schema = "event_id LONG, user_id INT, event_type STRING, event_ts TIMESTAMP, amount DOUBLE"


def land_events(batch, start, n=500):
    """Write n events (ids start..start+n-1) as JSON into the landing folder."""
    (spark.range(start, start + n).select(
        F.col("id").alias("event_id"),
        (F.pmod(F.hash("id", F.lit(1)), F.lit(50)) + 1).alias("user_id"),
        F.element_at(F.array(F.lit("view"), F.lit("click"), F.lit("buy")),
                     (F.pmod(F.hash("id", F.lit(2)), F.lit(3)) + 1)).alias("event_type"),
        F.timestamp_seconds(F.lit(1740787200) + F.col("id") * 10).alias("event_ts"),
        F.round(F.pmod(F.hash("id", F.lit(3)), F.lit(10000)) / 100, 2).alias("amount"),
    ).coalesce(1).write.mode("overwrite").json(f"{src}/batch_{batch}"))


def run_layer(df, table, cp, mode="append"):
    q = (df.writeStream.outputMode(mode)
           .option("checkpointLocation", f"{base}/_cp/{cp}")
           .trigger(availableNow=True).toTable(table))
    q.awaitTermination()
    return q


def dropped(q):
    return sum(p["stateOperators"][0]["numRowsDroppedByWatermark"]
               for p in q.recentProgress if p["stateOperators"])


def run_job():
    # bronze: files -> table (keeps every row, however late)
    run_layer(spark.readStream.schema(schema).option("recursiveFileLookup", "true")
              .option("pathGlobFilter", "*.json").json(src), "events_bronze", "bronze")
    # silver: valid, deduplicated within the watermark (11.08: bounded state)
    silver = (spark.readStream.table("events_bronze")
              .filter("amount IS NOT NULL AND amount >= 0")
              .withWatermark("event_ts", "10 minutes")
              .dropDuplicatesWithinWatermark(["event_id"]))
    qs = run_layer(silver, "events_silver", "silver")
    # gold: windowed counts (append mode closes windows after the watermark)
    gold = (spark.readStream.table("events_silver")
            .withWatermark("event_ts", "10 minutes")
            .groupBy(F.window("event_ts", "30 minutes"), "event_type")
            .agg(F.count("*").alias("events"), F.round(F.sum("amount"), 2).alias("amount")))
    qg = run_layer(gold, "events_by_type", "gold")
    # 11.07 / 11.10: 5-minute windows from bronze
    windows = (spark.readStream.table("events_bronze")
               .withWatermark("event_ts", "10 minutes")
               .groupBy(F.window("event_ts", "5 minutes"), "event_type")
               .agg(F.count("*").alias("events"), F.round(F.sum("amount"), 2).alias("amount")))
    qw = run_layer(windows, "events_5min", "win5")
    op = qw.lastProgress["stateOperators"][0] if qw.lastProgress else None
    print("bronze:", spark.table("events_bronze").count(),
          "silver:", spark.table("events_silver").count(),
          "gold windows:", spark.table("events_by_type").count(),
          "5-min windows:", spark.table("events_5min").count())
    print("silver dropped late:", dropped(qs), "gold dropped late:", dropped(qg),
          "5-min dropped late:", dropped(qw))
    if op is not None:
        print("5-min state rows:", op["numRowsTotal"],
              "watermark:", qw.lastProgress["eventTime"]["watermark"])


print("== run 1")
land_events(1, 0)
run_job()
spark.table("events_by_type").orderBy("window", "event_type").show(6, truncate=False)

print("== run 2")
land_events(2, 500)
run_job()

print("== run 3")
# 11.11: an event that is hours late (event time 2025-03-01 00:01, arrives with batch 3)
(spark.createDataFrame([(99999, 7, "buy", "2025-03-01 00:01:00", 12.5)],
                       "event_id LONG, user_id INT, event_type STRING, event_ts STRING, amount DOUBLE")
      .withColumn("event_ts", F.to_timestamp("event_ts"))
      .coalesce(1).write.mode("overwrite").json(f"{src}/batch_3"))
land_events(4, 1000)                      # newer data moves the watermark forward
run_job()
late = spark.table("events_bronze").where("event_id = 99999").count()
print("late event in bronze:", late)
# Every closed window equals a batch count over bronze (the late row aside).
check = (spark.table("events_bronze").where("event_id <> 99999")
         .groupBy(F.window("event_ts", "5 minutes"), "event_type").count()
         .join(spark.table("events_5min"), ["window", "event_type"])
         .where("count <> events").count())
print("5-min windows differing from batch:", check)
spark.stop()
