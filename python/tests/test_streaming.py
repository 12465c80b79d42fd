"""Structured Streaming from Python: readStream/writeStream, StreamingQuery, the manager,
listeners, foreach/foreachBatch callbacks and their failures, as in pyspark.sql.streaming."""
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import pytest

import spate
from spate.errors import AnalysisException, PySparkValueError, StreamingQueryException
from spate.sql import functions as F
from spate.sql.streaming import (DataStreamReader, DataStreamWriter, StreamingQuery,
                                 StreamingQueryListener, StreamingQueryManager)
from spate.sql.streaming.listener import (QueryIdleEvent, QueryProgressEvent, QueryStartedEvent,
                                          QueryTerminatedEvent,
                                          SinkProgress, SourceProgress,
                                          StreamingQueryProgress)
from spate.sql.types import LongType, StringType, StructField, StructType

SCHEMA = "id LONG, kind STRING"

# PySpark 4.2's StreamingQueryProgress keys, in its order (every field, eventTime and
# observedMetrics too).
PROGRESS_KEYS = ["id", "runId", "name", "timestamp", "batchId", "batchDuration", "durationMs",
                 "eventTime", "stateOperators", "sources", "sink", "numInputRows",
                 "inputRowsPerSecond", "processedRowsPerSecond", "observedMetrics"]
SOURCE_KEYS = ["description", "startOffset", "endOffset", "latestOffset", "numInputRows",
               "inputRowsPerSecond", "processedRowsPerSecond"]


def land(folder, name, ids, kind="a"):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path + ".tmp", "w") as f:
        for i in ids:
            f.write(json.dumps({"id": i, "kind": kind}) + "\n")
    os.rename(path + ".tmp", path)


@pytest.fixture(autouse=True)
def temp_dir(stream_tmpdir):
    return stream_tmpdir


@pytest.fixture
def landing(tmp_path):
    folder = str(tmp_path / "landing")
    land(folder, "f0.json", range(0, 10))
    land(folder, "f1.json", range(10, 25), kind="b")
    return folder


def test_read_stream_shapes(spark, landing):
    assert isinstance(spark.readStream, DataStreamReader)
    sdf = spark.readStream.schema(SCHEMA).json(landing)
    assert sdf.isStreaming
    assert sdf.columns == ["id", "kind"]
    st = StructType([StructField("id", LongType()), StructField("kind", StringType())])
    assert spark.readStream.schema(st).format("json").load(landing).schema == st
    assert spark.readStream.load(landing, format="json", schema=SCHEMA).isStreaming
    assert spark.readStream.text(landing).columns == ["value"]
    assert spark.readStream.csv(landing, schema="a STRING", sep="|", header=False).isStreaming
    assert spark.readStream.format("rate").option("rowsPerSecond", 5).load().columns == ["timestamp", "value"]
    assert not spark.range(3).isStreaming
    assert isinstance(sdf.writeStream, DataStreamWriter)
    with pytest.raises(AnalysisException) as e:
        spark.range(3).writeStream
    assert e.value.getErrorClass() == "WRITE_STREAM_NOT_ALLOWED"
    with pytest.raises(AnalysisException):
        spark.readStream.json(landing)  # no schema
    with pytest.raises(PySparkValueError):
        spark.readStream.format("json").load("  ")


def test_memory_sink_available_now_progress(spark, landing, tmp_path):
    sdf = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(landing)
    q = (sdf.filter(F.col("id") % 2 == 0).writeStream.format("memory").queryName("evens")
         .trigger(availableNow=True).start())
    assert isinstance(q, StreamingQuery)
    assert q.name == "evens"
    uuid.UUID(q.id), uuid.UUID(q.runId)
    assert q.awaitTermination(30) is True
    assert q.awaitTermination() is None
    assert not q.isActive
    assert q.exception() is None
    assert spark.table("evens").count() == 13
    assert sorted(r.id for r in spark.sql("SELECT id FROM evens").collect())[:3] == [0, 2, 4]

    progress = q.recentProgress
    assert [p["batchId"] for p in progress] == [0, 1]
    assert [p["numInputRows"] for p in progress] == [10, 15]
    last = q.lastProgress
    assert last == progress[-1]
    # PySpark 4.2's StreamingQueryProgress: a dict built by fromJson of Spark's JSON (json
    # is json.dumps of that JSON), offsets as JSON text, attribute access.
    assert isinstance(last, dict) and isinstance(last, StreamingQueryProgress)
    plain = json.loads(last.json)
    assert list(last) == PROGRESS_KEYS
    assert last.batchId == 1 and last.numInputRows == 15 and last.name == "evens"
    assert last.id == uuid.UUID(q.id) and last["id"] == q.id
    assert last.sources[0].numInputRows == 15 and last.sink.description.startswith("MemorySink")
    assert last.sources[0]["endOffset"] == json.dumps(plain["sources"][0]["endOffset"])
    assert last.sources[0]["endOffset"] == '{"logOffset": 1}'
    assert progress[0].sources[0].startOffset == "null"
    assert json.loads(last.prettyJson) == plain and str(last) == last.prettyJson
    assert last.eventTime == {} and last.observedMetrics == {}
    assert last["id"] == q.id and last["runId"] == q.runId and last["name"] == "evens"
    assert last["timestamp"].endswith("Z")
    assert isinstance(last["durationMs"], dict) and "triggerExecution" in last["durationMs"]
    assert last["stateOperators"] == []
    (src,) = last["sources"]
    assert [k for k in src if k in SOURCE_KEYS] == SOURCE_KEYS
    assert src["description"].startswith("FileStreamSource[") or "landing" in src["description"]
    assert src["numInputRows"] == 15
    assert last["sink"]["description"].startswith("MemorySink")
    assert set(q.status) == {"message", "isDataAvailable", "isTriggerActive"}
    assert q.status["message"] == "Stopped"


def test_delta_sink_to_table_incremental(spark, tmp_path):
    spark = spark.newSession()  # a warehouse of its own
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(5))
    chk = str(tmp_path / "chk")

    def run():
        q = (spark.readStream.schema(SCHEMA).json(folder).writeStream
             .option("checkpointLocation", chk).trigger(availableNow=True)
             .toTable("stream_bronze"))
        q.awaitTermination()
        return q

    q1 = run()
    assert spark.table("stream_bronze").count() == 5
    assert q1.lastProgress["sink"]["numOutputRows"] in (5, -1)
    land(folder, "b.json", range(5, 12))
    q2 = run()
    assert spark.table("stream_bronze").count() == 12
    assert q2.id == q1.id and q2.runId != q1.runId
    assert [p["batchId"] for p in q2.recentProgress] == [1]
    q3 = run()
    assert spark.table("stream_bronze").count() == 12
    assert all(p["numInputRows"] == 0 for p in q3.recentProgress)
    # Delta path sink and a Delta source over it.
    out = str(tmp_path / "delta_out")
    q = (spark.readStream.table("stream_bronze").writeStream.format("delta")
         .option("checkpointLocation", str(tmp_path / "chk2")).trigger(once=True).start(out))
    q.awaitTermination()
    assert spark.read.format("delta").load(out).count() == 12


def test_foreach_batch_process_all_available(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(4))
    seen = []

    def func(batch_df, batch_id):
        assert not batch_df.isStreaming
        seen.append((batch_id, sorted(r.id for r in batch_df.collect())))

    q = spark.readStream.schema(SCHEMA).json(folder).writeStream.foreachBatch(func).start()
    try:
        q.processAllAvailable()
        assert seen == [(0, [0, 1, 2, 3])]
        land(folder, "b.json", range(4, 6))
        q.processAllAvailable()
        assert seen[-1] == (1, [4, 5])
        assert q.isActive
        assert spark.streams.get(q.id).runId == q.runId
        assert q.runId in [a.runId for a in spark.streams.active]
    finally:
        q.stop()
    assert not q.isActive
    assert spark.streams.get(q.id) is None


def test_foreach_function_and_writer(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(3))
    rows = []
    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream
         .foreach(lambda row: rows.append(row.id)).trigger(availableNow=True).start())
    q.awaitTermination()
    assert sorted(rows) == [0, 1, 2]

    calls = []

    class Writer:
        def open(self, partition_id, epoch_id):
            calls.append(("open", partition_id, epoch_id))
            return True

        def process(self, row):
            calls.append(("process", row.kind))

        def close(self, error):
            calls.append(("close", error))

    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream.foreach(Writer())
         .trigger(once=True).start())
    q.awaitTermination()
    assert calls[0] == ("open", 0, 0) and calls[-1] == ("close", None)
    assert [c for c in calls if c[0] == "process"] == [("process", "a")] * 3

    class NoProcess:
        pass

    with pytest.raises(AttributeError):
        spark.readStream.schema(SCHEMA).json(folder).writeStream.foreach(NoProcess())


def test_failing_foreach_batch_fails_query(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(3))

    def boom(batch_df, batch_id):
        raise ZeroDivisionError("boom in batch %d" % batch_id)

    q = spark.readStream.schema(SCHEMA).json(folder).writeStream.foreachBatch(boom).start()
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(30)
    err = e.value
    assert err.getErrorClass() == "STREAM_FAILED"
    assert err.getCondition() == "STREAM_FAILED"
    assert err.getSqlState() == "XXKST"
    assert err.getMessageParameters()["id"] == q.id
    msg = str(err)
    assert "Traceback (most recent call last)" in msg
    assert "ZeroDivisionError: boom in batch 0" in msg
    assert "FOREACH_BATCH_USER_FUNCTION_ERROR" in msg
    assert not q.isActive
    ex = q.exception()
    assert isinstance(ex, StreamingQueryException) and ex.getErrorClass() == "STREAM_FAILED"
    assert "ZeroDivisionError" in str(ex)
    # The manager saw the failure too.
    with pytest.raises(StreamingQueryException):
        spark.streams.awaitAnyTermination(1)
    spark.streams.resetTerminated()
    assert spark.streams.awaitAnyTermination(0.1) is False


def test_failing_foreach_writer(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(2))
    closed = []

    class Writer:
        def process(self, row):
            raise ValueError("bad row %d" % row.id)

        def close(self, error):
            closed.append(error)

    q = spark.readStream.schema(SCHEMA).json(folder).writeStream.foreach(Writer()).start()
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination()
    assert "FOREACH_USER_FUNCTION_ERROR" in str(e.value) and "ValueError: bad row" in str(e.value)
    assert len(closed) == 1 and isinstance(closed[0], ValueError)


class Recorder(StreamingQueryListener):
    def __init__(self):
        self.events = []

    def onQueryStarted(self, event):
        self.events.append(event)

    def onQueryProgress(self, event):
        self.events.append(event)

    def onQueryIdle(self, event):
        self.events.append(event)

    def onQueryTerminated(self, event):
        self.events.append(event)


def test_listener_events(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(6))
    listener = Recorder()
    spark.streams.addListener(listener)
    try:
        q = (spark.readStream.schema(SCHEMA).json(folder).writeStream.format("noop")
             .queryName("listened").trigger(availableNow=True).start())
        q.awaitTermination()
        deadline = time.time() + 10
        while not any(isinstance(e, QueryTerminatedEvent) for e in listener.events) and time.time() < deadline:
            time.sleep(0.01)
    finally:
        spark.streams.removeListener(listener)
    mine = [e for e in listener.events if str(getattr(e, "id", None) or e.progress.id) == q.id]
    started = [e for e in mine if isinstance(e, QueryStartedEvent)]
    progress = [e for e in mine if isinstance(e, QueryProgressEvent)]
    terminated = [e for e in mine if isinstance(e, QueryTerminatedEvent)]
    assert len(started) == 1 and len(terminated) == 1 and len(progress) == 1
    s = started[0]
    assert s.id == uuid.UUID(q.id) and s.runId == uuid.UUID(q.runId)
    assert s.name == "listened" and s.timestamp.endswith("Z")
    p = progress[0].progress
    assert isinstance(p, StreamingQueryProgress) and isinstance(p, dict)
    assert p.id == uuid.UUID(q.id) and p["id"] == q.id
    assert p.batchId == 0 and p.numInputRows == 6 and p.name == "listened"
    assert isinstance(p.sources[0], SourceProgress) and p.sources[0].numInputRows == 6
    assert isinstance(p.sink, SinkProgress) and p.sink.description
    assert json.loads(p.json) == json.loads(q.lastProgress.json)
    assert json.loads(p.prettyJson) == json.loads(q.lastProgress.json)
    # A listener's offsets are the source's own JSON text (PySpark's JVM progress).
    end = json.loads(p.json)["sources"][0]["endOffset"]
    assert p.sources[0].endOffset == json.dumps(end, separators=(",", ":"))
    assert p.sources[0].startOffset == "None"
    assert "\n" in p.prettyJson and str(p) == p.prettyJson
    assert p.durationMs["triggerExecution"] >= 0
    t = terminated[0]
    assert t.exception is None and t.errorClassOnException is None
    assert isinstance(mine[0], QueryStartedEvent) and isinstance(mine[-1], QueryTerminatedEvent)

    # Removed: no more events.
    n = len(listener.events)
    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream.format("noop")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    time.sleep(0.1)
    assert len(listener.events) == n


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_listener_sees_failure_and_listener_errors_are_ignored(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(2))

    class Failing(Recorder):
        def onQueryProgress(self, event):
            raise RuntimeError("listener bug")

    listener = Failing()
    spark.streams.addListener(listener)
    try:
        q = (spark.readStream.schema(SCHEMA).json(folder).writeStream
             .foreachBatch(lambda df, i: 1 / 0).start())
        with pytest.raises(StreamingQueryException):
            q.awaitTermination()
        deadline = time.time() + 10
        while not any(isinstance(e, QueryTerminatedEvent) for e in listener.events) and time.time() < deadline:
            time.sleep(0.01)
    finally:
        spark.streams.removeListener(listener)
    t = [e for e in listener.events if isinstance(e, QueryTerminatedEvent) and str(e.id) == q.id][0]
    assert "ZeroDivisionError" in t.exception
    assert t.errorClassOnException == "FOREACH_BATCH_USER_FUNCTION_ERROR"  # the cause's, as Spark

    # A listener whose progress callback raises does not fail the query.
    listener = Failing()
    spark.streams.addListener(listener)
    try:
        q = (spark.readStream.schema(SCHEMA).json(folder).writeStream.format("noop")
             .trigger(availableNow=True).start())
        q.awaitTermination()
        assert q.exception() is None
    finally:
        spark.streams.removeListener(listener)


def test_triggers_and_validation(spark, landing):
    w = spark.readStream.schema(SCHEMA).json(landing).writeStream
    with pytest.raises(PySparkValueError) as e:
        w.trigger()
    assert e.value.getErrorClass() == "ONLY_ALLOW_SINGLE_TRIGGER"
    with pytest.raises(PySparkValueError):
        w.trigger(once=True, availableNow=True)
    with pytest.raises(PySparkValueError) as e:
        w.trigger(processingTime="")
    assert e.value.getErrorClass() == "VALUE_NOT_NON_EMPTY_STR"
    with pytest.raises(PySparkValueError) as e:
        w.trigger(once=False)
    assert e.value.getErrorClass() == "VALUE_NOT_TRUE"
    with pytest.raises(PySparkValueError):
        w.queryName("")
    with pytest.raises(PySparkValueError):
        w.outputMode(" ")
    with pytest.raises(spate.errors.PySparkException) as e:
        w.trigger(continuous="1 second").format("noop").start()
    assert "Continuous" in str(e.value)
    with pytest.raises(spate.errors.PySparkException):
        w.trigger(processingTime="not an interval")  # refused at once, as Trigger.ProcessingTime
    with pytest.raises(spate.errors.PySparkException):
        (spark.readStream.schema(SCHEMA).json(landing).writeStream.format("parquet")
         .start(os.path.join(landing, "..", "out")))  # no checkpointLocation


def test_processing_time_await_timeout_and_manager(spark, capsys):
    sdf = spark.readStream.format("rate").option("rowsPerSecond", 100).load()
    q = (sdf.writeStream.format("memory").queryName("rate_mem")
         .trigger(processingTime="100 milliseconds").start())
    try:
        if q.lastProgress is None:
            q.explain()
            assert capsys.readouterr().out == "No physical plan. Waiting for data.\n"
        assert isinstance(spark.streams, StreamingQueryManager)
        assert q.isActive
        t0 = time.time()
        assert q.awaitTermination(0.3) is False
        assert time.time() - t0 >= 0.25
        with pytest.raises(PySparkValueError) as e:
            q.awaitTermination(0)
        assert e.value.getErrorClass() == "VALUE_NOT_POSITIVE"
        with pytest.raises(PySparkValueError):
            q.awaitTermination("1")
        spark.streams.resetTerminated()
        assert spark.streams.awaitAnyTermination(0.1) is False
        # A trigger without data before any batch reports a progress with no rows (as
        # Spark's): wait for a batch that ran.
        deadline = time.time() + 10
        while (not any(p.numInputRows > 0 for p in q.recentProgress)
               and time.time() < deadline):
            time.sleep(0.05)
        assert q.lastProgress is not None
        assert set(q.status) == {"message", "isDataAvailable", "isTriggerActive"}
        q.explain()
        assert "Physical Plan" in capsys.readouterr().out
    finally:
        q.stop()
    assert not q.isActive
    assert spark.streams.awaitAnyTermination(1) is True
    assert spark.table("rate_mem").count() > 0


def test_gil_released_while_query_runs(spark, tmp_path):
    # The query thread runs Python code (foreachBatch) while the main thread waits in
    # processAllAvailable / awaitTermination: the waits must release the GIL.
    folder = str(tmp_path / "in")
    for i in range(3):
        land(folder, "f%d.json" % i, range(i * 10, i * 10 + 10))
    total = []
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        q = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(folder)
             .writeStream.foreachBatch(lambda df, i: total.append(df.count()))
             .trigger(availableNow=True).start())
        q.awaitTermination()
    finally:
        stop.set()
        th.join()
    assert total == [10, 10, 10]
    assert len(ticks) > 0


CTRL_C_SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading
    from spate.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    q = (spark.readStream.format("rate").option("rowsPerSecond", 10).load()
         .writeStream.format("noop").start())
    try:
        # Ctrl-C arrives while the main thread waits in awaitTermination().
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        q.awaitTermination()
    except KeyboardInterrupt:
        print("interrupted active=%s" % q.isActive, flush=True)
        sys.exit(3)
""")


def test_ctrl_c_during_await_termination_stops_query(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    result = subprocess.run([sys.executable, "-c", CTRL_C_SCRIPT], capture_output=True, text=True,
                            env=env, cwd=str(tmp_path), timeout=60)
    assert result.returncode == 3, result.stderr
    assert result.stdout.strip() == "interrupted active=False"


def test_idle_events(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(2))
    s = spark.newSession()
    s.conf.set("spark.sql.streaming.noDataProgressEventInterval", "20")
    listener = Recorder()
    s.streams.addListener(listener)
    try:
        q = (s.readStream.schema(SCHEMA).json(folder).writeStream.format("noop")
             .trigger(processingTime="10 milliseconds").start())
        q.processAllAvailable()
        deadline = time.time() + 10
        while not any(isinstance(e, QueryIdleEvent) for e in listener.events) and time.time() < deadline:
            q.awaitTermination(0.05)
        q.stop()
    finally:
        s.streams.removeListener(listener)
    idle = [e for e in listener.events if isinstance(e, QueryIdleEvent)]
    assert idle and idle[0].id == uuid.UUID(q.id) and idle[0].runId == uuid.UUID(q.runId)
    assert idle[0].timestamp.endswith("Z")
    assert listener.spark is s


def test_file_sinks_start_keywords(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(4))
    land(folder, "b.json", range(4, 6), kind="b")
    sdf = spark.readStream.schema(SCHEMA).json(folder)
    out = str(tmp_path / "pq")
    q = sdf.writeStream.trigger(availableNow=True).start(
        out, format="parquet", outputMode="append", partitionBy="kind",
        queryName="pq_sink", checkpointLocation=str(tmp_path / "chk_pq"))
    assert q.name == "pq_sink"
    q.awaitTermination()
    back = spark.read.parquet(out)
    assert back.count() == 6
    assert sorted(r.kind for r in back.select("kind").distinct().collect()) == ["a", "b"]
    assert os.path.isdir(os.path.join(out, "kind=a"))
    out_json = str(tmp_path / "js")
    (sdf.writeStream.format("json").option("checkpointLocation", str(tmp_path / "chk_js"))
     .trigger(once=True).start(out_json).awaitTermination())
    assert spark.read.json(out_json).count() == 6
    # A Delta path source.
    delta = str(tmp_path / "delta")
    spark.range(3).write.format("delta").save(delta)
    rows = []
    q = (spark.readStream.format("delta").load(delta).writeStream
         .foreachBatch(lambda df, i: rows.extend(r.id for r in df.collect()))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert sorted(rows) == [0, 1, 2]


def test_session_stop_stops_streams(spark):
    s = spark.newSession()
    q = s.readStream.format("rate").load().writeStream.format("noop").start()
    assert q.isActive and [a.id for a in s.streams.active] == [q.id]
    s.stop()
    assert not q.isActive and s.streams.active == []


def test_foreach_batch_restart_replays_failed_batch_and_writes_delta(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(3))
    out = str(tmp_path / "delta")
    chk = str(tmp_path / "chk")
    calls = []
    fail = {"batch": 1}

    def upsert(batch_df, batch_id):
        calls.append(batch_id)
        if batch_id == fail["batch"]:
            raise RuntimeError("transient failure")
        batch_df.write.format("delta").mode("append").save(out)

    def start():
        return (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(folder)
                .writeStream.foreachBatch(upsert).option("checkpointLocation", chk)
                .trigger(availableNow=True).start())

    q = start()
    q.awaitTermination()
    land(folder, "b.json", range(3, 5))
    q = start()
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination()
    assert "RuntimeError: transient failure" in str(e.value)
    assert spark.read.format("delta").load(out).count() == 3
    fail["batch"] = None
    q = start()  # the failed batch runs again with the same id
    q.awaitTermination()
    assert calls == [0, 1, 1]
    assert sorted(r.id for r in spark.read.format("delta").load(out).collect()) == list(range(5))


def test_concurrent_queries_with_python_callbacks(spark, tmp_path):
    results = {}
    queries = []
    for name in ("q1", "q2", "q3"):
        folder = str(tmp_path / name)
        for i in range(4):
            land(folder, "f%d.json" % i, range(i * 5, i * 5 + 5))
        results[name] = []
        sink = results[name]
        queries.append(
            spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(folder)
            .writeStream.queryName(name)
            .foreachBatch(lambda df, i, sink=sink: sink.append(sum(r.id for r in df.collect())))
            .trigger(availableNow=True).start())
    for q in queries:
        assert q.awaitTermination(30) is True
    for name in ("q1", "q2", "q3"):
        assert sum(results[name]) == sum(range(20)) and len(results[name]) == 4


def test_foreach_batch_temporary_checkpoint_removed(spark, tmp_path, temp_dir):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(2))
    tmp = temp_dir
    seen = []
    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream
         .foreachBatch(lambda df, i: seen.append(df.count())).start())
    q.processAllAvailable()
    assert [p.name for p in tmp.iterdir() if p.name.startswith("temporary-")]
    q.stop()
    assert seen == [2]
    deadline = time.time() + 5
    while list(tmp.iterdir()) and time.time() < deadline:
        time.sleep(0.01)
    assert list(tmp.iterdir()) == []  # deleted when the query stopped without error
    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream
         .foreachBatch(lambda df, i: 1 / 0).start())
    with pytest.raises(StreamingQueryException):
        q.awaitTermination()
    assert len(list(tmp.iterdir())) == 1  # kept after a failure, as Spark


CTRL_C_PROCESS_ALL_SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from spate.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    # The first batch sends the signal once the main thread is inside processAllAvailable()
    # (flag set just before the call, then 0.3 s), and each batch takes 2 s, so it lands
    # inside the call, not between two calls of the loop (where Python would raise it
    # without the query) - also on a loaded machine, where a fixed timer from the start
    # could fire before the first call.
    entered = threading.Event()
    sent = []

    def batch(df, i):
        if not sent:
            sent.append(1)
            entered.wait(30)
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2.0)

    q = (spark.readStream.format("rate").option("rowsPerSecond", 10).load()
         .writeStream.foreachBatch(batch).start())
    try:
        while True:
            entered.set()
            q.processAllAvailable()
    except KeyboardInterrupt:
        print("interrupted active=%s" % q.isActive, flush=True)
        sys.exit(3)
""")


def test_ctrl_c_during_process_all_available_stops_query(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    result = subprocess.run([sys.executable, "-c", CTRL_C_PROCESS_ALL_SCRIPT], capture_output=True,
                            text=True, env=env, cwd=str(tmp_path), timeout=60)
    assert result.returncode == 3, result.stderr
    assert result.stdout.strip() == "interrupted active=False"


EXIT_SCRIPT = textwrap.dedent("""
    import time
    from spate.sql import SparkSession
    from spate.sql.streaming import StreamingQueryListener
    spark = SparkSession.builder.getOrCreate()

    class Chatty(StreamingQueryListener):
        def onQueryStarted(self, e): pass
        def onQueryProgress(self, e): pass
        def onQueryTerminated(self, e): print("terminated", flush=True)

    spark.streams.addListener(Chatty())
    q = (spark.readStream.format("rate").option("rowsPerSecond", 100).load()
         .writeStream.foreachBatch(lambda df, i: df.count())
         .trigger(processingTime="10 milliseconds").start())
    q.processAllAvailable()
    print("exiting", flush=True)
""")


def test_exit_with_running_query_and_python_callbacks(tmp_path):
    # The interpreter exits while a query runs Python callbacks: the atexit hook stops it.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    env["TMPDIR"] = str(tmp_path)
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True,
                                env=env, cwd=str(tmp_path), timeout=60)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["exiting", "terminated"]


def test_foreach_batch_sql_on_the_batch(spark, tmp_path):
    folder = str(tmp_path / "in")
    land(folder, "a.json", range(6))
    totals = []

    def per_batch(batch_df, batch_id):
        batch_df.createOrReplaceTempView("updates")
        row = batch_df.sparkSession.sql("SELECT count(*) AS n, sum(id) AS s FROM updates").first()
        totals.append((batch_id, row.n, row.s))

    q = (spark.readStream.schema(SCHEMA).json(folder).writeStream.foreachBatch(per_batch)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert totals == [(0, 6, 15)]


def test_relative_source_path_is_logged_absolute(spark, tmp_path, monkeypatch):
    # The file source log names files as Spark does (file:///absolute), so a restart from
    # another working directory, or Spark continuing the checkpoint, knows them.
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    land("landing", "a.json", [1, 2])

    def run(source, chk):
        q = (spark.readStream.schema(SCHEMA).json(source).writeStream.format("memory")
             .queryName("rel_" + uuid.uuid4().hex[:8]).option("checkpointLocation", chk)
             .trigger(availableNow=True).start())
        q.awaitTermination()
        return sorted(r.id for r in spark.table(q.name).collect())

    assert run("landing", "chk") == [1, 2]
    entries = [json.loads(line) for line in open(work / "chk" / "sources" / "0" / "0").read().splitlines()[1:]]
    assert [e["path"] for e in entries] == ["file://" + str(work / "landing" / "a.json")]
    # From another working directory, by the absolute path: only the new file is read.
    land(str(work / "landing"), "b.json", [3])
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    assert run(str(work / "landing"), str(work / "chk")) == [3]
    # An older checkpoint whose log holds relative paths: they are read against the working
    # directory, so nothing is taken twice.
    monkeypatch.chdir(work)
    log = work / "chk" / "sources" / "0" / "0"
    log.write_text(log.read_text().replace("file://" + str(work) + "/", ""))
    land("landing", "c.json", [4])
    assert run("landing", "chk") == [4]
