"""The Nexmark queries (bench/nexmark/queries.py) on spate against real Spark 4.2, and
against the batch evaluation of the same queries.

spate's generator writes 20,000 events (100 a second of event time: 200 s, 20 ten-second
windows) to Parquet, ten files per table; both engines read them as streams, one file per
micro-batch (bench/nexmark/run.py), so batches and watermarks fall at the same points.
Checked per query:
  (a) spate's rows, SQL form and PySpark form, equal Spark's (SQL form) as multisets;
  (b) spate's streamed rows equal spate's batch evaluation of the same query over the same
      files: every row for stateless queries and joins, the rows of the windows closed
      under the final watermark for windowed aggregations, the final table in Complete mode.
Spark runs once for all queries (about three minutes of Spark)."""
import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from conftest import ROOT, _missing, missing_peer

sys.path.insert(0, os.path.join(ROOT, "bench", "nexmark"))
import queries  # noqa: E402

EVENTS, FILES, RATE = 20000, 10, 100
RUN = os.path.join(ROOT, "bench", "nexmark", "run.py")
SPARK_PY = os.path.join(ROOT, "build", "spark-venv", "bin", "python")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from spate.sql import SparkSession
    import gen
    out = str(tmp_path_factory.mktemp("nexmark"))
    gen.generate(SparkSession.builder.getOrCreate(), out, EVENTS, FILES, RATE)
    return out


def _run(python, engine, data, tmp, *extra, env=None):
    r = subprocess.run([python, RUN, "--engine", engine, "--data", data, "--tmp", str(tmp),
                        *extra], capture_output=True, text=True, timeout=1800, env=env)
    assert r.returncode == 0, r.stderr[-5000:]
    return {d["query"]: d for d in map(json.loads, r.stdout.splitlines())}


@pytest.fixture(scope="module")
def spark_results(data, tmp_path_factory):
    why = _missing()
    if why:
        missing_peer(f"real Spark is not set up: {why} (run scripts/install-spark.sh)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
    env.update(TZ="UTC", PYSPARK_PYTHON=SPARK_PY, PYSPARK_DRIVER_PYTHON=SPARK_PY)
    return _run(SPARK_PY, "pyspark", data, tmp_path_factory.mktemp("spark"), env=env)


def _spate_env():
    return dict(os.environ, TZ="UTC")


@pytest.fixture(scope="module")
def spate_results(data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spate")
    return {form: _run(sys.executable, "spate", data, tmp, *args, env=_spate_env())
            for form, args in (("sql", ()), ("df", ("--form", "df")), ("batch", ("--batch",)))}


def _rows(result):
    assert "error" not in result, result["error"]
    return Counter(json.dumps(r) for r in result["rows"])


NAMES = sorted(queries.QUERIES, key=lambda n: int(n[1:]))


@pytest.mark.parametrize("name", NAMES)
def test_equal_to_spark(name, spate_results, spark_results):
    theirs = spark_results[name]
    ours = spate_results["sql"][name]
    assert ours["columns"] == theirs["columns"]
    assert _rows(ours) == _rows(theirs)
    if name in spate_results["df"]:
        assert _rows(spate_results["df"][name]) == _rows(theirs)


@pytest.mark.parametrize("name", NAMES)
def test_equal_to_batch(name, spate_results):
    q = queries.QUERIES[name]
    streamed = spate_results["sql"][name]
    batch = spate_results["batch"][name]
    rows = _rows(streamed)
    assert rows, "the query produced no rows: the check says nothing"
    if q.kind == "closed":
        # The windows the final watermark closed (Append mode emits a window then).
        wm = streamed["watermark"]
        wm_us = queries._us(wm.rstrip("Z"))
        cols = batch["columns"]
        end = queries.WINDOW_END[name]
        expected = Counter(json.dumps(r) for r in batch["rows"]
                           if end(dict(zip(cols, r))) <= wm_us)
        assert rows == expected
    else:
        assert rows == _rows(batch)


@pytest.mark.parametrize("name", sorted(queries.UNSUPPORTED, key=lambda n: int(n[1:])))
def test_refused_as_spark_refuses(name, data, tmp_path):
    """The queries Structured Streaming cannot run fail on spate with Spark's error (the
    words pinned in queries.UNSUPPORTED, from Spark 4.2's run of the same text)."""
    from spate.sql import SparkSession
    from gen import SCHEMAS
    spark = SparkSession.builder.getOrCreate()
    frames = queries.with_watermarks({
        t: spark.readStream.schema(SCHEMAS[t]).option("maxFilesPerTrigger", 1)
        .parquet(os.path.join(data, t)) for t in ("bid", "auction", "person")})
    queries.register(spark, frames)
    mode, words = queries.UNSUPPORTED[name]
    with pytest.raises(Exception, match=words.replace("/", ".")):
        q = (spark.sql(queries.UNSUPPORTED_SQL[name]).writeStream.format("noop")
             .outputMode(mode).option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(availableNow=True).start())
        q.awaitTermination()
