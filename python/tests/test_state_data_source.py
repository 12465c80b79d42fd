"""State as a table from Python: spark.read.format("statestore") and format("state-metadata")
over the checkpoint of a real streaming aggregation, as PySpark 4 has them (batchId,
readChangeFeed, Spark's STDS_* errors)."""
import json
import os

import pytest

from spate.sql import functions as F


@pytest.fixture(autouse=True)
def temp_dir(stream_tmpdir):
    return stream_tmpdir


def land(folder, name, words):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path + ".tmp", "w") as f:
        for w in words:
            f.write(json.dumps({"word": w}) + "\n")
    os.rename(path + ".tmp", path)


def test_statestore_and_state_metadata(spark, tmp_path):
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    counts = spark.readStream.schema("word STRING").json(src).groupBy("word").count()

    def run(name):
        q = (counts.writeStream.format("memory").queryName(name).outputMode("update")
             .option("checkpointLocation", chk).trigger(availableNow=True).start())
        q.awaitTermination()

    land(src, "a.json", ["a", "b", "a"])
    run("stds_py_1")
    land(src, "b.json", ["a", "c"])
    run("stds_py_2")

    state = spark.read.format("statestore").load(chk)
    assert state.columns == ["key", "value", "partition_id"]
    rows = sorted((r["key"]["word"], r["value"][0]) for r in state.collect())
    assert rows == [("a", 3), ("b", 1), ("c", 1)]
    first = spark.read.format("statestore").option("batchId", 0).load(chk)
    assert sorted((r.key.word, r.value[0]) for r in first.collect()) == [("a", 2), ("b", 1)]

    feed = (spark.read.format("statestore").option("readChangeFeed", True)
            .option("changeStartBatchId", 1).load(chk))
    assert feed.columns == ["batch_id", "change_type", "key", "value", "partition_id"]
    assert sorted((r.batch_id, r.change_type, r.key.word) for r in feed.collect()) == [
        (1, "update", "a"), (1, "update", "c")]

    meta = spark.read.format("state-metadata").load(chk).collect()
    assert [(m.operatorId, m.operatorName, m.stateStoreName, m.minBatchId, m.maxBatchId)
            for m in meta] == [(0, "stateStoreSave", "default", 0, 1)]

    with pytest.raises(Exception, match="STDS_INVALID_OPTION_VALUE"):
        spark.read.format("statestore").option("batchId", -1).load(chk)
    with pytest.raises(Exception, match="STDS_NO_PARTITION_DISCOVERED_IN_STATE_STORE"):
        spark.read.format("statestore").option("operatorId", 5).load(chk)


def test_transform_with_state_variables(spark, tmp_path):
    """stateVarName over a Row-based transformWithState: a ValueState, a ListState and a
    MapState read as Spark 4.2's columns, flattened and not; state-metadata carries the
    operator's properties."""
    from spate.sql import Row
    from spate.sql.streaming import StatefulProcessor

    class Words(StatefulProcessor):
        def init(self, handle):
            self.total = handle.getValueState("total", "t BIGINT")
            self.seen = handle.getListState("seen", "w STRING")
            self.per = handle.getMapState("per", "first STRING", "c INT")

        def handleInputRows(self, key, rows, timerValues):
            t = self.total.get()[0] if self.total.exists() else 0
            for r in rows:
                t += 1
                self.seen.appendValue((r.word,))
                first = (r.word[0],)
                old = self.per.getValue(first)[0] if self.per.containsKey(first) else 0
                self.per.updateValue(first, (old + 1,))
            self.total.update((t,))
            yield Row(word=key[0], t=t)

        def close(self):
            pass

    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    land(src, "a.json", ["ab", "b", "ab"])
    land(src, "b.json", ["ab", "c"])
    q = (spark.readStream.schema("word STRING").json(src).groupBy("word")
         .transformWithState(Words(), "word STRING, t LONG", "Update", "None")
         .writeStream.format("noop").outputMode("update")
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()

    def var(name, **opts):
        r = spark.read.format("statestore").option("stateVarName", name)
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load(chk)

    total = var("total")
    assert total.columns == ["key", "value", "partition_id"]
    assert sorted((r.key.word, r.value.t) for r in total.collect()) == [("ab", 3), ("b", 1), ("c", 1)]
    seen = var("seen")
    assert seen.columns == ["key", "list_element", "partition_id"]
    assert sorted((r.key.word, r.list_element.w) for r in seen.collect()) == [
        ("ab", "ab"), ("ab", "ab"), ("ab", "ab"), ("b", "b"), ("c", "c")]
    lists = var("seen", flattenCollectionTypes="false")
    assert sorted((r.key.word, len(r.list_value)) for r in lists.collect()) == [("ab", 3), ("b", 1), ("c", 1)]
    per = var("per")
    assert per.columns == ["key", "user_map_key", "user_map_value", "partition_id"]
    assert sorted((r.key.word, r.user_map_key.first, r.user_map_value.c) for r in per.collect()) == [
        ("ab", "a", 3), ("b", "b", 1), ("c", "c", 1)]
    with pytest.raises(Exception, match="State variable nope is not defined"):
        var("nope").collect()
    meta = spark.read.format("state-metadata").load(chk).collect()
    assert [m.operatorName for m in meta] == ["transformWithStateInPySparkExec"]
    props = json.loads(meta[0].operatorProperties)
    assert props["timeMode"] == "NoTime" and props["outputMode"] == "Update"
    assert sorted(v["stateName"] for v in props["stateVariables"]) == ["per", "seen", "total"]


def test_statestore_from_snapshot(spark, tmp_path):
    """snapshotStartBatchId + snapshotPartitionId: one partition's state rebuilt from a
    snapshot (the memory provider writes one every minDeltasForSnapshot versions)."""
    src, chk = str(tmp_path / "in"), str(tmp_path / "chk")
    spark.conf.set("spark.sql.streaming.stateStore.minDeltasForSnapshot", "1")
    try:
        counts = spark.readStream.schema("word STRING").json(src).groupBy("word").count()
        for i, words in enumerate([["a", "b", "a"], ["a", "c"], ["d"]]):
            land(src, f"{i}.json", words)
            (counts.writeStream.format("noop").outputMode("update").option("checkpointLocation", chk)
             .trigger(availableNow=True).start().awaitTermination())
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.minDeltasForSnapshot")
    full = spark.read.format("statestore").load(chk)
    parts = full.select("partition_id").distinct().count()
    rows = []
    for p in range(parts):
        part = (spark.read.format("statestore").option("snapshotStartBatchId", 0)
                .option("snapshotPartitionId", p).load(chk))
        assert {r.partition_id for r in part.collect()} <= {p}
        rows += [(r.key.word, r.value[0]) for r in part.collect()]
    assert sorted(rows) == sorted((r.key.word, r.value[0]) for r in full.collect())
    with pytest.raises(Exception, match="'snapshotPartitionId' must be specified"):
        spark.read.format("statestore").option("snapshotStartBatchId", 0).load(chk)
    with pytest.raises(Exception, match="SNAPSHOT_PARTITION_ID_NOT_FOUND"):
        (spark.read.format("statestore").option("snapshotStartBatchId", 0)
         .option("snapshotPartitionId", 99).load(chk).collect())
