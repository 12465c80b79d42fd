"""Stream-stream joins against real Spark: the seed's view_then_buy (course 11.09) and
attributed (the article) queries, every join type Spark runs between two streams (inner with
and without watermarks, left/right/full outer, left semi), range conditions and equal windows,
late rows, one-side conditions, restarts, SQL over streaming views, and the errors of the
queries Spark refuses. Each case lands its events as files read one per micro-batch
(maxFilesPerTrigger 1 on both streams), so batches, watermarks and state cleanup happen at
the same points on both engines; rows and the per-batch state numbers are compared."""

import json
import os

from dsl import pins, Differs, case

EVENT_SCHEMA = "event_id STRING, event_type STRING, user_id STRING, ts TIMESTAMP"


def _t(m):
    return "2026-01-01T12:%02d:00Z" % m


# Per file: (event_id, event_type, user_id, minute). File 2 holds a late view (12:05 with
# the watermark at 12:10) and a late purchase.
EVENTS = [
    [("e1", "view", "u1", 0), ("e2", "view", "u2", 1), ("e3", "view", "u3", 2),
     ("e4", "buy", "u1", 3), ("e5", "buy", "u4", 4)],
    [("e6", "view", "u5", 20), ("e7", "buy", "u2", 5), ("e8", "buy", "u5", 22)],
    [("e9", "view", "u6", 40), ("e12", "view", "u1", 5), ("e13", "buy", "u3", 6),
     ("e10", "buy", "u6", 41), ("e11", "buy", "u5", 24)],
]


def _land(s, folder, files, start=0):
    path = os.path.join(s.tmp, folder)
    os.makedirs(path, exist_ok=True)
    for n, rows in enumerate(files, start):
        f = os.path.join(path, f"part-{n:04d}.json")
        with open(f, "w") as out:
            for e, kind, user, minute in rows:
                out.write(json.dumps({"event_id": e, "event_type": kind, "user_id": user,
                                      "ts": _t(minute)}) + "\n")
        os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))
    return path


def _events(s, path):
    return s.spark.readStream.schema(EVENT_SCHEMA).option("maxFilesPerTrigger", 1).json(path)


def _views_buys(s, path, watermark=True):
    """The seed's two streams over one bronze folder (course 11.09)."""
    views = _events(s, path).filter("event_type = 'view'")
    buys = _events(s, path).filter("event_type = 'buy'")
    if watermark:
        views = views.withWatermark("ts", "10 minutes")
        buys = buys.withWatermark("ts", "10 minutes")
    return views.alias("v"), buys.alias("b")


WITHIN_5 = "v.user_id = b.user_id AND b.ts BETWEEN v.ts AND v.ts + INTERVAL 5 MINUTES"


def _state_summary(q):
    return [[(o["operatorName"], o["numRowsTotal"], o["numRowsUpdated"], o["numRowsRemoved"],
              o["numRowsDroppedByWatermark"], o["numStateStoreInstances"])
             for o in p["stateOperators"]] for p in q.recentProgress]


def _run(s, df, name, checkpoint=None):
    w = df.writeStream.format("memory").queryName(name).outputMode("append")
    if checkpoint:
        w = w.option("checkpointLocation", checkpoint)
    q = w.trigger(availableNow=True).start()
    q.awaitTermination()
    return q


def _result(s, q, name):
    return {"rows": s.spark.sql(f"SELECT * FROM {name}"), "state": _state_summary(q),
            "watermarks": [_watermark(p) for p in q.recentProgress]}


def _watermark(p):
    try:
        return p["eventTime"].get("watermark")
    except KeyError:  # no eventTime map (no watermark): Spark's JSON leaves it out too
        return None


@case(show=False)
def view_then_buy(s):
    """The seed's query, as written there."""
    F = s.F
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    df = views.join(buys, F.expr(WITHIN_5), "inner").select(
        F.col("v.user_id"), F.col("v.event_id").alias("view_id"),
        F.col("b.event_id").alias("buy_id"))
    return _result(s, _run(s, df, "vtb"), "vtb")


for how in ("left_outer", "right_outer", "full_outer", "left_semi"):
    def join_type_case(s, how=how):
        F = s.F
        views, buys = _views_buys(s, _land(s, "ev", EVENTS))
        df = views.join(buys, F.expr(WITHIN_5), how)
        if how == "left_semi":
            df = df.select(F.col("event_id").alias("view_id"), "user_id")
        else:
            df = df.select(F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
        name = "j_" + how
        return _result(s, _run(s, df, name), name)
    join_type_case.__name__ = f"range_{how}"
    case(show=False)(join_type_case)


@case(show=False)
def attributed(s):
    """The article's click attribution: an order within an hour after a click."""
    F = s.F
    clicks_path = _land(s, "clicks", [
        [("c1", "click", "s1", 0), ("c2", "click", "s2", 10)],
        [("c3", "click", "s3", 50)],
        [("c4", "click", "s4", 59)]])
    orders_path = _land(s, "orders", [
        [("o1", "order", "s1", 30)],
        [("o2", "order", "s2", 55), ("o3", "order", "s1", 59)],
        [("o4", "order", "s3", 59)]])
    clicks = (_events(s, clicks_path).withColumnRenamed("user_id", "session_id")
              .withColumnRenamed("ts", "clicked_at").withWatermark("clicked_at", "30 minutes")
              .alias("clicks"))
    orders = (_events(s, orders_path).withColumnRenamed("user_id", "session_id")
              .withColumnRenamed("ts", "occurred_at").withWatermark("occurred_at", "30 minutes")
              .alias("orders"))
    attributed = clicks.join(orders, F.expr(
        """clicks.session_id = orders.session_id
           and orders.occurred_at between clicks.clicked_at
                                      and clicks.clicked_at + interval 1 hour"""))
    df = attributed.select(F.col("clicks.event_id").alias("click"),
                           F.col("orders.event_id").alias("order"))
    return _result(s, _run(s, df, "attr"), "attr")


@case(show=False)
def inner_without_watermark(s):
    F = s.F
    views, buys = _views_buys(s, _land(s, "ev", EVENTS), watermark=False)
    df = views.join(buys, F.expr("v.user_id = b.user_id")).select(
        F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
    return _result(s, _run(s, df, "j_nowm"), "j_nowm")


@case(show=False)
def equal_windows_left_outer(s):
    F = s.F
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    v = views.select(F.col("user_id").alias("vu"), F.window("ts", "10 minutes").alias("vw"),
                     F.col("event_id").alias("view_id"))
    b = buys.select(F.col("user_id").alias("bu"), F.window("ts", "10 minutes").alias("bw"),
                    F.col("event_id").alias("buy_id"))
    df = v.join(b, F.expr("vu = bu AND vw = bw"), "left_outer").select(
        "view_id", "buy_id", F.col("vw.start").cast("string").alias("w"))
    return _result(s, _run(s, df, "j_win"), "j_win")


@case(show=False)
def one_side_condition_left_outer(s):
    F = s.F
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    df = views.join(buys, F.expr(WITHIN_5 + " AND v.user_id <> 'u3'"), "left_outer").select(
        F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
    return _result(s, _run(s, df, "j_side"), "j_side")


@case(show=False)
def sql_over_streaming_views(s):
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    views.createOrReplaceTempView("views_v")
    buys.createOrReplaceTempView("buys_v")
    df = s.spark.sql("""
        SELECT v.event_id AS view_id, b.event_id AS buy_id
        FROM views_v v LEFT OUTER JOIN buys_v b
          ON v.user_id = b.user_id AND b.ts BETWEEN v.ts AND v.ts + INTERVAL 5 MINUTES""")
    return _result(s, _run(s, df, "j_sql"), "j_sql")


@case(show=False)
def restart_between_batches(s):
    """Matches across a restart: the state written by the first run is read by the second."""
    F = s.F
    path = _land(s, "ev", EVENTS[:2])
    chk = os.path.join(s.tmp, "chk")
    out = os.path.join(s.tmp, "out")

    def run():
        views, buys = _views_buys(s, path)
        df = views.join(buys, F.expr(WITHIN_5), "left_outer").select(
            F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
        q = (df.writeStream.format("json").option("checkpointLocation", chk)
             .trigger(availableNow=True).start(out))
        q.awaitTermination()
        return q
    first = run()
    rows_first = sorted(tuple(r) for r in
                        s.spark.read.schema("view_id STRING, buy_id STRING").json(out).collect())
    _land(s, "ev", EVENTS[2:], start=2)
    second = run()
    return {"first": rows_first,
            "all": s.spark.read.schema("view_id STRING, buy_id STRING").json(out),
            "state": _state_summary(first) + _state_summary(second)}


def _start(s, df, mode="append"):
    q = (df.writeStream.format("memory").queryName("err").outputMode(mode)
         .trigger(availableNow=True).start())
    q.awaitTermination()


@case(show=False)
def update_mode_inner(s):
    """Spark 4.2 runs a stream-stream join in Update mode (its rows are final)."""
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    df = views.join(buys, s.F.expr(WITHIN_5)).select(
        s.F.col("v.event_id").alias("view_id"), s.F.col("b.event_id").alias("buy_id"))
    q = (df.writeStream.format("memory").queryName("j_upd").outputMode("update")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return _result(s, q, "j_upd")


@case
def error_without_equality(s):
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    _start(s, views.join(buys, s.F.expr("b.ts BETWEEN v.ts AND v.ts + INTERVAL 5 MINUTES")))


@case
def error_outer_without_watermark(s):
    views, buys = _views_buys(s, _land(s, "ev", EVENTS), watermark=False)
    _start(s, views.join(buys, s.F.expr(WITHIN_5), "left_outer"))


@case
def error_outer_equality_only(s):
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    _start(s, views.join(buys, s.F.expr("v.user_id = b.user_id"), "full_outer"))


@case
def error_left_anti(s):
    views, buys = _views_buys(s, _land(s, "ev", EVENTS))
    _start(s, views.join(buys, s.F.expr(WITHIN_5), "left_anti"))


pins({})
