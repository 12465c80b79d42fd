"""MERGE throughput, spate beside delta-spark on the same cores in one run (issue 13's
benchmark): a source of `--source` rows (10% new keys) upserted into a Delta table of
`--rows` rows in `--files` files (each file a contiguous id range), by the same PySpark
program run by each engine over copies of the same table and source files:

    python3 bench/merge_compare.py [--rows 10000000] [--source 1000000] [--files 40]
        [--dir /tmp/spate-merge-compare] [--layouts clustered,spread] [--repeats 3]

    MERGE INTO t USING s ON t.id = s.id
    WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *

Layouts of the source's existing keys: `clustered` (a contiguous id range, as an upsert of
recent rows: few target files hold matches) and `spread` (every file holds matches: the
whole table is rewritten). spate also runs the MERGE with its key pruning defeated
(`ON t.id + 0 = s.id`, the same rows and result): delta-spark 4.4 prunes only by the ON
condition's target-only conjuncts, so it reads every file here, while spate skips the
files outside the source's key range. Each MERGE runs `--repeats` times in one session per
engine (each on a fresh copy of the target), so the JVM's warm-up (class loading, JIT) of
the first run is excluded: prints the best and median wall seconds and the median's CPU
seconds, source rows/s per core (2 cores each) at the median, the spate/delta-spark ratios
of the medians (and of the bests), and from each commit's history rows rewritten
(numTargetRowsCopied + numTargetRowsUpdated) against rows changed (updated + inserted).
Printed, never asserted.
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


def run_engine(engine, data, tmp, layouts, repeats):
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
            for run in range(repeats):
                target = os.path.join(tmp, f"t_{layout}{suffix}")
                shutil.copytree(os.path.join(data, "target"), target)
                u0, t0 = usage(), time.perf_counter()
                (DeltaTable.forPath(spark, target).alias("t").merge(src.alias("s"), cond)
                 .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
                t1, u1 = time.perf_counter(), usage()
                m = dict(DeltaTable.forPath(spark, target).history(1).collect()[0]
                         .operationMetrics)
                print("RESULT " + json.dumps({
                    "name": layout + suffix, "run": run, "wall_s": round(t1 - t0, 3),
                    "cpu_s": round((u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime), 3),
                    "metrics": {k: int(v) for k, v in m.items() if not k.endswith("Ms")}}),
                    flush=True)
                shutil.rmtree(target)


def run_child(engine, data, tmp, layouts, repeats):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # spate: Debian's python3 with the built module; Spark: the pinned venv.
    python = {"spate": "/usr/bin/python3",
              "spark": os.path.join(ROOT, "build", "spark-venv", "bin", "python")}[engine]
    env = dict(os.environ, PYSPARK_PYTHON=python,
               PYTHONPATH=os.path.join(ROOT, "build", "release", "python"))
    out = subprocess.run([python, os.path.abspath(__file__), "--engine", engine, "--dir", data,
                          "--tmp", tmp, "--layouts", ",".join(layouts),
                          "--repeats", str(repeats)],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{engine} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    runs = {}
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[7:])
            runs.setdefault(r["name"], []).append(r)
    # Per MERGE: the median run (its CPU time and metrics) and the best wall time.
    res = {}
    for name, rs in runs.items():
        by_wall = sorted(rs, key=lambda r: r["wall_s"])
        med = dict(by_wall[(len(by_wall) - 1) // 2])
        med["best_s"] = by_wall[0]["wall_s"]
        med["walls"] = [r["wall_s"] for r in rs]
        res[name] = med
    return res


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
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    layouts = [x for x in a.layouts.split(",") if x]
    if a.prepare:
        from spate.sql import SparkSession, functions as F
        spark = SparkSession.builder.getOrCreate()
        write_inputs(spark, F, a.dir, a.rows, a.source, a.files, layouts)
        return
    if a.engine:
        run_engine(a.engine, a.dir, a.tmp, layouts, a.repeats)
        return
    prepare(a.dir, a.rows, a.source, a.files, layouts)
    res = {e: run_child(e, a.dir, os.path.join(a.dir, "run-" + e), layouts, a.repeats)
           for e in ("spate", "spark")}
    print(f"MERGE of {a.source} source rows (10% new keys) into {a.rows} rows / {a.files} files,"
          f" {CORES} cores each, {a.repeats} runs per MERGE (median; best in brackets)")
    print(f"{'run':22} {'median s':>9} {'best s':>8} {'cpu s':>7} {'src rows/s/core':>16}"
          f" {'vs delta-spark':>15} {'(best)':>8} {'files rm':>8} {'rewritten':>10}"
          f" {'changed':>9}  walls")
    for engine in ("spate", "spark"):
        for name, r in res[engine].items():
            m = r["metrics"]
            rewritten = m["numTargetRowsCopied"] + m["numTargetRowsUpdated"]
            changed = m["numTargetRowsUpdated"] + m["numTargetRowsInserted"]
            ref = res["spark"].get(name.replace("_unpruned", ""))
            spate_ref = ref and engine == "spate"
            ratio = f"{ref['wall_s'] / r['wall_s']:.2f}x" if spate_ref else ""
            best = f"{ref['best_s'] / r['best_s']:.2f}x" if spate_ref else ""
            print(f"{engine + ' ' + name:22} {r['wall_s']:>9.2f} {r['best_s']:>8.2f}"
                  f" {r['cpu_s']:>7.2f} {a.source / r['wall_s'] / CORES:>16.0f} {ratio:>15}"
                  f" {best:>8} {m['numTargetFilesRemoved']:>8} {rewritten:>10} {changed:>9}"
                  f"  {r['walls']}")


if __name__ == "__main__":
    main()
