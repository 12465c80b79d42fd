"""Data skipping in UPDATE, DELETE and MERGE (Delta's filterFiles over the files'
statistics): a table of four files with disjoint id ranges, NULL-heavy and long-string
columns. During each command the files whose statistics rule its condition out are moved
away, so an engine that opened one would fail; then they are put back and both engines
must give the same result row, table and DESCRIBE HISTORY entry (operation, every
row/file count; the predicate parameter is compared by dml.py: spate renders IS NULL, IN
and NOT as SQL where delta-spark prints Catalyst's optimized form). Only files
delta-spark 4.4 itself skips are moved (checked against it: the same command fails when
a file it reads is missing)."""

import glob
import json
import os

from dsl import case

VARIABLE = {"numAddedBytes", "numRemovedBytes", "executionTimeMs", "scanTimeMs",
            "rewriteTimeMs", "numTargetBytesAdded", "numTargetBytesRemoved",
            "materializeSourceTimeMs", "numOutputBytes"}

CONF = {"spark.sql.shuffle.partitions": "1"}

P = "p" * 32  # a 32-character prefix: longer values' statistics are truncated to it


def _ranges(s, name="t"):
    """Four files: ids 1-5, 11-15, 21-25, 31-35 (file i holds ids 10*i+1 ..); n = id * 10;
    x NULL in every row of file 0, in two rows of file 1, never after; s short in files 0
    and 1, 35 characters sharing the 32-character prefix P in files 2 and 3."""
    path = f"{s.tmp}/{name}"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id INT, n BIGINT, s STRING, x INT) "
                "USING DELTA")
    for i in range(4):
        rows = []
        for k in range(1, 6):
            id_ = 10 * i + k
            sv = f"{'ab'[i]}{id_:02d}" if i < 2 else P + f"{'cm'[i - 2]}{id_:02d}"
            x = "NULL" if i == 0 or (i == 1 and k % 2 == 0) else str(id_)
            rows.append(f"({id_}, {id_ * 10}, '{sv}', {x})")
        (s.spark.sql("SELECT * FROM VALUES " + ", ".join(rows) + " AS v(id, n, s, x)")
         .selectExpr("CAST(id AS INT) id", "CAST(n AS BIGINT) n", "s", "CAST(x AS INT) x")
         .coalesce(1).write.format("delta").mode("append").save(path))
    return path


def _files(path):
    """The table's live data files by index (file i's minimum id // 10)."""
    live = {}
    for f in sorted(glob.glob(f"{path}/_delta_log/*.json")):
        for line in open(f):
            a = json.loads(line)
            if "add" in a:
                live[a["add"]["path"]] = json.loads(a["add"]["stats"])
            elif "remove" in a:
                live.pop(a["remove"]["path"], None)
    return {stats["minValues"]["id"] // 10: p for p, stats in live.items()}


def _without(path, hidden, run):
    """Runs `run` with the files of indexes `hidden` moved away, then puts them back."""
    files = _files(path)
    moved = [f"{path}/{files[i]}" for i in hidden]
    for f in moved:
        os.rename(f, f + ".away")
    try:
        return run()
    finally:
        for f in moved:
            os.rename(f + ".away", f)


def _history(s, path):
    h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
    metrics = {k: v for k, v in dict(h.operationMetrics).items() if k not in VARIABLE}
    return {"version": h.version, "operation": h.operation,
            "metrics": sorted(metrics.items())}


def _outcome(s, path, result):
    rows = sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())
    return {"result": None if result is None else [tuple(r) for r in result.collect()],
            "table": rows, "history": _history(s, path)}


def _sql(s, path, hidden, statement):
    out = _without(path, hidden, lambda: s.spark.sql(statement.format(t=f"delta.`{path}`"))
                   .collect())
    return {"result": [tuple(r) for r in out], **{k: v for k, v in
                                                  _outcome(s, path, None).items()
                                                  if k != "result"}}


@case(conf=CONF)
def update_point_reads_one_file(s):
    path = _ranges(s)
    return _sql(s, path, [0, 2, 3], "UPDATE {t} SET n = -1 WHERE id = 12")


@case(conf=CONF)
def delete_range_reads_one_file(s):
    path = _ranges(s)
    return _sql(s, path, [0, 1, 2], "DELETE FROM {t} WHERE id >= 32 AND n < 345")


@case(conf=CONF)
def update_bigint_column_int_literal(s):
    path = _ranges(s)
    return _sql(s, path, [0, 1, 2], "UPDATE {t} SET s = 'big' WHERE n > 300")


@case(conf=CONF)
def delete_or_of_ranges(s):
    path = _ranges(s)
    return _sql(s, path, [1, 2], "DELETE FROM {t} WHERE id < 3 OR id >= 34")


@case(conf=CONF)
def update_in_list(s):
    """delta-spark skips by the list's range (file 0 lies below 12); spate also skips
    file 2, which holds none of the values, so its readFiles are narrower."""
    path = _ranges(s)
    return _sql(s, path, [0], "UPDATE {t} SET n = 0 WHERE id IN (12, 33)")


@case(conf=CONF)
def delete_not_and_not_equal(s):
    path = _ranges(s)
    return _sql(s, path, [0, 1, 2], "DELETE FROM {t} WHERE NOT (id < 30) AND id <> 31")


@case(conf=CONF)
def update_is_null_reads_files_with_nulls(s):
    path = _ranges(s)
    return _sql(s, path, [2, 3], "UPDATE {t} SET x = -1 WHERE x IS NULL")


@case(conf=CONF)
def update_is_not_null_skips_all_null_file(s):
    path = _ranges(s)
    return _sql(s, path, [0, 2, 3], "UPDATE {t} SET n = -n WHERE x IS NOT NULL AND id < 20")


@case(conf=CONF)
def delete_nothing_readable_commits_nothing(s):
    path = _ranges(s)
    return _sql(s, path, [0, 1, 2, 3], "DELETE FROM {t} WHERE x IS NOT NULL AND id < 10")


@case(conf=CONF)
def update_truncated_string_statistics_do_not_skip(s):
    """Files 2 and 3 hold values longer than the 32-character statistics: their prefix
    bounds cannot rule out a value that only differs past it, so both are read."""
    path = _ranges(s)
    return _sql(s, path, [0, 1], f"UPDATE {{t}} SET n = -7 WHERE s = '{P}c22' OR s = '{P}zz'")


@case(conf=CONF)
def delete_short_string_range(s):
    path = _ranges(s)
    return _sql(s, path, [0, 2, 3], "DELETE FROM {t} WHERE s = 'b13' OR s = 'b14'")


@case(conf=CONF)
def api_update_and_delete_skip_files(s):
    path = _ranges(s)
    t = s.DeltaTable.forPath(s.spark, path)
    _without(path, [0, 1, 3], lambda: t.update(condition=s.F.col("id") == 23,
                                               set={"s": s.F.lit("api")}))
    _without(path, [1, 2, 3], lambda: t.delete("id <= 2"))
    rows = sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())
    hist = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 2").collect()
    return {"table": rows,
            "metrics": [sorted((k, v) for k, v in dict(h.operationMetrics).items()
                               if k not in VARIABLE) for h in hist]}


@case(conf=CONF)
def merge_on_condition_or_of_target_ranges(s):
    path = _ranges(s)
    s.spark.sql("SELECT * FROM VALUES (2, 'x'), (12, 'y'), (40, 'z') AS v(id, s)") \
        .selectExpr("CAST(id AS INT) id", "s").createOrReplaceTempView("src")
    out = _without(path, [1, 2], lambda: s.spark.sql(
        f"MERGE INTO delta.`{path}` t USING src ON t.id = src.id AND (t.n < 100 OR t.n > 300) "
        "WHEN MATCHED THEN UPDATE SET s = src.s").collect())
    return {"result": [tuple(r) for r in out],
            **{k: v for k, v in _outcome(s, path, None).items() if k != "result"}}


@case(conf=CONF)
def update_non_deterministic_condition_is_refused(s):
    """A non-deterministic condition is refused before any file is chosen (so it never
    skips one): INVALID_NON_DETERMINISTIC_EXPRESSIONS on both engines."""
    path = _ranges(s)
    return _sql(s, path, [], "UPDATE {t} SET n = 0 WHERE id = 12 AND rand() < 2")
