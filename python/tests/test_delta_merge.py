"""MERGE into Delta tables from Python: delta-spark's DeltaTable.merge builder (keyword
names condition=, set=, values=), SQL MERGE INTO, and the seeds' foreachBatch upsert
(a micro-batch with two rows for one key fails and changes nothing; after a
row_number() dedup it succeeds; replaying a batch id with txnAppId/txnVersion is a
no-op)."""

import json
import os

import pytest

from spate.delta import DeltaTable
from spate.errors import AnalysisException, StreamingQueryException
from spate.sql import Row, Window
from spate.sql import functions as F


@pytest.fixture
def wspark(spark, tmp_path):
    s = spark.newSession()
    s.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return s


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def make_target(spark, path):
    spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "c", 30)],
                          "id INT, v STRING, n BIGINT").write.format("delta").save(path)


def last_history(t):
    return t.history(1).collect()[0]


def counting_udf():
    """A bigint identity UDF and the list of the values it was called with."""
    calls = []

    @F.udf("bigint")
    def tap(x):
        calls.append(x)
        return x
    return tap, calls


def test_builder_with_keyword_names(spark, tmp_path):
    path = str(tmp_path / "t")
    make_target(spark, path)
    src = spark.createDataFrame([(1, "x", 5), (4, "new", 6)], "id INT, v STRING, n BIGINT")
    t = DeltaTable.forPath(spark, path)
    out = (t.alias("t").merge(src.alias("s"), "t.id = s.id")
           .whenMatchedUpdate(set={"v": "s.v", "n": F.col("t.n") + F.col("s.n")})
           .whenNotMatchedInsert(condition=F.col("s.id") > 3,
                                 values={"id": "s.id", "v": F.upper(F.col("s.v")), "n": 0})
           .whenNotMatchedBySourceDelete(condition="t.id = 3")
           .execute())
    assert out.columns == ["num_affected_rows", "num_updated_rows", "num_deleted_rows",
                           "num_inserted_rows"]
    assert tuple(out.collect()[0]) == (3, 1, 1, 1)
    assert rows(t.toDF()) == [(1, "x", 15), (2, "b", 20), (4, "NEW", 0)]
    h = last_history(t)
    assert h.operation == "MERGE"
    m = h.operationMetrics
    assert (m["numTargetRowsUpdated"], m["numTargetRowsInserted"], m["numTargetRowsDeleted"],
            m["numTargetRowsCopied"], m["numSourceRows"]) == ("1", "1", "1", "1", "2")
    assert json.loads(h.operationParameters["matchedPredicates"]) == [{"actionType": "update"}]
    assert json.loads(h.operationParameters["notMatchedBySourcePredicates"]) == [
        {"predicate": "(id = 3)", "actionType": "delete"}]


def test_update_all_insert_all_and_delete(spark, tmp_path):
    path = str(tmp_path / "t")
    make_target(spark, path)
    src = spark.createDataFrame([(1, "del", 0), (2, "upd", 2), (9, "ins", 9)],
                                "id INT, v STRING, n BIGINT")
    (DeltaTable.forPath(spark, path).alias("t").merge(src.alias("s"), "t.id = s.id")
     .whenMatchedDelete(condition="s.v = 'del'")
     .whenMatchedUpdateAll()
     .whenNotMatchedInsertAll()
     .execute())
    assert rows(spark.read.format("delta").load(path)) == [
        (2, "upd", 2), (3, "c", 30), (9, "ins", 9)]


def test_multiple_matches_and_clause_rules(spark, tmp_path):
    path = str(tmp_path / "t")
    make_target(spark, path)
    t = DeltaTable.forPath(spark, path)
    dup = spark.createDataFrame([(1, "p", 0), (1, "q", 0)], "id INT, v STRING, n BIGINT")
    with pytest.raises(Exception) as e:
        t.alias("t").merge(dup.alias("s"), "t.id = s.id").whenMatchedUpdateAll().execute()
    assert e.value.getErrorClass() == "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"
    assert "Cannot perform Merge as multiple source rows matched" in str(e.value)
    assert len(t.history().collect()) == 1
    with pytest.raises(AnalysisException) as e:
        t.alias("t").merge(dup.alias("s"), "t.id = s.id").whenMatchedDelete().whenMatchedDelete()
    assert e.value.getErrorClass() == "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION"
    with pytest.raises(ValueError):
        t.alias("t").merge(dup.alias("s"), "t.id = s.id").whenMatchedUpdate(set={})


def test_sql_merge_from_a_temp_view(wspark):
    wspark.sql("CREATE TABLE silver (id INT NOT NULL, v STRING) USING DELTA")
    wspark.sql("INSERT INTO silver VALUES (1, 'a')")
    wspark.createDataFrame([(1, "b"), (2, "c")], "id INT, v STRING") \
        .createOrReplaceTempView("updates")
    out = wspark.sql("MERGE INTO silver t USING updates s ON t.id = s.id "
                     "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert out.collect() == [Row(num_affected_rows=2, num_updated_rows=1, num_deleted_rows=0,
                                 num_inserted_rows=1)]
    assert rows(wspark.table("silver")) == [(1, "b"), (2, "c")]
    assert DeltaTable.forName(wspark, "silver").history(1).collect()[0].operation == "MERGE"


def land(folder, name, records):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path + ".tmp", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    os.rename(path + ".tmp", path)


def upsert_query(spark, tmp_path, func, name):
    return (spark.readStream.schema("id INT, v STRING, ts BIGINT").json(str(tmp_path / "in"))
            .writeStream.foreachBatch(func)
            .option("checkpointLocation", str(tmp_path / ("chk_" + name)))
            .trigger(availableNow=True).start())


def test_foreach_batch_upsert_with_duplicates_then_dedup(wspark, tmp_path):
    """The seeds' silver upsert: MERGE from the micro-batch's temp view."""
    spark = wspark
    spark.sql("CREATE TABLE silver (id INT, v STRING, ts BIGINT) USING DELTA")
    spark.sql("INSERT INTO silver VALUES (1, 'old', 0)")
    land(str(tmp_path / "in"), "a.json", [{"id": 1, "v": "first", "ts": 1},
                                          {"id": 1, "v": "second", "ts": 2},
                                          {"id": 2, "v": "new", "ts": 1}])
    merge_sql = ("MERGE INTO silver t USING batch s ON t.id = s.id "
                 "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")

    def naive(batch_df, batch_id):
        batch_df.createOrReplaceTempView("batch")
        batch_df.sparkSession.sql(merge_sql)

    q = upsert_query(spark, tmp_path, naive, "naive")
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination()
    assert "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE" in str(e.value)
    assert rows(spark.table("silver")) == [(1, "old", 0)]
    assert len(DeltaTable.forName(spark, "silver").history().collect()) == 2

    def dedup(batch_df, batch_id):
        w = Window.partitionBy("id").orderBy(F.col("ts").desc())
        latest = (batch_df.withColumn("rn", F.row_number().over(w))
                  .filter("rn = 1").drop("rn"))
        latest.createOrReplaceTempView("batch")
        latest.sparkSession.sql(merge_sql)

    q = upsert_query(spark, tmp_path, dedup, "dedup")
    q.awaitTermination()
    assert rows(spark.table("silver")) == [(1, "second", 2), (2, "new", 1)]


def test_replayed_batch_id_is_a_no_op(wspark, tmp_path):
    """txnAppId/txnVersion (Delta's idempotent DML) keyed by the batch id."""
    spark = wspark
    spark.sql("CREATE TABLE silver (id INT, n BIGINT) USING DELTA")
    batch = spark.createDataFrame([(1, 5), (2, 7)], "id INT, n BIGINT")

    def upsert(batch_df, batch_id):
        s = batch_df.sparkSession
        s.conf.set("spark.databricks.delta.write.txnAppId", "silver-upsert")
        s.conf.set("spark.databricks.delta.write.txnVersion", str(batch_id))
        try:
            (DeltaTable.forName(s, "silver").alias("t")
             .merge(batch_df.alias("s"), "t.id = s.id")
             .whenMatchedUpdate(set={"n": "t.n + s.n"})
             .whenNotMatchedInsertAll().execute())
        finally:
            s.conf.unset("spark.databricks.delta.write.txnAppId")
            s.conf.unset("spark.databricks.delta.write.txnVersion")

    upsert(batch, 0)
    upsert(batch, 0)  # the replay of batch 0 (a restart after the MERGE, before commits/0)
    assert rows(spark.table("silver")) == [(1, 5), (2, 7)]
    upsert(batch, 1)
    assert rows(spark.table("silver")) == [(1, 10), (2, 14)]
    assert [r.operation for r in DeltaTable.forName(spark, "silver").history().collect()] == [
        "MERGE", "MERGE", "CREATE TABLE"]


def test_merge_schema_evolution(spark, tmp_path):
    """withSchemaEvolution() / WITH SCHEMA EVOLUTION / autoMerge: UPDATE SET * and INSERT *
    add the source's new columns (at the end, nullable); rows no star clause wrote get
    NULL there. Without it the extra source column is ignored by the star clauses."""
    path = str(tmp_path / "t")
    make_target(spark, path)
    src = spark.createDataFrame([(1, "A", 11, True), (9, "new", 90, False)],
                                "id INT, v STRING, n BIGINT, flag BOOLEAN")
    t = DeltaTable.forPath(spark, path)
    (t.alias("t").merge(src.alias("s"), "t.id = s.id")
     .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
    assert t.toDF().columns == ["id", "v", "n"]
    (t.alias("t").merge(src.alias("s"), "t.id = s.id").withSchemaEvolution()
     .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
    assert t.toDF().columns == ["id", "v", "n", "flag"]
    assert rows(t.toDF()) == [(1, "A", 11, True), (2, "b", 20, None), (3, "c", 30, None),
                              (9, "new", 90, False)]


def test_source_is_materialized_once(spark, tmp_path):
    """The source is evaluated once (Delta's merge.materializeSource=auto), not once per
    pass (count, matched files, rewrite); `none` evaluates it per pass."""
    tap, calls = counting_udf()

    path = str(tmp_path / "t")
    make_target(spark, path)
    t = DeltaTable.forPath(spark, path)
    src = spark.range(4).select(tap(F.col("id")).alias("id"), F.lit("s").alias("v"))

    def merge():
        t.alias("t").merge(src.alias("s"), "t.id = s.id") \
            .whenMatchedUpdate(set={"v": "s.v"}) \
            .whenNotMatchedInsert(values={"id": "s.id", "v": "s.v"}).execute()

    merge()
    assert sorted(calls) == [0, 1, 2, 3]
    assert last_history(t).operationMetrics["numSourceRows"] == "4"
    s = spark.newSession()
    s.conf.set("spark.databricks.delta.merge.materializeSource", "none")
    s.conf.set("spate.delta.merge.onePassMaxBytes", str(1 << 30))
    del calls[:]
    src = s.range(4).select(tap(F.col("id")).alias("id"), F.lit("s").alias("v"))
    t = DeltaTable.forPath(s, path)
    merge()
    # One join over the candidate files (the one-pass MERGE, turned on: at least as many
    # source rows as candidate files, which are small; the count does not call the UDF);
    # the two passes (the default) join twice.
    assert len(calls) == 4
    s.conf.set("spate.delta.merge.onePassMaxBytes", "0")
    del calls[:]
    src = s.range(4).select(tap(F.col("id")).alias("id"), F.lit("s").alias("v"))
    t = DeltaTable.forPath(s, path)
    merge()
    assert len(calls) == 8


def test_source_without_alias_or_by_column_references_is_materialized_once(
        wspark, tmp_path):
    """A source without an alias (a view, whose name qualifies its columns; a DataFrame
    whose columns the MERGE names by df["c"]) is also evaluated once: its qualifier and
    its DataFrame references carry over to the materialized rows."""
    tap, calls = counting_udf()

    path = str(tmp_path / "t")
    make_target(wspark, path)
    t = DeltaTable.forPath(wspark, path)
    src = wspark.range(2, 6).select(tap(F.col("id")).alias("id"),
                                    F.lit("df").alias("v"))
    (t.alias("t").merge(src, F.col("t.id") == src["id"])
     .whenMatchedUpdate(condition=src["id"] > 2, set={"v": src["v"]})
     .whenNotMatchedInsert(values={"id": src["id"], "v": src["v"],
                                   "n": src["id"] * 100})
     .execute())
    assert sorted(calls) == [2, 3, 4, 5]
    assert rows(t.toDF()) == [(1, "a", 10), (2, "b", 20), (3, "df", 30),
                              (4, "df", 400), (5, "df", 500)]
    del calls[:]
    wspark.range(3, 8).select(tap(F.col("id")).alias("id"), F.lit("view").alias("v")) \
        .createOrReplaceTempView("updates")
    (t.alias("t").merge(wspark.table("updates"), "t.id = updates.id")
     .whenMatchedUpdate(set={"v": "updates.v"})
     .whenNotMatchedInsert(values={"id": "updates.id", "v": "updates.v"}).execute())
    assert sorted(calls) == [3, 4, 5, 6, 7]
    assert last_history(t).operationMetrics["numSourceRows"] == "5"
    assert rows(t.toDF()) == [(1, "a", 10), (2, "b", 20), (3, "view", 30),
                              (4, "view", 400), (5, "view", 500), (6, "view", None),
                              (7, "view", None)]


def test_sql_merge_whose_source_calls_a_python_udf(tmp_path):
    """spark.sql(...) runs a MERGE at once; a Python UDF in its source runs on the engine's
    threads, which need the GIL the calling thread held (the call hung before the binding
    released it). Run in a child so that a hang fails the test instead of stalling it."""
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent(f"""
        from spate.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        spark.conf.set("spark.sql.warehouse.dir", {str(tmp_path / "warehouse")!r})
        spark.udf.register("plus_one", lambda x: x + 1, "bigint")
        spark.sql("CREATE TABLE silver (id BIGINT, v BIGINT) USING DELTA")
        spark.sql("INSERT INTO silver VALUES (1, 0), (2, 0)")
        spark.range(0, 400000, 1, 4).createOrReplaceTempView("ids")
        spark.sql("CREATE TEMP VIEW updates AS SELECT id, plus_one(id) AS v FROM ids")
        spark.sql("MERGE INTO silver t USING updates s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
        spark.sql("INSERT INTO silver SELECT plus_one(id) + 400000, 0 FROM ids")
        print(spark.sql("SELECT count(*), sum(v), max(id) FROM silver").collect()[0])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    total = sum(range(1, 400001))
    assert done.stdout.strip() == f"Row(count(1)=800000, sum(v)={total}, max(id)=800000)"


def racing_udf(statement):
    """A bigint identity UDF that, at its first call (while the MERGE materializes its
    source, after it read the table's snapshot), runs the SQL `statement` in another
    process: a commit that wins the race with the MERGE."""
    import subprocess
    import sys
    ran = []

    @F.udf("bigint")
    def race(x):
        if not ran:
            ran.append(True)
            script = ("from spate.sql import SparkSession\n"
                      f"SparkSession.builder.getOrCreate().sql({statement!r})\n")
            done = subprocess.run([sys.executable, "-c", script], capture_output=True,
                                  text=True, timeout=300, env=os.environ.copy())
            assert done.returncode == 0, done.stderr
        return x
    return race


def test_merge_conflicts_only_with_removals_of_files_it_read(spark, tmp_path):
    """As Delta: a concurrent removal conflicts with a MERGE only when its pruned scan read
    the removed file, not when the file was skipped (here by the source's key range); a
    compaction's new file conflicts first, as a concurrent append to what the MERGE read
    (DELTA_CONCURRENT_APPEND, as delta-spark 4.4 reports it)."""
    path = str(tmp_path / "t")
    spark.createDataFrame([(1, "a"), (2, "b")], "id BIGINT, v STRING").coalesce(1) \
        .write.format("delta").save(path)
    spark.createDataFrame([(100, "x"), (101, "y")], "id BIGINT, v STRING").coalesce(1) \
        .write.format("delta").mode("append").save(path)
    t = DeltaTable.forPath(spark, path)
    # A concurrent DELETE of the file the MERGE skipped: no conflict.
    race = racing_udf(f"DELETE FROM delta.`{path}` WHERE id >= 100")
    src = spark.range(1, 2).select(race(F.col("id")).alias("id"), F.lit("new").alias("v"))
    t.alias("t").merge(src.alias("s"), "t.id = s.id").whenMatchedUpdateAll().execute()
    assert rows(t.toDF()) == [(1, "new"), (2, "b")]
    # A concurrent compaction (dataChange=false) of the file an insert-only MERGE read.
    spark.createDataFrame([(200, "z")], "id BIGINT, v STRING").write.format("delta") \
        .mode("append").save(path)
    race = racing_udf(f"OPTIMIZE delta.`{path}`")
    src = spark.range(2, 4).select(race(F.col("id")).alias("id"), F.lit("new").alias("v"))
    with pytest.raises(Exception, match=r"DELTA_CONCURRENT_APPEND\.WITHOUT_HINT"):
        t.alias("t").merge(src.alias("s"), "t.id = s.id").whenNotMatchedInsertAll().execute()
    assert rows(t.toDF()) == [(1, "new"), (2, "b"), (200, "z")]


def test_schema_evolution_of_explicit_assignments(spark, tmp_path):
    """With schema evolution, UPDATE SET / INSERT naming a column the target lacks and the
    source has adds it with the source's type (delta-spark 4.x); a name the source lacks,
    or one qualified by the target's alias, stays unresolved."""
    src = spark.createDataFrame([(1, "x", 10, "p"), (4, "y", 40, "q")],
                                "id INT, v STRING, n INT, m STRING")
    path = str(tmp_path / "evo")
    make_target(spark, path)  # id INT, v STRING, n BIGINT
    t = DeltaTable.forPath(spark, path)
    (t.alias("t").merge(src.alias("s"), "t.id = s.id").withSchemaEvolution()
     .whenMatchedUpdate(set={"m": "upper(s.m)"})
     .whenNotMatchedInsert(values={"id": "s.id", "m": "s.m"}).execute())
    assert [(f.name, f.dataType.simpleString()) for f in t.toDF().schema.fields] == [
        ("id", "int"), ("v", "string"), ("n", "bigint"), ("m", "string")]
    assert rows(t.toDF()) == [(1, "a", 10, "P"), (2, "b", 20, None), (3, "c", 30, None),
                              (4, None, None, "q")]
    src2 = spark.createDataFrame([(1, 5)], "id INT, z INT")
    for sets in ({"k": "s.z"}, {"t.z": "s.z"}):
        with pytest.raises(AnalysisException, match="DELTA_MERGE_UNRESOLVED_EXPRESSION"):
            (t.alias("t").merge(src2.alias("s"), "t.id = s.id").withSchemaEvolution()
             .whenMatchedUpdate(set=sets).execute())
    with pytest.raises(AnalysisException, match="DELTA_MERGE_UNRESOLVED_EXPRESSION"):
        spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT 1 AS id, 2 AS z) s "
                  "ON t.id = s.id WHEN MATCHED THEN UPDATE SET z = s.z")
