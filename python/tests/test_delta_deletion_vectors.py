"""Deletion vectors from Python: on a table with delta.enableDeletionVectors, DELETE / UPDATE /
MERGE (SQL and DeltaTable) mark rows in `deletion_vector_*.bin` files instead of rewriting
data files, the change data feed reads the rows a DV deletes, OPTIMIZE purges the DVs and
VACUUM keeps the DV files the table still needs; OPTIMIZE ... ZORDER BY and
DeltaTable.optimize().executeZOrderBy with Delta's errors
(tests/differential/cases/dml_dv.py compares both with delta-spark)."""

import glob
import json
import os

import pytest

from spate.delta import DeltaTable
from spate.errors import AnalysisException, IllegalArgumentException


@pytest.fixture
def dspark(spark):
    s = spark.newSession()
    s.conf.set("spark.sql.shuffle.partitions", "1")
    return s


def dv_table(spark, path, batches, props="'delta.enableDeletionVectors' = 'true'"):
    """id BIGINT, v STRING: one file per batch."""
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ({props})")
    for b in batches:
        spark.createDataFrame(b, "id BIGINT, v STRING").coalesce(1) \
            .write.format("delta").mode("append").save(path)
    return DeltaTable.forPath(spark, path)


def _key(action):
    """Log replay's key of a file: its path and its deletion vector."""
    dv = action.get("deletionVector") or {}
    return action["path"], dv.get("storageType"), dv.get("pathOrInlineDv"), dv.get("offset")


def active_adds(path):
    active = {}
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        for line in open(f):
            a = json.loads(line)
            if "add" in a:
                active[_key(a["add"])] = a["add"]
            elif "remove" in a:
                active.pop(_key(a["remove"]), None)
    return list(active.values())


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def metrics(t):
    return dict(t.history(1).collect()[0].operationMetrics)


def test_dml_writes_deletion_vectors(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = dv_table(dspark, path, [[(0, "a"), (1, "b"), (2, "c")], [(3, "d"), (4, "e")]])
    parquet = sorted(glob.glob(os.path.join(path, "*.parquet")))

    t.delete("id = 1")
    assert sorted(glob.glob(os.path.join(path, "*.parquet"))) == parquet  # nothing rewritten
    m = metrics(t)
    assert (m["numDeletedRows"], m["numDeletionVectorsAdded"], m["numCopiedRows"]) == ("1", "1", "0")
    dvs = [a["deletionVector"] for a in active_adds(path) if "deletionVector" in a]
    assert len(dvs) == 1 and dvs[0]["storageType"] == "u" and dvs[0]["cardinality"] == 1
    assert len(glob.glob(os.path.join(path, "deletion_vector_*.bin"))) == 1

    t.update("id = 3", {"v": "'z'"})
    m = metrics(t)
    assert (m["numUpdatedRows"], m["numAddedFiles"], m["numDeletionVectorsAdded"]) == ("1", "1", "1")

    src = dspark.createDataFrame([(2, "m"), (7, "n")], "id BIGINT, v STRING")
    t.alias("t").merge(src.alias("s"), "t.id = s.id") \
        .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute()
    m = metrics(t)
    assert (m["numTargetRowsUpdated"], m["numTargetRowsCopied"],
            m["numTargetDeletionVectorsUpdated"]) == ("1", "0", "1")
    expected = [(0, "a"), (2, "m"), (3, "z"), (4, "e"), (7, "n")]
    assert rows(t.toDF()) == expected

    # OPTIMIZE purges every DV (the rows stay).
    out = dspark.sql(f"OPTIMIZE delta.`{path}`").collect()[0].metrics
    assert out.deletionVectorStats.numDeletionVectorsRemoved == 2
    assert all("deletionVector" not in a for a in active_adds(path))
    assert rows(t.toDF()) == expected


def test_change_feed_of_deletion_vector_commits(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = dv_table(dspark, path, [[(1, "a"), (2, "b"), (3, "c")]],
                 "'delta.enableDeletionVectors' = 'true', 'delta.enableChangeDataFeed' = 'true'")
    dspark.sql(f"DELETE FROM delta.`{path}` WHERE id = 2")
    assert metrics(t)["numAddedChangeFiles"] == "0"  # the feed reads the DV, as Delta's
    dspark.sql(f"UPDATE delta.`{path}` SET v = 'x' WHERE id = 3")
    feed = dspark.read.format("delta").option("readChangeFeed", "true") \
        .option("startingVersion", 2).load(path)
    assert rows(feed.select("id", "v", "_change_type", "_commit_version")) == [
        (2, "b", "delete", 2), (3, "c", "update_preimage", 3), (3, "x", "update_postimage", 3)]


def test_vacuum_keeps_the_deletion_vectors_in_use(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = dv_table(dspark, path, [[(1, "a"), (2, "b")]])
    t.delete("id = 1")
    dspark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    t.vacuum(0)
    assert len(glob.glob(os.path.join(path, "deletion_vector_*.bin"))) == 1
    assert rows(t.toDF()) == [(2, "b")]
    t.optimize().executeCompaction()
    t.vacuum(0)
    assert glob.glob(os.path.join(path, "deletion_vector_*.bin")) == []
    assert rows(t.toDF()) == [(2, "b")]


def test_zorder(dspark, tmp_path):
    path = str(tmp_path / "z")
    for i in range(3):
        dspark.sql(f"SELECT CAST(id AS INT) AS x, CAST(id % 5 AS INT) AS y, CAST(id % 2 AS STRING) AS p "
                   f"FROM range({i * 4}, {i * 4 + 4})").coalesce(1) \
            .write.format("delta").mode("append").partitionBy("p").save(path)
    t = DeltaTable.forPath(dspark, path)
    before = rows(t.toDF())
    out = t.optimize().where("p = '1'").executeZOrderBy("x", "y").collect()[0].metrics
    assert (out.numFilesRemoved, out.numFilesAdded, out.zOrderStats.strategyName) == (3, 1, "all")
    h = t.history(1).collect()[0]
    assert (h.operation, h.operationParameters["zOrderBy"]) == ("OPTIMIZE", '["x","y"]')
    assert rows(t.toDF()) == before
    out = dspark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (y)").collect()[0].metrics
    assert out.numFilesRemoved == 4  # every file, single-file bins too
    assert rows(t.toDF()) == before

    with pytest.raises(IllegalArgumentException) as e:
        dspark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (p)")
    assert e.value.getErrorClass() == "DELTA_ZORDERING_ON_PARTITION_COLUMN"
    with pytest.raises(IllegalArgumentException) as e:
        t.optimize().executeZOrderBy(["nope"])
    assert e.value.getErrorClass() == "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST"
    dspark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '1')")
    with pytest.raises(AnalysisException) as e:
        t.optimize().executeZOrderBy("y")
    assert e.value.getErrorClass() == "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS"
