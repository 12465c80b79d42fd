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
