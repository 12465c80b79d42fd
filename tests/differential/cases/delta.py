"""Delta tables: writes (append, overwrite, partitioned, CTAS), time travel, DESCRIBE HISTORY.
Results are collected after a case returns, so cases leave their tables in place (each run
starts from empty warehouses)."""

import os

from dsl import pins, Differs, case


def _history(s, table_sql):
    # Timestamps, ids and metrics vary by run and engine: compare the deterministic columns.
    return s.spark.sql(f"DESCRIBE HISTORY {table_sql}").select("version", "operation").orderBy("version")


@case(ordered=True)
def path_append_overwrite_versions(s):
    path = os.path.join(s.tmp, "t")
    s.spark.range(3).write.format("delta").save(path)
    s.spark.range(3, 5).write.format("delta").mode("append").save(path)
    s.spark.range(10, 12).write.format("delta").mode("overwrite").save(path)
    read = s.spark.read.format("delta")
    return {"v0": read.option("versionAsOf", 0).load(path).orderBy("id"),
            "v1": read.option("versionAsOf", "1").load(path).orderBy("id"),
            "latest": s.spark.read.format("delta").load(path).orderBy("id"),
            "history": _history(s, f"delta.`{path}`")}


@case(ordered=True)
def sql_version_as_of(s):
    path = os.path.join(s.tmp, "t")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.range(5).write.format("delta").mode("overwrite").save(path)
    return {"v0": s.spark.sql(f"SELECT * FROM delta.`{path}` VERSION AS OF 0 ORDER BY id"),
            "v1": s.spark.sql(f"SELECT count(*) AS n FROM delta.`{path}` VERSION AS OF 1")}


@case
def version_as_of_missing(s):
    path = os.path.join(s.tmp, "t")
    s.spark.range(2).write.format("delta").save(path)
    return s.spark.read.format("delta").option("versionAsOf", 5).load(path)


@case(ordered=True)
def partitioned_table(s):
    path = os.path.join(s.tmp, "p")
    s.spark.sql("SELECT id, CAST(id % 3 AS string) AS part FROM range(9)").write.format("delta") \
        .partitionBy("part").save(path)
    df = s.spark.read.format("delta").load(path)
    return {"all": df.orderBy("id"), "one": df.filter("part = '1'").orderBy("id"),
            "history": _history(s, f"delta.`{path}`")}


@case(ordered=True)
def sql_table_lifecycle(s):
    s.spark.sql("CREATE TABLE diff_orders (id BIGINT, amount DECIMAL(10,2), day DATE) USING DELTA")
    s.spark.sql("INSERT INTO diff_orders VALUES (1, 9.99, DATE'2026-11-30'), (2, 1.50, NULL)")
    s.spark.sql("INSERT INTO diff_orders SELECT 3, 0.01, DATE'2026-12-01'")
    s.spark.sql("INSERT OVERWRITE diff_orders VALUES (2, 1.50, NULL), (3, 0.01, DATE'2026-12-01')")
    return {"rows": s.spark.sql("SELECT * FROM diff_orders ORDER BY id"),
            "v1": s.spark.sql("SELECT * FROM diff_orders VERSION AS OF 1 ORDER BY id"),
            "history": _history(s, "diff_orders")}


@case(ordered=True)
def ctas_partitioned(s):
    s.spark.sql("CREATE OR REPLACE TABLE diff_ctas USING DELTA PARTITIONED BY (k) AS "
                "SELECT id, id % 2 AS k FROM range(6)")
    return {"rows": s.spark.table("diff_ctas").orderBy("id"), "history": _history(s, "diff_ctas")}


@case(ordered=True)
def save_as_table_modes(s):
    s.spark.range(3).write.format("delta").saveAsTable("diff_sat")
    s.spark.range(3, 4).write.format("delta").mode("append").saveAsTable("diff_sat")
    return {"rows": s.spark.table("diff_sat").orderBy("id"), "history": _history(s, "diff_sat")}


@case
def save_as_table_exists(s):
    s.spark.range(3).write.format("delta").saveAsTable("diff_sat2")
    s.spark.range(3).write.format("delta").saveAsTable("diff_sat2")


@case(ordered=True)
def many_commits_across_checkpoint(s):
    path = os.path.join(s.tmp, "c")
    for i in range(12):
        s.spark.range(i, i + 1).write.format("delta").mode("append").save(path)
    return {"rows": s.spark.read.format("delta").load(path).orderBy("id"),
            "v5": s.spark.read.format("delta").option("versionAsOf", 5).load(path).orderBy("id"),
            "versions": _history(s, f"delta.`{path}`").count()}


@case
def schema_mismatch_append(s):
    path = os.path.join(s.tmp, "m")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql("SELECT 'x' AS other").write.format("delta").mode("append").save(path)


@case(ordered=True)
def merge_schema_append(s):
    path = os.path.join(s.tmp, "ms")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql("SELECT 5L AS id, 'x' AS extra").write.format("delta").mode("append") \
        .option("mergeSchema", "true").save(path)
    return s.spark.read.format("delta").load(path).orderBy("id")


@case(ordered=True)
def overwrite_schema(s):
    path = os.path.join(s.tmp, "os")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql("SELECT 'a' AS s").write.format("delta").mode("overwrite") \
        .option("overwriteSchema", "true").save(path)
    return s.spark.read.format("delta").load(path)


@case(ordered=True)
def replace_where(s):
    path = os.path.join(s.tmp, "rw")
    s.spark.sql("SELECT id, id % 2 AS k FROM range(6)").write.format("delta").partitionBy("k").save(path)
    s.spark.sql("SELECT 100L AS id, 1L AS k").write.format("delta").mode("overwrite") \
        .option("replaceWhere", "k = 1").save(path)
    return s.spark.read.format("delta").load(path).orderBy("id")


def _protocol(s, table_sql):
    """The table's protocol as DESCRIBE DETAIL shows it (versions and features, sorted)."""
    d = s.spark.sql(f"DESCRIBE DETAIL {table_sql}").collect()[0]
    return s.spark.createDataFrame(
        [(d["minReaderVersion"], d["minWriterVersion"], sorted(d["tableFeatures"]))],
        "r int, w int, features array<string>")


_NTZ = "CAST(TIMESTAMP'2020-01-02 03:04:05' AS timestamp_ntz)"


@case(ordered=True)
def timestamp_ntz_table_protocol(s):
    """A table with a TIMESTAMP_NTZ column (top level or nested) declares the timestampNtz
    feature: reader 3 / writer 7, with the legacy features writer version 2 implied."""
    top, nested = os.path.join(s.tmp, "ntz"), os.path.join(s.tmp, "ntz_nested")
    s.spark.sql(f"SELECT 1 AS id, {_NTZ} AS t").write.format("delta").save(top)
    s.spark.sql(f"SELECT 1 AS id, array(named_struct('t', {_NTZ})) AS a").write.format("delta") \
        .save(nested)
    s.spark.sql(f"CREATE TABLE delta.`{s.tmp}/ntz_sql` (id INT NOT NULL, t TIMESTAMP_NTZ) USING delta")
    s.spark.sql(f"INSERT INTO delta.`{s.tmp}/ntz_sql` VALUES (1, {_NTZ})")
    return {"top": _protocol(s, f"delta.`{top}`"), "nested": _protocol(s, f"delta.`{nested}`"),
            "sql": _protocol(s, f"delta.`{s.tmp}/ntz_sql`"),
            "rows": s.spark.read.format("delta").load(top),
            "props": s.spark.sql(f"SHOW TBLPROPERTIES delta.`{top}`")}


@case
def merge_schema_adds_timestamp_ntz(s):
    """Adding a TIMESTAMP_NTZ column to a table without the feature is refused (the
    feature must be enabled by hand first)."""
    path = os.path.join(s.tmp, "m")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql(f"SELECT 5L AS id, {_NTZ} AS t").write.format("delta").mode("append") \
        .option("mergeSchema", "true").save(path)


@case
def overwrite_schema_to_timestamp_ntz(s):
    path = os.path.join(s.tmp, "o")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql(f"SELECT {_NTZ} AS t").write.format("delta").mode("overwrite") \
        .option("overwriteSchema", "true").save(path)


@case(ordered=True)
def feature_enabled_by_property(s):
    """ALTER TABLE SET TBLPROPERTIES ('delta.feature.timestampNtz' = 'supported') adds the
    feature to the protocol (the key is not kept as a property); then the column merges in."""
    path = os.path.join(s.tmp, "f")
    t = f"delta.`{path}`"
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('delta.feature.timestampNtz' = 'supported')")
    before = _protocol(s, t).collect()
    s.spark.sql(f"SELECT 5L AS id, {_NTZ} AS t").write.format("delta").mode("append") \
        .option("mergeSchema", "true").save(path)
    return {"before": s.spark.createDataFrame(before, "r int, w int, features array<string>"),
            "after": _protocol(s, t), "props": s.spark.sql(f"SHOW TBLPROPERTIES {t}"),
            "rows": s.spark.read.format("delta").load(path).orderBy("id")}


@case(ordered=True)
def feature_property_at_create(s):
    t = f"delta.`{s.tmp}/c`"
    s.spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta "
                "TBLPROPERTIES ('delta.feature.timestampNtz' = 'supported', 'q' = 'x')")
    return {"protocol": _protocol(s, t), "props": s.spark.sql(f"SHOW TBLPROPERTIES {t}")}


@case
def feature_property_unknown(s):
    path = os.path.join(s.tmp, "u")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.feature.noSuchThing' = 'supported')")


@case
def feature_property_bad_status(s):
    path = os.path.join(s.tmp, "b")
    s.spark.range(2).write.format("delta").save(path)
    s.spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.feature.timestampNtz' = 'on')")


@case
def describe_detail_columns(s):
    path = os.path.join(s.tmp, "dd")
    s.spark.range(2).write.format("delta").partitionBy("id").save(path)
    d = s.spark.sql(f"DESCRIBE DETAIL delta.`{path}`")
    return d.select("format", "partitionColumns", "numFiles")


@case(ordered=True)
def table_properties_set_unset_show(s):
    """TBLPROPERTIES are the table's configuration: CREATE, ALTER TABLE SET / UNSET
    (a missing key without IF EXISTS is no error in Delta 4.4), SHOW TBLPROPERTIES [(key)],
    DESCRIBE DETAIL's properties, the history's operations and the UNSET commits'
    parameters (their types as written)."""
    path = os.path.join(s.tmp, "props")
    t = f"delta.`{path}`"
    s.spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta "
                "TBLPROPERTIES ('quality' = 'silver', 'delta.appendOnly' = 'false')")
    s.spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('owner.team' = 'data', 'quality' = 'gold')")
    s.spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('delta.appendOnly', 'nope')")
    s.spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES IF EXISTS ('nope')")
    detail = s.spark.sql(f"DESCRIBE DETAIL {t}").collect()[0]["properties"]
    # The UNSET commits' parameters as written (ifExists is a JSON boolean in Delta 4.4).
    unsets = (s.spark.read.json([os.path.join(path, "_delta_log", "%020d.json" % v)
                                 for v in (2, 3)])
              .where("commitInfo IS NOT NULL")
              .select("commitInfo.operation", "commitInfo.operationParameters.*"))
    return {"show": s.spark.sql(f"SHOW TBLPROPERTIES {t}"),
            "unsets": unsets,
            "one": s.spark.sql(f"SHOW TBLPROPERTIES {t} ('quality')"),
            "detail": s.spark.createDataFrame(sorted(dict(detail).items()), "k string, v string"),
            "history": _history(s, t)}
