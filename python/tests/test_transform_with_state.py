"""transformWithState from Python (PySpark 4's StatefulProcessor): transformWithStateInPandas
and the Row-based transformWithState, ValueState / ListState / MapState across micro-batches
and restarts from the checkpoint, event-time timers, and a processor's errors."""
import json
import os

import pandas as pd
import pytest

from spate.errors import PySparkRuntimeError, StreamingQueryException
from spate.sql.streaming import StatefulProcessor
from spate.sql.types import LongType, StringType, StructField, StructType

SCHEMA = "ts TIMESTAMP, k STRING, v INT"


def land(folder, name, rows):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path + ".tmp", "w") as f:
        for m, k, v in rows:
            f.write(json.dumps({"ts": "2026-01-01T12:%02d:00Z" % m, "k": k, "v": v}) + "\n")
    os.rename(path + ".tmp", path)


class RunningCount(StatefulProcessor):
    """Per key: the number of rows so far (ValueState), the distinct values (ListState + a
    MapState of value -> count)."""

    def init(self, handle):
        self.count = handle.getValueState("count", StructType([StructField("n", LongType())]))
        self.seen = handle.getListState("seen", "v INT")
        self.per_value = handle.getMapState("perValue", "v INT", "n BIGINT")

    def handleInputRows(self, key, rows, timerValues):
        n = self.count.get()[0] if self.count.exists() else 0
        for pdf in rows:
            n += len(pdf)
            for v in pdf["v"]:
                v = int(v)
                c = self.per_value.getValue((v,))
                if c is None:
                    self.seen.appendValue((v,))
                self.per_value.updateValue((v,), ((c[0] if c else 0) + 1,))
        self.count.update((n,))
        yield pd.DataFrame({"k": [key[0]], "n": [n], "distinct": [len(list(self.seen.get()))],
                            "keys": [len(list(self.per_value.keys()))]})


OUT = "k STRING, n BIGINT, distinct BIGINT, keys BIGINT"


def run(spark, df, chk, name, mode="update"):
    q = (df.writeStream.format("memory").queryName(name).outputMode(mode)
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    return q


def test_pandas_processor_keeps_state_across_batches_and_restarts(spark, tmp_path):
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "0.json", [(0, "a", 1), (1, "a", 1), (2, "b", 7)])

    def query():
        return (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
                .groupBy("k").transformWithStateInPandas(RunningCount(), OUT, "update", "None"))
    q = run(spark, query(), chk, "tws1")
    assert sorted(tuple(r) for r in spark.sql("SELECT * FROM tws1").collect()) == [
        ("a", 2, 1, 1), ("b", 1, 1, 1)]
    assert q.lastProgress["stateOperators"][0]["operatorName"] == "transformWithStateInPandasExec"
    land(src, "1.json", [(3, "a", 2)])
    land(src, "2.json", [(4, "b", 7), (5, "c", 0)])
    run(spark, query(), chk, "tws2")  # a new run from the checkpoint: the state carries on
    assert sorted(tuple(r) for r in spark.sql("SELECT * FROM tws2").collect()) == [
        ("a", 3, 2, 2), ("b", 2, 1, 1), ("c", 1, 1, 1)]


class Sessions(StatefulProcessor):
    """Row-based: a session closes 5 minutes after its last event (an event-time timer)."""

    def init(self, handle):
        self.handle = handle
        self.state = handle.getValueState("s", "n BIGINT, last BIGINT")

    def handleInputRows(self, key, rows, timerValues):
        n, last = self.state.get() or (0, 0)
        for r in rows:
            n += 1
            last = max(last, int(r.ts.timestamp() * 1000))
        for t in list(self.handle.listTimers()):
            self.handle.deleteTimer(t)
        self.handle.registerTimer(last + 5 * 60 * 1000)
        self.state.update((n, last))
        return iter([])

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        n, _ = self.state.get()
        self.state.clear()
        yield (key[0], n, expiredTimerInfo.getExpiryTimeInMs())


def test_row_processor_event_time_timers(spark, tmp_path):
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "0.json", [(0, "u1", 0), (2, "u1", 0), (3, "u2", 0)])
    land(src, "1.json", [(10, "u3", 0)])
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
          .withWatermark("ts", "0 seconds").groupBy("k")
          .transformWithState(Sessions(), "k STRING, events BIGINT, closed_ms BIGINT", "append",
                              "EventTime"))
    run(spark, df, chk, "sessions", "append")
    base = 1767268800000  # 2026-01-01 12:00 UTC
    rows = sorted(tuple(r) for r in spark.sql("SELECT * FROM sessions").collect())
    assert rows == [("u1", 2, base + 7 * 60000), ("u2", 1, base + 8 * 60000)]


class Broken(StatefulProcessor):
    def init(self, handle):
        pass

    def handleInputRows(self, key, rows, timerValues):
        raise ValueError("no thanks")


def test_processor_errors_fail_the_query(spark, tmp_path):
    src = str(tmp_path / "in")
    land(src, "0.json", [(0, "a", 1)])
    df = spark.readStream.schema(SCHEMA).json(src).groupBy("k").transformWithStateInPandas(
        Broken(), "k STRING", "append", "None")
    q = (df.writeStream.format("memory").queryName("broken").option("checkpointLocation", str(tmp_path / "c"))
         .trigger(availableNow=True).start())
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination()
    assert "TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR" in str(e.value)
    assert "no thanks" in str(e.value)


class TtlDeclaring(StatefulProcessor):
    """Declares one variable with a TTL; with `catch` it keeps Spark's refusal as its output."""

    def __init__(self, kind, ttl, catch=False):
        self.kind, self.ttl, self.catch, self.refused = kind, ttl, catch, "declared"

    def init(self, handle):
        try:
            if self.kind == "value":
                handle.getValueState("cnt", "n BIGINT", self.ttl)
            elif self.kind == "list":
                handle.getListState("lst", "n BIGINT", self.ttl)
            else:
                handle.getMapState("mp", "k STRING", "n BIGINT", self.ttl)
        except PySparkRuntimeError as e:
            if not self.catch:
                raise
            self.refused = str(e)

    def handleInputRows(self, key, rows, timerValues):
        for _ in rows:
            pass
        yield pd.DataFrame({"k": [key[0]], "what": [self.refused]})


@pytest.mark.parametrize("kind, time_mode, ttl, error", [
    ("value", "None", 60000, "Error initializing value state: [STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL] "
     "Cannot use TTL for state=cnt in timeMode=NoTime, use TimeMode.ProcessingTime() instead. SQLSTATE: 42802"),
    ("list", "EventTime", 60000, "Error initializing list state: [STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL] "
     "Cannot use TTL for state=lst in timeMode=EventTime, use TimeMode.ProcessingTime() instead. SQLSTATE: 42802"),
    ("map", "ProcessingTime", -5, "Error initializing map state: [STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE] "
     "TTL duration must be greater than zero for State store operation=update on state=mp. SQLSTATE: 42802"),
    ("value", "None", 0, None),  # 0: no TTL, as PySpark's
])
def test_ttl_only_in_processing_time(spark, tmp_path, kind, time_mode, ttl, error):
    """PySpark's handle raises PySparkRuntimeError for a TTL outside processing time (and a
    negative one) when the variable is declared; uncaught, it fails the query."""
    src = str(tmp_path / "in")
    land(src, "0.json", [(0, "a", 1)])
    df = spark.readStream.schema(SCHEMA).json(src)
    if time_mode == "EventTime":
        df = df.withWatermark("ts", "1 minute")
    df = df.groupBy("k").transformWithStateInPandas(TtlDeclaring(kind, ttl), "k STRING, what STRING",
                                                    "update", time_mode)
    q = (df.writeStream.format("memory").queryName("ttl_" + kind).outputMode("update")
         .option("checkpointLocation", str(tmp_path / "c")).trigger(once=True).start())
    if error is None:
        q.awaitTermination()
        assert [tuple(r) for r in spark.sql("SELECT * FROM ttl_" + kind).collect()] == [("a", "declared")]
        return
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination()
    assert e.value.getErrorClass() == "STREAM_FAILED"
    assert "PySparkRuntimeError: " + error in str(e.value)
    # Caught, the processor runs on without the variable.
    q = (spark.readStream.schema(SCHEMA).json(src).withWatermark("ts", "1 minute").groupBy("k")
         .transformWithStateInPandas(TtlDeclaring(kind, ttl, catch=True), "k STRING, what STRING",
                                     "update", time_mode)
         .writeStream.format("memory").queryName("ttl_caught").outputMode("update")
         .option("checkpointLocation", str(tmp_path / "c2")).trigger(once=True).start())
    q.awaitTermination()
    assert [tuple(r) for r in spark.sql("SELECT * FROM ttl_caught").collect()] == [("a", error)]


def test_apply_in_pandas_with_state_event_time_timeout(spark, tmp_path):
    from spate.sql.streaming.state import GroupStateTimeout

    def sessions(key, pdfs, state):
        if state.hasTimedOut:
            (n,) = state.get
            state.remove()
            yield pd.DataFrame({"k": [key[0]], "events": [n]})
            return
        n = state.get[0] if state.exists else 0
        last = 0
        for pdf in pdfs:
            n += len(pdf)
            last = max([last] + [int(pd.Timestamp(t).timestamp() * 1000) for t in pdf["ts"]])
        state.update((n,))
        state.setTimeoutTimestamp(last + 5 * 60 * 1000)

    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "0.json", [(0, "u1", 0), (2, "u1", 0), (3, "u2", 0)])
    land(src, "1.json", [(10, "u3", 0)])
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
          .withWatermark("ts", "0 seconds").groupBy("k")
          .applyInPandasWithState(sessions, "k STRING, events LONG", "n LONG", "append",
                                  GroupStateTimeout.EventTimeTimeout))
    q = run(spark, df, chk, "gs_sessions", "append")
    assert sorted(tuple(r) for r in spark.sql("SELECT * FROM gs_sessions").collect()) == [("u1", 2), ("u2", 1)]
    assert any(p["stateOperators"] and p["stateOperators"][0]["operatorName"] == "flatMapGroupsWithState"
               for p in q.recentProgress)


class SeededCount(StatefulProcessor):
    """A running count per key that starts from the initial state's `n`."""

    def __init__(self, pandas_mode):
        self.pandas_mode = pandas_mode

    def init(self, handle):
        self.count = handle.getValueState("count", "n BIGINT")

    def handleInitialState(self, key, initialState, timerValues):
        if self.pandas_mode:
            assert isinstance(initialState, pd.DataFrame) and len(initialState) == 1
            assert list(initialState.columns) == ["k", "n"]
            n = int(initialState["n"][0])
        else:
            assert initialState.k == key[0]
            n = initialState.n
        self.count.update((n,))

    def handleInputRows(self, key, rows, timerValues):
        n = self.count.get()[0] if self.count.exists() else 0
        if self.pandas_mode:
            n += sum(len(pdf) for pdf in rows)
            self.count.update((n,))
            yield pd.DataFrame({"k": [key[0]], "n": [n]})
        else:
            n += sum(1 for _ in rows)
            self.count.update((n,))
            from spate.sql import Row
            yield Row(k=key[0], n=n)


@pytest.mark.parametrize("pandas_mode", [True, False])
def test_initial_state_seeds_the_first_batch_only(spark, tmp_path, pandas_mode):
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "0.json", [(0, "a", 1), (1, "b", 1)])
    init = spark.createDataFrame([("a", 10), ("z", 5)], "k STRING, n BIGINT")

    def query():
        g = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src).groupBy("k")
        f = g.transformWithStateInPandas if pandas_mode else g.transformWithState
        return f(SeededCount(pandas_mode), "k STRING, n BIGINT", "update", "None",
                 initialState=init.groupBy("k"))
    name = "seed_p" if pandas_mode else "seed_r"
    run(spark, query(), chk, name + "1")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}1").collect()) == [
        ("a", 11), ("b", 1)]
    land(src, "1.json", [(2, "z", 1), (3, "a", 1)])
    run(spark, query(), chk, name + "2")  # a restart does not apply the initial state again
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {name}2").collect()) == [
        ("a", 12), ("z", 6)]


class InitialRows(StatefulProcessor):
    """Records how the initial state arrives: rows per handleInitialState call."""

    def init(self, handle):
        self.calls = handle.getListState("calls", "rows BIGINT, total BIGINT")

    def handleInitialState(self, key, initialState, timerValues):
        if isinstance(initialState, pd.DataFrame):
            self.calls.appendValue((len(initialState), int(initialState["n"].sum())))
        else:
            self.calls.appendValue((1, initialState.n))

    def handleInputRows(self, key, rows, timerValues):
        for _ in rows:
            pass
        calls = [tuple(c) for c in self.calls.get()] if self.calls.exists() else []
        from spate.sql import Row
        yield Row(k=key[0], calls=json.dumps(calls))


@pytest.mark.parametrize("pandas_mode", [True, False])
def test_initial_state_with_a_repeated_key(spark, tmp_path, pandas_mode):
    """As PySpark: transformWithStateInPandas gets a key's initial rows as one DataFrame,
    transformWithState one Row per call (no error; Scala's processors and the C++ API fail)."""
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "0.json", [(0, "a", 1)])
    init = spark.createDataFrame([("a", 10), ("a", 5)], "k STRING, n BIGINT")
    g = spark.readStream.schema(SCHEMA).json(src).groupBy("k")
    f = g.transformWithStateInPandas if pandas_mode else g.transformWithState
    out = "k STRING, calls STRING"
    if pandas_mode:
        def as_frames(proc):
            class P(type(proc)):
                def handleInputRows(self, key, rows, timerValues):
                    for r in super().handleInputRows(key, rows, timerValues):
                        yield pd.DataFrame({"k": [r.k], "calls": [r.calls]})
            return P()
        proc = as_frames(InitialRows())
    else:
        proc = InitialRows()
    name = "rep_p" if pandas_mode else "rep_r"
    run(spark, f(proc, out, "update", "None", initialState=init.groupBy("k")), chk, name)
    (row,) = spark.sql(f"SELECT * FROM {name}").collect()
    assert json.loads(row.calls) == ([[2, 15]] if pandas_mode else [[1, 10], [1, 5]])
