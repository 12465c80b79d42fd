"""`spate submit` (python/spate/submit.py, and the `spate submit` command): unmodified PySpark
scripts run on spate; spark-submit's options; retries with backoff; the same job under real
Spark's spark-submit printing the same (examples/python/pyspark_bronze_job.py)."""
import glob
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import pytest

import spate
from conftest import missing_peer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
SPARK_VENV_BIN = os.path.join(ROOT, "build", "spark-venv", "bin")
SPARK_JARS = os.path.join(ROOT, "build", "spark-jars")


def write(path, text):
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return str(path)


def runner_env(**extra):
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1", **extra)
    env.pop("SPATE_SUBMIT_ATTEMPT", None)
    return env


def submit(*args, timeout=120):
    """`python3 -m spate.submit args` with the built package on the path."""
    return subprocess.run([sys.executable, "-m", "spate.submit", *map(str, args)],
                          capture_output=True, text=True, env=runner_env(), timeout=timeout)


def start_submit(*args, **env):
    """`python3 -m spate.submit args`, running, its output piped."""
    return subprocess.Popen([sys.executable, "-m", "spate.submit", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=runner_env(**env))


def spate_command():
    """The `spate` command built beside the package (build/<preset>/cli/spate), or $SPATE_CLI."""
    path = os.environ.get("SPATE_CLI") or os.path.join(os.path.dirname(PACKAGE_DIR), "cli", "spate")
    if not os.access(path, os.X_OK):
        missing_peer(f"the spate command is not built at {path} (set SPATE_CLI)")
    return path


JOB = """\
    import sys
    from pyspark.sql import SparkSession, functions as F
    from pyspark.sql.types import StructType, StructField, LongType, StringType
    from pyspark.sql.window import Window
    from delta.tables import DeltaTable

    spark = SparkSession.builder.appName("pyspark-job").getOrCreate()
    print("argv:", [a.rsplit("/", 1)[-1] for a in sys.argv], __name__)
    schema = StructType([StructField("k", StringType()), StructField("v", LongType())])
    df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4)], schema)
    df.write.format("delta").mode("overwrite").save(sys.argv[1])
    t = DeltaTable.forPath(spark, sys.argv[1])
    w = Window.partitionBy("k").orderBy(F.desc("v"))
    (t.toDF().withColumn("r", F.row_number().over(w))
     .groupBy("k").agg(F.sum("v").alias("total"), F.max("r").alias("n")).orderBy("k").show())
    print("history:", t.history().count())
"""

JOB_OUTPUT = """\
argv: ['job.py', 'table', 'x y'] __main__
+---+-----+---+
|  k|total|  n|
+---+-----+---+
|  a|    4|  2|
|  b|    2|  1|
|  c|    4|  1|
+---+-----+---+

history: 1
"""


def test_pyspark_script_runs_unmodified_as_module_and_command(tmp_path):
    job = write(tmp_path / "job.py", JOB)
    (tmp_path / "m").mkdir()
    (tmp_path / "c").mkdir()
    r = submit(job, tmp_path / "m" / "table", "x y")
    assert r.returncode == 0, r.stderr
    assert r.stdout == JOB_OUTPUT
    # The command finds the built package itself (no PYTHONPATH) and passes arguments verbatim.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPATE_SUBMIT_ATTEMPT")}
    c = subprocess.run([spate_command(), "submit", job, str(tmp_path / "c" / "table"), "x y"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert c.returncode == 0, c.stderr
    assert c.stdout == r.stdout


def test_command_passes_options_verbatim(tmp_path):
    # `--name sql` would be taken for the `sql` subcommand by a parser that looked at it.
    job = write(tmp_path / "job.py", """\
        import sys
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        print(spark.sparkContext.appName, spark.conf.get("spark.a"), sys.argv[1:])
    """)
    c = subprocess.run([spate_command(), "submit", "--name", "sql", "-c", "spark.a=--ui",
                        job, "demo", "--help", "--", "-e"],
                       capture_output=True, text=True, timeout=120)
    assert c.returncode == 0, c.stderr
    assert c.stdout == "sql --ui ['demo', '--help', '--', '-e']\n"


def test_conf_is_a_default_the_scripts_config_wins(tmp_path):
    job = write(tmp_path / "job.py", """\
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.config("spark.sql.shuffle.partitions", "3")
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        for k in ["spark.a", "spark.b", "spark.c", "spark.sql.shuffle.partitions",
                  "spark.sql.session.timeZone"]:
            print(k, spark.conf.get(k, None))
        # A second getOrCreate() does not put the submitted values back.
        spark.conf.set("spark.a", "changed")
        print("again", SparkSession.builder.getOrCreate().conf.get("spark.a"))
    """)
    props = write(tmp_path / "spark-defaults.conf", """\
        # a comment
        spark.a   from-file
        spark.b=from-file
        spark.c : from-file
        other.key 1
    """)
    r = submit("--properties-file", props, "--conf", "spark.a=from-conf",
               "--conf=spark.sql.shuffle.partitions=9", "-c", "spark.sql.session.timeZone=PST",
               "--conf", "foo=1", job)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "spark.a from-conf", "spark.b from-file", "spark.c from-file",
        "spark.sql.shuffle.partitions 3", "spark.sql.session.timeZone UTC", "again changed"]
    assert "Warning: Ignoring non-Spark config property: foo" in r.stderr
    assert "Warning: Ignoring non-Spark config property: other.key" in r.stderr


def test_name(tmp_path):
    plain = write(tmp_path / "plain.py", """\
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        print(spark.sparkContext.appName, spark.conf.get("spark.app.name"))
    """)
    named = write(tmp_path / "named.py", """\
        from pyspark.sql import SparkSession
        print(SparkSession.builder.appName("mine").getOrCreate().sparkContext.appName)
    """)
    assert submit("--name", "nightly ingest", plain).stdout == "nightly ingest nightly ingest\n"
    # spark-submit's default is the script's file name; the script's appName() wins.
    assert submit(plain).stdout == "plain.py plain.py\n"
    assert submit("--name", "nightly", named).stdout == "mine\n"


def test_py_files(tmp_path):
    (tmp_path / "deps").mkdir()
    helper = write(tmp_path / "deps" / "helper.py", "def double(x):\n    return 2 * x\n")
    with zipfile.ZipFile(tmp_path / "deps" / "lib.zip", "w") as z:
        z.writestr("mylib/__init__.py", "NAME = 'mylib'\n")
    job = write(tmp_path / "job.py", """\
        import helper, mylib
        from pyspark.sql import SparkSession, functions as F
        spark = SparkSession.builder.getOrCreate()
        print(mylib.NAME, helper.double(21), spark.range(3).agg(F.sum("id")).first()[0])
    """)
    r = submit("--py-files", f"{helper},{tmp_path / 'deps' / 'lib.zip'}", job)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "mylib 42 3\n"
    r = submit(job)
    assert r.returncode == 1 and "ModuleNotFoundError: No module named 'helper'" in r.stderr


def test_usage_errors_as_spark_submit(tmp_path):
    job = write(tmp_path / "job.py", "print('ran')\n")
    for args, message in [(["--conf", "foo", job], "Error: Invalid argument to --conf: foo"),
                          (["--bogus", job], "Error: Unrecognized option: --bogus"),
                          (["--name"], "Error: Missing argument for option '--name'."),
                          (["--name", "x"], "Error: Missing application resource."),
                          (["--properties-file", str(tmp_path / "none"), job],
                           f"Error: Invalid properties file '{tmp_path / 'none'}'."),
                          (["--retries", "-1", job], "Error: --retries expects a non-negative integer, got '-1'")]:
        r = submit(*args)
        assert r.returncode == 1, args
        assert r.stderr.splitlines()[0] == message, args
        assert "Usage: spate submit [options] <python file> [app arguments]" in r.stderr
        assert r.stdout == ""
    r = submit(tmp_path / "missing.py")
    assert r.returncode == 2 and "can't open file" in r.stderr
    r = submit("--help")
    assert r.returncode == 0 and r.stdout.startswith("Usage: spate submit")


def test_cluster_options_are_accepted_and_ignored_with_a_note(tmp_path):
    job = write(tmp_path / "job.py", """\
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        print(spark.sparkContext.master, spark.conf.get("spark.executor.memory"))
    """)
    r = submit("--master", "yarn", "--deploy-mode", "client", "--executor-memory", "4g",
               "--num-executors", "8", "--packages", "io.delta:delta-spark_2.13:4.0.0",
               "--supervise", job)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "yarn 4g\n"  # the properties are set, as spark-submit sets them
    notes = r.stderr.splitlines()
    assert notes == [
        "spate submit: --master yarn is ignored (spate runs the job in this process, on this machine's cores)",
        "spate submit: --deploy-mode client is ignored (spate runs the job in this process, on this machine's cores)",
        "spate submit: --executor-memory 4g is ignored (spate runs the job in this process, on this machine's cores)",
        "spate submit: --num-executors 8 is ignored (spate runs the job in this process, on this machine's cores)",
        "spate submit: --packages io.delta:delta-spark_2.13:4.0.0 is ignored (spate has no JVM)",
        "spate submit: --supervise is ignored (use --retries to run a failed job again)"]


FLAKY = """\
    import os, sys
    counter = sys.argv[1]
    n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    open(counter, "w").write(str(n))
    print("attempt", n, os.environ["SPATE_SUBMIT_ATTEMPT"], flush=True)
    if n <= int(sys.argv[2]):
        raise SystemExit(3)
"""


def test_retries_with_backoff(tmp_path):
    job = write(tmp_path / "flaky.py", FLAKY)
    start = time.monotonic()
    r = submit("--retries", "2", "--backoff", "0.1", job, tmp_path / "count", "2")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - start >= 0.3  # 0.1 s, then 0.2 s
    assert r.stdout == "attempt 1 1\nattempt 2 2\nattempt 3 3\n"
    script = f"{job} {tmp_path / 'count'} 2"
    assert r.stderr.splitlines() == [
        f"spate submit: attempt 1 of 3: {script}",
        "spate submit: attempt 1 of 3 failed (exit status 3); next attempt in 0.1 s",
        f"spate submit: attempt 2 of 3: {script}",
        "spate submit: attempt 2 of 3 failed (exit status 3); next attempt in 0.2 s",
        f"spate submit: attempt 3 of 3: {script}",
        "spate submit: attempt 3 of 3 succeeded"]


def test_retries_exhausted_exit_with_the_last_status(tmp_path):
    job = write(tmp_path / "flaky.py", FLAKY)
    r = submit("--retries", "2", "--backoff", "0.05", "--max-backoff", "0.05", job,
               tmp_path / "count", "5")
    assert r.returncode == 3
    assert r.stdout == "attempt 1 1\nattempt 2 2\nattempt 3 3\n"
    lines = r.stderr.splitlines()
    assert lines[3] == "spate submit: attempt 2 of 3 failed (exit status 3); next attempt in 0.05 s"
    assert lines[-1] == "spate submit: attempt 3 of 3 failed (exit status 3); no retries left"


def land(folder, name, ids, mtime):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        for i in ids:
            f.write(json.dumps({"id": i, "v": f"v{i}"}) + "\n")
    os.utime(path, (mtime, mtime))


def test_streaming_job_retried_continues_from_its_checkpoint(tmp_path):
    """The first attempt dies in the middle of its second micro-batch (a UDF exits the
    process); the retry continues from the checkpoint: the batch is run again and every row
    is in the Delta table once."""
    landing = tmp_path / "landing"
    landing.mkdir()
    land(landing, "a.json", range(0, 3), time.time() - 100)
    land(landing, "b.json", range(3, 6), time.time() - 50)
    job = write(tmp_path / "ingest.py", """\
        import os, sys
        from pyspark.sql import SparkSession, functions as F
        from delta.tables import DeltaTable

        work = sys.argv[1]
        table = os.path.join(work, "table")
        crashed = os.path.join(work, "crashed")
        spark = SparkSession.builder.appName("ingest").getOrCreate()

        @F.udf("long")
        def check(i):
            if i == 4 and not os.path.exists(crashed):
                open(crashed, "w").close()
                os._exit(1)  # the process dies in the middle of a micro-batch
            return i

        q = (spark.readStream.schema("id LONG, v STRING").option("maxFilesPerTrigger", 1)
             .json(os.path.join(work, "landing")).withColumn("id", check("id"))
             .writeStream.format("delta").option("checkpointLocation", os.path.join(work, "ckpt"))
             .trigger(availableNow=True).start(table))
        q.awaitTermination()
        print("batches", [(p["batchId"], p["numInputRows"]) for p in q.recentProgress])
        df = spark.read.format("delta").load(table)
        print("rows", df.count(), "ids", sorted(r.id for r in df.select("id").distinct().collect()))
        print("versions", DeltaTable.forPath(spark, table).history().count())
    """)
    r = submit("--retries", "3", "--backoff", "0.1", job, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "spate submit: attempt 1 of 4 failed (exit status 1); next attempt in 0.1 s" in r.stderr
    assert "spate submit: attempt 2 of 4 succeeded" in r.stderr
    assert r.stdout == "batches [(1, 3)]\nrows 6 ids [0, 1, 2, 3, 4, 5]\nversions 2\n"


def test_ctrl_c_stops_the_attempt_without_retry(tmp_path):
    job = write(tmp_path / "forever.py", """\
        import os
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        q = spark.readStream.format("rate").option("rowsPerSecond", 10).load() \\
            .writeStream.format("noop").trigger(processingTime="100 milliseconds").start()
        print("running", os.getpid(), flush=True)
        q.awaitTermination()
    """)
    p = start_submit("--retries", "3", "--backoff", "0.1", job, TMPDIR=str(tmp_path))
    try:
        line = p.stdout.readline()
        assert line.startswith("running"), p.stderr.read()
        child = int(line.split()[1])
        time.sleep(0.5)
        start = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert time.monotonic() - start < 30
    # The attempt died of the interrupt, and so does the runner (a shell reports 130).
    assert p.returncode == -signal.SIGINT, err
    assert "KeyboardInterrupt" in err
    assert [l for l in err.splitlines() if l.startswith("spate submit:")] == [
        f"spate submit: attempt 1 of 4: {job}",
        "spate submit: attempt 1 of 4 stopped by SIGINT (killed by SIGINT); not retrying"]
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


def test_sigterm_stops_the_attempt_without_retry(tmp_path):
    job = write(tmp_path / "sleepy.py", """\
        import time
        try:
            # Inside the try: a SIGTERM right after the line must still run the finally.
            print("running", flush=True)
            time.sleep(60)
        finally:
            print("cleaned up", flush=True)
    """)
    p = start_submit("--retries", "2", job)
    try:
        assert p.stdout.readline() == "running\n"
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    # The script ends as by an exit (its finally blocks and atexit run), status 128 + 15.
    assert out == "cleaned up\n"
    assert p.returncode == 143, err
    assert err.splitlines()[-1] == \
        "spate submit: attempt 1 of 3 stopped by SIGTERM (exit status 143); not retrying"


# CPython runs a signal's Python handler in the main thread between bytecodes. A SIGTERM that
# arrives just before the main thread enters a blocking call, or that the kernel hands to
# another thread, leaves the handler due and the call blocked until it returns by itself: the
# SIGTERM test above then waited out its script's sleep (seen once under load). These tests
# have the signal handled on another thread once the main thread is blocked, which leaves the
# main thread as that signal would, every time; a hang is what fails them (the timeouts only
# end it).

def test_sigterm_the_scripts_sleep_did_not_see_still_ends_it(tmp_path):
    job = write(tmp_path / "blocked.py", """\
        import signal, threading, time

        def syscall(thread_id):
            # The system call a thread is blocked in and its first two arguments.
            with open(f"/proc/self/task/{thread_id}/syscall") as f:
                return f.read().split()[:3]

        def land_here():
            # Once the main thread is in the system call a sleeping thread stays in, SIGTERM
            # is handled on this thread: the main thread's sleep goes on.
            reference = threading.Thread(target=time.sleep, args=(600,), daemon=True)
            reference.start()
            main = threading.main_thread().native_id
            while True:
                asleep = syscall(reference.native_id)
                time.sleep(0.01)
                if len(asleep) == 3 and syscall(reference.native_id) == asleep == syscall(main):
                    break
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

        try:
            print("running", flush=True)
            threading.Thread(target=land_here, daemon=True).start()
            time.sleep(600)
        finally:
            print("cleaned up", flush=True)
    """)
    r = submit(job, timeout=120)
    assert r.returncode == 143, r.stderr
    assert r.stdout == "running\ncleaned up\n"


def test_sigterm_the_runners_wait_did_not_see_is_passed_on(tmp_path):
    # The runner's handler runs on a thread of its own while its main thread waits for the
    # attempt (started by a wrapper around `python3 -m spate.submit`).
    ready = tmp_path / "ready"
    job = write(tmp_path / "waited.py", """\
        import sys, time
        try:
            print("running", flush=True)
            open(sys.argv[1], "w").close()
            time.sleep(600)
        finally:
            print("cleaned up", flush=True)
    """)
    wrapper = textwrap.dedent("""\
        import os, runpy, signal, sys, threading, time

        ready = sys.argv[1]

        def land_here():
            while not os.path.exists(ready):
                time.sleep(0.01)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

        threading.Thread(target=land_here, daemon=True).start()
        sys.argv = ["spate.submit"] + sys.argv[2:]
        runpy.run_module("spate.submit", run_name="__main__", alter_sys=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", wrapper, str(ready), "--retries", "1", job,
                          str(ready)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=runner_env(), start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the attempt too, if it hung
        except ProcessLookupError:
            pass
    assert p.returncode == 143, err
    assert out == "running\ncleaned up\n"
    assert err.splitlines()[-1] == \
        "spate submit: attempt 1 of 2 stopped by SIGTERM (exit status 143); not retrying"


def test_sigterm_while_the_script_winds_down_is_ignored(tmp_path):
    job = write(tmp_path / "twice.py", """\
        import signal
        try:
            signal.raise_signal(signal.SIGTERM)
        finally:
            signal.raise_signal(signal.SIGTERM)
            print("cleaned up", flush=True)
    """)
    r = submit(job)
    assert r.returncode == 143, r.stderr
    assert r.stdout == "cleaned up\n"


def test_a_forked_workers_signals_do_not_reach_the_script(tmp_path):
    # The pipe behind the script's wakeup fd is shared with a forked process: a worker's
    # SIGTERM written there would have the script's watcher stop the script.
    job = write(tmp_path / "forks.py", """\
        import multiprocessing, signal

        def work(q):
            q.put(signal.set_wakeup_fd(-1))

        if __name__ == "__main__":
            ctx = multiprocessing.get_context("fork")
            q = ctx.Queue()
            p = ctx.Process(target=work, args=(q,))
            p.start()
            print("worker's wakeup fd", q.get())
            p.join()
            print("script's is set", signal.set_wakeup_fd(-1) >= 0)
    """)
    r = submit(job)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "worker's wakeup fd -1\nscript's is set True\n"


# ---- the same job on real Spark --------------------------------------------------------------

def spark_submit_env():
    venv_python = os.path.join(SPARK_VENV_BIN, "python")
    jars = sorted(glob.glob(os.path.join(SPARK_JARS, "*.jar")))
    if not os.path.exists(os.path.join(SPARK_VENV_BIN, "spark-submit")) or not jars:
        missing_peer(f"real Spark is not set up ({SPARK_VENV_BIN}/spark-submit, Delta jars in "
                     f"{SPARK_JARS}): run scripts/install-spark.sh")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
    env.update(PATH=SPARK_VENV_BIN + os.pathsep + env.get("PATH", ""), PYSPARK_PYTHON=venv_python,
               PYSPARK_DRIVER_PYTHON=venv_python, TZ="UTC")
    return env, jars


def test_bronze_job_on_both_engines_alternately(tmp_path):
    """examples/python/pyspark_bronze_job.py, unmodified and with the same options (Delta's
    settings as a Spark cluster needs them; spate ignores the jars), run three times over one
    folder: spate, then Spark continuing spate's checkpoint and Delta table, then spate
    continuing Spark's. Each run prints what the same run prints over a folder only spate
    has run, so nothing is lost or read twice across the hand-overs."""
    env, jars = spark_submit_env()
    job = os.path.join(ROOT, "examples", "python", "pyspark_bronze_job.py")
    options = ["--master", "local[2]", "--name", "bronze-job", "--jars", ",".join(jars),
               "--conf", "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension",
               "--conf", "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog",
               "--conf", "spark.sql.shuffle.partitions=2",
               # Spark's speed on tiny tables: no UI, two snapshot partitions, no AQE.
               "--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false",
               "--conf", "spark.databricks.delta.snapshotPartitions=2",
               "--conf", "spark.sql.adaptive.enabled=false", "--conf", "spark.default.parallelism=2"]
    mixed, alone = tmp_path / "mixed", tmp_path / "alone"

    def on_spate(work):
        r = submit(*options, job, work)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def on_spark(work):
        r = subprocess.run([os.path.join(SPARK_VENV_BIN, "spark-submit"), *options, job, str(work)],
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-5000:]
        return r.stdout

    assert on_spate(mixed) == on_spate(alone)
    by_spark = on_spark(mixed)
    assert by_spark == on_spate(alone)
    assert "run 2: batch 1, 50 rows in, table has 100 rows" in by_spark
    last = on_spate(mixed)
    assert last == on_spate(alone)
    assert "run 3: batch 2, 50 rows in, table has 150 rows" in last
    assert "distinct ids: 150" in last
