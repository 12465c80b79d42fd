"""transformWithStateInPandas against real Spark: a StatefulProcessor with ValueState and
ListState over a file stream read one file per micro-batch, in Update mode, and an event-time
timer closing sessions after the watermark passes. Spark needs the RocksDB state store for
transformWithState; spate runs it on either."""

import importlib
import json
import os

from dsl import case

ROCKSDB = {"spark.sql.streaming.stateStore.providerClass":
           "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"}
SCHEMA = "ts TIMESTAMP, k STRING, v INT"
FILES = [
    [(0, "a", 1), (1, "a", 1), (2, "b", 7)],
    [(3, "a", 2), (4, "c", 5)],
    [(15, "b", 7), (30, "d", 1)],
]


def _land(s, files):
    path = os.path.join(s.tmp, "in")
    os.makedirs(path, exist_ok=True)
    for n, rows in enumerate(files):
        f = os.path.join(path, f"part-{n:04d}.json")
        with open(f, "w") as out:
            for m, k, v in rows:
                out.write(json.dumps({"ts": "2026-01-01T12:%02d:00Z" % m, "k": k, "v": v}) + "\n")
        os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))
    return path


def _streaming_module(s):
    """The engine's pyspark.sql.streaming (this module imports neither engine)."""
    return importlib.import_module(type(s.spark).__module__.split(".")[0] + ".sql.streaming")


def _run(s, df, name, mode):
    q = (df.writeStream.format("memory").queryName(name).outputMode(mode)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.sql(f"SELECT * FROM {name}")


@case(show=False, conf=ROCKSDB)
def running_count_value_and_list_state(s):
    import pandas as pd
    base = _streaming_module(s).StatefulProcessor

    class RunningCount(base):
        def init(self, handle):
            self.count = handle.getValueState("count", "n BIGINT")
            self.seen = handle.getListState("seen", "v INT")

        def handleInputRows(self, key, rows, timerValues):
            n = self.count.get()[0] if self.count.exists() else 0
            seen = {int(t[0]) for t in self.seen.get()} if self.seen.exists() else set()
            for pdf in rows:
                n += len(pdf)
                for v in pdf["v"]:
                    if int(v) not in seen:
                        seen.add(int(v))
                        self.seen.appendValue((int(v),))
            self.count.update((n,))
            yield pd.DataFrame({"k": [key[0]], "n": [n], "distinct": [len(seen)]})

        def close(self):
            pass

    df = (s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(_land(s, FILES))
          .groupBy("k").transformWithStateInPandas(RunningCount(), "k STRING, n LONG, distinct LONG",
                                                   "Update", "None"))
    return _run(s, df, "tws_count", "update")


@case(show=False, conf=ROCKSDB)
def event_time_timer_sessions(s):
    import pandas as pd
    base = _streaming_module(s).StatefulProcessor

    class Sessions(base):
        def init(self, handle):
            self.handle = handle
            self.state = handle.getValueState("s", "n BIGINT, last BIGINT")

        def handleInputRows(self, key, rows, timerValues):
            cur = self.state.get() if self.state.exists() else None
            n, last = (cur[0], cur[1]) if cur else (0, 0)
            for pdf in rows:
                n += len(pdf)
                last = max([last] + [int(pd.Timestamp(t).timestamp() * 1000) for t in pdf["ts"]])
            for t in list(self.handle.listTimers()):
                self.handle.deleteTimer(t)
            self.handle.registerTimer(last + 5 * 60 * 1000)
            self.state.update((n, last))
            return iter([])

        def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
            cur = self.state.get()
            self.state.clear()
            yield pd.DataFrame({"k": [key[0]], "events": [cur[0]],
                                "closed_ms": [expiredTimerInfo.getExpiryTimeInMs()]})

        def close(self):
            pass

    df = (s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(_land(s, FILES))
          .withWatermark("ts", "0 seconds").groupBy("k")
          .transformWithStateInPandas(Sessions(), "k STRING, events LONG, closed_ms LONG", "Append",
                                      "EventTime"))
    return _run(s, df, "tws_sessions", "append")


@case(show=False)
def apply_in_pandas_with_state_event_time_timeout(s):
    """The GroupState API: sessions closed by an event-time timeout."""
    import pandas as pd
    timeouts = importlib.import_module(type(s.spark).__module__.split(".")[0] + ".sql.streaming.state")

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

    df = (s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(_land(s, FILES))
          .withWatermark("ts", "0 seconds").groupBy("k")
          .applyInPandasWithState(sessions, "k STRING, events LONG", "n LONG", "append",
                                  timeouts.GroupStateTimeout.EventTimeTimeout))
    return _run(s, df, "gs_sessions", "append")



def _seeded_count(s, pandas_mode):
    """A running count per key seeded by an initial state (k, n): handleInitialState once per
    initial row in the first batch; keys only in the initial state are not called."""
    import pandas as pd
    base = _streaming_module(s).StatefulProcessor
    row_cls = s.Row  # not `s` itself inside the class: Spark pickles the processor

    class Seeded(base):
        def init(self, handle):
            self.count = handle.getValueState("count", "n BIGINT")

        def handleInitialState(self, key, initialState, timerValues):
            if pandas_mode:
                self.count.update((int(initialState["n"].sum()),))
            else:
                self.count.update((int(initialState.n),))

        def handleInputRows(self, key, rows, timerValues):
            n = self.count.get()[0] if self.count.exists() else 0
            if pandas_mode:
                n += sum(len(pdf) for pdf in rows)
            else:
                n += sum(1 for _ in rows)
            self.count.update((n,))
            if pandas_mode:
                yield pd.DataFrame({"k": [key[0]], "n": [n]})
            else:
                yield row_cls(k=key[0], n=n)

        def close(self):
            pass

    return Seeded()


def _seeded_query(s, init_rows, pandas_mode, name):
    init = s.spark.createDataFrame(init_rows, "k STRING, n BIGINT")
    g = s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(_land(s, FILES)).groupBy("k")
    run = g.transformWithStateInPandas if pandas_mode else g.transformWithState
    df = run(_seeded_count(s, pandas_mode), "k STRING, n LONG", "Update", "None",
             initialState=init.groupBy("k"))
    return _run(s, df, name, "update")


@case(show=False, conf=ROCKSDB)
def initial_state_pandas(s):
    return _seeded_query(s, [("a", 10), ("c", 100), ("z", 5)], True, "tws_init_pandas")


@case(show=False, conf=ROCKSDB)
def initial_state_rows(s):
    return _seeded_query(s, [("b", 3), ("d", 7)], False, "tws_init_rows")


@case(show=False, conf=ROCKSDB)
def initial_state_repeated_key_rows(s):
    """PySpark calls handleInitialState once per Row: the last row of a repeated key wins
    (Scala's processors fail instead; spate's C++ API does too)."""
    return _seeded_query(s, [("a", 10), ("a", 5)], False, "tws_init_dup")


@case(show=False, conf=ROCKSDB)
def initial_state_repeated_key_pandas(s):
    """transformWithStateInPandas hands a key's initial rows as one DataFrame (summed here)."""
    return _seeded_query(s, [("a", 10), ("a", 5), ("b", 1)], True, "tws_init_dup_pd")


def _ttl_query(s, kind, time_mode, ttl, name):
    """A processor declaring one `kind` variable with a TTL of `ttl` ms in `time_mode`.
    Returns the query's rows, or the failure: its error class and the PySparkRuntimeError
    line of its message."""
    import re
    import pandas as pd
    streaming = _streaming_module(s)

    class Declaring(streaming.StatefulProcessor):
        def init(self, handle):
            self.what = "declared"
            if kind == "value":
                handle.getValueState("cnt", "n BIGINT", ttl)
            elif kind == "list":
                handle.getListState("lst", "n BIGINT", ttl)
            else:
                handle.getMapState("mp", "k STRING", "n BIGINT", ttl)

        def handleInputRows(self, key, rows, timerValues):
            for _ in rows:
                pass
            yield pd.DataFrame({"k": [key[0]], "what": [self.what]})

        def close(self):
            pass

    df = s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(_land(s, FILES[:1]))
    if time_mode == "EventTime":
        df = df.withWatermark("ts", "1 minute")
    df = df.groupBy("k").transformWithStateInPandas(Declaring(), "k STRING, what STRING", "Update",
                                                    time_mode)
    try:
        return _run(s, df, name, "update")
    except Exception as e:  # the query's failure
        m = re.search(r"PySparkRuntimeError: (Error initializing [^\n]*?SQLSTATE: 42802)", str(e))
        return {"class": e.getErrorClass(), "cause": m.group(1) if m else str(e)}


@case(show=False, conf=ROCKSDB)
def ttl_refused_in_time_mode_none(s):
    """STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL: raised by the handle when the
    variable is declared (PySparkRuntimeError in init), failing the query (STREAM_FAILED)."""
    return {kind: _ttl_query(s, kind, "None", 60000, "tws_ttl_none_" + kind)
            for kind in ("value", "list", "map")}


@case(show=False, conf=ROCKSDB)
def ttl_refused_in_event_time_and_negative(s):
    return {"event_time": _ttl_query(s, "value", "EventTime", 60000, "tws_ttl_et"),
            "negative": _ttl_query(s, "list", "ProcessingTime", -5, "tws_ttl_neg"),
            "negative_no_time": _ttl_query(s, "map", "None", -5, "tws_ttl_neg_none")}


@case(show=False, conf=ROCKSDB)
def ttl_zero_is_no_ttl(s):
    """A TTL of 0 is no TTL (PySpark sends none), accepted in time mode None. (A processor
    catching the refusal is not a case: Spark 4.2's Python state server then hangs; spate
    runs on, see docs/streaming.md.)"""
    return _ttl_query(s, "value", "None", 0, "tws_ttl_zero")
