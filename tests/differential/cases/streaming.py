"""Structured Streaming: file, Delta and rate-micro-batch sources into memory, foreachBatch,
Delta and file sinks, with availableNow / once / processAllAvailable, progress fields,
restarts from a checkpoint, and the errors of invalid queries. Every query runs to the end
of its input, so results are deterministic on both engines."""

import json
import os

from dsl import pins, Differs, case

SCHEMA = "id INT, kind STRING, v DOUBLE, tags ARRAY<STRING>"


def _land(s, folder, files, start=0):
    """Writes JSON files (a list of lists of row dicts) with increasing modification times,
    so that both engines see them in the same order."""
    path = os.path.join(s.tmp, folder)
    os.makedirs(path, exist_ok=True)
    for n, rows in enumerate(files, start):
        f = os.path.join(path, f"part-{n:04d}.json")
        with open(f, "w") as out:
            out.write("".join(json.dumps(r) + "\n" for r in rows))
        os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))
    return path


def _rows(n0, n, kind="a"):
    return [{"id": i, "kind": kind if i % 3 else "test", "v": i / 2, "tags": [kind, str(i % 2)]}
            for i in range(n0, n0 + n)]


FILES = [_rows(0, 5), _rows(5, 5, "b"), _rows(10, 3, "c")]


def _stream(s, folder="in", files=None, **options):
    src = _land(s, folder, FILES if files is None else files)
    r = s.spark.readStream.schema(SCHEMA)
    for k, v in options.items():
        r = r.option(k, v)
    return r.json(src)


TRANSFORMS = {
    "identity": lambda s, df: df,
    "filter": lambda s, df: df.filter("kind <> 'test'"),
    "select_expr": lambda s, df: df.selectExpr("id * 10 AS id10", "upper(kind) AS k", "v + 1 AS v1"),
    "with_column": lambda s, df: df.withColumn("big", s.F.col("v") > 2).withColumn("n", s.F.size("tags")),
    "explode": lambda s, df: df.select("id", s.F.explode("tags").alias("tag")),
    "where_sql_functions": lambda s, df: df.where("id % 2 = 0").select(
        "id", s.F.concat_ws("-", "tags").alias("t"), s.F.round("v", 0).alias("r")),
    "drop_columns": lambda s, df: df.drop("tags", "v"),
    "union_self": lambda s, df: df.select("id").union(df.select((s.F.col("id") + 100).alias("id"))),
}


def _memory(s, df, name, trigger=None):
    w = df.writeStream.format("memory").queryName(name)
    w = w.trigger(**(trigger or {"availableNow": True}))
    q = w.start()
    if trigger == {}:
        q.processAllAvailable()
        q.stop()
    else:
        q.awaitTermination()
    return q


for tname, t in TRANSFORMS.items():
    def memory_case(s, t=t, tname=tname):
        _memory(s, t(s, _stream(s)), f"mem_{tname}")
        return s.spark.sql(f"SELECT * FROM mem_{tname}")
    memory_case.__name__ = f"memory_sink/{tname}"
    case(memory_case)

    def batch_case(s, t=t):
        seen = []

        def each(batch, batch_id):
            seen.extend((batch_id,) + tuple(r) for r in batch.collect())
        q = t(s, _stream(s)).writeStream.foreachBatch(each).trigger(availableNow=True).start()
        q.awaitTermination()
        return sorted(seen, key=repr)
    batch_case.__name__ = f"foreach_batch/{tname}"
    case(batch_case)

for tname in ("identity", "filter", "with_column", "explode"):
    def delta_case(s, tname=tname):
        out = os.path.join(s.tmp, "out")
        q = (TRANSFORMS[tname](s, _stream(s)).writeStream.format("delta")
             .option("checkpointLocation", os.path.join(s.tmp, "chk")).trigger(availableNow=True)
             .start(out))
        q.awaitTermination()
        return {"rows": s.spark.read.format("delta").load(out),
                "ops": s.spark.sql(f"DESCRIBE HISTORY delta.`{out}`").select("version", "operation")
                .orderBy("version")}
    delta_case.__name__ = f"delta_sink/{tname}"
    case(delta_case)

for fmt in ("parquet", "json"):
    for tname in ("identity", "select_expr"):
        def file_case(s, tname=tname, fmt=fmt):
            out = os.path.join(s.tmp, "out")
            q = (TRANSFORMS[tname](s, _stream(s)).writeStream.format(fmt)
                 .option("checkpointLocation", os.path.join(s.tmp, "chk")).trigger(availableNow=True)
                 .start(out))
            q.awaitTermination()
            read = s.spark.read.format(fmt)
            return {"rows": read.load(out), "has_log": os.path.isdir(os.path.join(out, "_spark_metadata"))}
        file_case.__name__ = f"file_sink/{fmt}/{tname}"
        case(file_case)


@case
def trigger_once(s):
    _memory(s, _stream(s), "mem_once", {"once": True})
    return s.spark.sql("SELECT count(*) AS n FROM mem_once")


@case
def trigger_default_process_all_available(s):
    _memory(s, _stream(s), "mem_paa", {})
    return s.spark.sql("SELECT * FROM mem_paa")


@case
def trigger_processing_time_process_all_available(s):
    q = _stream(s).writeStream.format("memory").queryName("mem_pt").trigger(processingTime="100 milliseconds").start()
    q.processAllAvailable()
    q.stop()
    return s.spark.sql("SELECT * FROM mem_pt")


def _batch_sizes(q):
    return [(p["batchId"], p["numInputRows"]) for p in q.recentProgress]


for per_trigger in (1, 2):
    def max_files_case(s, per_trigger=per_trigger):
        q = _memory(s, _stream(s, maxFilesPerTrigger=per_trigger), f"mem_mft{per_trigger}")
        return {"batches": _batch_sizes(q), "rows": s.spark.sql(f"SELECT * FROM mem_mft{per_trigger}")}
    max_files_case.__name__ = f"max_files_per_trigger_{per_trigger}"
    case(max_files_case)


@case
def latest_first(s):
    q = _memory(s, _stream(s, maxFilesPerTrigger=1, latestFirst="true"), "mem_latest",
                {"once": True})
    return {"batches": _batch_sizes(q), "rows": s.spark.sql("SELECT * FROM mem_latest")}


def _progress_keys(p):
    return {"top": sorted(p.keys()), "source": sorted(p["sources"][0].keys()),
            "sink": sorted(p["sink"].keys())}


@case
def progress_keys(s):
    q = _memory(s, _stream(s), "mem_progress")
    return _progress_keys(q.lastProgress)


@case
def progress_values(s):
    q = _memory(s, _stream(s, maxFilesPerTrigger=2), "mem_progress_values")
    return [{"batchId": p["batchId"], "numInputRows": p["numInputRows"],
             "source_rows": p["sources"][0]["numInputRows"],
             "end": p["sources"][0]["endOffset"], "name": p["name"]} for p in q.recentProgress]


@case
def progress_duration_keys(s):
    q = _memory(s, _stream(s), "mem_progress_durations")
    return sorted(q.lastProgress["durationMs"].keys())


@case
def query_status_after_end(s):
    q = _memory(s, _stream(s), "mem_status")
    st = q.status
    return {"active": q.isActive, "keys": sorted(st.keys()), "data": st["isDataAvailable"],
            "trigger": st["isTriggerActive"], "name": q.name, "exception": q.exception() is None}


@case
def streams_active_after_stop(s):
    q = _stream(s).writeStream.format("memory").queryName("mem_active").start()
    was = [x.name for x in s.spark.streams.active]
    q.processAllAvailable()
    q.stop()
    return {"was": was, "now": [x.name for x in s.spark.streams.active]}


def _restart_case(sink):
    def run(s):
        chk = os.path.join(s.tmp, "chk")
        out = os.path.join(s.tmp, "out")
        batches = []

        def start():
            df = s.spark.readStream.schema(SCHEMA).json(os.path.join(s.tmp, "in"))
            if sink == "foreachBatch":
                w = df.writeStream.foreachBatch(
                    lambda b, i: batches.append((i, b.count()))).option("checkpointLocation", chk)
            else:
                w = df.writeStream.format(sink).option("checkpointLocation", chk)
            q = w.trigger(availableNow=True).start(None if sink == "foreachBatch" else out)
            q.awaitTermination()
            return [(p["batchId"], p["numInputRows"]) for p in q.recentProgress]
        _land(s, "in", FILES[:2])
        first = start()
        _land(s, "in", FILES[2:], start=2)
        second = start()
        third = start()  # nothing new
        res = {"first": first, "second": second, "third": third}
        if sink == "foreachBatch":
            res["batches"] = batches
        else:
            res["rows"] = s.spark.read.format(sink).load(out).count() if sink != "json" else \
                s.spark.read.schema(SCHEMA).json(out).count()
        if sink == "delta":
            res["versions"] = s.spark.sql(f"DESCRIBE HISTORY delta.`{out}`").count()
        return res
    run.__name__ = f"restart/{sink}"
    case(run)


for sink in ("delta", "parquet", "json", "foreachBatch"):
    _restart_case(sink)


@case
def restart_with_max_files(s):
    chk = os.path.join(s.tmp, "chk")
    _land(s, "in", FILES)

    def once():
        q = (s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(os.path.join(s.tmp, "in"))
             .writeStream.format("delta").option("checkpointLocation", chk).trigger(once=True)
             .start(os.path.join(s.tmp, "out")))
        q.awaitTermination()
        return [p["batchId"] for p in q.recentProgress]
    ids = [once(), once(), once(), once()]
    return {"ids": ids, "rows": s.spark.read.format("delta").load(os.path.join(s.tmp, "out")).count()}


def _delta_source_case(name, **options):
    def run(s):
        table = os.path.join(s.tmp, "src")
        s.spark.range(0, 4).write.format("delta").save(table)
        s.spark.range(4, 6).write.format("delta").mode("append").save(table)
        s.spark.range(6, 9).write.format("delta").mode("append").save(table)
        r = s.spark.readStream.format("delta")
        for k, v in options.items():
            r = r.option(k, v)
        q = _memory(s, r.load(table).withColumn("twice", s.F.col("id") * 2), f"mem_{name}")
        return {"rows": s.spark.sql(f"SELECT * FROM mem_{name}"), "batches": len(q.recentProgress)}
    run.__name__ = name
    case(run)


_delta_source_case("delta_source")
_delta_source_case("delta_source_max_files", maxFilesPerTrigger=1)
_delta_source_case("delta_source_starting_version", startingVersion=1)


@case
def delta_source_table_name(s):
    s.spark.sql("CREATE TABLE stream_src (id BIGINT, s STRING) USING DELTA")
    s.spark.sql("INSERT INTO stream_src VALUES (1, 'a'), (2, 'b')")
    _memory(s, s.spark.readStream.table("stream_src"), "mem_table_src")
    return s.spark.sql("SELECT * FROM mem_table_src")


@case
def delta_sink_to_table(s):
    q = (_stream(s).writeStream.option("checkpointLocation", os.path.join(s.tmp, "chk"))
         .trigger(availableNow=True).toTable("stream_sink_table"))
    q.awaitTermination()
    return s.spark.table("stream_sink_table")


@case
def delta_sink_partitioned(s):
    out = os.path.join(s.tmp, "out")
    q = (_stream(s).writeStream.format("delta").partitionBy("kind")
         .option("checkpointLocation", os.path.join(s.tmp, "chk")).trigger(availableNow=True).start(out))
    q.awaitTermination()
    return s.spark.read.format("delta").load(out).filter("kind = 'b'")


def _file_source_case(name, fmt, text, schema, **options):
    def run(s):
        path = os.path.join(s.tmp, "in")
        os.makedirs(path)
        with open(os.path.join(path, f"f.{fmt}"), "w") as f:
            f.write(text)
        r = s.spark.readStream.format(fmt)
        if schema:
            r = r.schema(schema)
        for k, v in options.items():
            r = r.option(k, v)
        _memory(s, r.load(path), f"mem_{name}")
        return s.spark.sql(f"SELECT * FROM mem_{name}")
    run.__name__ = name
    case(run)


_file_source_case("csv_source", "csv", "id,name\n1,a\n2,b\n", "id INT, name STRING", header="true")
_file_source_case("csv_source_malformed", "csv", "1,a\nx,b\n", "id INT, name STRING")
_file_source_case("csv_source_dropmalformed", "csv", "1,a\nx,b\n", "id INT, name STRING", mode="DROPMALFORMED")
_file_source_case("text_source", "text", "line one\nline two\n", None)
_file_source_case("json_source_corrupt", "json", '{"id": 1}\nnope\n', "id INT, _corrupt_record STRING")


@case
def parquet_source(s):
    path = os.path.join(s.tmp, "pq")
    s.spark.sql("SELECT id, CAST(id AS string) AS s FROM range(5)").write.parquet(path)
    _memory(s, s.spark.readStream.schema("id LONG, s STRING").parquet(path), "mem_parquet_src")
    return s.spark.sql("SELECT * FROM mem_parquet_src")


@case
def text_source_parse_json(s):
    src = _land(s, "in", FILES[:1])
    parsed = s.spark.readStream.text(src).select(
        s.F.from_json("value", "id INT, kind STRING").alias("j")).select("j.*")
    _memory(s, parsed, "mem_text_json")
    return s.spark.sql("SELECT * FROM mem_text_json")


@case
def stream_static_join(s):
    static = s.spark.createDataFrame([("a", "Alpha"), ("b", "Beta")], "kind STRING, label STRING")
    _memory(s, _stream(s).join(static, "kind"), "mem_join")
    return s.spark.sql("SELECT * FROM mem_join")


@case
def stream_static_left_join(s):
    static = s.spark.createDataFrame([("a", "Alpha")], "kind STRING, label STRING")
    _memory(s, _stream(s).join(static, "kind", "left"), "mem_left_join")
    return s.spark.sql("SELECT * FROM mem_left_join")


@case
def rate_micro_batch_once(s):
    df = (s.spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 5)
          .option("startTimestamp", 1_600_000_000_000).option("advanceMillisPerBatch", 1000).load())
    _memory(s, df, "mem_rate_mb", {"once": True})
    return s.spark.sql("SELECT * FROM mem_rate_mb")


@case
def rate_micro_batch_transform(s):
    df = (s.spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 4)
          .option("startTimestamp", 0).load().selectExpr("value * 2 AS v", "CAST(timestamp AS string) AS t"))
    _memory(s, df, "mem_rate_mb2", {"once": True})
    return s.spark.sql("SELECT * FROM mem_rate_mb2")


@case
def rate_schema(s):
    df = s.spark.readStream.format("rate").option("rowsPerSecond", 10).load()
    return {"schema": df.schema.simpleString(), "streaming": df.isStreaming}


@case
def is_streaming_flags(s):
    return {"stream": _stream(s).isStreaming, "batch": s.spark.range(1).isStreaming,
            "derived": _stream(s).filter("id > 1").isStreaming}


@case
def stream_schema(s):
    df = TRANSFORMS["with_column"](s, _stream(s))
    return df


# ---- invalid queries ---------------------------------------------------------------------

@case
def error_show_on_stream(s):
    _stream(s).show()


@case
def error_collect_on_stream(s):
    return _stream(s).collect()


@case
def error_delta_sink_without_checkpoint(s):
    _stream(s).writeStream.format("delta").start(os.path.join(s.tmp, "out"))


@case
def error_file_source_without_schema(s):
    _land(s, "in", FILES)
    return s.spark.readStream.json(os.path.join(s.tmp, "in"))


@case
def error_complete_mode_without_aggregation(s):
    _stream(s).writeStream.format("memory").queryName("mem_bad_complete").outputMode("complete").start()


@case
def error_duplicate_query_name(s):
    q = _stream(s).writeStream.format("memory").queryName("mem_dup").start()
    try:
        _stream(s, folder="in2").writeStream.format("memory").queryName("mem_dup").start()
    finally:
        q.stop()


@case
def error_foreach_batch_raises(s):
    def each(batch, batch_id):
        raise ValueError("boom")
    q = _stream(s).writeStream.foreachBatch(each).trigger(availableNow=True).start()
    q.awaitTermination()


@case
def error_unknown_sink(s):
    _stream(s).writeStream.format("nope").start()


@case
def error_sort_on_stream(s):
    _stream(s).orderBy("id").writeStream.format("memory").queryName("mem_sort").start()


# ---- stateful queries ---------------------------------------------------------------------

@case
def aggregation_complete(s):
    q = (_stream(s).groupBy("kind").count().writeStream.format("memory").queryName("mem_agg_c")
         .outputMode("complete").trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.sql("SELECT * FROM mem_agg_c")


@case
def aggregation_update(s):
    q = (_stream(s).groupBy("kind").agg(s.F.sum("v").alias("s")).writeStream.format("memory")
         .queryName("mem_agg_u").outputMode("update").trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.sql("SELECT * FROM mem_agg_u")


@case
def drop_duplicates_stream(s):
    _memory(s, _stream(s).select("kind").dropDuplicates(), "mem_dedup")
    return s.spark.sql("SELECT * FROM mem_dedup")


# Event-time cases: three files landed in order; each file is one micro-batch
# (maxFilesPerTrigger 1) so the watermark moves between batches exactly as on Spark.
EVENTS = [
    [{"ts": "2026-01-01T12:%02d:00Z" % m, "k": k, "v": v}
     for m, k, v in [(1, "a", 1), (4, "b", 2), (7, "a", 3), (12, "a", 4)]],
    [{"ts": "2026-01-01T12:%02d:00Z" % m, "k": k, "v": v}
     for m, k, v in [(23, "b", 5), (2, "a", 6), (26, "a", 7), (14, "b", 8)]],
    [{"ts": "2026-01-01T12:%02d:00Z" % m, "k": k, "v": v}
     for m, k, v in [(8, "a", 9), (41, "b", 10), (55, "a", 11), (44, "a", 12)]],
]
EVENT_SCHEMA = "ts TIMESTAMP, k STRING, v INT"


def _events(s, folder="ev"):
    src = _land(s, folder, EVENTS)
    return (s.spark.readStream.schema(EVENT_SCHEMA).option("maxFilesPerTrigger", 1).json(src))


def _run_events(s, df, mode, name):
    q = (df.writeStream.format("memory").queryName(name).outputMode(mode)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    ops = [p["stateOperators"] for p in q.recentProgress]
    return q, ops


def _state_summary(ops):
    """Per batch: (operatorName, numRowsTotal, numRowsUpdated, numRowsRemoved,
    numRowsDroppedByWatermark) of each operator: the numbers that do not depend on timing."""
    return [[(o["operatorName"], o["numRowsTotal"], o["numRowsUpdated"], o["numRowsRemoved"],
              o["numRowsDroppedByWatermark"]) for o in batch] for batch in ops]


WINDOWED = {
    "tumbling": lambda s, df: df.groupBy(s.F.window("ts", "10 minutes"), "k"),
    "sliding": lambda s, df: df.groupBy(s.F.window("ts", "10 minutes", "5 minutes"), "k"),
}

for wname, group in WINDOWED.items():
    for mode in ("append", "update"):
        def windowed_case(s, group=group, mode=mode, wname=wname):
            df = group(s, _events(s).withWatermark("ts", "10 minutes")).agg(
                s.F.count("*").alias("n"), s.F.sum("v").alias("total"))
            name = f"mem_win_{wname}_{mode}"
            q, ops = _run_events(s, df.select(s.F.col("window.start").cast("string").alias("start"),
                                              "k", "n", "total"), mode, name)
            return {"rows": s.spark.sql(f"SELECT * FROM {name}"),
                    "batches": len(q.recentProgress),
                    "watermarks": [p["eventTime"].get("watermark") for p in q.recentProgress],
                    "state": _state_summary(ops)}
        windowed_case.__name__ = f"stateful/window_{wname}_{mode}"
        case(windowed_case, show=False)


@case(show=False)
def stateful_complete_mode_per_key(s):
    df = _events(s).groupBy("k").agg(s.F.count("*").alias("n"), s.F.max("v").alias("top"),
                                    s.F.avg("v").alias("mean"))
    q, ops = _run_events(s, df, "complete", "mem_complete_k")
    return {"rows": s.spark.sql("SELECT * FROM mem_complete_k"), "state": _state_summary(ops)}


@case(show=False)
def stateful_dedup_within_watermark(s):
    df = (_events(s).withWatermark("ts", "10 minutes").dropDuplicatesWithinWatermark(["k"])
          .select("k", "v"))
    q, ops = _run_events(s, df, "append", "mem_dedup_ww")
    return {"rows": s.spark.sql("SELECT * FROM mem_dedup_ww"), "state": _state_summary(ops)}


@case(show=False)
def stateful_dedup_with_event_time_key(s):
    df = (_events(s).withWatermark("ts", "10 minutes").dropDuplicates(["k", "ts"])
          .select("k", "v"))
    q, ops = _run_events(s, df, "append", "mem_dedup_ts")
    return {"rows": s.spark.sql("SELECT * FROM mem_dedup_ts"), "state": _state_summary(ops)}


@case(show=False)
def stateful_session_window_append(s):
    df = (_events(s).withWatermark("ts", "10 minutes")
          .groupBy("k", s.F.session_window("ts", "5 minutes")).agg(s.F.sum("v").alias("total"))
          .select("k", s.F.col("session_window.start").cast("string").alias("s"),
                  s.F.col("session_window.end").cast("string").alias("e"), "total"))
    q, ops = _run_events(s, df, "append", "mem_sess")
    return {"rows": s.spark.sql("SELECT * FROM mem_sess"),
            "batches": len(q.recentProgress), "state": _state_summary(ops)}


@case(show=False)
def stateful_session_window_complete(s):
    df = (_events(s).groupBy("k", s.F.session_window("ts", "5 minutes")).count()
          .select("k", s.F.col("session_window.start").cast("string").alias("s"), "count"))
    q, ops = _run_events(s, df, "complete", "mem_sess_c")
    return {"rows": s.spark.sql("SELECT * FROM mem_sess_c"), "state": _state_summary(ops)}


@case(show=False)
def stateful_global_aggregate_select_expr(s):
    df = _events(s).selectExpr("count(*) AS n", "sum(v) AS total")
    q, ops = _run_events(s, df, "complete", "mem_global")
    return {"rows": s.spark.sql("SELECT * FROM mem_global"), "state": _state_summary(ops)}


@case(show=False)
def stateful_sql_over_streaming_view(s):
    _events(s).createOrReplaceTempView("ev_view")
    df = s.spark.sql("SELECT k, count(*) AS n FROM ev_view GROUP BY k")
    q, ops = _run_events(s, df, "complete", "mem_sql_view")
    return s.spark.sql("SELECT * FROM mem_sql_view")


@case(show=False)
def stateful_update_every_mergeable_aggregate(s):
    F = s.F
    df = _events(s).groupBy("k").agg(
        F.count("*").alias("n"), F.min("v").alias("lo"), F.max("v").alias("hi"),
        F.avg("v").alias("mean"), F.sum("v").alias("total"),
        F.variance("v").alias("var"), F.stddev("v").alias("sd"),
        F.approx_count_distinct("v").alias("nd"), F.percentile_approx("v", 0.5).alias("med"),
        F.sort_array(F.collect_set("v")).alias("vs"), F.sort_array(F.collect_list("v")).alias("vl"),
        F.min("ts").cast("string").alias("first_ts"))
    q, ops = _run_events(s, df, "update", "mem_every_agg")
    return {"rows": s.spark.sql("SELECT * FROM mem_every_agg"), "state": _state_summary(ops)}


@case(show=False)
def stateful_window_time_append(s):
    F = s.F
    df = (_events(s).withWatermark("ts", "10 minutes").groupBy(F.window("ts", "10 minutes"))
          .agg(F.count("*").alias("n"))
          .select(F.window_time("window").cast("string").alias("wt"), "n"))
    q, ops = _run_events(s, df, "append", "mem_window_time")
    return {"rows": s.spark.sql("SELECT * FROM mem_window_time"),
            "watermarks": [p["eventTime"].get("watermark") for p in q.recentProgress]}


@case(show=False)
def stateful_session_window_dynamic_gap(s):
    F = s.F
    gap = F.when(F.col("k") == "a", "5 minutes").otherwise("20 minutes")
    df = (_events(s).withWatermark("ts", "10 minutes")
          .groupBy("k", F.session_window("ts", gap)).agg(F.sum("v").alias("total"))
          .select("k", F.col("session_window.start").cast("string").alias("s"),
                  F.col("session_window.end").cast("string").alias("e"), "total"))
    q, ops = _run_events(s, df, "append", "mem_sess_dyn")
    return {"rows": s.spark.sql("SELECT * FROM mem_sess_dyn"), "state": _state_summary(ops)}


# Two watermarked inputs: the global watermark follows the policy (min by default).
EVENTS_B = [
    [{"ts": "2026-01-01T12:%02d:00Z" % m, "k": "c", "v": m} for m in (30, 31)],
    [{"ts": "2026-01-01T12:%02d:00Z" % m, "k": "c", "v": m} for m in (50, 52)],
    [{"ts": "2026-01-01T13:%02d:00Z" % m, "k": "c", "v": m} for m in (10, 11)],
]


def _two_input_watermarks(s, name):
    a = _events(s, "ev_a").withWatermark("ts", "10 minutes")
    b = (s.spark.readStream.schema(EVENT_SCHEMA).option("maxFilesPerTrigger", 1)
         .json(_land(s, "ev_b", EVENTS_B)).withWatermark("ts", "5 minutes"))
    df = (a.union(b).groupBy(s.F.window("ts", "10 minutes"), "k").count()
          .select(s.F.col("window.start").cast("string").alias("start"), "k", "count"))
    q, ops = _run_events(s, df, "append", name)
    return {"rows": s.spark.sql(f"SELECT * FROM {name}"),
            "watermarks": [p["eventTime"].get("watermark") for p in q.recentProgress],
            "state": _state_summary(ops)}


@case(show=False)
def stateful_two_inputs_min_watermark(s):
    return _two_input_watermarks(s, "mem_wm_min")


@case(show=False, conf={"spark.sql.streaming.multipleWatermarkPolicy": "max"})
def stateful_two_inputs_max_watermark(s):
    return _two_input_watermarks(s, "mem_wm_max")


@case
def stateful_error_watermark_unknown_column(s):
    _events(s).withWatermark("nope", "10 minutes")


@case
def stateful_error_watermark_bad_delay(s):
    _events(s).withWatermark("ts", "ten minutes")


@case
def stateful_error_watermark_negative_delay(s):
    _events(s).withWatermark("ts", "-10 minutes")


@case
def stateful_error_watermark_not_a_timestamp(s):
    (_events(s).withWatermark("k", "10 minutes").groupBy("k").count().writeStream
     .format("memory").queryName("e5").start())


@case
def stateful_error_append_without_watermark(s):
    _events(s).groupBy("k").count().writeStream.format("memory").queryName("e1").start()


@case
def stateful_error_non_time_window(s):
    w = s.Window.partitionBy("k").orderBy("ts")
    (_events(s).withColumn("rn", s.F.row_number().over(w)).writeStream.format("memory")
     .queryName("e2").start())


@case
def stateful_error_limit_in_update_mode(s):
    (_events(s).groupBy("k").count().limit(1).writeStream.format("memory").outputMode("update")
     .queryName("e3").start())


@case
def stateful_error_within_watermark_without_watermark(s):
    _events(s).dropDuplicatesWithinWatermark(["k"]).writeStream.format("memory").queryName("e4").start()


# ---- several stateful operators in one query (per-operator watermarks, Spark 3.5+) --------

CHAINS = {
    "window_then_window": lambda s, ev: ev.groupBy(s.F.window("ts", "10 minutes")).count()
    .groupBy(s.F.window(s.F.window_time("window"), "20 minutes")).agg(s.F.sum("count").alias("n"))
    .select(s.F.col("window.start").cast("string").alias("start"), "n"),
    "dedup_then_window": lambda s, ev: ev.dropDuplicates(["k", "ts"])
    .groupBy(s.F.window("ts", "10 minutes"), "k").count()
    .select(s.F.col("window.start").cast("string").alias("start"), "k", "count"),
    "join_then_window": lambda s, ev: ev.alias("a").join(
        _events(s, "ev2").withWatermark("ts", "10 minutes").alias("b"),
        s.F.expr("a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 5 MINUTES"))
    .groupBy(s.F.window("a.ts", "10 minutes")).count()
    .select(s.F.col("window.start").cast("string").alias("start"), "count"),
    "outer_join_then_window": lambda s, ev: ev.alias("a").join(
        _events(s, "ev2").withWatermark("ts", "10 minutes").alias("b"),
        s.F.expr("a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL 5 MINUTES"), "left_outer")
    .groupBy(s.F.window("a.ts", "10 minutes")).agg(s.F.count("b.v").alias("matched"), s.F.count("*").alias("n"))
    .select(s.F.col("window.start").cast("string").alias("start"), "matched", "n"),
    "windows_then_join": lambda s, ev: ev.groupBy(s.F.window("ts", "10 minutes").alias("w"), "k").count()
    .join(_events(s, "ev2").withWatermark("ts", "10 minutes")
          .groupBy(s.F.window("ts", "10 minutes").alias("w"), "k").agg(s.F.sum("v").alias("s")), ["w", "k"])
    .select(s.F.col("w.start").cast("string").alias("start"), "k", "count", "s"),
}

for cname, chain in CHAINS.items():
    def chain_case(s, chain=chain, cname=cname):
        df = chain(s, _events(s).withWatermark("ts", "10 minutes"))
        q, ops = _run_events(s, df, "append", "mem_" + cname)
        return {"rows": s.spark.sql(f"SELECT * FROM mem_{cname}"), "state": _state_summary(ops),
                "watermarks": [p["eventTime"].get("watermark") for p in q.recentProgress]}
    chain_case.__name__ = f"stateful/chain_{cname}"
    case(show=False)(chain_case)


@case(show=False)
def stateful_chain_dedup_after_update_aggregation(s):
    """Spark 4.2 starts it (dropDuplicates after an aggregation is no longer refused)."""
    q = (_events(s).groupBy("k").count().dropDuplicates().writeStream.format("memory")
         .outputMode("update").queryName("e6").trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.sql("SELECT * FROM e6")


@case
def stateful_error_two_aggregations_update(s):
    (_events(s).withWatermark("ts", "10 minutes").groupBy(s.F.window("ts", "10 minutes")).count()
     .groupBy("count").count().writeStream.format("memory").outputMode("update")
     .queryName("e7").start())


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'error_delta_sink_without_checkpoint': Differs("D5", "error", "5831c2e893"),
    'error_file_source_without_schema': Differs("D5", "error", "346a4072a9"),
    'rate_micro_batch_once': Differs("D13", "rows", "60c2a17b26"),
    'rate_micro_batch_transform': Differs("D13", "rows", "dd4d420331"),
})
