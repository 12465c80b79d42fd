"""spate: a PySpark-shaped API over the spate engine (C++, no JVM).

    from spate.sql import SparkSession, functions as F
    spark = SparkSession.builder.appName("demo").getOrCreate()
    spark.range(10).groupBy((F.col("id") % 3).alias("k")).count().show()
"""

__version__ = "0.1.0"
