"""Writes Nexmark events from spate's generator to Parquet, for the engines that read them
as streams (spate and real Spark in the tests and the benchmark).

    python3 bench/nexmark/gen.py <out_dir> <events> <files> [eventsPerSecond] [seed]

<out_dir>/{bid,auction,person}/part-NNNNN.parquet: file i holds the events
[i * events / files, (i + 1) * events / files) of its kind, in event order, its
modification time i seconds after the first (a file stream reads them in that order, one
per batch with maxFilesPerTrigger=1). Needs spate importable (PYTHONPATH=build/release/python).
"""
import glob
import os
import shutil
import sys

TABLES = ("bid", "auction", "person")

# The schema of each table, for readStream.schema(...) on both engines.
SCHEMAS = {
    "bid": "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
           "dateTime TIMESTAMP, extra STRING",
    "auction": "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, "
               "reserve BIGINT, dateTime TIMESTAMP, expires TIMESTAMP, seller BIGINT, "
               "category BIGINT, extra STRING",
    "person": "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
              "state STRING, dateTime TIMESTAMP, extra STRING",
}


def generate(spark, out_dir, events, files, rate=10000, seed=0):
    per_file = -(-events // files)
    for table in TABLES:
        folder = os.path.join(out_dir, table)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        staging = os.path.join(out_dir, "_staging_" + table)

        def write(df, batch_id, folder=folder, staging=staging):
            shutil.rmtree(staging, ignore_errors=True)
            df.coalesce(1).write.parquet(staging)
            (part,) = glob.glob(os.path.join(staging, "part-*.parquet"))
            target = os.path.join(folder, f"part-{batch_id:05d}.parquet")
            shutil.move(part, target)
            os.utime(target, (1_700_000_000 + batch_id, 1_700_000_000 + batch_id))
            shutil.rmtree(staging, ignore_errors=True)

        q = (spark.readStream.format("nexmark").option("table", table)
             .option("events", events).option("eventsPerSecond", rate).option("seed", seed)
             .option("maxEventsPerTrigger", per_file).option("numPartitions", 1).load()
             .writeStream.foreachBatch(write)
             .option("checkpointLocation", os.path.join(out_dir, "_chk_" + table))
             .trigger(availableNow=True).start())
        q.awaitTermination()
        shutil.rmtree(os.path.join(out_dir, "_chk_" + table), ignore_errors=True)


def main():
    from spate.sql import SparkSession
    out_dir, events, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 10000
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    spark = SparkSession.builder.getOrCreate()
    generate(spark, out_dir, events, files, rate, seed)


if __name__ == "__main__":
    main()
