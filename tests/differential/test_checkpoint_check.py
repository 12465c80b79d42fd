"""`spate checkpoint check` against real Spark restarts (docs/observability.md).

For each case, real Spark 4.2 runs the original variant of checkpoint_check/query.py on a
fresh checkpoint (availableNow), then the changed variant on the same checkpoint, and we
note whether it ran or failed (with the cause's error class). spate runs the same original
variant on its own checkpoint, and `spate.checkpoint.check` is given the changed script:
its verdict must be what Spark did — exit code 2 with a refusal carrying Spark's error
class (or Spark's message, where Spark has no class) when Spark failed, 0 or 1 when Spark
ran — and must name the expected change.

Real Spark runs all cases in one JVM while spate works (about a minute). Without the venv
the test skips, and fails under CI=true.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import JARS, VENV_PYTHON, _missing, missing_peer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASE_DIR = os.path.join(HERE, "checkpoint_check")
sys.path.insert(0, CASE_DIR)
import aggregates  # noqa: E402 (in CASE_DIR)
WORK = os.path.join(ROOT, "build", "differential", "checkpoint-check")
QUERY = os.path.join(CASE_DIR, "query.py")

# case -> (original variant, changed variant, the change spate must name, its verdict)
CASES = {
    "keys_changed": ("agg", "agg_keys_changed", "state_key_schema_changed", "refused"),
    "aggregate_added": ("agg", "agg_added", "state_value_schema_changed", "refused"),
    "aggregate_renamed": ("agg", "agg_renamed", "output_schema_changed", "safe"),
    "stateful_operator_added": ("select", "select_agg", "stateful_operator_added", "refused"),
    "second_stateful_operator": ("window_ts", "window_dedup", "stateful_operator_added",
                                 "refused"),
    "stateful_operator_removed": ("agg", "select", "stateful_operator_removed", "refused"),
    "stateful_operator_changed": ("agg", "dedup", "stateful_operator_changed", "refused"),
    "source_added": ("select", "union", "source_added", "refused"),
    "source_removed": ("union", "select", "source_removed", "refused"),
    "source_folder_changed": ("select", "select_in2", "source_changed", "refused"),
    "output_mode_changed": ("agg", "agg_complete", "output_mode_changed", "warning"),
    "filter_added": ("agg", "agg_filtered", "filter_added", "safe"),
    "filter_added_stateless": ("select", "select_filtered", "filter_added", "safe"),
    "projection_changed": ("select", "select_doubled", "projection_changed", "safe"),
    "watermark_column_changed": ("window_ts", "window_t2", "watermark_column_changed",
                                 "warning"),
    "watermark_delay_changed": ("window_ts", "window_ts_5m", "watermark_delay_changed", "safe"),
}


def run_spark(script, name, args):
    """Starts real Spark's side (`script` under build/spark-venv's python, in a fresh
    WORK/<name>); yields a function that waits for the JSON object it prints last (also
    kept in WORK/spark-<name>.json), then kills it if still running."""
    why = _missing()
    if why:
        missing_peer(f"real Spark is not set up: {why} (run scripts/install-spark.sh)")
    work = os.path.join(WORK, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log = open(os.path.join(WORK, f"spark-{name}.log"), "w")
    env = dict(os.environ, TZ="UTC", PYTHONDONTWRITEBYTECODE="1", PYSPARK_PYTHON=VENV_PYTHON)
    env.pop("PYTHONPATH", None)  # Spark's side imports the real pyspark
    proc = subprocess.Popen([VENV_PYTHON, os.path.join(CASE_DIR, script), work, JARS] + args,
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=work)
    result = {}

    def wait():
        if not result:
            out, _ = proc.communicate(timeout=600)
            assert proc.returncode == 0 and out.strip(), \
                f"Spark failed (exit {proc.returncode}); see {log.name}"
            result.update(json.loads(out.strip().splitlines()[-1]))
            with open(os.path.join(WORK, f"spark-{name}.json"), "w") as f:
                json.dump(result, f, indent=1)
        return result

    yield wait
    if proc.poll() is None:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def spark_outcomes():
    """Real Spark restarts every case at once: case -> what it did."""
    yield from run_spark("spark_restarts.py", "spark",
                         [f"{c}:{o}:{n}" for c, (o, n, _, _) in CASES.items()])


@pytest.fixture(scope="module")
def spate_spark():
    from spate.submit import install_aliases
    install_aliases()  # query.py imports pyspark.sql
    from spate.sql import SparkSession
    return SparkSession.builder.config("spark.sql.shuffle.partitions", "2").getOrCreate()


def assert_verdict_is(spark, r):
    """spate's verdict `r` says what Spark did (`spark`: ran, or failed with a class)."""
    text = json.dumps(r, indent=1)
    refusals = [f for f in r["findings"] if f["verdict"] == "refused"]
    if spark["ran"]:
        assert r["exitCode"] in (0, 1) and not refusals, f"Spark ran it; spate says\n{text}"
        return
    assert r["exitCode"] == 2, f"Spark refused it ({spark}); spate says\n{text}"
    assert spark["errorClass"] in [f["errorClass"] for f in refusals], \
        f"Spark refused it with {spark}; spate says\n{text}"
    if spark["errorClass"] is None and spark["message"].startswith("assertion failed"):
        assert spark["message"] in [f["message"] for f in refusals], (spark, text)


@pytest.mark.parametrize("case", list(CASES))
def test_verdict_on_spark_checkpoint(case, spark_outcomes):
    """spate's check of the changed query against the checkpoint real Spark wrote for the
    original (copied before Spark's own restart), reading the same input folders."""
    from spate import checkpoint
    original, changed, change, verdict = CASES[case]
    spark = spark_outcomes()[case]
    root = os.path.join(WORK, "spark", case)
    r = checkpoint.check(os.path.join(root, "chk-original"), QUERY, argv=[root, changed])
    assert r["queryRecord"] is False
    # Spark's aggregation buffers are compared as Spark compares them.
    assert "state_value_schema_not_compared" not in [f["change"] for f in r["findings"]], r
    assert_verdict_is(spark, r)


@pytest.mark.parametrize("case", list(CASES))
def test_verdict_is_what_spark_did(case, spark_outcomes, spate_spark):
    import query
    from land import land
    from spate import checkpoint
    original, changed, change, verdict = CASES[case]
    root = os.path.join(WORK, "spate", case)
    shutil.rmtree(root, ignore_errors=True)
    land(root, 0)
    land(root, 1)
    query.start(spate_spark, root, original).awaitTermination()
    land(root, 2)
    r = checkpoint.check(os.path.join(root, "chk"), QUERY, argv=[root, changed])
    text = json.dumps(r, indent=1)
    named = [f for f in r["findings"] if f["change"] == change]
    assert named and named[0]["verdict"] == verdict, text
    assert_verdict_is(spark_outcomes()[case], r)


AGGREGATES_QUERY = os.path.join(CASE_DIR, "aggregates.py")


@pytest.fixture(scope="module")
def spark_buffers():
    """Real Spark runs every aggregates.AGGREGATES entry on its own checkpoint: index (as a
    string) -> {"value": the value schema Spark wrote, [[type, nullable], ...]}."""
    yield from run_spark("spark_aggregates.py", "aggregates", [])


def spark_accepts(new, stored):
    """Spark's state schema check: the same types in order (names ignored), a field
    nullable now only where the stored one was."""
    return len(new) == len(stored) and all(
        nt == st and (s_null or not n_null) for (nt, n_null), (st, s_null) in zip(new, stored))


@pytest.mark.parametrize("index", range(len(aggregates.AGGREGATES)))
def test_aggregation_buffers_on_spark_checkpoint(index, spark_buffers):
    """spate compares a changed aggregation with the buffers real Spark wrote: the same
    aggregates pass, and the next entry's aggregates are refused exactly when Spark's own
    check of its value schema against the written one fails."""
    from spate import checkpoint
    buffers = {int(k): v for k, v in spark_buffers().items()}
    assert "value" in buffers[index], buffers[index]
    root = os.path.join(WORK, "aggregates", str(index))
    chk = os.path.join(root, "chk")
    r = checkpoint.check(chk, AGGREGATES_QUERY, argv=[root, str(index)])
    changes = [f["change"] for f in r["findings"]]
    assert r["exitCode"] == 0 and "state_value_schema_not_compared" not in changes, r
    other = (index + 1) % len(aggregates.AGGREGATES)
    r = checkpoint.check(chk, AGGREGATES_QUERY, argv=[root, str(other)])
    refusals = [f for f in r["findings"] if f["verdict"] == "refused"]
    if spark_accepts(buffers[other]["value"], buffers[index]["value"]):
        assert not refusals, (buffers[other], buffers[index], r)
    else:
        assert [f["errorClass"] for f in refusals] == ["STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"], \
            (buffers[other], buffers[index], r)
