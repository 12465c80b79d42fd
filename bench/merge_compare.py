"""MERGE throughput, spate beside delta-spark on the same cores in one run (issue 13's
benchmark): a source of `--source` rows (10% new keys) upserted into a Delta table of
`--rows` rows in `--files` files (each file a contiguous id range), by the same PySpark
program run by each engine over copies of the same table and source files:

    python3 bench/merge_compare.py [--rows 10000000] [--source 1000000] [--files 40]
        [--dir /tmp/spate-merge-compare] [--layouts clustered,spread]

    MERGE INTO t USING s ON t.id = s.id
    WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *

Layouts of the source's existing keys: `clustered` (a contiguous id range, as an upsert of
recent rows: few target files hold matches) and `spread` (every file holds matches: the
whole table is rewritten). spate also runs the MERGE with its key pruning defeated
(`ON t.id + 0 = s.id`, the same rows and result): delta-spark 4.4 prunes only by the ON
condition's target-only conjuncts, so it reads every file here, while spate skips the
files outside the source's key range. Prints wall and CPU seconds, source rows/s per core
(2 cores each), the spate/delta-spark ratios, and from each commit's history rows
rewritten (numTargetRowsCopied + numTargetRowsUpdated) against rows changed (updated +
inserted). Printed, never asserted.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spark_compare import start  # noqa: E402  (the engines' sessions, local[2])

CORES = 2


def prepare(data, rows, source, files, layouts):
    """The target table and the sources, written by spate (both engines read them)."""
    marker = os.path.join(data, "sizes.json")
    want = {"rows": rows, "source": source, "files": files, "layouts": layouts}
    if os.path.exists(marker) and json.load(open(marker)) == want:
        return
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "build", "release", "python"))
    subprocess.run(["/usr/bin/python3", os.path.abspath(__file__), "--engine", "spate",
                    "--prepare", "--dir", data, "--rows", str(rows), "--source", str(source),
                    "--files", str(files), "--layouts", ",".join(layouts)],
                   env=env, check=True)
    json.dump(want, open(marker, "w"))


def write_inputs(spark, F, data, rows, source, files, layouts):
    (spark.range(0, rows, 1, files)
     .select(F.col("id"), F.concat(F.lit("v"), F.col("id")).alias("v"),
             (F.col("id") * 2).alias("n"))
     .write.format("delta").save(os.path.join(data, "target")))
    existing = source - source // 10
    new = (spark.range(rows, rows + source // 10)
           .select(F.col("id"), F.lit("new").alias("v"), F.lit(-1).cast("bigint").alias("n")))
    for layout in layouts:
        if layout == "clustered":
            keys = spark.range(rows - existing, rows)
        else:
            keys = spark.range(0, existing).select((F.col("id") * (rows // existing)).alias("id"))
        (keys.select(F.col("id"), F.lit("upd").alias("v"), F.lit(-2).cast("bigint").alias("n"))
         .unionByName(new).write.parquet(os.path.join(data, f"source_{layout}")))


def run_engine(engine, data, tmp, layouts):
    spark, usage = start(engine, tmp)
    if engine == "spate":
        from spate.delta import DeltaTable
    else:
        from delta.tables import DeltaTable
    variants = [("", "t.id = s.id")]
    if engine == "spate":
        variants.append(("_unpruned", "t.id + 0 = s.id"))
    for layout in layouts:
        src = spark.read.parquet(os.path.join(data, f"source_{layout}"))
        for suffix, cond in variants:
            target = os.path.join(tmp, f"t_{layout}{suffix}")
            shutil.copytree(os.path.join(data, "target"), target)
            u0, t0 = usage(), time.perf_counter()
            (DeltaTable.forPath(spark, target).alias("t").merge(src.alias("s"), cond)
             .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
            t1, u1 = time.perf_counter(), usage()
            m = dict(DeltaTable.forPath(spark, target).history(1).collect()[0].operationMetrics)
            print("RESULT " + json.dumps({
                "name": layout + suffix, "wall_s": round(t1 - t0, 3),
                "cpu_s": round((u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime), 3),
                "metrics": {k: int(v) for k, v in m.items() if not k.endswith("Ms")}}),
                flush=True)
            shutil.rmtree(target)


def run_child(engine, data, tmp, layouts):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # spate: Debian's python3 with the built module; Spark: the pinned venv.
    python = {"spate": "/usr/bin/python3",
              "spark": os.path.join(ROOT, "build", "spark-venv", "bin", "python")}[engine]
    env = dict(os.environ, PYSPARK_PYTHON=python,
               PYTHONPATH=os.path.join(ROOT, "build", "release", "python"))
    out = subprocess.run([python, os.path.abspath(__file__), "--engine", engine, "--dir", data,
                          "--tmp", tmp, "--layouts", ",".join(layouts)],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{engine} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return {r["name"]: r for r in (json.loads(line[7:]) for line in out.stdout.splitlines()
                                   if line.startswith("RESULT "))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=["spate", "spark"])
    ap.add_argument("--prepare", action="store_true")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--source", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--dir", default="/tmp/spate-merge-compare")
    ap.add_argument("--tmp")
    ap.add_argument("--layouts", default="clustered,spread")
    a = ap.parse_args()
    layouts = [x for x in a.layouts.split(",") if x]
    if a.prepare:
        from spate.sql import SparkSession, functions as F
        spark = SparkSession.builder.getOrCreate()
        write_inputs(spark, F, a.dir, a.rows, a.source, a.files, layouts)
        return
    if a.engine:
        run_engine(a.engine, a.dir, a.tmp, layouts)
        return
    prepare(a.dir, a.rows, a.source, a.files, layouts)
    res = {e: run_child(e, a.dir, os.path.join(a.dir, "run-" + e), layouts)
           for e in ("spate", "spark")}
    print(f"MERGE of {a.source} source rows (10% new keys) into {a.rows} rows / {a.files} files,"
          f" {CORES} cores each")
    print(f"{'run':22} {'wall s':>8} {'cpu s':>7} {'src rows/s/core':>16} {'vs delta-spark':>15}"
          f" {'files rm':>8} {'rewritten':>10} {'changed':>9}")
    for engine in ("spate", "spark"):
        for name, r in res[engine].items():
            m = r["metrics"]
            rewritten = m["numTargetRowsCopied"] + m["numTargetRowsUpdated"]
            changed = m["numTargetRowsUpdated"] + m["numTargetRowsInserted"]
            ref = res["spark"].get(name.replace("_unpruned", ""))
            ratio = f"{ref['wall_s'] / r['wall_s']:.2f}x" if ref and engine == "spate" else ""
            print(f"{engine + ' ' + name:22} {r['wall_s']:>8.2f} {r['cpu_s']:>7.2f}"
                  f" {a.source / r['wall_s'] / CORES:>16.0f} {ratio:>15}"
                  f" {m['numTargetFilesRemoved']:>8} {rewritten:>10} {changed:>9}")


if __name__ == "__main__":
    main()
