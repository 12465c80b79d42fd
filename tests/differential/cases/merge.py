"""MERGE INTO Delta tables: the same MERGE on the same inputs gives the same result row, the
same table and the same DESCRIBE HISTORY entry (operation, parameters with Spark's
attribute ids removed, and every row/file count among the metrics; bytes and times
differ by nature)."""

import re

from dsl import case

# Metrics that depend on file sizes or clocks.
VARIABLE = {"numTargetBytesAdded", "numTargetBytesRemoved", "executionTimeMs", "scanTimeMs",
            "rewriteTimeMs", "materializeSourceTimeMs"}


# One shuffle partition: both engines write one file per MERGE, so file counts compare.
CONF = {"spark.sql.shuffle.partitions": "1"}


def _table(s, name, ddl, rows):
    """A table of one file per batch of rows (the same layout on both sides)."""
    path = f"{s.tmp}/{name}"
    s.spark.sql(f"CREATE TABLE delta.`{path}` ({ddl}) USING DELTA")
    for batch in rows:
        cols = [c.split() for c in ddl.split(",")]
        (s.spark.sql(f"SELECT * FROM VALUES {batch}").toDF(*[n for n, _ in cols])
         .selectExpr(*[f"CAST({n} AS {t}) AS {n}" for n, t in cols])
         .coalesce(1).write.format("delta").mode("append").save(path))
    return path


def _outcome(s, path, result):
    h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
    params = {k: re.sub(r"#\d+L?", "", v) for k, v in dict(h.operationParameters).items()}
    metrics = {k: v for k, v in dict(h.operationMetrics).items() if k not in VARIABLE}
    table = sorted(tuple(r) for r in s.spark.read.format("delta").load(path).collect())
    return {"result": [tuple(r) for r in result.collect()], "table": table,
            "operation": h.operation, "params": sorted(params.items()),
            "metrics": sorted(metrics.items()),
            "readVersion": h.readVersion, "isBlindAppend": h.isBlindAppend}


@case(conf=CONF)
def all_clause_kinds(s):
    path = _table(s, "t", "id INT, v STRING, n BIGINT",
                  ["(1, 'a', 10), (2, 'b', 20), (3, 'c', 30)", "(4, 'd', 40)"])
    s.spark.sql("SELECT * FROM VALUES (1, 'x', 100), (5, 'y', 500), (4, 'z', 400) "
                "AS s(id, v, n)").createOrReplaceTempView("src")
    out = s.spark.sql(
        f"MERGE INTO delta.`{path}` t USING src s ON t.id = s.id "
        "WHEN MATCHED AND s.n > 300 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = s.v, n = t.n + 1 "
        "WHEN NOT MATCHED AND s.id > 0 THEN INSERT (id, v) VALUES (s.id, s.v) "
        "WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN UPDATE SET v = 'gone' "
        "WHEN NOT MATCHED BY SOURCE THEN DELETE")
    return _outcome(s, path, out)


@case(conf=CONF)
def upsert_update_all_insert_all(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a'), (2, 'b')", "(3, 'c')"])
    src = s.spark.createDataFrame([(2, "B"), (9, "new")], "id INT, v STRING")
    src.createOrReplaceTempView("src")
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING src s ON t.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    return _outcome(s, path, out)


@case(conf=CONF)
def insert_only(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a')"])
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT 1 AS id, 'x' AS v UNION ALL "
                      "SELECT 2, 'y') s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *")
    return _outcome(s, path, out)


@case(conf=CONF)
def unconditional_delete_with_duplicate_source_rows(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a'), (2, 'b')"])
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1), (1) "
                      "AS x(id)) s ON t.id = s.id WHEN MATCHED THEN DELETE")
    return _outcome(s, path, out)


@case(conf=CONF)
def duplicate_source_rows_fail(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a')"])
    s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1, 'p'), (1, 'q') "
                "AS x(id, v)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")


@case(conf=CONF)
def nested_field_assignment(s):
    path = f"{s.tmp}/n"
    s.spark.sql(f"CREATE TABLE delta.`{path}` (id INT, s STRUCT<a: INT, b: STRING>) USING DELTA")
    (s.spark.sql("SELECT 1 AS id, named_struct('a', 1, 'b', 'p') AS s UNION ALL SELECT 2, NULL")
     .coalesce(1).write.format("delta").mode("append").save(path))
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1, 10), (2, 20) "
                      "AS x(id, n)) src ON t.id = src.id WHEN MATCHED THEN UPDATE SET t.s.a = src.n")
    return _outcome(s, path, out)


@case(conf=CONF)
def schema_evolution_star(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a'), (2, 'b')"])
    src = s.spark.sql("SELECT * FROM VALUES (2, 'B', 20L), (3, 'C', 30L) AS x(id, v, extra)")
    src.createOrReplaceTempView("src")
    out = s.spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO delta.`{path}` t USING src s "
                      "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    schema = s.spark.read.format("delta").load(path).schema.simpleString()
    return {**_outcome(s, path, out), "schema": schema}


@case(conf={**CONF, "spark.databricks.delta.schema.autoMerge.enabled": "true"})
def schema_evolution_api_auto_merge(s):
    path = _table(s, "t", "id INT, v STRING", ["(1, 'a')"])
    src = s.spark.sql("SELECT * FROM VALUES (1, 'x', true), (5, 'y', false) AS x(id, v, flag)")
    out = (s.DeltaTable.forPath(s.spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
           .whenNotMatchedInsertAll().execute())
    schema = s.spark.read.format("delta").load(path).schema.simpleString()
    return {"table": _rows(s, path), "schema": schema,
            "history": _outcome(s, path, out)["metrics"]}


# File pruning (Delta's filterFiles over the ON condition's target-only conjuncts; spate
# also prunes by the source's key values): the history counts do not depend on which
# files were skipped, only on the files holding matches.
def _ranges(s):
    """Three files: ids 1-2, 3-4, 5-6 (n = id * 10)."""
    return _table(s, "t", "id INT, v STRING, n BIGINT",
                  ["(1, 'a', 10), (2, 'b', 20)", "(3, 'c', 30), (4, 'd', 40)",
                   "(5, 'e', 50), (6, 'f', 60)"])


@case(conf=CONF)
def pruned_by_target_only_on_conjunct(s):
    path = _ranges(s)
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (3, 'x'), "
                      "(5, 'y'), (9, 'n') AS x(id, v)) s ON t.id = s.id AND t.n >= 40 "
                      "WHEN MATCHED THEN UPDATE SET v = s.v "
                      "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)")
    return _outcome(s, path, out)


@case(conf=CONF)
def matched_only_clause_condition_skips_duplicate_match(s):
    """A target row matched twice in a file no clause condition can hold is not seen:
    delta-spark skips the file (no DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE)."""
    path = _ranges(s)
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (1, 'x'), "
                      "(1, 'y'), (5, 'z') AS x(id, v)) s ON t.id = s.id "
                      "WHEN MATCHED AND t.n > 45 THEN UPDATE SET v = s.v")
    return _outcome(s, path, out)


@case(conf=CONF)
def pruned_by_source_keys_and_partitions(s):
    path = f"{s.tmp}/p"
    (s.spark.sql("SELECT * FROM VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'b', 4), "
                 "(5, 'c', 5) AS x(id, d, n)").selectExpr("CAST(id AS INT) id", "d",
                                                          "CAST(n AS BIGINT) n")
     .repartition(1).write.format("delta").partitionBy("d").save(path))
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (2, 'a', 20), "
                      "(4, 'b', 40), (7, 'c', 70) AS x(id, d, n)) s "
                      "ON t.id = s.id AND t.d = s.d AND t.d >= 'b' "
                      "WHEN MATCHED THEN UPDATE SET n = s.n WHEN NOT MATCHED THEN INSERT *")
    return _outcome(s, path, out)


@case(conf=CONF)
def not_matched_by_source_reads_every_file(s):
    path = _ranges(s)
    out = s.spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT * FROM VALUES (3, 'x') "
                      "AS x(id, v)) s ON t.id = s.id AND t.n >= 30 "
                      "WHEN MATCHED THEN UPDATE SET v = s.v "
                      "WHEN NOT MATCHED BY SOURCE AND t.n < 20 THEN DELETE")
    return _outcome(s, path, out)


@case(conf=CONF)
def source_without_alias_by_dataframe_references(s):
    path = _ranges(s)
    src = s.spark.createDataFrame([(2, "x"), (8, "y")], "id INT, v STRING")
    t = s.DeltaTable.forPath(s.spark, path).alias("t")
    out = (t.merge(src, s.F.col("t.id") == src["id"])
           .whenMatchedUpdate(set={"v": src["v"]})
           .whenNotMatchedInsert(values={"id": src["id"], "v": src["v"]}).execute())
    return _outcome(s, path, out)
