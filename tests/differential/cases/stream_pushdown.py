"""Filters Spark's optimizer moves in streaming plans (PushPredicateThroughJoin,
PushPredicateThroughNonJoin): one-side conjuncts of a stream-stream join's ON condition and
of a WHERE above it go into the side they read, where the join type allows (so the join
state holds only rows that can match), and a filter that does not read the event-time
column goes below withWatermark (so the watermark comes from the rows that pass it). Each
case lands its events as files read one per micro-batch on both engines; rows, the
per-batch state numbers and the per-batch watermarks are compared."""

import json
import os

from dsl import pins, Differs, case

EVENT_SCHEMA = "id STRING, kind STRING, user STRING, amount INT, ts TIMESTAMP"


def _t(m, s=0):
    return "2026-01-01T12:%02d:%02dZ" % (m, s)


# Per file: (id, kind, user, amount, minute). Views and buys of users u1..u6; the buys of
# u9 (amount 0) carry the latest event times of their files.
EVENTS = [
    [("e1", "view", "u1", 5, 0), ("e2", "view", "u2", 0, 1), ("e3", "view", "u3", 7, 2),
     ("e4", "buy", "u1", 10, 3), ("e5", "buy", "u4", 0, 4), ("e6", "buy", "u9", 0, 30)],
    [("e7", "view", "u5", 3, 20), ("e8", "buy", "u2", 20, 5), ("e9", "buy", "u5", 0, 22),
     ("e10", "view", "u4", 9, 21), ("e11", "buy", "u9", 0, 50)],
    [("e12", "view", "u6", 4, 40), ("e13", "view", "u1", 2, 5), ("e14", "buy", "u3", 6, 6),
     ("e15", "buy", "u6", 1, 41), ("e16", "buy", "u5", 8, 24), ("e17", "view", "u9", 0, 59)],
    [("e18", "view", "u2", 6, 45), ("e19", "buy", "u2", 3, 46), ("e20", "buy", "u9", 0, 58)],
]


def _land(s, folder="ev", files=EVENTS):
    path = os.path.join(s.tmp, folder)
    os.makedirs(path, exist_ok=True)
    for n, rows in enumerate(files):
        f = os.path.join(path, f"part-{n:04d}.json")
        with open(f, "w") as out:
            for e, kind, user, amount, minute in rows:
                out.write(json.dumps({"id": e, "kind": kind, "user": user, "amount": amount,
                                      "ts": _t(minute)}) + "\n")
        os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))
    return path


def _events(s, path, watermark="10 minutes"):
    df = s.spark.readStream.schema(EVENT_SCHEMA).option("maxFilesPerTrigger", 1).json(path)
    return df.withWatermark("ts", watermark) if watermark else df


def _sides(s, watermark="10 minutes"):
    path = _land(s)
    views = _events(s, path, watermark).filter("kind = 'view'").alias("v")
    buys = _events(s, path, watermark).filter("kind = 'buy'").alias("b")
    return views, buys


def _state(q):
    return [[(o["operatorName"], o["numRowsTotal"], o["numRowsUpdated"], o["numRowsRemoved"],
              o["numRowsDroppedByWatermark"])
             for o in p["stateOperators"]] for p in q.recentProgress]


def _watermark(p):
    try:
        return p["eventTime"].get("watermark")
    except KeyError:
        return None


def _run(s, df, name, mode="append"):
    q = (df.writeStream.format("memory").queryName(name).outputMode(mode)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return {"rows": s.spark.sql(f"SELECT * FROM {name}"), "state": _state(q),
            "watermarks": [_watermark(p) for p in q.recentProgress]}


RANGE = "v.user = b.user AND b.ts BETWEEN v.ts AND v.ts + INTERVAL 10 MINUTES"

# (join type, extra ON conjuncts, WHERE above the join): one-side conjuncts of each side
# in each place; the cases' names say where.
JOINS = {
    "inner_on_both_sides": ("inner", "v.amount > 2 AND b.amount > 0", None),
    "inner_where_both_sides": ("inner", "", "v.amount > 2 AND b.amount > 0"),
    "inner_where_across_sides": ("inner", "", "b.amount > v.amount AND v.user <> 'u6'"),
    "left_outer_on_right_side": ("left_outer", "b.amount > 0", None),
    "left_outer_on_left_side": ("left_outer", "v.amount > 2", None),
    "left_outer_where_left_side": ("left_outer", "", "v.amount > 2"),
    "left_outer_where_right_side_is_null": ("left_outer", "", "b.amount IS NULL OR b.amount > 5"),
    "left_outer_where_right_side": ("left_outer", "", "b.amount > 0"),
    "full_outer_where_left_side": ("full_outer", "", "v.amount > 2"),
    "right_outer_on_left_side": ("right_outer", "v.amount > 2", None),
    "right_outer_where_right_side": ("right_outer", "", "b.amount > 0"),
    "full_outer_on_both_sides": ("full_outer", "v.amount > 2 AND b.amount > 0", None),
    "left_semi_on_both_sides": ("left_semi", "v.amount > 2 AND b.amount > 0", None),
}

for cname, (how, on, where) in JOINS.items():
    def join_case(s, how=how, on=on, where=where, cname=cname):
        F = s.F
        views, buys = _sides(s)
        df = views.join(buys, F.expr(RANGE + (" AND " + on if on else "")), how)
        if where:
            df = df.where(where)
        if how == "left_semi":
            df = df.select(F.col("id").alias("view_id"))
        else:
            df = df.select(F.col("v.id").alias("view_id"), F.col("b.id").alias("buy_id"))
        return _run(s, df, "j_" + cname)
    join_case.__name__ = cname
    case(show=False)(join_case)


@case(show=False)
def inner_without_watermark_sql_where(s):
    """Nexmark q3's shape: an equi-join without time bounds, one-side WHERE conjuncts (SQL)."""
    views, buys = _sides(s, watermark=None)
    views.createOrReplaceTempView("pv")
    buys.createOrReplaceTempView("pb")
    df = s.spark.sql("""
        SELECT v.id AS view_id, b.id AS buy_id FROM pv AS v JOIN pb AS b ON v.user = b.user
        WHERE v.amount > 2 AND (b.user = 'u1' OR b.user = 'u2' OR b.user = 'u5')""")
    return _run(s, df, "j_q3")


@case(show=False)
def inner_where_equality_is_the_key(s):
    """A join without a condition under a WHERE that equates the sides: the equality
    becomes the join key and the range bounds the state (Spark's ExtractEquiJoinKeys on
    the optimized plan)."""
    F = s.F
    views, buys = _sides(s)
    df = views.join(buys).where(RANGE + " AND b.amount > 0").select(
        F.col("v.id").alias("view_id"), F.col("b.id").alias("buy_id"))
    return _run(s, df, "j_key")


@case(show=False)
def where_through_select_into_join(s):
    """A WHERE over a projection of the join's columns moves through it."""
    F = s.F
    views, buys = _sides(s)
    df = (views.join(buys, F.expr(RANGE))
          .select(F.col("v.id").alias("view_id"), F.col("b.id").alias("buy_id"),
                  (F.col("b.amount") * 2).alias("twice"))
          .where("twice > 10"))
    return _run(s, df, "j_proj")


# ---- The watermark after a filter Spark moves below withWatermark.

def _watermarked(s, delay="5 minutes"):
    return _events(s, _land(s), delay)


@case(show=False)
def watermark_after_filter(s):
    """A filter that drops the rows of the latest event times (u9's): Spark's watermark
    comes from the other rows."""
    df = _watermarked(s).filter("user <> 'u9'").select("id", "ts")
    return _run(s, df, "wm_filter")


@case(show=False)
def watermark_after_filter_sql(s):
    _watermarked(s).createOrReplaceTempView("wev")
    df = s.spark.sql("SELECT id, ts FROM wev WHERE amount > 0")
    return _run(s, df, "wm_filter_sql")


@case(show=False)
def watermark_after_filter_through_select(s):
    F = s.F
    df = (_watermarked(s).select("id", "ts", (F.col("amount") + 1).alias("a1"))
          .where("a1 > 1"))
    return _run(s, df, "wm_select")


@case(show=False)
def watermark_filter_on_event_time_stays(s):
    """A conjunct over the event-time column stays above withWatermark (the watermark
    comes from every row); the other conjunct moves."""
    df = _watermarked(s).filter(
        "ts < TIMESTAMP '2026-01-01 12:29:00' AND user <> 'u2'").select("id", "ts")
    return _run(s, df, "wm_ts")


@case(show=False)
def watermark_nondeterministic_filter_stays(s):
    df = _watermarked(s).filter("rand(7) >= 0 AND user <> 'u9'").select("id", "ts")
    return _run(s, df, "wm_rand")


@case(show=False)
def windowed_count_after_filter(s):
    """The rows of a windowed aggregation when the filter removes the late maximum event
    times: Spark's lower watermark keeps the windows open longer and counts rows that a
    watermark over every row would have dropped as late."""
    F = s.F
    df = (_watermarked(s, "2 minutes").where("amount > 0")
          .groupBy(F.window("ts", "10 minutes")).agg(F.count("*").alias("n"),
                                                      F.sum("amount").alias("total"))
          .select(F.col("window.start").cast("string").alias("w"), "n", "total"))
    return _run(s, df, "wm_agg")


@case(show=False)
def windowed_count_after_filter_update(s):
    F = s.F
    df = (_watermarked(s, "2 minutes").where("user <> 'u9'")
          .groupBy(F.window("ts", "10 minutes"), "kind").count()
          .select(F.col("window.start").cast("string").alias("w"), "kind", "count"))
    return _run(s, df, "wm_agg_upd", mode="update")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'full_outer_on_both_sides': Differs("D25", "rows.rows", "1654bb5364"),
    'inner_where_across_sides': Differs("D24", "state.value", "4287ef8030"),
    'inner_without_watermark_sql_where': Differs("D24", "state.value", "02127543c4"),
    'left_outer_on_left_side': Differs("D25", "rows.rows", "eef01b1b1a"),
})
