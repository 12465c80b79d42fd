"""Stream-stream joins from Python: the seeds' queries as they write them (course 11.09's
view_then_buy over one bronze Delta table read twice, the article's click attribution over
two bronze tables), run with availableNow several times from one checkpoint while rows are
appended to the bronze tables between runs. The cumulative output must be what the
semantics give: matches found within a micro-batch, across micro-batches and across
restarts; late rows dropped; an outer join's NULL row only once the watermark passed.

The scenarios take the session and the functions module, so the same code runs on PySpark
(the expected answers here were checked against Spark 4.2 with delta-spark that way)."""

import pytest

from spate.errors import AnalysisException
from spate.sql import functions as F

BRONZE = "event_id STRING, event_type STRING, user_id STRING, event_ts TIMESTAMP"

# Rows appended to events_bronze before each run: (event_id, event_type, user_id, minute
# after 12:00). Run 2's e5 buys what run 1's e2 viewed (a match across a restart); run 3's
# e9/e10 are late (at or below the watermark, 12:20, left by run 2) and dropped.
EVENT_RUNS = [
    [("e1", "view", "u1", 0), ("e2", "view", "u2", 1), ("e3", "view", "u3", 2),
     ("e4", "buy", "u1", 3)],
    [("e5", "buy", "u2", 4), ("e6", "view", "u4", 30), ("e7", "buy", "u3", 40)],
    [("e8", "buy", "u4", 33), ("e9", "view", "u5", 5), ("e10", "buy", "u5", 6)],
]


def _ts(minute):
    return "TIMESTAMP'2026-01-01 %02d:%02d:00'" % (12 + minute // 60, minute % 60)


def _insert(spark, table, rows):
    values = ", ".join("(" + ", ".join([f"'{c}'" for c in r[:-1]] + [_ts(r[-1])]) + ")"
                       for r in rows)
    spark.sql(f"INSERT INTO {table} VALUES {values}")


def _write(df, table, cp):
    # The course's write helper (11.10): append, availableNow, into a table.
    q = (df.writeStream.outputMode("append")
         .option("checkpointLocation", cp)
         .trigger(availableNow=True).toTable(table))
    q.awaitTermination()
    return q


def _rows(spark, table):
    return sorted(tuple(r) for r in spark.table(table).collect())


def _seed_streams(spark):
    # Course 11.09, as written there.
    views = (spark.readStream.table("events_bronze").filter("event_type = 'view'")
             .withWatermark("event_ts", "10 minutes").alias("v"))
    buys = (spark.readStream.table("events_bronze").filter("event_type = 'buy'")
            .withWatermark("event_ts", "10 minutes").alias("b"))
    return views, buys


def view_then_buy_runs(spark, F, base, how="inner"):
    """The cumulative output of view_then_buy (or the same join as `how`) after each run,
    and each run's progress."""
    spark.sql(f"CREATE TABLE events_bronze ({BRONZE}) USING DELTA")
    outputs, progress = [], []
    for n, rows in enumerate(EVENT_RUNS):
        _insert(spark, "events_bronze", rows)
        views, buys = _seed_streams(spark)
        if how == "inner":
            view_then_buy = views.join(
                buys,
                F.expr("v.user_id = b.user_id AND b.event_ts BETWEEN v.event_ts AND v.event_ts + INTERVAL 5 MINUTES"),
                "inner",
            ).select(F.col("v.user_id"), F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
        else:
            view_then_buy = views.join(
                buys,
                F.expr("v.user_id = b.user_id AND b.event_ts BETWEEN v.event_ts AND v.event_ts + INTERVAL 5 MINUTES"),
                how,
            ).select(F.col("v.event_id").alias("view_id"), F.col("b.event_id").alias("buy_id"))
        q = _write(view_then_buy, "view_then_buy", f"{base}/_cp/vtb")
        outputs.append(_rows(spark, "view_then_buy"))
        progress.append(q.recentProgress)
    return outputs, progress


# Clicks and orders appended before each run: (id, session, minute after 12:00). o2 (run 2)
# is attributed to c2 (run 1) within the hour; o3 is 90 minutes after c1; run 3's c4/o5
# are late (the watermark after run 2 is min(13:00, 13:30) - 30 minutes = 12:30).
CLICK_RUNS = [
    ([("c1", "s1", 0), ("c2", "s2", 10)], [("o1", "s1", 30)]),
    ([("c3", "s3", 60)], [("o2", "s2", 65), ("o3", "s1", 90)]),
    ([("c4", "s4", 15)], [("o4", "s3", 119), ("o5", "s4", 20)]),
]


def attributed_runs(spark, F, base):
    spark.sql("CREATE SCHEMA IF NOT EXISTS bronze")
    spark.sql("CREATE TABLE bronze.clicks (click_id STRING, session_id STRING, clicked_at TIMESTAMP) USING DELTA")
    spark.sql("CREATE TABLE bronze.orders_stream (order_id STRING, session_id STRING, occurred_at TIMESTAMP) USING DELTA")
    outputs = []
    for clicks_rows, orders_rows in CLICK_RUNS:
        _insert(spark, "bronze.clicks", clicks_rows)
        _insert(spark, "bronze.orders_stream", orders_rows)
        # The article's streams; `orders.` in its condition names the DataFrame, which
        # Spark resolves only with that alias (the table qualifies as orders_stream).
        clicks = spark.readStream.table("bronze.clicks").withWatermark("clicked_at", "30 minutes")
        orders = (spark.readStream.table("bronze.orders_stream")
                  .withWatermark("occurred_at", "30 minutes").alias("orders"))
        attributed = clicks.join(orders,
            F.expr("""clicks.session_id = orders.session_id
                    and orders.occurred_at between clicks.clicked_at
                                               and clicks.clicked_at + interval 1 hour"""))
        out = attributed.select(F.col("clicks.session_id"), "click_id", "order_id")
        _write(out, "attributed", f"{base}/_cp/attributed")
        outputs.append(_rows(spark, "attributed"))
    return outputs


def sql_views_rows(spark, F, base):
    """The seed's two streams as temp views, joined in SQL, one availableNow run."""
    spark.sql(f"CREATE TABLE events_bronze ({BRONZE}) USING DELTA")
    for rows in EVENT_RUNS[:2]:
        _insert(spark, "events_bronze", rows)
    views, buys = _seed_streams(spark)
    views.createOrReplaceTempView("views")
    buys.createOrReplaceTempView("buys")
    df = spark.sql("""
        SELECT v.user_id, v.event_id AS view_id, b.event_id AS buy_id
        FROM views v JOIN buys b
          ON v.user_id = b.user_id
         AND b.event_ts BETWEEN v.event_ts AND v.event_ts + INTERVAL 5 MINUTES""")
    assert df.isStreaming
    q = (df.writeStream.format("memory").queryName("vtb_sql").outputMode("append")
         .option("checkpointLocation", f"{base}/_cp/sql").trigger(availableNow=True).start())
    q.awaitTermination()
    return sorted(tuple(r) for r in spark.sql("SELECT * FROM vtb_sql").collect())


@pytest.fixture
def wh(spark, tmp_path):
    s = spark.newSession()  # a warehouse of its own
    s.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return s


def _dropped(progress):
    return sum(o["numRowsDroppedByWatermark"] for p in progress for o in p["stateOperators"])


def test_view_then_buy_across_restarts(wh, tmp_path):
    outputs, progress = view_then_buy_runs(wh, F, str(tmp_path))
    assert outputs == [
        [("u1", "e1", "e4")],
        [("u1", "e1", "e4"), ("u2", "e2", "e5")],
        [("u1", "e1", "e4"), ("u2", "e2", "e5"), ("u4", "e6", "e8")],
    ]
    ops = [o for p in progress[0] for o in p["stateOperators"]]
    assert ops and {o["operatorName"] for o in ops} == {"symmetricHashJoin"}
    # Run 3's late view and purchase, one on each side, never reach the state.
    assert _dropped(progress[0]) == _dropped(progress[1]) == 0
    assert _dropped(progress[2]) == 2


def test_view_then_buy_left_outer_null_rows_after_the_watermark(wh, tmp_path):
    outputs, _ = view_then_buy_runs(wh, F, str(tmp_path), how="left_outer")
    # e2/e3 are unmatched after run 1 but the watermark (11:52) cannot rule out a purchase:
    # no NULL row yet. Run 2 matches e2 and moves the watermark to 12:20, past e3 + 5
    # minutes: e3's NULL row. e6 (12:30) is matched in run 3 and never gets one.
    assert outputs == [
        [("e1", "e4")],
        [("e1", "e4"), ("e2", "e5"), ("e3", None)],
        [("e1", "e4"), ("e2", "e5"), ("e3", None), ("e6", "e8")],
    ]


def test_attributed_across_restarts(wh, tmp_path):
    assert attributed_runs(wh, F, str(tmp_path)) == [
        [("s1", "c1", "o1")],
        [("s1", "c1", "o1"), ("s2", "c2", "o2")],
        [("s1", "c1", "o1"), ("s2", "c2", "o2"), ("s3", "c3", "o4")],
    ]


def test_attributed_as_written_names_no_table(wh):
    # The article's condition as printed reads `orders.session_id` while the DataFrame came
    # from bronze.orders_stream: Spark 4.2 refuses it with exactly this error.
    wh.sql("CREATE SCHEMA IF NOT EXISTS bronze")
    wh.sql("CREATE TABLE bronze.clicks (click_id STRING, session_id STRING, clicked_at TIMESTAMP) USING DELTA")
    wh.sql("CREATE TABLE bronze.orders_stream (order_id STRING, session_id STRING, occurred_at TIMESTAMP) USING DELTA")
    clicks = wh.readStream.table("bronze.clicks").withWatermark("clicked_at", "30 minutes")
    orders = wh.readStream.table("bronze.orders_stream").withWatermark("occurred_at", "30 minutes")
    with pytest.raises(AnalysisException) as e:
        clicks.join(orders,
            F.expr("""clicks.session_id = orders.session_id
                    and orders.occurred_at between clicks.clicked_at
                                               and clicks.clicked_at + interval 1 hour"""))
    assert "UNRESOLVED_COLUMN.WITH_SUGGESTION" in str(e.value)
    assert "`orders`.`session_id`" in str(e.value)
    assert "`orders_stream`.`session_id`" in str(e.value)
    # The tables' own names qualify the streams' columns, as in batch.
    ok = clicks.join(orders, F.expr("clicks.session_id = orders_stream.session_id AND "
                                    "orders_stream.occurred_at BETWEEN clicks.clicked_at AND "
                                    "clicks.clicked_at + INTERVAL 1 HOUR"))
    assert ok.select("clicks.session_id", "orders_stream.order_id").columns == [
        "session_id", "order_id"]


def test_sql_over_streaming_views(wh, tmp_path):
    assert sql_views_rows(wh, F, str(tmp_path)) == [("u1", "e1", "e4"), ("u2", "e2", "e5")]
