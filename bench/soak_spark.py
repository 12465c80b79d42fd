"""The reference for bench/soak_bench.cc: the same rate-micro-batch (10 rows a batch) ->
Delta stream on real Spark + delta-spark (local[2], the machine's cores), per-batch
triggerExecution / addBatch p50/p99 over the `window` batches before each point.

    build/spark-venv/bin/python bench/soak_spark.py [batches=1000] [window=200] [max_seconds]

With max_seconds the run stops then and reports the batches it did. SOAK_CONF="k=v;k=v"
sets session conf (auto-compaction, ...) as bench/soak_bench.cc does.

Needs scripts/install-spark.sh (build/spark-venv, build/spark-jars). Printed, not checked.
"""
import glob
import os
import shutil
import sys
import tempfile
import threading

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQueryListener

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    window = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    max_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else None
    jars = sorted(glob.glob(os.path.join(ROOT, "build", "spark-jars", "*.jar")))
    tmp = tempfile.mkdtemp(prefix="spark-soak-")
    spark = (SparkSession.builder.master("local[2]").appName("soak-reference")
             .config("spark.jars", ",".join(jars))
             .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog",
                     "org.apache.spark.sql.delta.catalog.DeltaCatalog")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             # As tests/differential's server: small tables, 2 cores.
             .config("spark.databricks.delta.snapshotPartitions", "2")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.streaming.numRecentProgressUpdates", "10")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # SOAK_CONF="key=value;key=value": session conf, as bench/soak_bench.cc reads it.
    for kv in filter(None, os.environ.get("SOAK_CONF", "").split(";")):
        k, _, v = kv.partition("=")
        spark.conf.set(k, v)
        print(f"conf {kv}")
    samples = []
    done = threading.Event()

    class Recorder(StreamingQueryListener):
        def onQueryStarted(self, event):
            pass

        def onQueryProgress(self, event):
            p = event.progress
            if p.numInputRows == 0:
                return
            d = p.durationMs
            samples.append((d.get("triggerExecution", 0), d.get("addBatch", 0)))
            if len(samples) >= batches:
                done.set()

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            done.set()

    spark.streams.addListener(Recorder())
    q = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 10).load()
         .writeStream.format("delta").option("checkpointLocation", os.path.join(tmp, "chk"))
         .start(os.path.join(tmp, "table")))
    done.wait(max_seconds)
    q.stop()
    samples = samples[:]  # the listener may add one more while stopping
    print(f"\nSpark {spark.version} rate-micro-batch 10 rows/batch -> Delta ({len(samples)} batches)")
    print(f"{'batches':>10} {'trigger p50/p99':>18} {'addBatch p50/p99':>18} {'trig/ref':>9} {'add/ref':>9}")
    ref = None
    points = [p for p in (window, 1000, 10000) if p <= len(samples)]
    if not points or points[-1] != len(samples):
        points.append(len(samples))
    for end in points:
        w = samples[max(0, end - window):end]
        t = [x[0] for x in w]
        a = [x[1] for x in w]
        mt, ma = sum(t) / len(t), sum(a) / len(a)
        if ref is None:
            ref = (mt, ma)
        print(f"{end:>10} {f'{pct(t, .5)}/{pct(t, .99)} ms':>18} {f'{pct(a, .5)}/{pct(a, .99)} ms':>18}"
              f" {mt / ref[0]:>8.2f}x {ma / ref[1]:>8.2f}x")
    spark.stop()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
