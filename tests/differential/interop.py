"""Tables and files shared with Spark: each writer runs on one engine, then both engines read
what it wrote (test_interop.py). Writers and readers are PySpark code, as the cases are."""

import glob
import json
import os
import time
from typing import Callable, Dict

WRITERS: Dict[str, Callable] = {}

ALL_TYPES = ("SELECT CAST(id AS tinyint) AS b, CAST(id AS smallint) AS s, CAST(id AS int) AS i, id AS l, "
             "CAST(id AS float) / 4 AS f, CAST(id AS double) / 3 AS d, id % 2 = 0 AS z, "
             "concat('s', id) AS str, CAST(concat('b', id) AS binary) AS bin, "
             "date_add(DATE'2020-01-01', CAST(id AS int)) AS dt, "
             "timestamp_micros(1600000000123456 + id * 1000001) AS ts, "
             "CAST(timestamp_micros(1600000000000000 + id) AS timestamp_ntz) AS ntz, "
             "CAST(id * 1.25 AS decimal(5,2)) AS dec9, CAST(id * 123456789.5 AS decimal(18,1)) AS dec18, "
             "CAST(id AS decimal(38,10)) / 7 AS dec38, "
             "array(id, NULL) AS arr, map(concat('k', id), named_struct('x', id, 'y', array(str(id)))) AS m, "
             "named_struct('p', id, 'q', named_struct('r', concat('deep', id)), 'arr', array(named_struct('e', id))) AS st, "
             "IF(id = 2, NULL, id) AS maybe FROM range(5)")
ALL_TYPES = ALL_TYPES.replace("str(id)", "CAST(id AS string)")


def writer(fn: Callable) -> Callable:
    WRITERS[fn.__name__] = fn
    return fn


@writer
def parquet_all_types(s, path):
    s.spark.sql(ALL_TYPES).write.parquet(path)


@writer
def parquet_int96_timestamps(s, path):
    s.spark.conf.set("spark.sql.parquet.outputTimestampType", "INT96")
    s.spark.sql("SELECT id, timestamp_micros(1600000000123456 + id) AS ts FROM range(3)").write.parquet(path)


@writer
def parquet_partitioned(s, path):
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS p, DATE'2020-01-01' AS d FROM range(7)") \
        .write.partitionBy("p", "d").parquet(path)


@writer
def delta_append_overwrite(s, path):
    s.spark.range(5).write.format("delta").save(path)
    s.spark.range(5, 8).write.format("delta").mode("append").save(path)
    s.spark.range(20, 23).write.format("delta").mode("overwrite").save(path)
    s.spark.range(30, 31).write.format("delta").mode("append").save(path)


@writer
def delta_all_types(s, path):
    s.spark.sql(ALL_TYPES).write.format("delta").save(path)


@writer
def delta_partitioned(s, path):
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS p FROM range(9)").write.format("delta") \
        .partitionBy("p").save(path)
    s.spark.sql("SELECT 100L AS id, '1' AS p").write.format("delta").mode("append").save(path)


@writer
def delta_ctas(s, path):
    s.spark.sql(f"CREATE TABLE delta.`{path}` USING DELTA PARTITIONED BY (k) AS "
                "SELECT id, id % 2 AS k, concat('v', id) AS v FROM range(6)")


@writer
def delta_across_checkpoint(s, path):
    for i in range(12):  # a checkpoint every 10 commits
        s.spark.range(i * 2, i * 2 + 2).write.format("delta").mode("append").save(path)


@writer
def delta_replace_where_merge_schema(s, path):
    s.spark.sql("SELECT id, id % 2 AS k FROM range(6)").write.format("delta").partitionBy("k").save(path)
    s.spark.sql("SELECT 100L AS id, 1L AS k").write.format("delta").mode("overwrite") \
        .option("replaceWhere", "k = 1").save(path)
    s.spark.sql("SELECT 200L AS id, 0L AS k, 'new' AS extra").write.format("delta").mode("append") \
        .option("mergeSchema", "true").save(path)


@writer
def delta_streaming_sink(s, path):
    src = os.path.join(path + "-landing")
    os.makedirs(src, exist_ok=True)
    chk = path + "-checkpoint"
    for n in range(2):
        with open(os.path.join(src, f"f{n}.json"), "w") as f:
            f.write("".join(f'{{"id": {n * 10 + i}, "k": "x{i}"}}\n' for i in range(4)))
        q = (s.spark.readStream.schema("id INT, k STRING").json(src).writeStream.format("delta")
             .option("checkpointLocation", chk).trigger(availableNow=True).start(path))
        q.awaitTermination()


def _land_and_stream(s, path, fmt, batches):
    """`batches` micro-batches (one landed file each) from a file source into `fmt` at
    `path`: the file source log and the sink's log pass their compaction intervals (10)
    and, for Delta, the table two checkpoints (the streaming sink writes them off the
    batch's critical path)."""
    src = path + "-landing"
    os.makedirs(src, exist_ok=True)
    for n in range(batches):
        with open(os.path.join(src, f"f{n:03d}.json"), "w") as f:
            f.write(f'{{"id": {n}, "k": "x{n % 3}"}}\n')
    q = (s.spark.readStream.schema("id INT, k STRING").option("maxFilesPerTrigger", 1).json(src)
         .writeStream.format(fmt).option("checkpointLocation", path + "-checkpoint")
         .trigger(availableNow=True).start(path))
    q.awaitTermination()


@writer
def delta_streaming_sink_many_batches(s, path):
    _land_and_stream(s, path, "delta", 23)


@writer
def parquet_streaming_sink_compacted_metadata(s, path):
    # Readers of the folder read the files `_spark_metadata` lists (its 9.compact, 19.compact).
    _land_and_stream(s, path, "parquet", 23)


def _appends_then_only_the_checkpoint(s, path, commits):
    """`commits` one-row appends (the table's checkpoint at version 10), then the commits
    up to the checkpoint are deleted, so a reader must reconstruct the table from it."""
    for i in range(commits):
        s.spark.range(i * 3, i * 3 + 3).write.format("delta").mode("append").save(path)
    for v in range(11):
        name = os.path.join(path, "_delta_log", f"{v:020d}.json")
        if os.path.exists(name):
            os.remove(name)


@writer
def delta_multi_part_checkpoint(s, path):
    # 10 files at version 10, 3 actions a part: a 4-part classic checkpoint.
    s.spark.conf.set("spark.databricks.delta.checkpoint.partSize", "3")
    _appends_then_only_the_checkpoint(s, path, 12)


def _v2_checkpoint(s, path, top_level_format):
    s.spark.conf.set("spark.databricks.delta.checkpoint.partSize", "4")
    s.spark.conf.set("spark.databricks.delta.checkpointV2.topLevelFileFormat", top_level_format)
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING delta "
                "TBLPROPERTIES ('delta.checkpointPolicy' = 'v2')")
    _appends_then_only_the_checkpoint(s, path, 12)


@writer
def delta_v2_checkpoint_json(s, path):
    # A V2 checkpoint at version 10: 10 files in 3 sidecars, a UUID-named JSON top-level file.
    _v2_checkpoint(s, path, "json")


@writer
def delta_v2_checkpoint_parquet(s, path):
    _v2_checkpoint(s, path, "parquet")


@writer
def delta_deletes_with_deletion_vectors(s, path):
    # A DELETE that marks rows in deletion vectors (on either engine).
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING DELTA "
                "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    s.spark.sql(f"INSERT INTO delta.`{path}` SELECT id, concat('v', id) FROM range(10)")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 3 = 0")


@writer
def delta_dml_with_deletion_vectors(s, path):
    """DELETE, UPDATE and MERGE of a partitioned table with deletion vectors (a DV replaced,
    a file emptied), then a whole-partition DELETE."""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING, p STRING) USING DELTA "
                "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    s.spark.sql("SELECT id, concat('v', id) AS v, CAST(id % 3 AS STRING) AS p FROM range(12)") \
        .coalesce(1).write.format("delta").mode("append").save(path)
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 4 = 1")
    s.spark.sql(f"UPDATE delta.`{path}` SET v = upper(v) WHERE id > 6")
    s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (2L, 'x', '2'), "
                "(3L, 'y', '0'), (30L, 'z', '0') AS s(id, v, p)) s ON t.id = s.id "
                "WHEN MATCHED AND s.v = 'x' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v "
                "WHEN NOT MATCHED THEN INSERT *")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = '1'")


@writer
def delta_column_mapping(s, path):
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, `odd name` STRING) USING DELTA "
                "TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', "
                "'delta.minWriterVersion' = '5')")
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b')")
    s.spark.sql(f"ALTER TABLE delta.`{path}` RENAME COLUMN `odd name` TO renamed")


@writer
def delta_change_data_feed(s, path):
    """Change data files from UPDATE, DELETE and MERGE, and a whole-partition DELETE (its
    removes are the deletes); read() reads the change feed of such tables."""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING, p STRING) USING DELTA "
                "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    s.spark.sql(f"INSERT INTO delta.`{path}` SELECT id, concat('v', id), CAST(id % 2 AS STRING) "
                "FROM range(6)")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 1")
    s.spark.sql(f"UPDATE delta.`{path}` SET v = upper(v) WHERE id > 3")
    s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (2L, 'm', '0'), "
                "(8L, 'n', '2') AS s(id, v, p)) s ON t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = '1'")


@writer
def delta_change_data_feed_unpartitioned(s, path):
    """The session default enables the feed; MERGE with every clause kind, OPTIMIZE (not a
    change) and an unconditional DELETE."""
    s.spark.conf.set("spark.databricks.delta.properties.defaults.enableChangeDataFeed", "true")
    s.spark.sql("SELECT id, concat('v', id) AS v FROM range(5)").coalesce(1) \
        .write.format("delta").save(path)
    s.spark.sql(f"INSERT INTO delta.`{path}` VALUES (10, 'ten')")
    s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1L, 'one'), (2L, 'x'), "
                "(7L, 'seven') AS s(id, v)) s ON t.id = s.id "
                "WHEN MATCHED AND s.v = 'x' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v "
                "WHEN NOT MATCHED THEN INSERT * "
                "WHEN NOT MATCHED BY SOURCE AND t.id = 10 THEN UPDATE SET v = 'orphan'")
    s.spark.sql(f"OPTIMIZE delta.`{path}`")
    s.spark.sql(f"DELETE FROM delta.`{path}`")


@writer
def delta_update_delete_optimize_restore(s, path):
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING, p STRING) USING DELTA "
                "PARTITIONED BY (p)")
    for i in range(4):
        s.spark.sql(f"INSERT INTO delta.`{path}` SELECT id, concat('v', id), "
                    f"CAST(id % 2 AS STRING) FROM range({i * 3}, {i * 3 + 3})")
    s.spark.sql(f"UPDATE delta.`{path}` SET v = upper(v) WHERE id % 3 = 0")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 4 OR p = 'x'")
    s.spark.sql(f"OPTIMIZE delta.`{path}`")
    s.spark.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF 5")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = '1'")


@writer
def delta_tombstones_in_checkpoint(s, path):
    """Tombstones that only a checkpoint carries: a partitioned table's small files
    compacted by OPTIMIZE and a file rewritten by DELETE (their removes), appends past the
    checkpoint at version 10, then every commit up to it deleted, an orphan file added and
    every data file dated 30 days back. The vacuum step's VACUUM DRY RUN must keep the
    files the tombstones name (removed now, within the 7-day retention) and list only the
    orphans and the files the tombstones do not name."""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, p STRING) USING DELTA "
                "PARTITIONED BY (p)")
    for i in range(6):
        s.spark.sql(f"INSERT INTO delta.`{path}` SELECT id, CAST(id % 2 AS STRING) "
                    f"FROM range({i * 4}, {i * 4 + 4})")
    s.spark.sql(f"OPTIMIZE delta.`{path}`")
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 5")
    for i in range(6, 9):
        s.spark.sql(f"INSERT INTO delta.`{path}` SELECT id, CAST(id % 2 AS STRING) "
                    f"FROM range({i * 4}, {i * 4 + 4})")
    log = os.path.join(path, "_delta_log")
    assert os.path.exists(os.path.join(log, f"{10:020d}.checkpoint.parquet")), os.listdir(log)
    for v in range(11):
        os.remove(os.path.join(log, f"{v:020d}.json"))
    for name in ("p=0/part-00000-orphan.snappy.parquet", "orphan.txt"):
        with open(os.path.join(path, name), "w") as f:
            f.write("not a table file")
    month_ago = time.time() - 30 * 24 * 3600
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != "_delta_log"]
        for name in files:
            os.utime(os.path.join(root, name), (month_ago, month_ago))


def vacuum_dry_run(s, path):
    """The files VACUUM (default retention) would delete, as sorted paths relative to the
    table."""
    rows = s.spark.sql(f"VACUUM delta.`{path}` DRY RUN").collect()
    root = os.path.realpath(path)
    return sorted(os.path.relpath(r[0].replace("file:", "", 1), root) for r in rows)


# Mixed writers (test_interop.py::test_mixed_writers): one Delta table that the two engines
# change in turn; each step's rows follow from what the table holds, so both engines would
# write the same thing.
MIXED: Dict[str, Callable] = {}


@writer
def delta_table_properties(s, path):
    """TBLPROPERTIES of any name are the table's metaData.configuration (DESCRIBE DETAIL's
    properties), as Delta stores them."""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING) USING delta "
                "TBLPROPERTIES ('quality' = 'silver', 'owner.team' = 'data', "
                "'delta.appendOnly' = 'false')")
    s.spark.sql("SELECT id, concat('v', id) AS v FROM range(3)").write.format("delta") \
        .mode("append").save(path)
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('stage' = 'two', "
                "'quality' = 'gold')")
    s.spark.sql(f"ALTER TABLE delta.`{path}` UNSET TBLPROPERTIES ('owner.team')")


def table_properties(s, path):
    """DESCRIBE DETAIL's properties of the Delta table at path, as sorted [key, value]."""
    props = s.spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0]["properties"]
    return [[k, v] for k, v in sorted(dict(props).items())]


def mixed(fn: Callable) -> Callable:
    MIXED[fn.__name__] = fn
    return fn


@mixed
def mixed_create(s, path):
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS p, id * 1.5 AS v FROM range(6)") \
        .write.format("delta").partitionBy("p").save(path)


@mixed
def mixed_create_dv(s, path):
    """mixed_create's table with deletion vectors: each engine's DML changes the other's DVs."""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, p STRING, v DECIMAL(23,1)) USING DELTA "
                "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS p, id * 1.5 AS v FROM range(6)") \
        .write.format("delta").mode("append").save(path)


@mixed
def mixed_append(s, path):
    n = s.spark.read.format("delta").load(path).agg({"id": "max"}).collect()[0][0] + 1
    s.spark.sql(f"SELECT id, CAST(id % 3 AS string) AS p, id * 1.5 AS v FROM range({n}, {n + 4})") \
        .write.format("delta").mode("append").save(path)


@mixed
def mixed_update(s, path):
    s.spark.sql(f"UPDATE delta.`{path}` SET v = v * 10 WHERE id % 4 = 0")


@mixed
def mixed_delete(s, path):
    s.spark.sql(f"DELETE FROM delta.`{path}` WHERE p = '1' AND id > 3")


@mixed
def mixed_merge(s, path):
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS p, -1.0 * id AS v FROM range(4, 30, 5)") \
        .createOrReplaceTempView("mixed_source")
    s.spark.sql(f"MERGE INTO delta.`{path}` AS t USING mixed_source AS s ON t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")


def _change_data_feed(path):
    """Whether the Delta table's latest metaData enables the change data feed."""
    enabled = False
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        with open(f) as fh:
            for line in fh:
                a = json.loads(line)
                if "metaData" in a:
                    conf = a["metaData"].get("configuration") or {}
                    enabled = conf.get("delta.enableChangeDataFeed", "false").lower() == "true"
    return enabled


def read(s, path):
    """Both engines read the same folder: Delta when it has a log (its change feed from
    version 0, without the commit times, when it has one), else Parquet."""
    if os.path.isdir(os.path.join(path, "_delta_log")):
        if _change_data_feed(path):
            return (s.spark.read.format("delta").option("readChangeFeed", "true")
                    .option("startingVersion", 0).load(path).drop("_commit_timestamp"))
        return s.spark.read.format("delta").load(path)
    return s.spark.read.parquet(path)


def history_length(s, path):
    if not os.path.isdir(os.path.join(path, "_delta_log")):
        return None
    return s.spark.sql(f"DESCRIBE HISTORY delta.`{path}`").count()


def step(op: str, writer_name: str, path: str) -> Callable:
    """The program of one interop step (both engines run the same): write, read, properties,
    vacuum (VACUUM DRY RUN's files), files (the number of active files) or history."""
    if op == "write":
        return lambda s: (WRITERS.get(writer_name) or MIXED[writer_name])(s, path)
    if op == "read":
        return lambda s: read(s, path)
    if op == "properties":
        return lambda s: {"properties": table_properties(s, path)}
    if op == "vacuum":
        return lambda s: {"vacuum": vacuum_dry_run(s, path)}
    if op == "files":
        return lambda s: {"files": s.spark.sql(f"DESCRIBE DETAIL delta.`{path}`")
                          .collect()[0]["numFiles"]}
    return lambda s: {"versions": history_length(s, path)}


# Differences from Spark (docs/spark-differences.md) of "<writer>/written_by_<engine>".
from dsl import Differs  # noqa: E402

PINS: Dict[str, Differs] = {
    "delta_column_mapping/written_by_spate": Differs("D6", "write", "1c4cdd3dd3"),
    "parquet_all_types/written_by_spate": Differs("D10", "nullability", "32b55d25b7"),
    "parquet_all_types/written_by_spark": Differs("D10", "nullability", "32b55d25b7"),
}
