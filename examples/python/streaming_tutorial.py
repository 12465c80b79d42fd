"""A Structured Streaming bronze pipeline written as PySpark, unmodified, running on spate.

    build/release/cli/spate submit examples/python/streaming_tutorial.py [work-dir]

JSON event files land in a folder; an AvailableNow stream appends them to the Delta table
`bronze_events` (each run picks up only the files that arrived since the last one, tracked by
the checkpoint), then the table is queried.
"""
import json
import os
import random
import sys
import tempfile

from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import *
from delta.tables import DeltaTable

work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="spate-streaming-")
landing = os.path.join(work, "landing")
checkpoint = os.path.join(work, "checkpoints", "bronze_events")
os.makedirs(landing, exist_ok=True)

spark = (SparkSession.builder.appName("streaming-tutorial")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.warehouse.dir", os.path.join(work, "warehouse"))
         .getOrCreate())

KINDS = ["view", "click", "purchase", "refund"]
rng = random.Random(42)


def land_events(first_id, n, per_file=50):
    """Writes n events as JSON Lines files of per_file events each into the landing folder."""
    for start in range(first_id, first_id + n, per_file):
        rows = []
        for event_id in range(start, min(start + per_file, first_id + n)):
            rows.append({
                "event_id": event_id,
                "user": "user%02d" % rng.randrange(20),
                "kind": KINDS[event_id % len(KINDS)],
                "amount": round(rng.uniform(1, 100), 2),
                "ts": "2024-05-%02dT%02d:%02d:00Z" % (1 + event_id % 7, event_id % 24, event_id % 60),
            })
        name = os.path.join(landing, "events-%06d.json" % start)
        with open(name + ".tmp", "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows) + "\n")
        os.rename(name + ".tmp", name)  # files appear atomically, as a landing zone should


event_schema = StructType([
    StructField("event_id", LongType()),
    StructField("user", StringType()),
    StructField("kind", StringType()),
    StructField("amount", DoubleType()),
    StructField("ts", TimestampType()),
])


def run_bronze():
    """One AvailableNow run: everything that landed since the last run, then stop."""
    events = (spark.readStream
              .schema(event_schema)
              .option("maxFilesPerTrigger", 4)
              .json(landing)
              .withColumn("event_date", F.to_date("ts")))
    query = (events.writeStream
             .format("delta")
             .outputMode("append")
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True)
             .queryName("bronze_events_ingest")
             .toTable("bronze_events"))
    query.awaitTermination()
    return query


def report(query, label):
    bronze = spark.table("bronze_events")
    print("== %s ==" % label)
    print("bronze rows:", bronze.count())
    bronze.groupBy("kind").agg(F.count("*").alias("events"),
                               F.round(F.sum("amount"), 2).alias("amount")).orderBy("kind").show()
    progress = query.lastProgress
    batches = len(query.recentProgress)
    new_rows = sum(p["numInputRows"] for p in query.recentProgress)
    print("batches this run:", batches, "rows this run:", new_rows)
    if progress is not None:
        print("last batch: id=%d rows=%d source=%s sink=%s" % (
            progress["batchId"], progress["numInputRows"], progress["sources"][0]["description"],
            progress["sink"]["description"]))
        print(progress)  # PySpark 4: the progress JSON (Spark's prettyJson)
    print("table versions:", DeltaTable.forName(spark, "bronze_events").history().count())


land_events(0, 500)
report(run_bronze(), "run 1")

land_events(500, 500)
report(run_bronze(), "run 2")

report(run_bronze(), "run 3 (nothing new)")
