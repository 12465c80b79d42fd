"""State as a table against real Spark: the same streaming aggregation and dedup run on each
engine into its own checkpoint, then spark.read.format("statestore") (the state after the
last batch, after batch 0, the change feed) and format("state-metadata") read that
checkpoint. The state files are each engine's own; the rows they decode to are compared
(value columns renamed by position: Spark names aggregation buffers its way, spate its)."""

import json
import os

from dsl import Differs, case

SCHEMA = "word STRING, n INT"
FILES = [[("a", 1), ("b", 2), ("a", 3)], [("a", 4), ("c", 5)], [("d", 6), ("b", 7)]]


def _run(s, df, mode="update"):
    src = os.path.join(s.tmp, "in")
    os.makedirs(src, exist_ok=True)
    for i, rows in enumerate(FILES):
        f = os.path.join(src, f"part-{i:04d}.json")
        with open(f, "w") as out:
            out.write("".join(json.dumps({"word": w, "n": n}) + "\n" for w, n in rows))
        os.utime(f, (1_700_000_000 + i, 1_700_000_000 + i))
    chk = os.path.join(s.tmp, "chk")
    stream = s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
    q = (df(stream).writeStream.format("noop").outputMode(mode)
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    return chk


def _counts(stream):
    return stream.groupBy("word").count()


@case
def statestore_aggregation_last_batch(s):
    chk = _run(s, _counts)
    return s.spark.read.format("statestore").load(chk).select("key.*", "value.*").toDF("word", "count")


@case(differs=Differs("D18", "rows", "b207cebb5f"))
def statestore_aggregation_partition_ids(s):
    chk = _run(s, _counts)
    return s.spark.read.format("statestore").load(chk).select("key.word", "partition_id")


@case
def statestore_aggregation_value_struct(s):
    chk = _run(s, _counts)
    return s.spark.read.format("statestore").load(chk).select("key", "value")


@case
def statestore_aggregation_batch_0(s):
    chk = _run(s, _counts)
    return (s.spark.read.format("statestore").option("batchId", 0).load(chk)
            .select("key.*", "value.*").toDF("word", "count"))


@case
def statestore_aggregation_change_feed(s):
    chk = _run(s, _counts)
    feed = (s.spark.read.format("statestore").option("readChangeFeed", "true")
            .option("changeStartBatchId", 1).load(chk))
    return feed.select("batch_id", "change_type", "key.*", "value.*").toDF(
        "batch_id", "change_type", "word", "count")


@case
def statestore_dedup_keys(s):
    chk = _run(s, lambda st: st.dropDuplicates(["word"]), mode="append")
    return s.spark.read.format("statestore").load(chk).select("key.*")


@case
def state_metadata_aggregation(s):
    chk = _run(s, _counts)
    return (s.spark.read.format("state-metadata").load(chk)
            .select("operatorId", "operatorName", "stateStoreName", "numPartitions",
                    "minBatchId", "maxBatchId"))


@case
def statestore_errors_negative_batch(s):
    chk = _run(s, _counts)
    return s.spark.read.format("statestore").option("batchId", -1).load(chk)


def _join(stream):
    left = stream.selectExpr("word AS lw", "n AS ln")
    right = stream.selectExpr("word AS rw", "n * 10 AS rn")
    return left.join(right, left.lw == right.rw)


@case
def statestore_join_left_side(s):
    chk = _run(s, _join, mode="append")
    return s.spark.read.format("statestore").option("joinSide", "left").load(chk).select("key.*", "value.*")


@case
def statestore_join_right_side(s):
    chk = _run(s, _join, mode="append")
    return s.spark.read.format("statestore").option("joinSide", "right").load(chk).select("key.*", "value.*")


@case
def state_metadata_join(s):
    chk = _run(s, _join, mode="append")
    return (s.spark.read.format("state-metadata").load(chk)
            .select("operatorId", "operatorName", "stateStoreName", "numPartitions",
                    "minBatchId", "maxBatchId"))


@case
def statestore_global_limit(s):
    chk = _run(s, lambda st: st.limit(4), mode="append")
    return s.spark.read.format("statestore").load(chk).select("value.*").toDF("count")


ROCKSDB = {"spark.sql.streaming.stateStore.providerClass":
           "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"}


def _tws_timers_checkpoint(s):
    """transformWithStateInPandas in event time: one timer per key at 12:00 + its last n hours."""
    import importlib
    import pandas as pd
    base = importlib.import_module(type(s.spark).__module__.split(".")[0] + ".sql.streaming").StatefulProcessor

    class Timers(base):
        def init(self, handle):
            self.handle = handle
            self.count = handle.getValueState("count", "c BIGINT")

        def handleInputRows(self, key, rows, timerValues):
            last = None
            for pdf in rows:
                last = int(pdf["n"].iloc[-1])
            for t in list(self.handle.listTimers()):
                self.handle.deleteTimer(t)
            self.handle.registerTimer(1767268800000 + last * 3600000)
            self.count.update((1,))
            yield pd.DataFrame({"word": [key[0]]})

        def close(self):
            pass

    src = os.path.join(s.tmp, "tws-in")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "part-0000.json"), "w") as out:
        for w, n, m in [("a", 1, 0), ("a", 2, 1), ("b", 3, 2)]:
            out.write(json.dumps({"word": w, "n": n, "ts": "2026-01-01T12:%02d:00Z" % m}) + "\n")
    chk = os.path.join(s.tmp, "tws-chk")
    q = (s.spark.readStream.schema("word STRING, n INT, ts TIMESTAMP").json(src)
         .withWatermark("ts", "1 minute").groupBy("word")
         .transformWithStateInPandas(Timers(), "word STRING", "Update", "EventTime")
         .writeStream.format("noop").outputMode("update")
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    return chk


@case(conf=ROCKSDB)
def statestore_transform_with_state_timers(s):
    chk = _tws_timers_checkpoint(s)
    return (s.spark.read.format("statestore").option("readRegisteredTimers", "true").load(chk)
            .select("key", "expiration_timestamp_ms"))


@case(conf=ROCKSDB)
def statestore_transform_with_state_needs_a_variable(s):
    chk = _tws_timers_checkpoint(s)
    return s.spark.read.format("statestore").load(chk).select("key")
