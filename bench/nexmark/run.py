"""Runs Nexmark queries (bench/nexmark/queries.py) on one engine over the Parquet events of
bench/nexmark/gen.py, and prints one JSON line per query: its rows, or its error, and its
time.

    python3 bench/nexmark/run.py --engine spate --data DIR --queries q0,q5 [--form sql|df]
        [--batch] [--sink memory|noop] [--tmp DIR]
    build/spark-venv/bin/python bench/nexmark/run.py --engine pyspark ...

Streams read each table with maxFilesPerTrigger=1 (one file per micro-batch, so batches and
watermarks fall at the same points on both engines) and run with Trigger.AvailableNow into
the memory sink (rows collected) or the noop sink (timing). --batch evaluates the same query
over the same files as tables. --source nexmark reads spate's generator directly instead of
the files (spate only; --events and --rate as gen.py's).
"""
import argparse
import datetime
import decimal
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queries  # noqa: E402
from gen import SCHEMAS  # noqa: E402


def session(engine, cores):
    if engine == "pyspark":
        from pyspark.sql import SparkSession, functions as F
        spark = (SparkSession.builder.master(f"local[{cores}]").appName("nexmark")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", str(cores))
                 .config("spark.default.parallelism", str(cores))
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.sql.adaptive.enabled", "false")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
    else:
        from spate.sql import SparkSession, functions as F
        spark = (SparkSession.builder.config("spark.sql.shuffle.partitions", str(cores))
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    return spark, F


def cpu_seconds(spark, engine):
    """CPU seconds of the process doing the work (the JVM for pyspark)."""
    if engine == "pyspark":
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    t = os.times()
    return t.user + t.system


def rss_mb(spark, engine):
    pid = (spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
           if engine == "pyspark" else os.getpid())
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def plain(v):
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v.normalize()) if v == v.to_integral_value() else str(v)
    if isinstance(v, float):
        return round(v, 9)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "asDict"):
        return plain(list(v))
    return v


def inputs(spark, args, names, batch):
    frames = {}
    for t in names:
        if args.source == "nexmark":
            r = spark.read if batch else spark.readStream
            r = r.format("nexmark").option("table", t).option("events", args.events) \
                .option("eventsPerSecond", args.rate)
            if not batch and args.per_trigger:
                r = r.option("maxEventsPerTrigger", args.per_trigger)
            frames[t] = r.load()
        elif batch:
            frames[t] = spark.read.schema(SCHEMAS[t]).parquet(os.path.join(args.data, t))
        else:
            frames[t] = (spark.readStream.schema(SCHEMAS[t]).option("maxFilesPerTrigger", 1)
                         .parquet(os.path.join(args.data, t)))
    return queries.with_watermarks(frames)


def state_summary(progress):
    ops = (progress or {}).get("stateOperators", []) if progress else []
    return {"rows": sum(o.get("numRowsTotal", 0) for o in ops),
            "bytes": sum(o.get("memoryUsedBytes", 0) for o in ops)}


def run_one(spark, F, engine, args, name):
    q = queries.QUERIES[name]
    out = {"query": name, "engine": engine, "form": args.form,
           "batch": args.batch}
    frames = inputs(spark, args, q.inputs, args.batch)
    queries.register(spark, frames)
    cpu0, wall0 = cpu_seconds(spark, engine), time.monotonic()
    try:
        df = queries.build(spark, F, name, frames, args.form)
        if args.batch:
            rows = df.collect()
        else:
            table = "nx_" + name
            chk = os.path.join(args.tmp, f"chk_{engine}_{name}_{args.form}")
            shutil.rmtree(chk, ignore_errors=True)
            w = df.writeStream.outputMode(q.mode).option("checkpointLocation", chk)
            w = w.format("memory").queryName(table) if args.sink == "memory" else w.format("noop")
            sq = w.trigger(availableNow=True).start()
            sq.awaitTermination()
            progress = sq.lastProgress
            out["state"] = state_summary(progress)
            out["batches"] = len(sq.recentProgress)
            wm = (progress or {}).get("eventTime", {}).get("watermark")
            out["watermark"] = wm
            rows = spark.sql(f"SELECT * FROM {table}").collect() if args.sink == "memory" else []
            shutil.rmtree(chk, ignore_errors=True)
    except Exception as e:  # the engine refuses the query: record its error
        text = str(e)
        out["error"] = text.split("\n")[0][:400]
        out["wall"] = time.monotonic() - wall0
        return out
    out["cpu"] = cpu_seconds(spark, engine) - cpu0
    out["wall"] = time.monotonic() - wall0
    out["rss_mb"] = rss_mb(spark, engine)
    if args.sink == "memory" or args.batch:
        out["columns"] = list(df.columns)
        out["rows"] = [plain(list(r)) for r in rows]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--engine", choices=["spate", "pyspark"], required=True)
    p.add_argument("--data")
    p.add_argument("--queries", default=",".join(queries.QUERIES))
    p.add_argument("--form", choices=["sql", "df"], default="sql")
    p.add_argument("--batch", action="store_true")
    p.add_argument("--sink", choices=["memory", "noop"], default="memory")
    p.add_argument("--source", choices=["files", "nexmark"], default="files")
    p.add_argument("--events", type=int, default=0)
    p.add_argument("--rate", type=float, default=10000)
    p.add_argument("--per-trigger", type=int, default=0)
    p.add_argument("--cores", type=int, default=1)
    p.add_argument("--tmp", default="/tmp/nexmark-run")
    args = p.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    spark, F = session(args.engine, args.cores)
    if args.sink == "noop":  # timing: a first, unreported run warms the engine (JVM JIT)
        run_one(spark, F, args.engine, args, args.queries.split(",")[0])
    for name in args.queries.split(","):
        if args.form == "df" and queries.QUERIES[name].df is None:
            continue
        print(json.dumps(run_one(spark, F, args.engine, args, name)), flush=True)


if __name__ == "__main__":
    main()
