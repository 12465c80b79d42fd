"""Auto Loader into a bronze Delta table, as the Databricks course runs it: JSON files land
in a folder, readStream.format("cloudFiles") infers and stores their schema, a new column
stops the stream once, and the restart ingests it.

    python examples/python/auto_loader_bronze.py /tmp/al_demo
"""
import json
import os
import sys

from spate.errors import StreamingQueryException
from spate.sql import SparkSession

work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/spate_auto_loader"
landing, checkpoint, bronze = (os.path.join(work, d) for d in ("landing", "chk", "bronze"))
os.makedirs(landing, exist_ok=True)

spark = SparkSession.builder.appName("auto-loader-bronze").getOrCreate()


def land(name, records):
    with open(os.path.join(landing, name), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def ingest():
    df = (spark.readStream.format("cloudFiles")
          .option("cloudFiles.format", "json")
          .option("cloudFiles.schemaLocation", checkpoint)
          .option("cloudFiles.schemaHints", "amount DOUBLE")
          .load(landing))
    q = (df.writeStream.format("delta")
         .option("checkpointLocation", checkpoint)
         .option("mergeSchema", "true")
         .trigger(availableNow=True)
         .start(bronze))
    try:
        q.awaitTermination()
        print("ingested; schema:", df.schema.simpleString())
    except StreamingQueryException as e:
        print("stream stopped:", str(e).split("] ", 2)[-1].split(",")[0])


land("orders_1.json", [{"order_id": 1, "amount": 9.5, "status": "new"},
                       {"order_id": 2, "amount": 20, "status": "paid"}])
ingest()
# A producer adds a column, and sends one amount of the wrong type.
land("orders_2.json", [{"order_id": 3, "amount": 5, "status": "new", "channel": "web"},
                       {"order_id": 4, "amount": "n/a", "status": "new"}])
ingest()  # stops: the new column is recorded in the schema location
ingest()  # the restart reads it
spark.read.format("delta").load(bronze).orderBy("order_id") \
    .select("order_id", "amount", "status", "channel", "_rescued_data") \
    .show(truncate=False)
print("schema versions:", sorted(os.listdir(os.path.join(checkpoint, "_schemas"))))
