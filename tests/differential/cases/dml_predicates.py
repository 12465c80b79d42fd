"""The `predicate` operationParameters of DELETE, UPDATE and MERGE in DESCRIBE HISTORY:
delta-spark 4.4 writes Catalyst's optimized form of each condition (`isnull(x)`,
`id IN (12,33)`, `NOT id IN (1,2)`, `(id >= 30)` for NOT (id < 30), BETWEEN as two
comparisons, a one-value IN as `=`, `x <=> NULL` as `isnull(x)`, LIKE 'a%' as
StartsWith, string literals unquoted); the same command on both engines must give the
same parameters (Spark's attribute ids and BIGINT `L` suffixes removed), result row,
table and count metrics."""

import re

from dsl import case

# Metrics that depend on file sizes or clocks.
VARIABLE = {"numAddedBytes", "numRemovedBytes", "executionTimeMs", "scanTimeMs",
            "rewriteTimeMs", "numTargetBytesAdded", "numTargetBytesRemoved",
            "materializeSourceTimeMs", "numOutputBytes"}

CONF = {"spark.sql.shuffle.partitions": "1"}


def _table(s):
    """Two files: ids 1 and 12 (x NULL in id 1), then 33 and 40 (s NULL in 33)."""
    path = f"{s.tmp}/t"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id INT, x INT, s STRING, n BIGINT) "
                "USING DELTA")
    for batch in ["(1, NULL, 'a', 10), (12, 3, 'b', 20)",
                  "(33, 4, NULL, 30), (40, 5, 'dd', 40)"]:
        (s.spark.sql(f"SELECT * FROM VALUES {batch} AS v(id, x, s, n)")
         .selectExpr("CAST(id AS INT) id", "CAST(x AS INT) x", "s", "CAST(n AS BIGINT) n")
         .coalesce(1).write.format("delta").mode("append").save(path))
    return path


def _outcome(s, path, result):
    h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
    params = {k: re.sub(r"#\d+L?", "", v) for k, v in dict(h.operationParameters).items()
              if v is not None}
    metrics = {k: v for k, v in dict(h.operationMetrics).items() if k not in VARIABLE}
    table = sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())
    return {"result": [tuple(r) for r in result.collect()], "table": table,
            "operation": h.operation, "params": sorted(params.items()),
            "metrics": sorted(metrics.items())}


def _delete(s, cond):
    path = _table(s)
    return _outcome(s, path, s.spark.sql(f"DELETE FROM delta.`{path}` WHERE {cond}"))


def _update(s, cond):
    path = _table(s)
    return _outcome(s, path,
                    s.spark.sql(f"UPDATE delta.`{path}` SET n = -1 WHERE {cond}"))


@case(conf=CONF)
def delete_is_null(s):
    return _delete(s, "x IS NULL")


@case(conf=CONF)
def delete_is_not_null_or_equal(s):
    return _delete(s, "id = 12 OR s IS NOT NULL")


@case(conf=CONF)
def delete_in_list(s):
    return _delete(s, "id IN (12, 33)")


@case(conf=CONF)
def delete_not_in_list(s):
    return _delete(s, "id NOT IN (12, 33)")


@case(conf=CONF)
def delete_string_in_list(s):
    return _delete(s, "s IN ('a', 'dd')")


@case(conf=CONF)
def delete_bigint_in_list(s):
    return _delete(s, "n IN (10, 20)")


@case(conf=CONF)
def delete_in_one_value(s):
    return _delete(s, "id IN (12)")


@case(conf=CONF)
def delete_not_of_and(s):
    return _delete(s, "NOT (id < 30 AND x IS NULL)")


@case(conf=CONF)
def delete_not_equal_and_not_like(s):
    return _delete(s, "NOT (s = 'a') AND NOT s LIKE 'b%'")


@case(conf=CONF)
def delete_null_safe_equal_null(s):
    return _delete(s, "x <=> NULL")


@case(conf=CONF)
def delete_not_between(s):
    return _delete(s, "NOT (id BETWEEN 10 AND 35)")


@case(conf=CONF)
def update_not_less_than(s):
    return _update(s, "NOT (id < 30)")


@case(conf=CONF)
def update_not_in_and_is_not_null(s):
    return _update(s, "NOT (id IN (1, 2)) AND s IS NOT NULL")


@case(conf=CONF)
def update_between_and_not_not_equal(s):
    return _update(s, "id BETWEEN 10 AND 35 AND NOT (id <> 12)")


@case(conf=CONF)
def update_not_is_null(s):
    return _update(s, "NOT (x IS NULL) AND NOT (s IS NOT NULL)")


@case(conf=CONF)
def merge_clause_predicates(s):
    path = _table(s)
    out = s.spark.sql(
        f"MERGE INTO delta.`{path}` AS t USING (SELECT * FROM VALUES (12, 7), (50, 8), "
        "(33, NULL), (60, NULL) AS v(id, x)) AS s ON t.id = s.id AND t.x IS NOT NULL "
        "WHEN MATCHED AND NOT (t.id > 30) THEN UPDATE SET n = -1 "
        "WHEN MATCHED AND s.x IS NULL THEN DELETE "
        "WHEN NOT MATCHED AND s.x IS NOT NULL AND NOT (s.id IN (1, 2)) "
        "THEN INSERT (id, n) VALUES (s.id, 0) "
        "WHEN NOT MATCHED BY SOURCE AND t.x IS NULL THEN DELETE")
    return _outcome(s, path, out)


@case(conf=CONF)
def merge_in_list_and_between(s):
    path = _table(s)
    out = s.spark.sql(
        f"MERGE INTO delta.`{path}` AS t USING (SELECT * FROM VALUES (33, 7), (40, 8), "
        "(60, 9) AS v(id, x)) AS s ON t.id = s.id AND t.id IN (12, 33, 40) "
        "WHEN MATCHED AND s.x BETWEEN 8 AND 9 THEN UPDATE SET x = s.x "
        "WHEN MATCHED AND NOT (s.x <> 7) THEN DELETE")
    return _outcome(s, path, out)


@case(conf=CONF)
def merge_api_conditions(s):
    path = _table(s)
    src = s.spark.sql("SELECT * FROM VALUES (1, 7), (12, NULL), (70, 1) AS v(id, x)")
    (s.DeltaTable.forPath(s.spark, path).alias("t")
     .merge(src.alias("s"), "t.id = s.id")
     .whenMatchedUpdate(condition="s.x IS NULL", set={"n": "-2"})
     .whenMatchedDelete(condition=s.F.col("t.x").isNull())
     .whenNotMatchedInsert(condition="s.id NOT IN (1, 2)", values={"id": "s.id"})
     .execute())
    h = _outcome(s, path, s.spark.sql("SELECT 1"))
    # Spark's predicates from the API may show unresolved names as 'x.
    h["params"] = [(k, re.sub(r"(?<=[( ])'(?=[A-Za-z_])", "", v)) for k, v in h["params"]]
    return h
