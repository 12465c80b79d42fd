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


def _tws_variables_checkpoint(s, ttl=False):
    """transformWithStateInPandas with a ValueState, a ListState and a MapState over two
    micro-batches (one file each); with `ttl` the variables have an hour's TTL (processing
    time, run with trigger once: Spark keeps running no-data batches to expire TTL state
    under availableNow)."""
    import pandas as pd
    base = _streaming_module(s).StatefulProcessor
    ms = 3600000 if ttl else None

    class Variables(base):
        def init(self, handle):
            extra = (ms,) if ms else ()
            self.total = handle.getValueState("total", "t BIGINT, note STRING", *extra)
            self.seen = handle.getListState("seen", "n INT", *extra)
            self.per = handle.getMapState("per", "mk STRING", "c INT, s BIGINT", *extra)

        def handleInputRows(self, key, rows, timerValues):
            t = self.total.get()[0] if self.total.exists() else 0
            for pdf in rows:
                for n in pdf["n"]:
                    n = int(n)
                    t += n
                    self.seen.appendValue((n,))
                    mk = ("odd",) if n % 2 else ("even",)
                    old = self.per.getValue(mk) if self.per.containsKey(mk) else (0, 0)
                    self.per.updateValue(mk, (int(old[0]) + 1, int(old[1]) + n))
            self.total.update((t, "w" + key[0]))
            yield pd.DataFrame({"word": [key[0]]})

        def close(self):
            pass

    src = os.path.join(s.tmp, "tws-vars-in")
    os.makedirs(src, exist_ok=True)
    chk = os.path.join(s.tmp, "tws-vars-chk")
    for i, rows in enumerate(FILES[:2]):
        with open(os.path.join(src, f"part-{i:04d}.json"), "w") as out:
            out.write("".join(json.dumps({"word": w, "n": n}) + "\n" for w, n in rows))
        w = (s.spark.readStream.schema(SCHEMA).json(src).groupBy("word")
             .transformWithStateInPandas(Variables(), "word STRING", "Update",
                                         "ProcessingTime" if ttl else "None")
             .writeStream.format("noop").outputMode("update").option("checkpointLocation", chk))
        q = w.trigger(once=True).start() if ttl else w.trigger(availableNow=True).start()
        q.awaitTermination()
    return chk


def _streaming_module(s):
    import importlib
    return importlib.import_module(type(s.spark).__module__.split(".")[0] + ".sql.streaming")


def _var(s, name, chk=None, **opts):
    """State variable `name` read from `chk` (default: a fresh _tws_variables_checkpoint)."""
    chk = chk or _tws_variables_checkpoint(s)
    r = s.spark.read.format("statestore").option("stateVarName", name)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load(chk)


@case(conf=ROCKSDB)
def statestore_tws_value_state(s):
    return _var(s, "total").select("key", "value")


@case(conf=ROCKSDB)
def statestore_tws_value_state_batch_0(s):
    return _var(s, "total", batchId=0).select("key", "value")


@case(conf=ROCKSDB)
def statestore_tws_list_state(s):
    return _var(s, "seen").select("key", "list_element")


@case(conf=ROCKSDB)
def statestore_tws_list_state_unflattened(s):
    return _var(s, "seen", flattenCollectionTypes="false").select("key", "list_value")


@case(conf=ROCKSDB)
def statestore_tws_map_state(s):
    return _var(s, "per").select("key", "user_map_key", "user_map_value")


@case(conf=ROCKSDB)
def statestore_tws_map_state_unflattened(s):
    df = _var(s, "per", flattenCollectionTypes="false")
    return df.selectExpr("key", "size(map_value) AS n", "map_value[named_struct('mk', 'odd')] AS odd",
                         "map_value[named_struct('mk', 'even')] AS even")


@case(conf=ROCKSDB)
def statestore_tws_unknown_variable(s):
    return _var(s, "nope").select("key")


@case(conf=ROCKSDB)
def statestore_tws_ttl_values(s):
    """With a TTL each value reads as struct<value, ttlExpirationMs> (the expiry is the run's
    clock plus the TTL: compared as a bound)."""
    chk = _tws_variables_checkpoint(s, ttl=True)
    out = {}
    for name, col in (("total", "value"), ("seen", "list_element"), ("per", "user_map_value")):
        df = _var(s, name, chk)
        out[name + "_schema"] = df.schema.simpleString()
        out[name] = df.selectExpr("key", f"{col}.value",
                                  f"{col}.ttlExpirationMs > unix_millis(current_timestamp()) AS live")
    return out


@case(conf=ROCKSDB)
def state_metadata_tws(s):
    chk = _tws_variables_checkpoint(s)
    return (s.spark.read.format("state-metadata").load(chk)
            .select("operatorId", "operatorName", "stateStoreName", "numPartitions",
                    "minBatchId", "maxBatchId", "operatorProperties"))


@case(conf=ROCKSDB)
def state_metadata_tws_ttl_and_timers(s):
    chk = _tws_variables_checkpoint(s, ttl=True)
    return s.spark.read.format("state-metadata").load(chk).select("operatorName", "operatorProperties")


def _schema_file(chk):
    """Spark's state schema v3 file of operator 0, parsed: per column family its name, key
    and value schema JSON, key encoder spec and user key schema. The secondary indexes only
    Spark's RocksDB layout keeps ($ttl_*, $min_*, $count_*, $rowCounter_*, timestampToKey)
    are left out (docs/state.md)."""
    import struct
    folder = os.path.join(chk, "state", "0", "_stateSchema", "default")
    names = sorted(n for n in os.listdir(folder) if not n.startswith("."))
    with open(os.path.join(folder, names[-1]), "rb") as f:
        b = f.read()
    at = [0]

    def take(n):
        at[0] += n
        return b[at[0] - n:at[0]]

    def utf():
        return take(struct.unpack(">H", take(2))[0]).decode()

    def chunked():
        return "".join(utf() for _ in range(struct.unpack(">i", take(4))[0]))

    out = {"version": utf(), "files": len(names)}
    families = []
    for _ in range(struct.unpack(">i", take(4))[0]):
        fam = {"name": utf()}
        fam["key_id"], fam["key"] = struct.unpack(">H", take(2))[0], chunked()
        fam["value_id"], fam["value"] = struct.unpack(">H", take(2))[0], chunked()
        fam["encoder"], fam["user_key"] = chunked(), chunked()
        if not fam["name"].startswith("$") or fam["name"].endswith("_keyToTimestamp"):
            families.append(fam)
    out["families"] = families
    out["trailing"] = len(b) - at[0]
    return out


@case(conf=ROCKSDB)
def tws_state_schema_file(s):
    """The state schema file both engines write for the variables (a restart with the same
    variables writes no second file) and the v2 operator metadata around it."""
    chk = _tws_variables_checkpoint(s)
    out = _schema_file(chk)
    meta = os.path.join(chk, "state", "0", "_metadata", "v2")
    out["metadata_files"] = sorted(n for n in os.listdir(meta) if not n.endswith(".crc"))
    with open(os.path.join(meta, out["metadata_files"][-1])) as f:
        version, doc = f.read().split("\n", 1)
    doc = json.loads(doc)
    for st in doc["stateStoreInfo"]:
        st["stateSchemaFilePaths"] = [os.path.basename(p).split("_")[0] for p in st["stateSchemaFilePaths"]]
    out["metadata"] = [version, doc]
    return out


@case(conf=ROCKSDB)
def tws_state_schema_file_ttl_and_timers(s):
    return _schema_file(_tws_variables_checkpoint(s, ttl=True))


def _snapshot_error(s, chk, with_message, **opts):
    """The error of reading `chk` with `opts`: Spark's error class, and with `with_message`
    its message (up to the SQLSTATE); a load error Spark raises in the task arrives wrapped
    (Py4JJavaError), so the class is found in the text."""
    import re
    r = s.spark.read.format("statestore")
    for k, v in opts.items():
        r = r.option(k, v)
    try:
        r.load(chk).collect()
        return "loaded"
    except Exception as e:
        text = str(e)
        m = re.search(r"\[((?:STDS|CANNOT_LOAD_STATE_STORE)[A-Z_.]*)\]", text)
        if not m:
            return "unexpected: " + text.splitlines()[0][:200]
        if not with_message:
            return m.group(1)
        return text[m.start():].split(" SQLSTATE")[0]


@case
def statestore_snapshot_option_errors(s):
    """snapshotStartBatchId / snapshotPartitionId: both or neither, non-negative, the start
    at most the batch read, not with readChangeFeed."""
    chk = _run(s, _counts)
    return {
        "no_partition": _snapshot_error(s, chk, True, snapshotStartBatchId=1),
        "no_start": _snapshot_error(s, chk, True, snapshotPartitionId=0),
        "negative_start": _snapshot_error(s, chk, True, snapshotStartBatchId=-1, snapshotPartitionId=0),
        "negative_partition": _snapshot_error(s, chk, True, snapshotStartBatchId=0, snapshotPartitionId=-1),
        "after_batch": _snapshot_error(s, chk, True, snapshotStartBatchId=2, snapshotPartitionId=0, batchId=1),
        "with_change_feed": _snapshot_error(s, chk, True, snapshotStartBatchId=0, snapshotPartitionId=0,
                                            readChangeFeed="true", changeStartBatchId=0),
    }


@case
def statestore_snapshot_missing(s):
    """The memory / HDFS provider writes a snapshot every minDeltasForSnapshot (10) versions:
    none after three batches, so reading from one fails; a partition the operator lacks too
    (the messages name each engine's own files)."""
    chk = _run(s, _counts)
    return {"missing": _snapshot_error(s, chk, False, snapshotStartBatchId=1, snapshotPartitionId=0),
            "partition": _snapshot_error(s, chk, False, snapshotStartBatchId=1, snapshotPartitionId=5)}


ROCKSDB_SNAPSHOTS = dict(ROCKSDB, **{
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false"})


@case(conf=ROCKSDB_SNAPSHOTS)
def statestore_snapshot_rocksdb_last_batch(s):
    """RocksDB without changelog checkpointing (Spark's default) keeps a snapshot of every
    version: each partition read from the last batch's equals the state (the partitions'
    union; which key lands in which partition differs, D18)."""
    chk = _run(s, _counts)
    parts = [s.spark.read.format("statestore").option("snapshotStartBatchId", 2)
             .option("snapshotPartitionId", p).load(chk) for p in range(2)]
    return parts[0].union(parts[1]).select("key.*", "value.*").toDF("word", "count")
