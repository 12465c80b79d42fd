"""UPDATE, DELETE, RESTORE, OPTIMIZE and VACUUM of Delta tables from Python: delta-spark's
DeltaTable.update(condition=, set=) / delete(condition) / restoreToVersion /
restoreToTimestamp / optimize().where().executeCompaction() / vacuum(hours), their SQL
forms, copy-on-write (only files with matching rows are rewritten; a DELETE on
partition columns removes files unread), history entries and result rows as delta-spark
4.4 writes them (tests/differential/cases/dml.py compares both engines)."""

import json
import os

import pytest

from spate.delta import DeltaTable
from spate.errors import AnalysisException, IllegalArgumentException
from spate.sql import functions as F
from test_delta_merge import racing_udf


@pytest.fixture
def dspark(spark):
    s = spark.newSession()
    s.conf.set("spark.sql.shuffle.partitions", "1")
    s.conf.set("spark.default.parallelism", "2")
    return s


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def make(spark, path, batches, ddl="id INT, v STRING", partition_by=None):
    """One file per batch."""
    for b in batches:
        w = spark.createDataFrame(b, ddl).coalesce(1).write.format("delta").mode("append")
        if partition_by:
            w = w.partitionBy(partition_by)
        w.save(path)
    return DeltaTable.forPath(spark, path)


def last(t):
    h = t.history(1).collect()[0]
    return h.version, h.operation, dict(h.operationParameters), dict(h.operationMetrics)


def versions(t):
    return len(t.history().collect())


def test_update_api_string_and_column_forms(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, "a"), (2, "b")], [(3, "c")], [(4, "d")]])
    assert t.update(condition="id > 2", set={"v": "'z'"}) is None
    version, op, params, metrics = last(t)
    assert (version, op, params["predicate"]) == (3, "UPDATE", '["(id > 2)"]')
    assert {k: metrics[k] for k in ("numUpdatedRows", "numCopiedRows", "numRemovedFiles",
                                    "numAddedFiles")} == {
        "numUpdatedRows": "2", "numCopiedRows": "0", "numRemovedFiles": "2",
        "numAddedFiles": "2"}
    # Column forms; an unconditional update rewrites every file.
    t.update(F.col("id") == 1, {"v": F.upper(F.col("v"))})
    t.update(set={"id": F.col("id") * 10})
    assert rows(t.toDF()) == [(10, "A"), (20, "b"), (30, "z"), (40, "z")]
    assert last(t)[2]["predicate"] == "[]"
    # Matching nothing commits nothing.
    n = versions(t)
    t.update("id < 0", {"v": "'never'"})
    assert versions(t) == n
    with pytest.raises(AnalysisException) as e:
        t.update("id > 0", {"nope": "1"})
    assert e.value.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_delete_rewrites_only_touched_files(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, "a"), (2, "b")], [(3, "c")]])
    untouched = {a["add"]["path"] for a in
                 (json.loads(l) for l in open(os.path.join(path, "_delta_log",
                                                           "00000000000000000001.json")))
                 if "add" in a}
    t.delete("id = 1")
    version, op, params, metrics = last(t)
    assert (op, params["predicate"]) == ("DELETE", '["(id = 1)"]')
    assert (metrics["numDeletedRows"], metrics["numCopiedRows"], metrics["numRemovedFiles"],
            metrics["numAddedFiles"]) == ("1", "1", "1", "1")
    # The file without matches is still active; the other was rewritten.
    active = {r.f for r in dspark.read.format("delta").load(path)
              .select(F.input_file_name().alias("f")).collect()}
    assert any(p in f for p in untouched for f in active)
    assert rows(t.toDF()) == [(2, "b"), (3, "c")]
    t.delete(F.col("v") == "nope")
    assert last(t)[0] == version
    t.delete()
    assert last(t)[2]["predicate"] == '["true"]'
    assert last(t)[3]["numDeletedRows"] == "2"
    assert t.toDF().count() == 0


def test_delete_by_partition_removes_files_unread(dspark, tmp_path):
    path = str(tmp_path / "p")
    t = make(dspark, path, [[(1, "a"), (2, "b")], [(3, "a")], [(5, "c")]],
             ddl="id INT, p STRING", partition_by="p")
    # Unreadable data would fail a rewrite: the partition DELETE never opens the file.
    res = dspark.sql(f"DELETE FROM delta.`{path}` WHERE p = 'c'").collect()
    assert [tuple(r) for r in res] == [(1,)]
    _, op, params, m = last(t)
    assert (m["numRemovedFiles"], m["numAddedFiles"], m["numDeletedRows"],
            m["rewriteTimeMs"]) == ("1", "0", "1", "0")
    assert rows(t.toDF()) == [(1, "a"), (2, "b"), (3, "a")]
    # A data predicate inside one partition: only that partition's files are read.
    t.delete("p = 'a' AND id = 3")
    assert rows(t.toDF()) == [(1, "a"), (2, "b")]


def test_update_and_delete_skip_files_by_statistics(dspark, tmp_path):
    """Files whose statistics rule the condition out are not opened (here: moved away
    while the command runs) nor rewritten, from the API and SQL alike."""
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(i, f"v{i}") for i in range(lo, lo + 5)] for lo in (0, 10, 20)])

    def files():
        live = {}
        for name in sorted(os.listdir(os.path.join(path, "_delta_log"))):
            if not name.endswith(".json"):
                continue
            for line in open(os.path.join(path, "_delta_log", name)):
                a = json.loads(line)
                if "add" in a:
                    live[a["add"]["path"]] = json.loads(a["add"]["stats"])["minValues"]["id"]
                elif "remove" in a:
                    live.pop(a["remove"]["path"], None)
        return {lo // 10: os.path.join(path, p) for p, lo in live.items()}

    def without(hidden, run):
        moved = [files()[i] for i in hidden]
        for f in moved:
            os.rename(f, f + ".away")
        try:
            run()
        finally:
            for f in moved:
                os.rename(f + ".away", f)

    without([0, 2], lambda: t.update(condition="id = 12 OR id IN (13, 99)",
                                     set={"v": "'x'"}))
    assert {k: last(t)[3][k] for k in ("numUpdatedRows", "numCopiedRows",
                                       "numRemovedFiles")} == {
        "numUpdatedRows": "2", "numCopiedRows": "3", "numRemovedFiles": "1"}
    without([0, 1], lambda: t.delete(~(F.col("id") < 23)))
    without([1, 2], lambda: dspark.sql(
        f"DELETE FROM delta.`{path}` WHERE v IS NULL OR id BETWEEN 0 AND 1").collect())
    assert last(t)[3]["numDeletedRows"] == "2"
    # Statistics off (spark.databricks.delta.stats.skipping): every file is read.
    dspark.conf.set("spark.databricks.delta.stats.skipping", "false")
    with pytest.raises(Exception):
        without([0], lambda: t.delete("id = 14"))
    dspark.conf.unset("spark.databricks.delta.stats.skipping")
    assert rows(t.toDF()) == [(2, "v2"), (3, "v3"), (4, "v4"), (10, "v10"), (11, "v11"),
                              (12, "x"), (13, "x"), (14, "v14"), (20, "v20"), (21, "v21"),
                              (22, "v22")]


def test_update_conflicts_only_with_removals_of_files_it_read(dspark, tmp_path):
    """The UPDATE's conflict scope holds only the files its skipping scan read (Delta's
    readFiles): a concurrent removal of a skipped file does not fail it, one of a file
    it read (even without matches) does. The concurrent commit runs in another process
    from the SET value's UDF (test_delta_merge's racing_udf), during the rewrite."""
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, 10), (2, 20)], [(100, 1000), (101, 1010)],
                            [(200, 2000), (201, 2010)]], ddl="id INT, n BIGINT")

    # Files 2 and 3 are skipped (id = 1 lies outside their ranges): removing both
    # concurrently does not conflict.
    race = racing_udf(f"DELETE FROM delta.`{path}` WHERE id >= 100")
    t.update("id = 1", {"n": -race(F.col("n"))})
    assert rows(t.toDF()) == [(1, -10), (2, 20)]
    # A file of ids 5..300 is read for id = 150, which it does not hold.
    dspark.createDataFrame([(5, 50), (300, 3000)], "id INT, n BIGINT").coalesce(1) \
        .write.format("delta").mode("append").save(path)
    race = racing_udf(f"DELETE FROM delta.`{path}` WHERE id >= 5")
    with pytest.raises(Exception, match="DELTA_CONCURRENT_DELETE_READ"):
        t.update("id = 2 OR id = 150", {"n": -race(F.col("n"))})
    assert rows(t.toDF()) == [(1, -10), (2, 20)]


def test_sql_update_delete_on_catalog_table(dspark, tmp_path):
    s = dspark.newSession()
    s.conf.set("spark.sql.warehouse.dir", str(tmp_path / "wh"))
    s.sql("CREATE TABLE ct (id INT, v STRING) USING DELTA")
    s.sql("INSERT INTO ct VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    out = s.sql("UPDATE ct SET v = concat(v, '!') WHERE ct.id >= 2")
    assert out.columns == ["num_affected_rows"]
    assert [tuple(r) for r in out.collect()] == [(2,)]
    assert [tuple(r) for r in s.sql("DELETE FROM ct c WHERE c.v = 'c!'").collect()] == [(1,)]
    assert rows(s.table("ct")) == [(1, "a"), (2, "b!")]
    t = DeltaTable.forName(s, "ct")
    t.alias("x").update("x.id = 1", {"x.v": "'one'"})
    t.update("ct.id = 2", {"ct.v": "'two'"})  # forName: qualified by the table's name
    assert rows(s.table("ct")) == [(1, "one"), (2, "two")]


def test_idempotent_dml(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, "a")]])
    s = dspark.newSession()
    s.conf.set("spark.databricks.delta.write.txnAppId", "app")
    s.conf.set("spark.databricks.delta.write.txnVersion", "7")
    t2 = DeltaTable.forPath(s, path)
    t2.update(set={"v": "concat(v, 'x')"})
    t2.update(set={"v": "concat(v, 'x')"})  # the same (app, version): a no-op
    assert rows(t.toDF()) == [(1, "ax")]


def test_restore(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, "a")], [(2, "b")]])
    t.delete("id = 1")
    out = t.restoreToVersion(1)
    assert out.columns == ["table_size_after_restore", "num_of_files_after_restore",
                           "num_removed_files", "num_restored_files", "removed_files_size",
                           "restored_files_size"]
    r = out.collect()[0]
    assert (r.num_of_files_after_restore, r.num_removed_files, r.num_restored_files) == (2, 0, 1)
    version, op, params, metrics = last(t)
    assert (op, params) == ("RESTORE", {"version": "1"})
    assert (metrics["numRestoredFiles"], metrics["numRemovedFiles"],
            metrics["numOfFilesAfterRestore"]) == ("1", "0", "2")
    assert rows(t.toDF()) == [(1, "a"), (2, "b")]
    # To a timestamp: the version current then.
    ts = t.history().filter("version = 0").collect()[0].timestamp
    t.restoreToTimestamp(ts.strftime("%Y-%m-%d %H:%M:%S.%f"))
    assert rows(t.toDF()) == [(1, "a")]
    with pytest.raises(AnalysisException) as e:
        t.restoreToVersion(99)
    assert e.value.getErrorClass() == "DELTA_CANNOT_RESTORE_TABLE_VERSION"


def test_optimize_bin_packing_and_streams_skip_it(dspark, tmp_path):
    path = str(tmp_path / "p")
    t = make(dspark, path, [[(1, "a"), (2, "b")], [(3, "a")], [(4, "b")], [(5, "c")]],
             ddl="id INT, p STRING", partition_by="p")
    out = t.optimize().executeCompaction()
    assert out.columns == ["path", "metrics"]
    m = out.collect()[0].metrics
    assert (m.numFilesAdded, m.numFilesRemoved, m.partitionsOptimized, m.numBins,
            m.totalConsideredFiles, m.totalFilesSkipped) == (2, 4, 2, 2, 5, 1)
    version, op, params, metrics = last(t)
    assert (op, params) == ("OPTIMIZE", {"predicate": "[]", "auto": "false",
                                         "zOrderBy": "[]", "clusterBy": "[]"})
    assert (metrics["numAddedFiles"], metrics["numRemovedFiles"]) == ("2", "4")
    commit = [json.loads(l) for l in
              open(os.path.join(path, "_delta_log", "%020d.json" % version))]
    assert all(not a[k]["dataChange"] for a in commit for k in ("add", "remove") if k in a)
    assert rows(t.toDF()) == [(1, "a"), (2, "b"), (3, "a"), (4, "b"), (5, "c")]
    # Nothing to compact: no commit. WHERE on a non-partition column is refused.
    assert t.optimize().where("p = 'a'").executeCompaction().collect()[0].metrics.numFilesAdded == 0
    assert last(t)[0] == version
    with pytest.raises(AnalysisException) as e:
        dspark.sql(f"OPTIMIZE delta.`{path}` WHERE id = 1")
    assert e.value.getErrorClass() == "DELTA_NON_PARTITION_COLUMN_REFERENCE"
    # maxFileSize bounds a bin: with 1 byte every file is its own bin, nothing compacts.
    make(dspark, path, [[(6, "a")], [(7, "a")]], ddl="id INT, p STRING", partition_by="p")
    s = dspark.newSession()
    s.conf.set("spark.databricks.delta.optimize.maxFileSize", "1")
    assert DeltaTable.forPath(s, path).optimize().executeCompaction().collect()[0] \
        .metrics.numFilesAdded == 0
    # A stream reading the table sees the appends, not the OPTIMIZE's rewrite.
    q = (dspark.readStream.format("delta").load(path).writeStream.format("memory")
         .queryName("opt_skip").trigger(availableNow=True).start())
    q.awaitTermination()
    t.optimize().executeCompaction()
    assert dspark.table("opt_skip").count() == 7
    q2 = (dspark.readStream.format("delta").option("startingVersion", version)
          .load(path).writeStream.format("memory").queryName("opt_skip2")
          .trigger(availableNow=True).start())
    q2.awaitTermination()
    assert rows(dspark.table("opt_skip2")) == [(6, "a"), (7, "a")]


def test_vacuum(dspark, tmp_path):
    path = str(tmp_path / "t")
    t = make(dspark, path, [[(1, "a")], [(2, "b")]])
    t.delete("id = 1")
    with pytest.raises(IllegalArgumentException) as e:
        t.vacuum(0)
    assert e.value.getErrorClass() == "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"
    s = dspark.newSession()
    s.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    # An orphan file (a crashed writer's) and the removed one are unreferenced.
    orphan = os.path.join(path, "part-orphan.snappy.parquet")
    open(orphan, "wb").write(b"x")
    os.utime(orphan, (1e9, 1e9))  # older than the (zero) retention
    dry = [r.path for r in s.sql(f"VACUUM delta.`{path}` RETAIN 0 HOURS DRY RUN").collect()]
    assert len(dry) == 2 and all(p.startswith("file:") for p in dry)
    assert "file:" + orphan in dry
    # With the default retention (a week) only the old orphan is old enough; VACUUM
    # descends into other folders, not into hidden ones (as Delta lists).
    nested = os.path.join(path, "sub", "deeper", "old.parquet")
    kept = [os.path.join(path, "_hidden", "old.parquet"), os.path.join(path, ".tmp", "old")]
    for f in [nested] + kept:
        os.makedirs(os.path.dirname(f), exist_ok=True)
        open(f, "wb").write(b"x")
        os.utime(f, (1e9, 1e9))
    assert [r.path for r in s.sql(f"VACUUM delta.`{path}` DRY RUN").collect()] == \
        ["file:" + orphan, "file:" + nested]
    os.remove(nested)
    out = DeltaTable.forPath(s, path).vacuum(0)
    assert [tuple(r) for r in out.collect()] == [("file:" + path,)]
    assert not os.path.exists(orphan)
    ops = [r.operation for r in t.history(2).collect()]
    assert ops == ["VACUUM END", "VACUUM START"]
    end = dict(t.history(1).collect()[0].operationMetrics)
    assert end["numDeletedFiles"] == "2"
    assert rows(t.toDF()) == [(2, "b")]


def test_streaming_sink_auto_compaction(dspark, tmp_path):
    """The Delta sink compacts its small files between batches (auto compact) in
    dataChange=false commits: the live files stay bounded, a stream reading the table
    sees every row once."""
    src = str(tmp_path / "src")
    out = str(tmp_path / "out")
    chk = str(tmp_path / "chk")
    # One source Delta commit per micro-batch (maxFilesPerTrigger=1).
    for i in range(8):
        dspark.createDataFrame([(i, "x")], "id INT, v STRING").coalesce(1) \
            .write.format("delta").mode("append").save(src)
    s = dspark.newSession()
    s.conf.set("spark.databricks.delta.autoCompact.enabled", "true")
    s.conf.set("spark.databricks.delta.autoCompact.minNumFiles", "3")
    q = (s.readStream.format("delta").option("maxFilesPerTrigger", 1).load(src)
         .writeStream.format("delta").option("checkpointLocation", chk)
         .trigger(availableNow=True).start(out))
    q.awaitTermination()
    t = DeltaTable.forPath(dspark, out)
    assert rows(t.toDF()) == [(i, "x") for i in range(8)]
    files = t.detail().collect()[0].numFiles
    assert files < 3
    hist = t.history().collect()
    auto = [h for h in hist if h.operation == "OPTIMIZE"]
    assert auto and all(dict(h.operationParameters)["auto"] == "true" for h in auto)
    # A stream over the sink's table skips the compactions.
    q2 = (dspark.readStream.format("delta").load(out).writeStream.format("memory")
          .queryName("auto_compacted").trigger(availableNow=True).start())
    q2.awaitTermination()
    assert dspark.table("auto_compacted").count() == 8
    # Without the setting (the table property is not set) nothing is compacted.
    out2 = str(tmp_path / "out2")
    q3 = (dspark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(src)
          .writeStream.format("delta").option("checkpointLocation", str(tmp_path / "chk2"))
          .trigger(availableNow=True).start(out2))
    q3.awaitTermination()
    assert DeltaTable.forPath(dspark, out2).detail().collect()[0].numFiles == 8
    # The table property turns it on too.
    out3 = str(tmp_path / "out3")
    dspark.sql(f"CREATE TABLE delta.`{out3}` (id INT, v STRING) USING DELTA "
               "TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true')")
    s3 = dspark.newSession()
    s3.conf.set("spark.databricks.delta.autoCompact.minNumFiles", "4")
    q4 = (s3.readStream.format("delta").option("maxFilesPerTrigger", 1).load(src)
          .writeStream.format("delta").option("checkpointLocation", str(tmp_path / "chk3"))
          .trigger(availableNow=True).start(out3))
    q4.awaitTermination()
    t3 = DeltaTable.forPath(dspark, out3)
    assert t3.toDF().count() == 8
    assert t3.detail().collect()[0].numFiles < 4


def test_streaming_auto_compaction_min_file_size(dspark, tmp_path):
    """spark.databricks.delta.autoCompact.minFileSize as delta-spark 4.4: only files of at
    most that size count toward minNumFiles and only smaller ones are compacted, so a
    compaction's output above it is never re-packed; 1 byte compacts nothing."""
    import hashlib
    src = str(tmp_path / "src")
    for i in range(9):  # 200 incompressible rows a file: a file's size is mostly its rows
        data = [(j, hashlib.sha256(str(j).encode()).hexdigest())
                for j in range(i * 200, i * 200 + 200)]
        dspark.createDataFrame(data, "id INT, v STRING").coalesce(1) \
            .write.format("delta").mode("append").save(src)

    def run(name, min_file_size):
        s = dspark.newSession()
        s.conf.set("spark.databricks.delta.autoCompact.enabled", "true")
        s.conf.set("spark.databricks.delta.autoCompact.minNumFiles", "3")
        s.conf.set("spark.databricks.delta.autoCompact.minFileSize", str(min_file_size))
        out = str(tmp_path / name)
        (s.readStream.format("delta").option("maxFilesPerTrigger", 1).load(src)
         .writeStream.format("delta").option("checkpointLocation", str(tmp_path / (name + "c")))
         .trigger(availableNow=True).start(out)).awaitTermination()
        t = DeltaTable.forPath(dspark, out)
        assert t.toDF().count() == 1800
        return [dict(h.operationMetrics) for h in t.history().collect()
                if h.operation == "OPTIMIZE"]

    assert run("none", 1) == []
    one = os.path.getsize(next(os.path.join(src, f) for f in os.listdir(src)
                               if f.endswith(".parquet")))
    # Between one file and a 3-file output: every compaction takes 3 new files only.
    opts = run("bounded", one + one // 2)
    assert len(opts) == 3
    assert all(o["numRemovedFiles"] == "3" and o["numAddedFiles"] == "1" for o in opts)
    # Large: the output is re-packed with the next files (3 files, then 1 + 2, 1 + 2).
    opts = run("large", 1 << 30)
    assert len(opts) == 4
    assert all(o["numRemovedFiles"] == "3" for o in opts)


def test_kill_during_update_or_merge_leaves_before_or_after(dspark, tmp_path):
    """A process killed (SIGKILL) at any point of an UPDATE or a MERGE leaves the table at
    the version before or after it, never between: the commit is one put-if-absent log
    file."""
    import random
    import signal
    import subprocess
    import sys
    import time

    path = str(tmp_path / "t")
    dspark.range(0, 200000).selectExpr("id", "0 AS v").repartition(8) \
        .write.format("delta").save(path)
    statements = [f"UPDATE delta.`{path}` SET v = v + 1",
                  f"MERGE INTO delta.`{path}` t USING (SELECT id FROM range(200000)) s "
                  "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = t.v + 1"]
    env = dict(os.environ)
    rng = random.Random(13)
    outcomes = set()
    for i in range(4):
        script = ("from spate.sql import SparkSession\n"
                  "s = SparkSession.builder.getOrCreate()\n"
                  "print('ready', flush=True)\n"
                  f"s.sql({statements[i % 2]!r}).collect()\n")
        child = subprocess.Popen([sys.executable, "-c", script], env=env,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        df = dspark.read.format("delta").load(path)
        values = {r.v for r in df.select("v").distinct().collect()}
        assert df.count() == 200000 and len(values) == 1, values
        outcomes.add(values.pop())
    # The table stays writable after the kills.
    before = dspark.read.format("delta").load(path).first().v
    DeltaTable.forPath(dspark, path).update(set={"v": "v + 1"})
    assert {r.v for r in dspark.read.format("delta").load(path).select("v").distinct()
            .collect()} == {before + 1}
