"""The course's Kafka parse (11.12), unmodified PySpark: read a topic from the latest offsets,
cast the binary value to a string, keep where each record came from (topic, partition,
offset) and its Kafka timestamp, parse the JSON with a schema and select the event's fields
with its offset.

    bash scripts/kafka.sh start          # a local broker on 127.0.0.1:9092
    build/release/cli/spate submit examples/python/kafka_parse.py [bootstrap] [work-dir]

The events are written to a new topic by a batch `df.write.format("kafka")` after the stream
has started (startingOffsets is "latest": earlier records are not read); the parsed stream
goes to a memory table, printed at the end.
"""
import json
import sys
import tempfile
import uuid

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

bootstrap = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9092"
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="kafka-parse-")
topic = "events-" + uuid.uuid4().hex[:8]  # a new topic per run: the output is the same

spark = (SparkSession.builder.appName("kafka-parse")
         .config("spark.sql.session.timeZone", "UTC").getOrCreate())

schema = StructType([
    StructField("event_id", StringType()),
    StructField("user", StringType()),
    StructField("action", StringType()),
    StructField("amount", LongType()),
])


def produce(events):
    """Events as JSON values keyed by their id, all to partition 0 (offsets in event order)."""
    (spark.createDataFrame([(e["event_id"], json.dumps(e), 0) for e in events],
                           "key STRING, value STRING, partition INT")
     .write.format("kafka").option("kafka.bootstrap.servers", bootstrap)
     .option("topic", topic).save())


produce([{"event_id": "e0", "user": "early", "action": "view", "amount": 0}])  # before the stream

# The course's code (11.12).
raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", bootstrap)
       .option("subscribe", topic)
       .option("startingOffsets", "latest")
       .load())

parsed = (raw.select(F.col("value").cast("string").alias("json"), "topic", "partition", "offset", "timestamp")
          .select(F.from_json("json", schema).alias("e"), "*").select("e.*", "offset"))

q = (parsed.writeStream.format("memory").queryName("parsed_events")
     .option("checkpointLocation", work + "/chk").start())
q.processAllAvailable()  # the first batch fixes the latest offsets: e0 is not read
produce([{"event_id": "e1", "user": "ana", "action": "buy", "amount": 30},
         {"event_id": "e2", "user": "ben", "action": "view", "amount": 0},
         {"event_id": "e3", "user": "ana", "action": "buy", "amount": 12}])
q.processAllAvailable()
q.stop()

print("parsed columns:", ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in parsed.schema.fields))
spark.sql("SELECT * FROM parsed_events ORDER BY offset").show()
source = [p for p in q.recentProgress if p["numInputRows"]][-1]["sources"][0]
end = source["endOffset"]
end = json.loads(end) if isinstance(end, str) else end
print("source:", source["description"].replace(topic, "events"), "endOffset:",
      json.dumps(end).replace(topic, "events"))
spark.sql("SELECT action, count(*) AS n, sum(amount) AS amount FROM parsed_events "
          "GROUP BY action ORDER BY action").show()
