"""A PySpark batch job, unmodified: the same file runs on spate and on real Spark and prints
the same (tests/differential/test_examples_on_spark.py).

    build/release/cli/spate submit examples/python/quickstart.py [output-dir]
    spark-submit examples/python/quickstart.py [output-dir]      # with Delta's settings
"""
import datetime
import sys
import tempfile

from pyspark.sql import Row, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

spark = SparkSession.builder.appName("quickstart").config("spark.sql.session.timeZone", "UTC").getOrCreate()

schema = StructType([
    StructField("name", StringType(), False),
    StructField("event", StringType()),
    StructField("amount", DoubleType()),
    StructField("ts", TimestampType()),
])
events = spark.createDataFrame([
    ("alice", "purchase", 12.5, datetime.datetime(2024, 5, 1, 9, 30)),
    ("bob", "view", None, datetime.datetime(2024, 5, 1, 9, 31)),
    ("alice", "purchase", 7.5, datetime.datetime(2024, 5, 1, 10, 2)),
    ("carol", "purchase", 30.0, datetime.datetime(2024, 5, 2, 8, 0)),
    ("bob", "purchase", 5.0, datetime.datetime(2024, 5, 2, 12, 45)),
], schema)
events.printSchema()

purchases = events.filter(F.col("event") == "purchase").withColumn("day", F.to_date("ts"))
daily = (purchases.groupBy("day", "name")
         .agg(F.count("*").alias("n"), F.sum("amount").alias("total"))
         .orderBy("day", F.desc("total")))
daily.show()

w = Window.partitionBy("day").orderBy(F.desc("total"))
daily.withColumn("rank", F.rank().over(w)).filter("rank = 1").select("day", "name", "total").show()

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="spate-quickstart-")
daily.write.mode("overwrite").parquet(out)
back = spark.read.parquet(out)
print("rows written:", back.count())
print(back.orderBy("day", "name").first())

events.createOrReplaceTempView("events")
spark.sql("SELECT name, round(sum(coalesce(amount, 0)), 2) AS spent FROM events GROUP BY name ORDER BY spent DESC").show()
