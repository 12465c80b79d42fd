"""Delta's change data feed: tables with delta.enableChangeDataFeed, changed by UPDATE,
DELETE (rows, whole partitions) and MERGE (every clause kind, insert-only), read with
readChangeFeed (batch: startingVersion / endingVersion; streaming), table_changes and
table_changes_by_path: the change rows (_change_type, _commit_version), the DML history's
change-file metrics, the protocol the property gives, and Delta's errors for bad ranges
and for versions without change data. _commit_timestamp is each side's own commit time:
only its presence and type, and that it is the same for the rows of one version, are
compared."""

import glob
import json
import os

from dsl import case

CONF = {"spark.sql.shuffle.partitions": "1"}
CDF = "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"


def _table(s, partitioned=True):
    path = f"{s.tmp}/t"
    part = " PARTITIONED BY (p)" if partitioned else ""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING, p STRING) USING DELTA{part} {CDF}")
    # One task, so both engines write the same files (one per partition).
    (s.spark.sql("SELECT * FROM VALUES (1L,'a','x'),(2L,'b','x'),(3L,'c','y'),(4L,'d','y') "
                 "AS r(id, v, p)").coalesce(1).write.format("delta").mode("append").save(path))
    return path


def _feed(df):
    """The change rows without the commit time, plus whether each version has one time."""
    times = {}
    for r in df.select("_commit_version", "_commit_timestamp").collect():
        times.setdefault(r[0], set()).add(r[1])
    one_time = all(len(t) == 1 and None not in t for t in times.values())
    rows = sorted((tuple(r) for r in df.drop("_commit_timestamp").collect()),
                  key=lambda r: tuple((x is None, str(x)) for x in r))
    return {"rows": rows, "one_time_per_version": one_time,
            "columns": [f"{f.name}:{f.dataType.simpleString()}" for f in df.schema.fields]}


def _changes(s, path, start, end=None):
    r = s.spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", start)
    if end is not None:
        r = r.option("endingVersion", end)
    return r.load(path)


def _metrics(s, path, keys):
    h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
    m = dict(h.operationMetrics)
    return {k: m.get(k) for k in keys}


def _outcome(s, path, start, keys):
    out = _feed(_changes(s, path, start))
    out["metrics"] = _metrics(s, path, keys)
    out["table"] = sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())
    return out


DML = ["numAddedChangeFiles", "numAddedFiles", "numRemovedFiles", "numCopiedRows"]
MERGE = ["numTargetChangeFilesAdded", "numTargetFilesAdded", "numTargetFilesRemoved",
         "numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted",
         "numTargetRowsCopied"]


@case(conf=CONF)
def update_rows(s):
    path = _table(s)
    s.spark.sql(f"UPDATE delta.`{path}` SET v = upper(v) WHERE id IN (2, 3)")
    return _outcome(s, path, 0, DML + ["numUpdatedRows"])


@case(conf=CONF)
def update_unpartitioned_all_rows(s):
    path = _table(s, partitioned=False)
    s.spark.sql(f"UPDATE delta.`{path}` SET v = concat(v, '!')")
    return _outcome(s, path, 2, DML + ["numUpdatedRows"])


@case(conf=CONF)
def delete_rows(s):
    path = _table(s)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 3 OR v = 'a'")
    return _outcome(s, path, 2, DML + ["numDeletedRows"])


@case(conf=CONF)
def delete_whole_partition(s):
    # Metadata-only: no change data files; the removed files' rows are the deletes.
    path = _table(s)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = 'x'")
    return _outcome(s, path, 1, DML + ["numDeletedRows"])


@case(conf=CONF)
def delete_everything(s):
    path = _table(s)
    s.spark.sql(f"DELETE FROM delta.`{path}`")
    return _outcome(s, path, 0, DML + ["numDeletedRows"])


@case(conf=CONF)
def merge_all_clauses(s):
    path = _table(s)
    s.spark.sql(f"""MERGE INTO delta.`{path}` t
        USING (SELECT * FROM VALUES (1L, 'A', 'x'), (3L, 'del', 'y'), (9L, 'new', 'z') AS s(id, v, p)) s
        ON t.id = s.id
        WHEN MATCHED AND s.v = 'del' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v
        WHEN NOT MATCHED THEN INSERT *
        WHEN NOT MATCHED BY SOURCE AND t.id = 4 THEN UPDATE SET v = 'orphan'""")
    return _outcome(s, path, 2, MERGE)


@case(conf=CONF)
def merge_insert_only(s):
    path = _table(s)
    s.spark.sql(f"""MERGE INTO delta.`{path}` t
        USING (SELECT * FROM VALUES (1L, 'dup', 'x'), (7L, 'g', 'y') AS s(id, v, p)) s
        ON t.id = s.id WHEN NOT MATCHED THEN INSERT *""")
    return _outcome(s, path, 2, MERGE)


@case(conf=CONF)
def merge_api_delete_by_source(s):
    path = _table(s, partitioned=False)
    src = s.spark.createDataFrame([(2, "B")], "id BIGINT, v STRING")
    (s.DeltaTable.forPath(s.spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
     .whenMatchedUpdate(set={"v": "s.v"}).whenNotMatchedBySourceDelete("t.id > 2").execute())
    return _outcome(s, path, 2, MERGE)


@case(conf=CONF)
def version_ranges(s):
    path = _table(s)
    s.spark.sql(f"UPDATE delta.`{path}` SET v = 'u' WHERE id = 1")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 4")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (5, 'e', 'z')")
    return {"2_to_3": _changes(s, path, 2, 3).drop("_commit_timestamp"),
            "3_to_3": _changes(s, path, 3, 3).drop("_commit_timestamp"),
            "past_latest": _changes(s, path, 3, 99).drop("_commit_timestamp"),
            "sql": s.spark.sql(f"SELECT * FROM table_changes_by_path('{path}', 1, 2)")
                    .drop("_commit_timestamp"),
            "sql_from": s.spark.sql(f"SELECT id, _change_type, _commit_version FROM "
                                    f"table_changes_by_path('{path}', 4)"),
            "timestamps": s.spark.sql(f"SELECT count(*) FROM table_changes_by_path("
                                      f"'{path}', '2000-01-01 00:00:00')")}


@case(conf=CONF)
def table_changes_by_name(s):
    s.spark.sql(f"CREATE TABLE cdf_named (id BIGINT, v STRING) USING DELTA {CDF}")
    s.spark.sql("INSERT INTO cdf_named VALUES (1, 'a'), (2, 'b')")
    s.spark.sql("UPDATE cdf_named SET v = 'z' WHERE id = 2")
    out = s.spark.sql("SELECT id, v, _change_type, _commit_version FROM table_changes('cdf_named', 1)")
    rows = sorted(tuple(r) for r in out.collect())
    s.spark.sql("DROP TABLE cdf_named")
    return rows


def _protocol(path):
    with open(os.path.join(path, "_delta_log", "00000000000000000000.json")) as f:
        for line in f:
            a = json.loads(line)
            if "protocol" in a:
                p = a["protocol"]
                return (p["minReaderVersion"], p["minWriterVersion"],
                        sorted(p.get("writerFeatures", [])), sorted(p.get("readerFeatures", [])))


@case(conf=CONF)
def protocol_of_the_property(s):
    path = _table(s)
    return {"protocol": _protocol(path),
            "properties": sorted(dict(s.spark.sql(f"DESCRIBE DETAIL delta.`{path}`")
                                      .collect()[0].properties).items())}


@case(conf=dict(CONF, **{"spark.databricks.delta.properties.defaults.enableChangeDataFeed": "true"}))
def session_default_enables_the_feed(s):
    path = f"{s.tmp}/d"
    s.spark.range(4).write.format("delta").save(path)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 2 = 0")
    out = _feed(_changes(s, path, 0))
    out["protocol"] = _protocol(path)
    out["change_files"] = len(glob.glob(os.path.join(path, "_change_data", "*.parquet")))
    return out


@case(conf=CONF)
def error_no_start(s):
    path = _table(s)
    return s.spark.read.format("delta").option("readChangeFeed", "true").load(path).collect()


@case(conf=CONF)
def error_end_before_start(s):
    return _changes(s, _table(s), 1, 0).collect()


@case(conf=CONF)
def error_start_after_latest(s):
    return _changes(s, _table(s), 5).collect()


@case(conf=CONF)
def error_table_changes_end_before_start(s):
    path = _table(s)
    return s.spark.sql(f"SELECT * FROM table_changes_by_path('{path}', 1, 0)").collect()


@case(conf=CONF)
def error_missing_change_data(s):
    path = f"{s.tmp}/plain"
    s.spark.range(2).write.format("delta").save(path)
    return _changes(s, path, 0).collect()


@case(conf=CONF)
def streaming_change_feed(s):
    path = _table(s)
    s.spark.sql(f"UPDATE delta.`{path}` SET v = 'u' WHERE id = 1")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 4")
    out = {}
    for name, opts in (("from_snapshot", {}), ("from_version_2", {"startingVersion": "2"})):
        r = s.spark.readStream.format("delta").option("readChangeFeed", "true")
        for k, v in opts.items():
            r = r.option(k, v)
        q = (r.load(path).drop("_commit_timestamp").writeStream.format("memory")
             .queryName(f"cdf_{name}").trigger(availableNow=True).start())
        q.awaitTermination()
        out[name] = s.spark.table(f"cdf_{name}")
    return out
