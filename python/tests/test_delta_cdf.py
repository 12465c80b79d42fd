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
    # Timestamps: from the start of time to the last commit is everything; an end past
    # the last commit is an error unless timestampOutOfRange.enabled (as delta-spark).
    last = max(r.timestamp for r in dspark.sql("DESCRIBE HISTORY cdf_t").collect())
    assert len(changes(dspark.sql(
        f"SELECT * FROM table_changes('cdf_t', '2000-01-01', '{last}')"))) == 3
    now = (datetime.datetime.now(datetime.timezone.utc)
           + datetime.timedelta(seconds=5)).strftime("%Y-%m-%d %H:%M:%S")
    with pytest.raises(AnalysisException, match="DELTA_TIMESTAMP_GREATER_THAN_COMMIT"):
        dspark.sql(f"SELECT * FROM table_changes('cdf_t', '2000-01-01', '{now}')")
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


def feed(spark, path, start, end=None):
    r = spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", start)
    if end is not None:
        r = r.option("endingVersion", end)
    return r.load(path)


def test_feed_enabled_later_by_alter_table(dspark, tmp_path):
    """ALTER TABLE ... SET TBLPROPERTIES turns the feed on: reads from that version on
    work, earlier ones fail (batch and streaming), as in delta-spark; the commit is a
    blind append with the changeDataFeed feature."""
    path = str(tmp_path / "later")
    dspark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA")
    dspark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b')")
    dspark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES "
               "('delta.enableChangeDataFeed' = 'true')")
    dspark.sql(f"UPDATE delta.`{path}` SET v = 'B' WHERE id = 2")
    for start in (0, 1):
        with pytest.raises(AnalysisException, match="DELTA_MISSING_CHANGE_DATA"):
            feed(dspark, path, start).collect()
    assert changes(feed(dspark, path, 2)) == [(2, "B", "update_postimage", 3),
                                              (2, "b", "update_preimage", 3)]
    h = DeltaTable.forPath(dspark, path).history(2).collect()[1]
    assert (h.operation, h.isBlindAppend) == ("SET TBLPROPERTIES", True)
    q = (dspark.readStream.format("delta").option("readChangeFeed", "true")
         .option("startingVersion", 1).load(path)
         .writeStream.format("memory").queryName("cdf_later").trigger(availableNow=True).start())
    with pytest.raises(Exception, match="DELTA_MISSING_CHANGE_DATA"):
        q.awaitTermination()
    # Reserved column names: the feed cannot be turned on over them.
    other = str(tmp_path / "reserved")
    dspark.sql(f"CREATE TABLE delta.`{other}` (id BIGINT, _change_type STRING) USING DELTA")
    with pytest.raises(Exception, match="DELTA_TABLE_ALREADY_CONTAINS_CDC_COLUMNS"):
        dspark.sql(f"ALTER TABLE delta.`{other}` SET TBLPROPERTIES "
                   "('delta.enableChangeDataFeed' = 'true')")
    with pytest.raises(Exception, match="RESERVED_CDC_COLUMNS_ON_WRITE"):
        (dspark.createDataFrame([(9, 1)], "id BIGINT, _commit_version BIGINT").write
         .format("delta").mode("append").option("mergeSchema", "true").save(path))


def test_batch_reads_check_schema_changes(dspark, tmp_path):
    """Batch reads take the table's latest schema; a schema in the range it cannot read is
    DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE (a metaData action after the start)
    or _DATA_SCHEMA (the start's), as delta-spark 4.4."""
    path = str(tmp_path / "evo")
    make(dspark, path)  # 0, 1
    (dspark.createDataFrame([(4, "d", 40)], "id BIGINT, v STRING, w INT").write
     .format("delta").mode("append").option("mergeSchema", "true").save(path))  # 2
    # An added column: older versions read with NULLs in it.
    f = feed(dspark, path, 1, 1)
    assert f.columns[:3] == ["id", "v", "w"]
    assert sorted((r.id, r.w) for r in f.collect()) == [(1, None), (2, None), (3, None)]
    (dspark.createDataFrame([(5, 50)], "id BIGINT, w INT").write.format("delta")
     .mode("overwrite").option("overwriteSchema", "true").save(path))  # 3: v dropped
    with pytest.raises(Exception, match="DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE"):
        feed(dspark, path, 0).collect()
    with pytest.raises(Exception, match="DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_DATA_SCHEMA"):
        feed(dspark, path, 2, 2).collect()
    assert sorted((r.id, r._change_type) for r in feed(dspark, path, 3).collect()) == [
        (1, "delete"), (2, "delete"), (3, "delete"), (4, "delete"), (5, "insert")]
    dspark.conf.set("spark.databricks.delta.changeDataFeed."
                    "unsafeBatchReadOnIncompatibleSchemaChanges.enabled", "true")
    assert sorted(r.id for r in feed(dspark, path, 2, 2).collect()) == [4]


def test_timestamps_out_of_range(dspark, tmp_path):
    path = str(tmp_path / "ts")
    make(dspark, path)

    def read(**opts):
        r = dspark.read.format("delta").option("readChangeFeed", "true")
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load(path).collect()
    future, past = "2099-01-01 00:00:00", "2000-01-01 00:00:00"
    with pytest.raises(AnalysisException, match="DELTA_TIMESTAMP_GREATER_THAN_COMMIT"):
        read(startingVersion=0, endingTimestamp=future)
    with pytest.raises(AnalysisException, match="DELTA_TIMESTAMP_EARLIER_THAN_COMMIT"):
        read(startingVersion=0, endingTimestamp=past)
    dspark.conf.set("spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled", "true")
    assert read(startingTimestamp=future) == []
    assert read(startingVersion=9) == []
    assert len(read(startingVersion=0, endingTimestamp=future)) == 3
    with pytest.raises(AnalysisException, match="DELTA_TIMESTAMP_EARLIER_THAN_COMMIT"):
        read(startingVersion=0, endingTimestamp=past)


def test_streams_start_at_a_timestamp_and_stop_at_schema_changes(dspark, tmp_path):
    path = str(tmp_path / "st")
    make(dspark, path)  # 0, 1
    ts = DeltaTable.forPath(dspark, path).history().collect()
    one = {r.version: r.timestamp for r in ts}[1]
    dspark.sql(f"INSERT INTO delta.`{path}` VALUES (4, 'd')")  # 2
    q = (dspark.readStream.format("delta").option("startingTimestamp", str(one)).load(path)
         .writeStream.format("memory").queryName("ts_start").trigger(availableNow=True).start())
    q.awaitTermination()
    assert sorted(r.id for r in dspark.table("ts_start").collect()) == [1, 2, 3, 4]
    q = (dspark.readStream.format("delta").option("startingTimestamp", "2099-01-01").load(path)
         .writeStream.format("memory").queryName("ts_future").trigger(availableNow=True).start())
    with pytest.raises(Exception, match="DELTA_TIMESTAMP_GREATER_THAN_COMMIT"):
        q.awaitTermination()
    # A column added while the stream runs: the batch before it is emitted, then the
    # query fails (a restart reads the new schema).
    for cdf in ("false", "true"):
        path = str(tmp_path / ("evo_" + cdf))
        make(dspark, path)
        q = (dspark.readStream.format("delta").option("readChangeFeed", cdf).load(path)
             .writeStream.format("memory").queryName("evo_" + cdf).start())
        q.processAllAvailable()
        dspark.sql(f"INSERT INTO delta.`{path}` VALUES (5, 'e')")
        (dspark.createDataFrame([(6, "f", 1)], "id BIGINT, v STRING, w INT").write
         .format("delta").mode("append").option("mergeSchema", "true").save(path))
        with pytest.raises(Exception, match="DELTA_SCHEMA_CHANGED_WITH_VERSION"):
            q.processAllAvailable()
        q.stop()
        assert 5 in [r.id for r in dspark.table("evo_" + cdf).collect()]
        assert 6 not in [r.id for r in dspark.table("evo_" + cdf).collect()]


def test_merge_deleting_a_row_matched_twice_writes_one_delete(dspark, tmp_path):
    """An unconditional DELETE clause lets several source rows match one target row; the
    feed has one delete per target row (delta-spark 4.4), also with deletion vectors."""
    for dv in ("false", "true"):
        path = str(tmp_path / ("dup" + dv))
        dspark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA "
                   "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', "
                   f"'delta.enableDeletionVectors' = '{dv}')")
        dspark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (1, 'a'), (2, 'b'), (3, 'c')")
        dspark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1L), (1L), (2L), "
                   "(2L), (2L) AS s(id)) s ON t.id = s.id WHEN MATCHED THEN DELETE")
        assert changes(feed(dspark, path, 2)) == [
            (1, "a", "delete", 2), (1, "a", "delete", 2), (2, "b", "delete", 2)], dv
