"""A PySpark job, unmodified, that runs on spate and on Apache Spark.

    spate submit examples/python/pyspark_bronze_job.py /tmp/bronze-job
    spark-submit --jars <delta-spark jars> \\
        --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension \\
        --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog \\
        examples/python/pyspark_bronze_job.py /tmp/bronze-job

Each run is one day of a bronze ingest: 50 new JSON events land in a folder, an AvailableNow
stream appends what arrived since the last run to a Delta table (the checkpoint records what
was read), and batch queries read the whole table. Runs may alternate between the engines:
each continues the other's checkpoint and table. python/tests/test_submit.py runs it both
ways and compares what it prints (docs/scale-out.md).
"""
import json
import os
import sys

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType
from delta.tables import DeltaTable

work = sys.argv[1]
landing = os.path.join(work, "landing")
checkpoint = os.path.join(work, "checkpoints", "bronze")
table = os.path.join(work, "tables", "bronze")
os.makedirs(landing, exist_ok=True)

spark = SparkSession.builder.config("spark.sql.session.timeZone", "UTC").getOrCreate()
print("app:", spark.sparkContext.appName)
print("shuffle partitions:", spark.conf.get("spark.sql.shuffle.partitions"))

KINDS = ["view", "click", "purchase", "refund"]


def land(first_id, n, per_file=25):
    """Writes n events as JSON Lines files, each appearing atomically (rename)."""
    for start in range(first_id, first_id + n, per_file):
        name = os.path.join(landing, "events-%06d.json" % start)
        with open(name + ".tmp", "w") as f:
            for i in range(start, min(start + per_file, first_id + n)):
                f.write(json.dumps({"event_id": i, "user": "user%d" % (i * 7 % 5),
                                    "kind": KINDS[i % 4], "amount": (i * 37 % 100) / 4}) + "\n")
        os.rename(name + ".tmp", name)


schema = StructType([
    StructField("event_id", LongType()),
    StructField("user", StringType()),
    StructField("kind", StringType()),
    StructField("amount", DoubleType()),
])


def ingest(label):
    """One AvailableNow run over what has landed since the last one."""
    query = (spark.readStream.schema(schema).json(landing)
             .withColumn("big", F.col("amount") >= 20)
             .writeStream.format("delta")
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True)
             .start(table))
    query.awaitTermination()
    p = query.lastProgress
    print("%s: batch %d, %d rows in, table has %d rows" % (
        label, p["batchId"], p["numInputRows"], spark.read.format("delta").load(table).count()))


landed = len([f for f in os.listdir(landing) if f.endswith(".json")])
land(25 * landed, 50)
ingest("run %d" % (landed // 2 + 1))

bronze = DeltaTable.forPath(spark, table).toDF()
(bronze.groupBy("kind")
 .agg(F.count("*").alias("events"), F.round(F.sum("amount"), 2).alias("amount"),
      F.sum(F.col("big").cast("int")).alias("big"))
 .orderBy("kind").show())

w = Window.partitionBy("user").orderBy(F.desc("amount"), "event_id")
(bronze.withColumn("rank", F.row_number().over(w)).filter("rank <= 2")
 .select("user", "rank", "event_id", "amount").orderBy("user", "rank").show())

(DeltaTable.forPath(spark, table).history().select("version", "operation")
 .orderBy("version").show(truncate=False))
print("distinct ids:", bronze.select("event_id").distinct().count())
spark.stop()
