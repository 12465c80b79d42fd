"""Delta's change data feed across table changes: the feed enabled later by ALTER TABLE
SET TBLPROPERTIES (reads before it fail, streams too), its reserved column names, schema
changes inside a batch read's range (DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE /
_DATA_SCHEMA: batch reads use the latest schema), schema changes met by streams (plain and
change feed: DELTA_SCHEMA_CHANGED_WITH_VERSION / _WITH_STARTING_OPTIONS, the batch before
the change still emitted, a restart reads the new schema), and
spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled for batch reads and
streams' startingTimestamp / startingVersion. Several reads per case: each read's rows,
or the Delta error class it raised (the first [CLASS] of its message other than
STREAM_FAILED)."""

import datetime
import re
import time

from dsl import case

CONF = {"spark.sql.shuffle.partitions": "1"}
CDF = "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
OUT_OF_RANGE = "spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled"
FUTURE = "2099-01-01 00:00:00"
PAST = "2000-01-01 00:00:00"

# Each stream scenario runs on the plain table stream and on its change data feed.
KINDS = ((False, "plain"), (True, "feed"))


def _error_class(e):
    for c in re.findall(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)?)\]", str(e)):
        if c != "STREAM_FAILED":
            return c
    return type(e).__name__


def _rows(df):
    return sorted((tuple(r) for r in df.collect()), key=lambda r: tuple((x is None, str(x)) for x in r))


def _try(f):
    """The rows (and columns) f's DataFrame gives, or the error class it raises."""
    try:
        df = f()
        return {"columns": df.columns, "rows": _rows(df)}
    except Exception as e:  # compared by class
        return {"error": _error_class(e)}


def _changes(s, path, start=None, end=None, ts=None, end_ts=None):
    r = s.spark.read.format("delta").option("readChangeFeed", "true")
    for k, v in (("startingVersion", start), ("endingVersion", end),
                 ("startingTimestamp", ts), ("endingTimestamp", end_ts)):
        if v is not None:
            r = r.option(k, v)
    return r.load(path).drop("_commit_timestamp")


_queries = [0]


def _stream(s, path, cdf, opts=None, after=None):
    """A memory-sink stream of the table (its change feed when cdf): the rows it emitted,
    the input rows of each batch that had some, and the class of its failure."""
    _queries[0] += 1
    name = f"evo_{_queries[0]}"
    r = s.spark.readStream.format("delta")
    if cdf:
        r = r.option("readChangeFeed", "true")
    for k, v in (opts or {}).items():
        r = r.option(k, v)
    df = r.load(path)
    if cdf:
        df = df.drop("_commit_timestamp")
    q = df.writeStream.format("memory").queryName(name).start()
    try:
        q.processAllAvailable()
        if after:
            after()
            q.processAllAvailable()
    except Exception:
        pass
    q.stop()
    ex = q.exception()
    out = {"rows": _rows(s.spark.table(name)), "columns": s.spark.table(name).columns,
           "batches": [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]}
    if ex is not None:
        out["error"] = _error_class(ex)
    return out


def _history(s, path, version):
    h = [r for r in s.spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect() if r.version == version][0]
    return {"operation": h.operation, "parameters": dict(h.operationParameters),
            "isBlindAppend": h.isBlindAppend, "metrics": dict(h.operationMetrics or {})}


def _protocol(s, path):
    d = s.spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0]
    return (d.minReaderVersion, d.minWriterVersion, sorted(d.tableFeatures or []))


def _enabled_later(s):
    path = f"{s.tmp}/t"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA")
    # One task, so both engines write one file.
    (s.spark.sql("SELECT * FROM VALUES (1L, 'a'), (2L, 'b') AS r(id, v)").coalesce(1)
     .write.format("delta").mode("append").save(path))  # 1
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")  # 2
    s.spark.sql(f"UPDATE delta.`{path}` SET v = 'B' WHERE id = 2")  # 3
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (3, 'c')")  # 4
    return path


@case(conf=CONF)
def enabled_later_batch_reads(s):
    path = _enabled_later(s)
    out = {f"from_{v}": _try(lambda: _changes(s, path, v)) for v in range(5)}
    out["0_to_1"] = _try(lambda: _changes(s, path, 0, 1))
    out["2_to_2"] = _try(lambda: _changes(s, path, 2, 2))
    out["sql_from_1"] = _try(lambda: s.spark.sql(f"SELECT * FROM table_changes_by_path('{path}', 1)")
                             .drop("_commit_timestamp"))
    out["sql_from_2"] = _try(lambda: s.spark.sql(f"SELECT * FROM table_changes_by_path('{path}', 2)")
                             .drop("_commit_timestamp"))
    out["history"] = _history(s, path, 2)
    out["protocol"] = _protocol(s, path)
    return out


@case(conf=CONF, show=False)
def enabled_later_streams(s):
    path = _enabled_later(s)
    return {"snapshot": _stream(s, path, True),
            "from_2": _stream(s, path, True, {"startingVersion": "2"}),
            "from_1": _stream(s, path, True, {"startingVersion": "1"}),
            "plain_from_1": _stream(s, path, False, {"startingVersion": "1", "ignoreChanges": "true"})}


@case(conf=CONF)
def disabled_then_enabled_again(s):
    path = _enabled_later(s)
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'false')")  # 5
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (4, 'd')")  # 6
    out = {"3_on": _try(lambda: _changes(s, path, 3)),
           "3_to_4": _try(lambda: _changes(s, path, 3, 4)),
           "from_5": _try(lambda: _changes(s, path, 5)),
           "from_6": _try(lambda: _changes(s, path, 6))}
    s.spark.sql(f"ALTER TABLE delta.`{path}` UNSET TBLPROPERTIES ('delta.enableChangeDataFeed')")  # 7
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")  # 8
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 1")  # 9
    out["from_7"] = _try(lambda: _changes(s, path, 7))
    out["from_8"] = _try(lambda: _changes(s, path, 8))
    out["history"] = [_history(s, path, v) for v in (5, 7, 8)]
    return out


@case(conf=CONF)
def reserved_column_names(s):
    def enable():
        p = f"{s.tmp}/a"
        s.spark.sql(f"CREATE TABLE delta.`{p}` (id BIGINT, _change_type STRING) USING DELTA")
        s.spark.sql(f"ALTER TABLE delta.`{p}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
        return s.spark.read.format("delta").load(p)

    def create():
        s.spark.sql(f"CREATE TABLE delta.`{s.tmp}/b` (id BIGINT, _commit_version BIGINT) USING DELTA {CDF}")
        return s.spark.read.format("delta").load(f"{s.tmp}/b")

    def write():
        p = f"{s.tmp}/c"
        s.spark.sql(f"CREATE TABLE delta.`{p}` (id BIGINT) USING DELTA {CDF}")
        (s.spark.createDataFrame([(1, "x")], "id BIGINT, _commit_timestamp STRING").write.format("delta")
         .mode("append").option("mergeSchema", "true").save(p))
        return s.spark.read.format("delta").load(p)

    def plain_table_keeps_them():
        p = f"{s.tmp}/d"
        s.spark.createDataFrame([(1, "x")], "id BIGINT, _change_type STRING").write.format("delta").save(p)
        return s.spark.read.format("delta").load(p)

    return {"enable": _try(enable), "create": _try(create), "write": _try(write),
            "plain": _try(plain_table_keeps_them)}


def _evolving(s):
    """0 create, 1 insert, 2 add column w (mergeSchema), 3 insert, 4 update."""
    path = f"{s.tmp}/t"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b')")
    (s.spark.createDataFrame([], "id BIGINT, v STRING, w INT").write.format("delta").mode("append")
     .option("mergeSchema", "true").save(path))
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (3, 'c', 30)")
    s.spark.sql(f"UPDATE delta.`{path}` SET w = 1 WHERE id = 1")
    return path


def _overwrite(s, path, schema, row):
    (s.spark.createDataFrame([row], schema).write.format("delta").mode("overwrite")
     .option("overwriteSchema", "true").save(path))


@case(conf=CONF)
def batch_read_across_added_column(s):
    path = _evolving(s)
    return {"from_0": _try(lambda: _changes(s, path, 0)),
            "1_to_1": _try(lambda: _changes(s, path, 1, 1)),
            "1_to_3": _try(lambda: _changes(s, path, 1, 3))}


@case(conf=CONF)
def batch_read_across_dropped_column(s):
    path = _evolving(s)
    _overwrite(s, path, "id BIGINT, w INT", (5, 50))  # 5
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (6, 60)")  # 6
    return {f"{a}_to_{b}": _try(lambda: _changes(s, path, a, b))
            for a, b in ((0, None), (3, None), (3, 4), (3, 5), (4, 5), (5, None), (6, None))}


@case(conf=CONF)
def batch_read_across_type_change(s):
    path = _evolving(s)
    _overwrite(s, path, "id BIGINT, w INT", (5, 50))  # 5
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (6, 60)")  # 6
    _overwrite(s, path, "id STRING, w INT", ("x", 70))  # 7
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES ('y', 80)")  # 8
    return {f"{a}_to_{b}": _try(lambda: _changes(s, path, a, b))
            for a, b in ((6, None), (6, 7), (5, 6), (8, None))}


@case(conf=dict(CONF, **{"spark.databricks.delta.changeDataFeed."
                         "unsafeBatchReadOnIncompatibleSchemaChanges.enabled": "true"}))
def batch_read_unsafe_across_dropped_column(s):
    path = _evolving(s)
    _overwrite(s, path, "id BIGINT, w INT", (5, 50))  # 5
    return {"3_to_4": _try(lambda: _changes(s, path, 3, 4)), "from_0": _try(lambda: _changes(s, path, 0))}


@case(conf=CONF)
def batch_read_nullability_and_case(s):
    out = {}
    p = f"{s.tmp}/a"
    s.spark.sql(f"CREATE TABLE delta.`{p}` (id BIGINT NOT NULL, v STRING) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{p}` VALUES (1, 'a')")
    _overwrite(s, p, "id BIGINT, v STRING", (2, "b"))
    out["not_null_then_nullable"] = _try(lambda: _changes(s, p, 0))
    p = f"{s.tmp}/b"
    s.spark.sql(f"CREATE TABLE delta.`{p}` (id BIGINT, v STRING, w INT) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{p}` VALUES (1, 'a', 1)")
    _overwrite(s, p, "id BIGINT, v STRING", (2, "b"))
    out["column_dropped_at_2"] = _try(lambda: _changes(s, p, 0))
    out["from_2"] = _try(lambda: _changes(s, p, 2))
    p = f"{s.tmp}/c"
    s.spark.sql(f"CREATE TABLE delta.`{p}` (id BIGINT, v STRING) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{p}` VALUES (1, 'a')")
    _overwrite(s, p, "id BIGINT, V STRING", (2, "b"))
    out["name_case_changed"] = _try(lambda: _changes(s, p, 0))
    return out


def _small(s, name):
    path = f"{s.tmp}/{name}"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b')")
    return path


def _insert(s, path, i):
    s.spark.sql(f"INSERT INTO delta.`{path}` (id, v) VALUES ({i}, 'x')")


def _add_column(s, path):
    (s.spark.createDataFrame([(3, "c", 30)], "id BIGINT, v STRING, w INT").write.format("delta")
     .mode("append").option("mergeSchema", "true").save(path))


@case(conf=CONF, show=False)
def stream_meets_schema_change(s):
    out = {}
    for cdf, kind in KINDS:
        p = _small(s, f"a_{kind}")
        out[f"{kind}_add_column"] = _stream(
            s, p, cdf, after=lambda: (_insert(s, p, 7), _add_column(s, p), _insert(s, p, 8)))
        q = _small(s, f"b_{kind}")
        out[f"{kind}_drop_column"] = _stream(
            s, q, cdf, after=lambda: _overwrite(s, q, "id BIGINT, w INT", (5, 50)))
        r = _small(s, f"c_{kind}")
        out[f"{kind}_set_property"] = _stream(
            s, r, cdf, after=lambda: (s.spark.sql(f"ALTER TABLE delta.`{r}` SET TBLPROPERTIES ('x' = 'y')"),
                                      _insert(s, r, 9)))
    t = f"{s.tmp}/d"
    s.spark.sql(f"CREATE TABLE delta.`{t}` (id BIGINT, v STRING, w INT) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{t}` VALUES (1, 'a', 1)")
    out["feed_fewer_columns"] = _stream(s, t, True, after=lambda: _overwrite(s, t, "id BIGINT, v STRING", (2, "b")))
    return out


@case(conf=CONF, show=False)
def stream_starts_before_schema_change(s):
    out = {}
    for cdf, kind in KINDS:
        p = _small(s, f"a_{kind}")
        _add_column(s, p)
        out[f"{kind}_added_from_0"] = _stream(s, p, cdf, {"startingVersion": "0"})
        out[f"{kind}_added_snapshot"] = _stream(s, p, cdf)
        q = _small(s, f"b_{kind}")
        _add_column(s, q)
        _overwrite(s, q, "id BIGINT, w INT", (5, 50))
        out[f"{kind}_dropped_from_0"] = _stream(s, q, cdf, {"startingVersion": "0"})
        out[f"{kind}_dropped_from_1"] = _stream(s, q, cdf, {"startingVersion": "1"})
        out[f"{kind}_dropped_from_3"] = _stream(s, q, cdf, {"startingVersion": "3", "ignoreChanges": "true"})
    return out


@case(conf=CONF, show=False)
def stream_restart_reads_added_column(s):
    out = {}
    for cdf, kind in KINDS:
        p = _small(s, f"t_{kind}")
        sink, ck = f"{s.tmp}/sink_{kind}", f"{s.tmp}/ck_{kind}"

        def run():
            r = s.spark.readStream.format("delta")
            if cdf:
                r = r.option("readChangeFeed", "true")
            df = r.load(p)
            if cdf:
                df = df.drop("_commit_timestamp")
            q = (df.writeStream.format("delta").option("checkpointLocation", ck).option("mergeSchema", "true")
                 .trigger(availableNow=True).start(sink))
            q.awaitTermination()
            return _rows(s.spark.read.format("delta").load(sink))

        out[f"{kind}_first"] = run()
        _add_column(s, p)
        out[f"{kind}_after_restart"] = run()
    return out


def _two_commits(s):
    """0 create, 1 insert, 2 insert (1.2 s later); a timestamp between 1 and 2."""
    path = f"{s.tmp}/t"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA {CDF}")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a')")
    time.sleep(1.2)
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (2, 'b')")
    h = {r.version: r.timestamp for r in s.spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()}
    mid = (h[1] + datetime.timedelta(milliseconds=500)).strftime("%Y-%m-%d %H:%M:%S.%f")
    return path, mid


def _batch_ranges(s, path, mid):
    ranges = {"start_future": {"ts": FUTURE}, "future_to_future": {"ts": FUTURE, "end_ts": FUTURE},
              "past_to_future": {"ts": PAST, "end_ts": FUTURE}, "past_to_past": {"ts": PAST, "end_ts": PAST},
              "v1_to_past": {"start": 1, "end_ts": PAST}, "v0_to_future": {"start": 0, "end_ts": FUTURE},
              "v9": {"start": 9}, "future_to_v1": {"ts": FUTURE, "end": 1}, "v2_to_v1": {"start": 2, "end": 1},
              "mid_to_mid": {"ts": mid, "end_ts": mid}, "v2_to_mid": {"start": 2, "end_ts": mid},
              "mid_to_v1": {"ts": mid, "end": 1}, "mid": {"ts": mid}}
    out = {k: _try(lambda: _changes(s, path, **kw)) for k, kw in ranges.items()}
    out["sql_future"] = _try(lambda: s.spark.sql(
        f"SELECT id, _change_type FROM table_changes_by_path('{path}', '{FUTURE}')"))
    return out


@case(conf=CONF)
def timestamp_ranges(s):
    path, mid = _two_commits(s)
    return _batch_ranges(s, path, mid)


@case(conf=dict(CONF, **{OUT_OF_RANGE: "true"}))
def timestamp_ranges_out_of_range_enabled(s):
    path, mid = _two_commits(s)
    return _batch_ranges(s, path, mid)


def _stream_starts(s):
    path, mid = _two_commits(s)
    out = {}
    for cdf, kind in KINDS:
        for name, opts in (("past", {"startingTimestamp": PAST}), ("mid", {"startingTimestamp": mid}),
                           ("future", {"startingTimestamp": FUTURE}), ("v9", {"startingVersion": "9"})):
            got = _stream(s, path, cdf, opts)
            got.pop("batches")
            out[f"{kind}_{name}"] = got
    return out


@case(conf=CONF, show=False)
def stream_starting_timestamp(s):
    return _stream_starts(s)


@case(conf=dict(CONF, **{OUT_OF_RANGE: "true"}), show=False)
def stream_starting_timestamp_out_of_range_enabled(s):
    return _stream_starts(s)


@case(conf=CONF)
def merge_delete_of_a_row_matched_twice(s):
    """An unconditional DELETE lets several source rows match one target row: one delete
    change row per target row (two equal target rows stay two)."""
    out = {}
    for dv in ("false", "true"):
        path = f"{s.tmp}/t_{dv}"
        s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA TBLPROPERTIES "
                    f"('delta.enableChangeDataFeed' = 'true', 'delta.enableDeletionVectors' = '{dv}')")
        (s.spark.sql("SELECT * FROM VALUES (1L, 'a'), (1L, 'a'), (2L, 'b'), (3L, 'c') AS r(id, v)")
         .coalesce(1).write.format("delta").mode("append").save(path))
        s.spark.sql(f"""MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1L, 'x'), (1L, 'y'),
            (2L, 'z'), (2L, 'w'), (2L, 'q'), (7L, 'n') AS s(id, v)) s ON t.id = s.id
            WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *""")
        h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
        out[dv] = {"feed": _try(lambda: _changes(s, path, 2)),
                   "metrics": {k: v for k, v in h.operationMetrics.items()
                               if k.startswith("numTargetRows") or k == "numSourceRows"}}
    return out
