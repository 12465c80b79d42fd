"""bench/nexmark: events per CPU second of each Nexmark query on spate and on local Spark,
in one run, over the same events, and the ratio.

    PYTHONPATH=build/release/python python3 bench/nexmark/bench.py [events] [files] [queries]

spate's generator writes `events` events (default 1,000,000; 10,000 a second of event
time) to Parquet, `files` files per table (default 20); each engine then runs each query
as a stream over those files (one file per micro-batch, Trigger.AvailableNow, noop sink)
with one core's worth of parallelism (Spark local[1]; one shuffle partition on both), and
the process's CPU seconds (the JVM's for Spark) are measured around the query. The rate
is all events of the run (persons, auctions and bids, as Nexmark counts them) over those
CPU seconds. Also printed: spate reading its generator directly (no Parquet), the state
rows and bytes of the last batch, and the process's resident memory at the end. Each
engine first runs the first query once unmeasured (the JVM's warm-up).
Needs scripts/install-spark.sh (build/spark-venv). Printed, never checked.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPARK_PY = os.path.join(ROOT, "build", "spark-venv", "bin", "python")
RUN = os.path.join(HERE, "run.py")
DEFAULT_QUERIES = "q0,q1,q2,q3,q5,q7,q8,q11,q13,q14,q17,q20,q21,q22"


def run(python, engine, args, env):
    r = subprocess.run([python, RUN, "--engine", engine, "--sink", "noop", "--cores", "1",
                        *args], capture_output=True, text=True, env=env, timeout=7200)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-3000:])
        raise SystemExit(f"{engine} failed")
    return {d["query"]: d for d in map(json.loads, r.stdout.splitlines())}


def main():
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    names = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_QUERIES
    work = os.environ.get("NEXMARK_BENCH_DIR", "/tmp/nexmark-bench")
    data = os.path.join(work, "data")
    sys.path.insert(0, HERE)
    from spate.sql import SparkSession
    import gen
    gen.generate(SparkSession.builder.getOrCreate(), data, events, files)
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    env = dict(os.environ, TZ="UTC")
    common = ["--queries", names, "--tmp", os.path.join(work, "tmp")]
    ours = run(sys.executable, "spate", ["--data", data, *common], env)
    direct = run(sys.executable, "spate",
                 ["--source", "nexmark", "--events", str(events),
                  "--per-trigger", str(-(-events // files)), *common], env)
    spark_env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
    spark_env.update(PYSPARK_PYTHON=SPARK_PY, PYSPARK_DRIVER_PYTHON=SPARK_PY)
    theirs = run(SPARK_PY, "pyspark", ["--data", data, *common], spark_env)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[:3]

    def rate(d):
        return events / d["cpu"] / 1e6 if d.get("cpu") else float("nan")

    print(f"Nexmark, {events:,} events, {files} files per table, 1 core each; "
          f"load {' '.join(load_before)} -> {' '.join(load_after)}")
    print("M events per CPU second (all events of the run / the engine process's CPU time)")
    head = (f"{'query':<6}{'spate':>8}{'Spark':>8}{'ratio':>8}{'spate gen':>10}"
            f"{'state rows':>12}{'state MB':>10}{'Spark rows':>12}{'Spark MB':>10}"
            f"{'RSS MB':>8}{'Spark RSS':>10}")
    print(head)
    for name in names.split(","):
        a, b, g = ours[name], theirs[name], direct[name]
        if "error" in a or "error" in b:
            print(f"{name:<6} error: spate {a.get('error')} / Spark {b.get('error')}")
            continue
        sa, sb = a.get("state", {}), b.get("state", {})
        print(f"{name:<6}{rate(a):>8.2f}{rate(b):>8.3f}{rate(a) / rate(b):>7.1f}x"
              f"{rate(g):>10.2f}{sa.get('rows', 0):>12}{sa.get('bytes', 0) / 1e6:>10.1f}"
              f"{sb.get('rows', 0):>12}{sb.get('bytes', 0) / 1e6:>10.1f}"
              f"{a.get('rss_mb') or 0:>8.0f}{b.get('rss_mb') or 0:>10.0f}")


if __name__ == "__main__":
    main()
