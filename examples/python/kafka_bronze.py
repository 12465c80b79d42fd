"""Kafka -> bronze Delta -> revenue_5m, written as PySpark, running on spate with only its
imports changed.

    bash scripts/kafka.sh start          # a local broker on 127.0.0.1:9092
    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/kafka_bronze.py \
        [bootstrap=127.0.0.1:9092] [work-dir]

Orders are written to the topic `orders` (a batch `df.write.format("kafka")`); the bronze
stream reads them (`subscribe`, `startingOffsets`, `maxOffsetsPerTrigger`), parses the JSON
value with its schema and keeps the Kafka metadata (`kafka_ts`, partition, offset) and the
ingestion time (`_ingested_at`); the progress shows Kafka offsets per partition. A second
query computes the windowed revenue per 5 minutes from the topic with a watermark.
"""
import json
import os
import sys
import tempfile
import uuid

from spate.sql import SparkSession, functions as F
from spate.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

bootstrap = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9092"
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="spate-kafka-")
topic = "orders-" + uuid.uuid4().hex[:8]  # a new topic per run: the output is the same

spark = (SparkSession.builder.appName("kafka-bronze")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", "2")
         .getOrCreate())

# 1. Produce 12 orders, 2 minutes apart, keyed by order id.
orders = [{"order_id": "o%02d" % i, "amount": float(10 + i), "country": ["DE", "FR", "US"][i % 3],
           "ts": "2024-05-01T10:%02d:00Z" % (2 * i)} for i in range(12)]
(spark.createDataFrame([(o["order_id"], json.dumps(o)) for o in orders], "key STRING, value STRING")
 .write.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic", topic).save())

# 2. Bronze: the raw orders with their Kafka metadata, into Delta.
order_schema = StructType([
    StructField("order_id", StringType()),
    StructField("amount", DoubleType()),
    StructField("country", StringType()),
    StructField("ts", TimestampType()),
])
raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", bootstrap)
       .option("subscribe", topic)
       .option("startingOffsets", "earliest")
       .option("maxOffsetsPerTrigger", 5)
       .load())
bronze = (raw.select(F.from_json(F.col("value").cast("string"), order_schema).alias("o"),
                     F.col("topic"), F.col("partition"), F.col("offset"),
                     F.col("timestamp").alias("kafka_ts"))
          .select("o.*", "topic", "partition", "offset", "kafka_ts")
          .withColumn("_ingested_at", F.current_timestamp()))
q = (bronze.writeStream.format("delta")
     .option("checkpointLocation", os.path.join(work, "chk", "bronze"))
     .trigger(availableNow=True)
     .start(os.path.join(work, "bronze")))
q.awaitTermination()
for p in q.recentProgress:
    src = p["sources"][0]
    print("batch %d: %s rows=%d end=%s" % (p["batchId"], src["description"].replace(topic, "orders"),
                                           p["numInputRows"],
                                           json.dumps(json.loads(src["endOffset"])[topic],
                                                      sort_keys=True)))
print("behind latest after the last batch:", q.lastProgress["sources"][0]["metrics"]["maxOffsetsBehindLatest"])

spark.read.format("delta").load(os.path.join(work, "bronze")) \
    .select("order_id", "amount", "country", "partition", "offset") \
    .orderBy("offset").show(5)

# 3. revenue_5m: windowed revenue by event time, from the same topic.
revenue = (raw.select(F.from_json(F.col("value").cast("string"), order_schema).alias("o"))
           .select("o.*")
           .withWatermark("ts", "10 minutes")
           .groupBy(F.window("ts", "5 minutes"))
           .agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders")))
q2 = (revenue.writeStream.format("memory").queryName("revenue_5m").outputMode("complete")
      .option("checkpointLocation", os.path.join(work, "chk", "revenue"))
      .trigger(availableNow=True).start())
q2.awaitTermination()
spark.sql("SELECT window.start AS start, revenue, orders FROM revenue_5m ORDER BY start").show()
