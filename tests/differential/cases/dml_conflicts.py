"""Conflicts of MERGE, UPDATE and DELETE with a concurrent commit, by Delta's ConflictChecker
at OSS Delta's Serializable isolation. The concurrent commit is the same hand-written log
entry on both engines (a blind append, a removal, a compaction or a metadata change of the
engine's own files), put in place as the next version by the source's (or the SET value's)
UDF while the command runs, so the command's commit loses the race and checks it. Each case
gives the outcome: the error class and the first line of its message (the table's folder
replaced by <tmp>), or the table after a commit that did not conflict."""

import json
import os
import re
import shutil

from dsl import case

# Spark's Python UDFs without pyarrow (not installed with the pinned pyspark).
CONF = {"spark.sql.shuffle.partitions": "1",
        "spark.sql.execution.pythonUDF.arrow.enabled": "false"}


def _table(s, name, partitioned):
    """Three files (one per append): ids 1, 2 in p=a; 10, 11 in p=b; 20, 21 in p=a."""
    path = f"{s.tmp}/{name}"
    part = "PARTITIONED BY (p)" if partitioned else ""
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id INT, p STRING) USING DELTA {part}")
    for rows in ["(1, 'a'), (2, 'a')", "(10, 'b'), (11, 'b')", "(20, 'a'), (21, 'a')"]:
        (s.spark.sql(f"SELECT * FROM VALUES {rows} AS x(id, p)").coalesce(1)
         .write.format("delta").mode("append").save(path))
    return path


def _add_of(path, version):
    with open(f"{path}/_delta_log/{version:020d}.json") as f:
        return [json.loads(line)["add"] for line in f if '"add"' in line][0]


def _remove(add, data_change=True):
    return {"path": add["path"], "deletionTimestamp": 1, "dataChange": data_change,
            "extendedFileMetadata": True, "partitionValues": add["partitionValues"],
            "size": add["size"]}


def _copy(path, add, prefix):
    d, f = os.path.split(add["path"])
    new = (d + "/" if d else "") + prefix + f
    shutil.copy(f"{path}/{add['path']}", f"{path}/{new}")
    return new


def _info(op, blind):
    return {"commitInfo": {"timestamp": 1, "operation": op, "operationParameters": {},
                           "isBlindAppend": blind}}


def blind_append(path, version):
    add = _add_of(path, version)
    return [_info("WRITE", True), {"add": dict(add, path=_copy(path, add, "copy-"))}]


def removal(path, version):
    return [_info("DELETE", False), {"remove": _remove(_add_of(path, version))}]


def compaction(path, version):
    add = _add_of(path, version)
    new = dict(add, path=_copy(path, add, "compacted-"), dataChange=False)
    return [_info("OPTIMIZE", False), {"remove": _remove(add, False)}, {"add": new}]


def metadata_change(path, _version):
    with open(f"{path}/_delta_log/{0:020d}.json") as f:
        meta = [json.loads(line)["metaData"] for line in f if '"metaData"' in line][0]
    return [{"commitInfo": {"timestamp": 1, "operation": "SET TBLPROPERTIES",
                            "operationParameters": {}}},
            {"metaData": dict(meta, configuration={"x": "1"})}]


def _racing_udf(s, path, winner):
    """A UDF whose first call writes `winner` as the table's next version."""
    version = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0].version
    target = f"{path}/_delta_log/{version + 1:020d}.json"
    payload = ("\n".join(json.dumps(a) for a in winner) + "\n").encode()

    def hook(x):
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            os.write(fd, payload)
            os.close(fd)
        except FileExistsError:
            pass
        return x
    return s.F.udf(hook, "int", useArrow=False)


def _outcome(s, path, run):
    try:
        run()
    except Exception as e:  # the conflict: class and first line of the message
        text = str(e).replace(s.tmp, "<tmp>")
        m = re.search(r"\[(DELTA_[A-Z_.]+)\] ([^\n]*)", text)
        if not m:
            raise
        return {"error": m.group(1), "message": re.sub(r" SQLSTATE: \w+$", "", m.group(2))}
    return {"table": sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())}


def _merge(s, partitioned, make_winner, winner_version, on):
    path = _table(s, "t", partitioned)
    race = _racing_udf(s, path, make_winner(path, winner_version))
    (s.spark.createDataFrame([(1, "a"), (20, "a"), (99, "a")], "id INT, p STRING")
     .select(race("id").alias("id"), "p").createOrReplaceTempView("src"))
    return _outcome(s, path, lambda: s.spark.sql(
        f"MERGE INTO delta.`{path}` t USING src s ON {on} "
        "WHEN MATCHED THEN UPDATE SET id = s.id WHEN NOT MATCHED THEN INSERT *").collect())


ON_A = "t.id = s.id AND t.p = 'a'"


@case(conf=CONF)
def merge_blind_append_to_the_partition_it_read(s):
    return _merge(s, True, blind_append, 1, ON_A)


@case(conf=CONF)
def merge_blind_append_to_another_partition(s):
    return _merge(s, True, blind_append, 2, ON_A)


@case(conf=CONF)
def merge_removal_of_a_file_it_read(s):
    return _merge(s, True, removal, 3, ON_A)


@case(conf=CONF)
def merge_removal_in_another_partition(s):
    return _merge(s, True, removal, 2, ON_A)


@case(conf=CONF)
def merge_blind_append_unpartitioned(s):
    return _merge(s, False, blind_append, 2, "t.id = s.id")


@case(conf=CONF)
def merge_removal_of_a_file_skipped_by_statistics(s):
    return _merge(s, False, removal, 3, "t.id = s.id AND t.id < 5")


@case(conf=CONF)
def merge_removal_of_a_file_read_unpartitioned(s):
    return _merge(s, False, removal, 1, "t.id = s.id AND t.id < 5")


@case(conf=CONF)
def merge_concurrent_compaction(s):
    """A compaction's added file is checked before its removal: a concurrent append."""
    return _merge(s, False, compaction, 1, "t.id = s.id")


@case(conf=CONF)
def merge_concurrent_metadata_change(s):
    return _merge(s, True, metadata_change, 1, ON_A)


@case(conf=CONF)
def update_removal_of_a_file_it_read(s):
    path = _table(s, "t", True)
    race = _racing_udf(s, path, removal(path, 1))
    return _outcome(s, path, lambda: s.DeltaTable.forPath(s.spark, path).update(
        "id = 2", {"id": race(s.F.col("id")) + 100}))


@case(conf=CONF)
def delete_blind_append_to_the_partition_it_read(s):
    path = _table(s, "t", True)
    race = _racing_udf(s, path, blind_append(path, 3))
    return _outcome(s, path, lambda: s.DeltaTable.forPath(s.spark, path).delete(
        (s.F.col("p") == "a") & (race(s.F.col("id")) == 21)))
