"""The PySpark examples, unmodified, under `spate submit` and under real Spark's
`spark-submit` (local[2], Delta's settings as a cluster needs them): both print the same.

examples/python/quickstart.py runs here (about 90 s of Spark); with
SPATE_EXAMPLES_ON_SPARK=all also examples/python/stateful_pipeline.py (about 150 s more).
python/tests/test_examples.py pins their output on spate alone, and
python/tests/test_submit.py runs examples/python/pyspark_bronze_job.py across both engines
over one checkpoint."""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT

SPARK_BIN = os.path.join(ROOT, "build", "spark-venv", "bin")
EXAMPLES = ["quickstart.py"] + (["stateful_pipeline.py"]
                                if os.environ.get("SPATE_EXAMPLES_ON_SPARK") == "all" else [])


def spark_submit(script, work):
    jars = sorted(glob.glob(os.path.join(ROOT, "build", "spark-jars", "*.jar")))
    py = os.path.join(SPARK_BIN, "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
    env.update(PATH=SPARK_BIN + os.pathsep + env.get("PATH", ""), PYSPARK_PYTHON=py,
               PYSPARK_DRIVER_PYTHON=py, TZ="UTC")
    confs = {"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
             "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
             "spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2",
             "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
             "spark.databricks.delta.snapshotPartitions": "2", "spark.sql.adaptive.enabled": "false"}
    cmd = [os.path.join(SPARK_BIN, "spark-submit"), "--master", "local[2]", "--jars", ",".join(jars)]
    for k, v in confs.items():
        cmd += ["--conf", f"{k}={v}"]
    r = subprocess.run(cmd + [script, str(work)], capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-5000:]
    return r.stdout


def spate_submit(script, work):
    r = subprocess.run([sys.executable, "-m", "spate.submit", script, str(work)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-5000:]
    return r.stdout


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_prints_the_same_on_spark(example, tmp_path, oracle):
    # `oracle` only makes a missing Spark fail (never skip) as every differential test does.
    script = os.path.join(ROOT, "examples", "python", example)
    ours = spate_submit(script, tmp_path / "spate")
    assert ours.strip(), "the example printed nothing"
    assert spark_submit(script, tmp_path / "spark") == ours
