"""Delta's change data feed from Python: tables with delta.enableChangeDataFeed get
_change_data files from UPDATE / DELETE / MERGE, and readChangeFeed (batch and
streaming), table_changes and table_changes_by_path read the changes with
_change_type, _commit_version and _commit_timestamp, as delta-spark 4.4 does
(tests/differential/cases/delta_cdf.py compares both engines)."""

import datetime
import glob
import json
import os

import pytest

from spate.delta import DeltaTable
from spate.errors import AnalysisException, IllegalArgumentException
from spate.sql import functions as F


@pytest.fixture
def dspark(spark):
    s = spark.newSession()
    s.conf.set("spark.sql.shuffle.partitions", "1")
    return s


def changes(df):
    return sorted((r.id, r.v, r._change_type, r._commit_version)
                  for r in df.select("id", "v", "_change_type", "_commit_version").collect())


def make(spark, path):
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA "
              "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    return DeltaTable.forPath(spark, path)


def test_update_delete_merge_change_rows(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path)
    t.update(condition="id = 2", set={"v": "'B'"})
    t.delete("id = 3")
    src = dspark.createDataFrame([(1, "A"), (4, "d")], "id BIGINT, v STRING")
    (t.alias("t").merge(src.alias("s"), "t.id = s.id")
     .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
    feed = (dspark.read.format("delta").option("readChangeFeed", "true")
            .option("startingVersion", 2).load(path))
    assert feed.columns == ["id", "v", "_change_type", "_commit_version", "_commit_timestamp"]
    assert changes(feed) == [
        (1, "A", "update_postimage", 4), (1, "a", "update_preimage", 4),
        (2, "B", "update_postimage", 2), (2, "b", "update_preimage", 2),
        (3, "c", "delete", 3), (4, "d", "insert", 4)]
    # The commit timestamp is the commit's (as DESCRIBE HISTORY shows it).
    ts = {r.version: r.timestamp for r in t.history().collect()}
    assert {r._commit_version: r._commit_timestamp for r in feed.collect()} == \
        {v: ts[v] for v in (2, 3, 4)}
    # The change data files and the commits' cdc actions.
    assert len(glob.glob(os.path.join(path, "_change_data", "cdc-*.parquet"))) == 3
    with open(os.path.join(path, "_delta_log", "00000000000000000002.json")) as f:
        actions = [json.loads(line) for line in f]
    cdc = [a["cdc"] for a in actions if "cdc" in a]
    assert len(cdc) == 1 and cdc[0]["dataChange"] is False
    assert cdc[0]["path"].startswith("_change_data/cdc-00000-")
    info = [a["commitInfo"] for a in actions if "commitInfo" in a][0]
    assert info["operationMetrics"]["numAddedChangeFiles"] == "1"
    # The table itself is unchanged by the feed.
    assert sorted(tuple(r) for r in t.toDF().collect()) == [(1, "A"), (2, "B"), (4, "d")]


def test_sql_table_changes_and_ranges(dspark, tmp_path):
    dspark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "wh"))
    dspark.sql("CREATE TABLE cdf_t (id BIGINT, v STRING) USING DELTA "
               "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    dspark.sql("INSERT INTO cdf_t VALUES (1, 'a'), (2, 'b')")
    dspark.sql("DELETE FROM cdf_t WHERE id = 1")
    assert changes(dspark.sql("SELECT * FROM table_changes('cdf_t', 1, 1)")) == [
        (1, "a", "insert", 1), (2, "b", "insert", 1)]
    assert changes(dspark.sql("SELECT * FROM table_changes('cdf_t', 2)")) == [
        (1, "a", "delete", 2)]
    # read.option(...).table(name), batch and streaming.
    assert changes(dspark.read.option("readChangeFeed", "true").option("startingVersion", 2)
                   .table("cdf_t")) == [(1, "a", "delete", 2)]
    q = (dspark.readStream.option("readChangeFeed", "true").option("startingVersion", 2)
         .table("cdf_t").writeStream.format("memory").queryName("cdf_tbl")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert changes(dspark.table("cdf_tbl")) == [(1, "a", "delete", 2)]
    # Timestamps: from the start of time to now is everything.
    now = (datetime.datetime.now(datetime.timezone.utc)
           + datetime.timedelta(seconds=5)).strftime("%Y-%m-%d %H:%M:%S")
    assert len(changes(dspark.sql(
        f"SELECT * FROM table_changes('cdf_t', '2000-01-01', '{now}')"))) == 3
    with pytest.raises(IllegalArgumentException, match="DELTA_INVALID_CDC_RANGE"):
        dspark.sql("SELECT * FROM table_changes('cdf_t', 2, 1)").collect()
    with pytest.raises(IllegalArgumentException, match="DELTA_CDC_START_VERSION_AFTER_LATEST"):
        dspark.sql("SELECT * FROM table_changes('cdf_t', 9)").collect()
    with pytest.raises(AnalysisException, match="DELTA_NO_START_FOR_CDC_READ"):
        dspark.read.format("delta").option("readChangeFeed", "true").load(
            str(tmp_path / "wh" / "cdf_t"))


def test_missing_change_data(dspark, tmp_path):
    path = str(tmp_path / "plain")
    dspark.range(3).write.format("delta").save(path)
    with pytest.raises(AnalysisException, match="DELTA_MISSING_CHANGE_DATA"):
        dspark.read.format("delta").option("readChangeFeed", "true") \
            .option("startingVersion", 0).load(path).collect()


def test_session_default_enables_the_feed(dspark, tmp_path):
    dspark.conf.set("spark.databricks.delta.properties.defaults.enableChangeDataFeed", "true")
    path = str(tmp_path / "d")
    dspark.range(2).write.format("delta").save(path)
    DeltaTable.forPath(dspark, path).delete("id = 0")
    feed = (dspark.read.format("delta").option("readChangeFeed", "true")
            .option("startingVersion", 1).load(path))
    assert [(r.id, r._change_type) for r in feed.collect()] == [(0, "delete")]


def test_streaming_change_feed(dspark, tmp_path):
    path = str(tmp_path / "s")
    t = make(dspark, path)
    t.update(condition="id = 1", set={"v": "'A'"})
    # Without startingVersion: the snapshot's rows as inserts of its version, then changes.
    q = (dspark.readStream.format("delta").option("readChangeFeed", "true").load(path)
         .writeStream.format("memory").queryName("cdf_snap").start())
    q.processAllAvailable()
    t.delete("id = 2")
    q.processAllAvailable()
    q.stop()
    assert changes(dspark.table("cdf_snap")) == [
        (1, "A", "insert", 2), (2, "b", "delete", 3), (2, "b", "insert", 2),
        (3, "c", "insert", 2)]
    # From a version: the changes of every commit from there.
    q = (dspark.readStream.format("delta").option("readChangeFeed", "true")
         .option("startingVersion", 1).load(path)
         .writeStream.format("memory").queryName("cdf_from").trigger(availableNow=True).start())
    q.awaitTermination()
    assert changes(dspark.table("cdf_from")) == [
        (1, "A", "update_postimage", 2), (1, "a", "insert", 1), (1, "a", "update_preimage", 2),
        (2, "b", "delete", 3), (2, "b", "insert", 1), (3, "c", "insert", 1)]
