"""Stateful Structured Streaming from Python: withWatermark, windowed aggregation in the three
output modes, dropDuplicates / dropDuplicatesWithinWatermark, SQL over a streaming temp view,
progress stateOperators and eventTime, Spark's errors — as pyspark.sql does them."""
import json
import os

import pytest

from spate.errors import AnalysisException
from spate.sql import functions as F

SCHEMA = "ts TIMESTAMP, word STRING, v INT"


def land(folder, name, rows):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path + ".tmp", "w") as f:
        for ts, word, v in rows:
            f.write(json.dumps({"ts": "2026-01-01T12:%02d:00Z" % ts, "word": word, "v": v}) + "\n")
    os.rename(path + ".tmp", path)


@pytest.fixture(autouse=True)
def temp_dir(stream_tmpdir):
    return stream_tmpdir


def run_available_now(df, mode, chk, name):
    q = (df.writeStream.format("memory").queryName(name).outputMode(mode)
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    return q


def test_windowed_append_with_watermark_counts_late_rows(spark, tmp_path):
    src = str(tmp_path / "in")
    chk = str(tmp_path / "chk")
    events = spark.readStream.schema(SCHEMA).json(src)
    counts = (events.withWatermark("ts", "10 minutes")
              .groupBy(F.window("ts", "10 minutes"), "word").count()
              .select(F.col("window.start").cast("string").alias("start"), "word", "count"))
    land(src, "a.json", [(7, "a", 1), (8, "b", 1), (14, "a", 1), (25, "c", 1)])
    q = run_available_now(counts, "append", chk, "win_append")
    # One batch of data, then a no-data batch that applies the new watermark (12:15).
    rows = sorted(tuple(r) for r in spark.table("win_append").collect())
    assert rows == [("2026-01-01 12:00:00", "a", 1), ("2026-01-01 12:00:00", "b", 1)]
    progress = q.recentProgress
    assert [p["numInputRows"] for p in progress] == [4, 0]
    assert progress[-1]["eventTime"]["watermark"] == "2026-01-01T12:15:00.000Z"
    assert progress[0]["eventTime"]["max"] == "2026-01-01T12:25:00.000Z"
    op = q.lastProgress.stateOperators[0]
    assert op.operatorName == "stateStoreSave"
    assert op["numRowsTotal"] == 2  # [12:10, 12:20) a and [12:20, 12:30) c
    # A late row (its window ended before the watermark) is dropped and counted.
    land(src, "b.json", [(3, "a", 1), (45, "d", 1)])
    q = run_available_now(counts, "append", chk, "win_append2")
    assert q.recentProgress[0]["stateOperators"][0]["numRowsDroppedByWatermark"] == 1
    rows = sorted(tuple(r) for r in spark.table("win_append2").collect())
    assert rows == [("2026-01-01 12:10:00", "a", 1), ("2026-01-01 12:20:00", "c", 1)]


def test_complete_and_update_modes(spark, tmp_path):
    src = str(tmp_path / "in")
    land(src, "a.json", [(1, "x", 1), (2, "y", 2), (3, "x", 3)])
    events = spark.readStream.schema(SCHEMA).json(src)
    totals = events.groupBy("word").agg(F.sum("v").alias("total"), F.count("*").alias("n"))
    run_available_now(totals, "complete", str(tmp_path / "c"), "totals_c")
    assert sorted(tuple(r) for r in spark.table("totals_c").collect()) == [("x", 4, 2), ("y", 2, 1)]
    land(src, "b.json", [(4, "x", 10)])
    run_available_now(totals, "complete", str(tmp_path / "c"), "totals_c2")
    assert sorted(tuple(r) for r in spark.table("totals_c2").collect()) == [("x", 14, 3), ("y", 2, 1)]
    # Update mode writes only the keys the batch changed.
    run_available_now(totals, "update", str(tmp_path / "u"), "totals_u")
    land(src, "c.json", [(5, "y", 1)])
    run_available_now(totals, "update", str(tmp_path / "u"), "totals_u2")
    assert [tuple(r) for r in spark.table("totals_u2").collect()] == [("y", 3, 2)]


def test_global_aggregate_through_select_expr(spark, tmp_path):
    src = str(tmp_path / "in")
    land(src, "a.json", [(i, "w", 1) for i in range(10)])
    df = spark.readStream.schema(SCHEMA).json(src).selectExpr("count(*) AS n")
    with pytest.raises(AnalysisException, match="Append output mode not supported"):
        df.writeStream.format("memory").queryName("n_append").start()
    run_available_now(df, "complete", str(tmp_path / "c"), "n1")
    land(src, "b.json", [(i, "w", 1) for i in range(10)])
    run_available_now(df, "complete", str(tmp_path / "c"), "n2")
    assert spark.table("n2").collect()[0][0] == 20


def test_dedup_and_within_watermark(spark, tmp_path):
    src = str(tmp_path / "in")
    land(src, "a.json", [(0, "a", 1), (1, "a", 2), (2, "b", 3)])
    events = spark.readStream.schema(SCHEMA).json(src)
    run_available_now(events.dropDuplicates(["word"]).select("word", "v"), "append",
                      str(tmp_path / "d"), "dedup1")
    assert sorted(tuple(r) for r in spark.table("dedup1").collect()) == [("a", 1), ("b", 3)]
    within = (events.withWatermark("ts", "5 minutes").dropDuplicatesWithinWatermark(["word"])
              .select("word", "v"))
    q = run_available_now(within, "append", str(tmp_path / "w"), "dedup2")
    assert sorted(tuple(r) for r in spark.table("dedup2").collect()) == [("a", 1), ("b", 3)]
    assert q.lastProgress["stateOperators"][0]["operatorName"] == "dedupeWithinWatermark"
    with pytest.raises(AnalysisException, match="without watermark"):
        events.dropDuplicatesWithinWatermark(["word"]).writeStream.format("memory") \
            .queryName("nope").start()


def test_sql_over_streaming_view_and_errors(spark, tmp_path):
    src = str(tmp_path / "in")
    land(src, "a.json", [(1, "a", 1), (2, "a", 2)])
    spark.readStream.schema(SCHEMA).json(src).createOrReplaceTempView("py_events")
    agg = spark.sql("SELECT word, sum(v) AS s FROM py_events GROUP BY word")
    assert agg.isStreaming
    run_available_now(agg, "complete", str(tmp_path / "c"), "py_sql_agg")
    assert [tuple(r) for r in spark.table("py_sql_agg").collect()] == [("a", 3)]
    ranked = spark.sql("SELECT word, row_number() OVER (PARTITION BY word ORDER BY ts) AS rn "
                       "FROM py_events")
    with pytest.raises(AnalysisException, match="NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"):
        ranked.writeStream.format("memory").queryName("ranked").start()
    with pytest.raises(AnalysisException, match="EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"):
        spark.readStream.schema(SCHEMA).json(src).withWatermark("v", "1 minute")


def test_session_windows_merge_across_runs(spark, tmp_path):
    src = str(tmp_path / "in")
    chk = str(tmp_path / "chk")
    events = spark.readStream.schema(SCHEMA).json(src)
    sessions = (events.groupBy("word", F.session_window("ts", "5 minutes")).count()
                .select("word", F.col("session_window.start").cast("string").alias("s"),
                        F.col("session_window.end").cast("string").alias("e"), "count"))
    land(src, "a.json", [(0, "u", 1), (10, "u", 1)])
    run_available_now(sessions, "complete", chk, "sess1")
    assert sorted(tuple(r) for r in spark.table("sess1").collect()) == [
        ("u", "2026-01-01 12:00:00", "2026-01-01 12:05:00", 1),
        ("u", "2026-01-01 12:10:00", "2026-01-01 12:15:00", 1)]
    # 12:04 and 12:07 bridge the two sessions in a later run.
    land(src, "b.json", [(4, "u", 1), (7, "u", 1)])
    run_available_now(sessions, "complete", chk, "sess2")
    assert [tuple(r) for r in spark.table("sess2").collect()] == [
        ("u", "2026-01-01 12:00:00", "2026-01-01 12:15:00", 4)]
    with pytest.raises(AnalysisException, match="session window"):
        sessions.writeStream.outputMode("update").format("memory").queryName("sess_u").start()


def test_complete_mode_into_a_delta_table(spark, tmp_path):
    src = str(tmp_path / "in")
    chk = str(tmp_path / "chk")
    land(src, "a.json", [(1, "x", 1), (2, "y", 2)])
    totals = spark.readStream.schema(SCHEMA).json(src).groupBy("word").agg(F.sum("v").alias("s"))
    table = str(tmp_path / "totals")

    def run():
        q = (totals.writeStream.format("delta").outputMode("complete")
             .option("checkpointLocation", chk).trigger(availableNow=True).start(table))
        q.awaitTermination()
        return sorted(tuple(r) for r in spark.read.format("delta").load(table).collect())

    assert run() == [("x", 1), ("y", 2)]
    land(src, "b.json", [(3, "x", 5)])
    # Each batch overwrites the table with the whole result.
    assert run() == [("x", 6), ("y", 2)]
    from spate.delta import DeltaTable
    history = DeltaTable.forPath(spark, table).history().collect()
    assert [h["operation"] for h in history] == ["STREAMING UPDATE", "STREAMING UPDATE"]
    assert history[0]["operationParameters"]["outputMode"] == "Complete"
    with pytest.raises(AnalysisException, match="DELTA_UNSUPPORTED_OUTPUT_MODE"):
        totals.writeStream.format("delta").outputMode("update") \
            .option("checkpointLocation", str(tmp_path / "u")).start(str(tmp_path / "t2"))
