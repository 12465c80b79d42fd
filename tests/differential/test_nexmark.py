"""The Nexmark queries (bench/nexmark/queries.py) on spate against real Spark 4.2, and
against the batch evaluation of the same queries.

spate's generator writes 20,000 events (100 a second of event time: 200 s, 20 ten-second
windows) to Parquet, ten files per table; both engines read them as streams, one file per
micro-batch (bench/nexmark/run.py), so batches and watermarks fall at the same points.
Checked per query:
  (a) spate's rows, SQL form and PySpark form, equal Spark's (SQL form) as multisets, and
      its number of batches, final watermark and last batch's state rows equal Spark's;
  (b) spate's streamed rows equal spate's batch evaluation of the same query over the same
      files: every row for stateless queries and joins, the rows of the windows closed
      under the final watermark for windowed aggregations, the final table in Complete mode.
Spark runs once for all queries (about three minutes of Spark); its rows are recorded
(answers.spark_outcome) and asked again when the queries, the runner or the data change."""
import json
import os
import subprocess
import sys
from collections import Counter

import pytest

import answers
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


def _data_digest(data):
    """The generated events as rows (not bytes: the Parquet writer may change its encoding
    without changing what Spark reads)."""
    import hashlib
    from spate.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    h = hashlib.sha256()
    for t in sorted(os.listdir(data)):
        rows = sorted(repr(tuple(r)) for r in spark.read.parquet(os.path.join(data, t)).collect())
        h.update(t.encode() + b"\0" + "\n".join(rows).encode())
    return h.hexdigest()


@pytest.fixture(scope="module")
def spark_results(data, tmp_path_factory):
    """Spark's rows per query: recorded (answers.spark_outcome) or run live."""
    why = _missing()
    if why:
        missing_peer(f"real Spark is not set up: {why} (run scripts/install-spark.sh)")

    def live():
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
        env.update(TZ="UTC", PYSPARK_PYTHON=SPARK_PY, PYSPARK_DRIVER_PYTHON=SPARK_PY)
        results = _run(SPARK_PY, "pyspark", data, tmp_path_factory.mktemp("spark"), env=env)
        # What the tests compare, without timings; the rows as their multiset's digest
        # (tens of thousands of rows: the recording stays small).
        out = {}
        for n, r in results.items():
            out[n] = {k: v for k, v in r.items()
                      if k in ("query", "columns", "watermark", "batches", "error")}
            if "state" in r:
                out[n]["state_rows"] = r["state"]["rows"]
            if "rows" in r:
                out[n]["rows"] = _multiset(r["rows"])
        return out

    nexmark = os.path.join(ROOT, "bench", "nexmark")
    inputs = [os.path.abspath(__file__)] + [os.path.join(nexmark, f) for f in
                                            sorted(os.listdir(nexmark)) if f.endswith(".py")]
    return answers.spark_outcome("nexmark", inputs, live, extra=_data_digest(data))


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


def _multiset(rows):
    """A multiset of rows as its size and a digest of its sorted JSON lines."""
    import hashlib
    lines = sorted(json.dumps(r) for r in rows)
    return {"count": len(lines), "digest": hashlib.sha256("\n".join(lines).encode()).hexdigest()}


NAMES = sorted(queries.QUERIES, key=lambda n: int(n[1:]))


@pytest.mark.parametrize("name", NAMES)
def test_equal_to_spark(name, spate_results, spark_results):
    theirs = spark_results[name]
    ours = spate_results["sql"][name]
    assert "error" not in theirs, theirs["error"]
    assert "error" not in ours, ours["error"]
    assert ours["columns"] == theirs["columns"]
    # Rows as multisets (size and digest of Spark's; SPATE_DIFF_LIVE=all asks Spark again,
    # and build/differential keeps neither side's rows: run bench/nexmark/run.py for them).
    assert _multiset(ours["rows"]) == theirs["rows"], "spate's rows differ from Spark's"
    if name in spate_results["df"]:
        assert _multiset(spate_results["df"][name]["rows"]) == theirs["rows"]


@pytest.mark.parametrize("name", NAMES)
def test_state_and_watermark_equal_to_spark(name, spate_results, spark_results):
    """The last batch's state rows and the final watermark: Spark's optimizer moves the
    filters of q2 below withWatermark and those of q3 and q20 below the join, so its
    watermark comes from the rows that pass them and its join state keeps only those."""
    theirs = spark_results[name]
    ours = spate_results["sql"][name]
    assert "error" not in ours, ours["error"]
    assert ours["batches"] == theirs["batches"]
    assert ours["watermark"] == theirs["watermark"]
    assert ours["state"]["rows"] == theirs["state_rows"]


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
