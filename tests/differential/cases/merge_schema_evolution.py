"""MERGE schema evolution of explicit assignments (delta-spark 4.x): with WITH SCHEMA
EVOLUTION / withSchemaEvolution() / spark.databricks.delta.schema.autoMerge.enabled, an
UPDATE SET or INSERT naming (unqualified) a column the target lacks and the source has
adds that column, with the source column's type, at the end in the source's order; the
value may be any expression. Compared: the result row, the table, its schema and the
history entry (as merge.py)."""

import re

from dsl import case

CONF = {"spark.sql.shuffle.partitions": "1"}
VARIABLE = {"numTargetBytesAdded", "numTargetBytesRemoved", "executionTimeMs", "scanTimeMs",
            "rewriteTimeMs", "materializeSourceTimeMs"}
SOURCE = "(SELECT * FROM VALUES (1L, 'x', 10, 'p'), (3L, 'y', 30, 'q') AS s(id, v, n, m))"


def _target(s):
    path = f"{s.tmp}/t"
    (s.spark.sql("SELECT * FROM VALUES (1L, 'a'), (2L, 'b') AS r(id, v)").coalesce(1)
     .write.format("delta").save(path))
    return path


def _outcome(s, path, result):
    h = s.spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
    params = {k: re.sub(r"#\d+L?", "", v) for k, v in dict(h.operationParameters).items()}
    df = s.spark.read.format("delta").load(path)
    return {"result": [tuple(r) for r in result.collect()] if result is not None else None,
            "table": sorted((tuple(r) for r in df.collect()), key=repr),
            "schema": [(f.name, f.dataType.simpleString(), f.nullable) for f in df.schema.fields],
            "params": sorted(params.items()),
            "metrics": sorted((k, v) for k, v in dict(h.operationMetrics).items() if k not in VARIABLE)}


def _merge(s, clauses):
    path = _target(s)
    out = s.spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO delta.`{path}` t USING {SOURCE} s "
                      f"ON t.id = s.id {clauses}")
    return _outcome(s, path, out)


@case(conf=CONF)
def update_set_adds_the_column(s):
    return _merge(s, "WHEN MATCHED THEN UPDATE SET n = s.n")


@case(conf=CONF)
def update_set_adds_columns_in_source_order(s):
    return _merge(s, "WHEN MATCHED THEN UPDATE SET m = s.m, n = s.n")


@case(conf=CONF)
def update_set_of_an_expression_takes_the_source_type(s):
    return {"literal": _merge(s, "WHEN MATCHED THEN UPDATE SET n = 5"),
            "expression": _merge(s, "WHEN MATCHED THEN UPDATE SET n = s.n + 1"),
            "cast": _merge(s, "WHEN MATCHED THEN UPDATE SET n = CAST(s.n AS BIGINT)"),
            "case": _merge(s, "WHEN MATCHED THEN UPDATE SET N = s.n")}


@case(conf=CONF)
def insert_adds_the_column(s):
    return {"same": _merge(s, "WHEN NOT MATCHED THEN INSERT (id, v, n) VALUES (s.id, s.v, s.n)"),
            "literal": _merge(s, "WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, 7)")}


@case(conf=CONF)
def update_and_insert_add_different_columns(s):
    return _merge(s, "WHEN MATCHED THEN UPDATE SET n = s.n "
                     "WHEN NOT MATCHED THEN INSERT (id, m) VALUES (s.id, s.m)")


@case(conf=CONF)
def star_and_explicit_clauses(s):
    return _merge(s, "WHEN MATCHED THEN UPDATE SET * "
                     "WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, s.n)")


@case(conf=CONF)
def api_with_schema_evolution(s):
    path = _target(s)
    src = s.spark.createDataFrame([(1, "x", 10), (3, "y", 30)], "id BIGINT, v STRING, n INT")
    out = (s.DeltaTable.forPath(s.spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
           .withSchemaEvolution().whenMatchedUpdate(set={"n": "s.n"})
           .whenNotMatchedInsert(values={"id": "s.id", "n": "s.n"}).execute())
    return _outcome(s, path, out)


@case(conf={**CONF, "spark.databricks.delta.schema.autoMerge.enabled": "true"})
def api_auto_merge(s):
    path = _target(s)
    src = s.spark.createDataFrame([(1, "x", 10), (3, "y", 30)], "id BIGINT, v STRING, n INT")
    out = (s.DeltaTable.forPath(s.spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
           .whenMatchedUpdate(set={"n": "s.n"}).execute())
    return _outcome(s, path, out)
