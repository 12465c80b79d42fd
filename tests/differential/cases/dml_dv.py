"""DML on Delta tables with deletion vectors (delta.enableDeletionVectors): DELETE, UPDATE and
MERGE mark rows in deletion vectors instead of rewriting files, OPTIMIZE purges them. The
same commands on the same table give the same result row, rows, DESCRIBE HISTORY entry
(operation, parameters without Spark's attribute ids, every count among the metrics,
deletion-vector counts included) and the same deletion vectors: per active file, its
number of records and the cardinality of its DV (read from the log).

Also OPTIMIZE ... ZORDER BY: the same rows, history entry, result metrics' counts and
zOrderStats, and Delta's errors (the order of rows inside the files is each engine's)."""

import glob
import json
import os
import re

from dsl import case

CONF = {"spark.sql.shuffle.partitions": "1"}
DV = "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"

# Metrics that depend on file sizes or clocks.
TIMES_AND_SIZES = {"numAddedBytes", "numRemovedBytes", "executionTimeMs", "scanTimeMs",
                   "rewriteTimeMs", "numTargetBytesAdded", "numTargetBytesRemoved",
                   "materializeSourceTimeMs", "minFileSize", "maxFileSize", "p25FileSize",
                   "p50FileSize", "p75FileSize"}


def _dv_table(s, batches, partitioned=False, extra=""):
    """id BIGINT, v STRING[, p STRING]: one file per batch (per partition)."""
    path = f"{s.tmp}/t"
    cols = "id BIGINT, v STRING" + (", p STRING" if partitioned else "")
    part = " PARTITIONED BY (p)" if partitioned else ""
    props = DV if not extra else DV[:-1] + ", " + extra + ")"
    s.spark.sql(f"CREATE TABLE delta.`{path}` ({cols}) USING DELTA{part} {props}")
    for b in batches:
        s.spark.sql(f"SELECT * FROM VALUES {b} AS r({cols.replace(' BIGINT', '').replace(' STRING', '')})") \
            .coalesce(1).write.format("delta").mode("append").save(path)
    return path


def _key(action):
    """Log replay's key of a file: its path and its deletion vector."""
    dv = action.get("deletionVector") or {}
    return action["path"], dv.get("storageType"), dv.get("pathOrInlineDv"), dv.get("offset")


def _files(path):
    """The active files as (numRecords, DV cardinality or None), sorted: replays the log."""
    active = {}
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        with open(f) as fh:
            for line in fh:
                a = json.loads(line)
                if "add" in a:
                    active[_key(a["add"])] = a["add"]
                elif "remove" in a:
                    active.pop(_key(a["remove"]), None)
    out = []
    for add in active.values():
        stats = json.loads(add.get("stats") or "{}")
        dv = add.get("deletionVector")
        out.append((stats.get("numRecords"), dv["cardinality"] if dv else None,
                    stats.get("tightBounds")))
    return sorted(out, key=repr)


def _history(s, path, n=1):
    out = []
    for h in s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT {n}").collect():
        # (Spark's predicates from the API show unresolved names as 'p.)
        params = {k: re.sub(r"(?<=[( ])'(?=[A-Za-z_])", "", re.sub(r"#\d+L?", "", v))
                  for k, v in dict(h.operationParameters).items() if v is not None}
        metrics = {k: v for k, v in dict(h.operationMetrics).items()
                   if k not in TIMES_AND_SIZES}
        out.append({"version": h.version, "operation": h.operation,
                    "params": sorted(params.items()), "metrics": sorted(metrics.items())})
    return out


def _outcome(s, path, results, n=1):
    return {"results": [[tuple(r) for r in df.collect()] for df in results],
            "table": sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect()),
            "files": _files(path), "history": _history(s, path, n)}


TEN = ["(0L,'v0'),(1L,'v1'),(2L,'v2'),(3L,'v3'),(4L,'v4')",
       "(5L,'v5'),(6L,'v6'),(7L,'v7'),(8L,'v8'),(9L,'v9')"]


def _statements(s, *sql, results=1):
    """Runs the statements ({t} is the table) on a two-file table of ids 0-9; the outcome
    holds the last `results` results and as many commits."""
    path = _dv_table(s, TEN)
    out = [s.spark.sql(q.format(t=f"delta.`{path}`")) for q in sql]
    return _outcome(s, path, out[-results:], results)


@case(conf=CONF)
def dv_delete_marks_rows(s):
    # A first DV per file, then a DV replaced (numDeletionVectorsUpdated).
    return _statements(s, "DELETE FROM {t} WHERE id % 3 = 0", "DELETE FROM {t} WHERE id = 4",
                       results=2)


@case(conf=CONF)
def dv_delete_every_row_of_a_file(s):
    # A file whose rows are all deleted is removed (no DV), the other gets one.
    return _statements(s, "DELETE FROM {t} WHERE id = 1",
                       "DELETE FROM {t} WHERE id < 5 OR id = 9")


@case(conf=CONF)
def dv_update(s):
    return _statements(s, "UPDATE {t} SET v = upper(v) WHERE id = 2 OR id = 3 OR id = 7",
                       "UPDATE {t} SET v = 'x' WHERE id >= 5", results=2)


@case(conf=CONF)
def dv_merge_every_clause(s):
    return _statements(
        s, "DELETE FROM {t} WHERE id = 0",
        "MERGE INTO {t} t USING (SELECT * FROM VALUES (1L, 'm'), (2L, 'd'), (20L, 'n') "
        "AS s(id, v)) s ON t.id = s.id "
        "WHEN MATCHED AND s.v = 'd' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE AND t.id > 7 THEN DELETE")


@case(conf=CONF)
def dv_merge_api_removes_emptied_file(s):
    path = _dv_table(s, TEN + ["(10L,'v10')"])
    src = s.spark.sql("SELECT * FROM VALUES (10L, 'x'), (3L, 'y') AS s(id, v)")
    (s.DeltaTable.forPath(s.spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
     .whenMatchedDelete("s.v = 'x'").whenMatchedUpdate(set={"v": "s.v"}).execute())
    return _outcome(s, path, [])


@case(conf=CONF)
def dv_partitioned_delete_update_api(s):
    path = _dv_table(s, ["(1L,'a','x'),(2L,'b','x'),(3L,'c','y'),(4L,'d','y'),(5L,'e','x')"],
                     partitioned=True)
    t = s.DeltaTable.forPath(s.spark, path)
    t.delete("id = 2")
    t.update("p = 'y' AND id = 3", {"v": "'z'"})
    # A partition-only condition removes whole files; its row count excludes DV'd rows.
    a = s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = 'x'")
    return _outcome(s, path, [a], 3)


@case(conf=CONF)
def dv_optimize_purges_deletion_vectors(s):
    path = _dv_table(s, TEN)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id IN (1, 6, 7)")
    m = s.spark.sql(f"OPTIMIZE delta.`{path}`").collect()[0].metrics
    return {"optimize": (m.numFilesAdded, m.numFilesRemoved, m.totalConsideredFiles,
                         tuple(m.deletionVectorStats) if m.deletionVectorStats else None),
            **_outcome(s, path, [])}


@case(conf=CONF)
def dv_disabled_by_session_conf(s):
    # spark.databricks.delta.delete.deletionVectors.persistent=false: copy-on-write.
    s.spark.conf.set("spark.databricks.delta.delete.deletionVectors.persistent", "false")
    return _statements(s, "DELETE FROM {t} WHERE id = 3")


@case(conf=CONF)
def dv_with_change_data_feed(s):
    path = _dv_table(s, TEN, extra="'delta.enableChangeDataFeed' = 'true'")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 3")
    s.spark.sql(f"UPDATE delta.`{path}` SET v = 'u' WHERE id = 6")
    s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT 7L AS id, 'm' AS v) s "
                "ON t.id = s.id WHEN MATCHED THEN DELETE")
    changes = (s.spark.read.format("delta").option("readChangeFeed", "true")
               .option("startingVersion", 2).load(path).drop("_commit_timestamp"))
    return {"changes": sorted(tuple(r) for r in changes.collect()), **_outcome(s, path, [], 3)}


def _zorder_table(s, partitioned=False):
    path = f"{s.tmp}/z"
    for i in range(3):
        df = s.spark.sql(f"SELECT CAST(id AS INT) AS x, CAST(({i} * 7 + id * 3) % 10 AS INT) AS y, "
                         f"concat('s', id) AS s, CAST(id % 2 AS STRING) AS p "
                         f"FROM range({i * 4}, {i * 4 + 4})")
        if not partitioned:
            df = df.drop("p")
        w = df.coalesce(1).write.format("delta").mode("append")
        (w.partitionBy("p") if partitioned else w).save(path)
    return path


def _zorder_row(out):
    m = out.collect()[0].metrics
    z = m.zOrderStats
    return (m.numFilesAdded, m.numFilesRemoved, m.partitionsOptimized, m.numBins,
            m.totalConsideredFiles, m.totalFilesSkipped, m.filesRemoved.totalFiles,
            (z.strategyName, tuple(z.inputCubeFiles), z.inputOtherFiles.num, z.inputNumCubes,
             z.mergedFiles.num, z.numOutputCubes, z.mergedNumCubes) if z else None,
            m.numTableColumns, m.numTableColumnsWithStats)


@case(conf=CONF)
def zorder_by_two_columns(s):
    path = _zorder_table(s)
    out = s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (x, y)")
    again = s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (y)")
    return {"result": _zorder_row(out), "again": _zorder_row(again), "columns": out.columns,
            "table": sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect()),
            "history": _history(s, path, 2)}


@case(conf=CONF)
def zorder_api_partitioned_where(s):
    path = _zorder_table(s, partitioned=True)
    out = s.DeltaTable.forPath(s.spark, path).optimize().where("p = '0'").executeZOrderBy("y", "x")
    return {"result": _zorder_row(out), "files": len(_files(path)),
            "table": sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect()),
            "history": _history(s, path)}


@case(conf=CONF)
def zorder_purges_deletion_vectors(s):
    path = _dv_table(s, TEN)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 2 OR id = 8")
    out = s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (v)")
    return {"result": _zorder_row(out), **_outcome(s, path, [])}


@case
def zorder_on_partition_column(s):
    path = _zorder_table(s, partitioned=True)
    s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (x, p)")


@case
def zorder_on_missing_column(s):
    path = _zorder_table(s)
    s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (nope)")


@case
def zorder_on_column_without_stats(s):
    path = f"{s.tmp}/w"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (a INT, b INT) USING DELTA "
                "TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '1')")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 2)")
    s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (b)")


@case(conf={**CONF, "spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled": "false"})
def zorder_on_column_without_stats_check_disabled(s):
    path = f"{s.tmp}/w"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (a INT, b INT) USING DELTA "
                "TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '1')")
    s.spark.sql("SELECT * FROM VALUES (1, 2), (3, 0) AS r(a, b)").coalesce(1) \
        .write.format("delta").mode("append").save(path)
    out = s.spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (b)")
    return {"result": _zorder_row(out), "history": _history(s, path)}
