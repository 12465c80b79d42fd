"""Declarative pipelines (docs/pipelines.md): STREAM and read_files in SQL, `spate run`
on SQL files and on a spark-pipeline.yml spec with Python definitions, and the course's
bronze/silver/gold pipeline written in SQL giving the same tables as its Python version
(examples/python/stateful_pipeline.py's run_job)."""
import os
import json
import subprocess
import sys
import textwrap

import pytest

from spate.errors import AnalysisException, PySparkException
from spate.sql import SparkSession, functions as F
from test_monitoring import spate_cli

SCHEMA = "event_id LONG, user_id INT, event_type STRING, event_ts TIMESTAMP, amount DOUBLE"


def land_events(spark, src, batch, start, n=500):
    """The course's generator: n events (ids start..) as JSON in src/batch_<batch>."""
    (spark.range(start, start + n).select(
        F.col("id").alias("event_id"),
        (F.pmod(F.hash("id", F.lit(1)), F.lit(50)) + 1).alias("user_id"),
        F.element_at(F.array(F.lit("view"), F.lit("click"), F.lit("buy")),
                     (F.pmod(F.hash("id", F.lit(2)), F.lit(3)) + 1)).alias("event_type"),
        F.timestamp_seconds(F.lit(1740787200) + F.col("id") * 10).alias("event_ts"),
        F.round(F.pmod(F.hash("id", F.lit(3)), F.lit(10000)) / 100, 2).alias("amount"),
    ).coalesce(1).write.mode("overwrite").json(f"{src}/batch_{batch}"))


def land_late_event(spark, src):
    """11.11: an event hours late (2025-03-01 00:01) in src/batch_3."""
    (spark.createDataFrame([(99999, 7, "buy", "2025-03-01 00:01:00", 12.5)],
                           "event_id LONG, user_id INT, event_type STRING, event_ts STRING, "
                           "amount DOUBLE")
     .withColumn("event_ts", F.to_timestamp("event_ts"))
     .coalesce(1).write.mode("overwrite").json(f"{src}/batch_3"))


# The course's job (stateful_pipeline.py's run_job without its prints): three availableNow
# queries, each with its own checkpoint.
PYTHON_JOB = textwrap.dedent('''
    import sys
    from pyspark.sql import SparkSession, functions as F
    work, src = sys.argv[1], sys.argv[2]
    spark = (SparkSession.builder.config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.warehouse.dir", work + "/warehouse").getOrCreate())
    schema = "%s"
    def run_layer(df, table, cp, mode="append"):
        (df.writeStream.outputMode(mode).option("checkpointLocation", f"{work}/_cp/{cp}")
           .trigger(availableNow=True).toTable(table)).awaitTermination()
    run_layer(spark.readStream.schema(schema).option("recursiveFileLookup", "true")
              .option("pathGlobFilter", "*.json").json(src), "events_bronze", "bronze")
    silver = (spark.readStream.table("events_bronze")
              .filter("amount IS NOT NULL AND amount >= 0")
              .withWatermark("event_ts", "10 minutes")
              .dropDuplicatesWithinWatermark(["event_id"]))
    run_layer(silver, "events_silver", "silver")
    gold = (spark.readStream.table("events_silver")
            .withWatermark("event_ts", "10 minutes")
            .groupBy(F.window("event_ts", "30 minutes"), "event_type")
            .agg(F.count("*").alias("events"), F.round(F.sum("amount"), 2).alias("amount")))
    run_layer(gold, "events_by_type", "gold")
''' % SCHEMA)

BRONZE_SQL = """
-- bronze: files -> table (keeps every row, however late)
CREATE STREAMING TABLE events_bronze
COMMENT 'raw events'
AS SELECT * FROM STREAM read_files(
  '{src}',
  format => 'json',
  schema => '%s',
  recursiveFileLookup => true,
  pathGlobFilter => '*.json');
""" % SCHEMA

SILVER_SQL = """
-- silver: valid rows (SQL has no dropDuplicatesWithinWatermark: see docs/pipelines.md)
CREATE STREAMING TABLE events_silver AS
SELECT * FROM STREAM(events_bronze) WHERE amount IS NOT NULL AND amount >= 0;
"""

GOLD_SQL = """
-- gold: windowed counts; append mode closes a window once the watermark passes its end
CREATE STREAMING TABLE events_by_type AS
SELECT window(event_ts, '30 minutes') AS window, event_type,
       count(*) AS events, round(sum(amount), 2) AS amount
FROM STREAM(events_silver) WATERMARK event_ts DELAY OF INTERVAL 10 MINUTES
GROUP BY window(event_ts, '30 minutes'), event_type;

-- a batch summary, recomputed each run
CREATE MATERIALIZED VIEW events_per_type AS
SELECT event_type, count(*) AS events FROM events_bronze GROUP BY event_type;
"""

SILVER_PY = textwrap.dedent('''
    from pyspark import pipelines as dp

    @dp.table(name="events_silver", comment="valid, deduplicated within the watermark")
    def silver():
        return (spark.readStream.table("events_bronze")
                .filter("amount IS NOT NULL AND amount >= 0")
                .withWatermark("event_ts", "10 minutes")
                .dropDuplicatesWithinWatermark(["event_id"]))
''')


def course_spec(work, src, storage, warehouse):
    """The course pipeline as a spec project in `work`: bronze and gold in SQL, silver in
    Python (transformations/), storage and warehouse as given."""
    (work / "transformations").mkdir(parents=True, exist_ok=True)
    (work / "spark-pipeline.yml").write_text(textwrap.dedent(f"""
        name: course
        storage: {storage}
        configuration:
          spark.sql.session.timeZone: UTC
          spark.sql.warehouse.dir: {warehouse}
        libraries:
          - glob:
              include: transformations/**
    """))
    (work / "transformations" / "bronze.sql").write_text(BRONZE_SQL.format(src=src))
    (work / "transformations" / "silver.py").write_text(SILVER_PY)
    (work / "transformations" / "gold.sql").write_text(GOLD_SQL)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def rows(spark, path, order):
    return [tuple(r) for r in spark.read.format("delta").load(path).orderBy(*order).collect()]


def landed(spark, tmp_path, n):
    """(the spate command, a landing folder with n events, an empty work folder)."""
    src = str(tmp_path / "events")
    land_events(spark, src, 1, 0, n=n)
    work = tmp_path / "w"
    work.mkdir()
    return spate_cli(), src, work


def test_stream_and_read_files_in_sql(spark, tmp_path):
    src = tmp_path / "in"
    land_events(spark, str(src), 1, 0, n=20)
    batch = spark.sql(f"SELECT count(*) AS n FROM read_files('{src}', format => 'json', "
                      f"schema => '{SCHEMA}', recursiveFileLookup => true)")
    assert not batch.isStreaming and batch.first().n == 20
    stream = spark.sql(f"SELECT event_id FROM STREAM read_files('{src}', format => 'json', "
                       f"schema => '{SCHEMA}', recursiveFileLookup => true)")
    assert stream.isStreaming
    q = (stream.writeStream.format("memory").queryName("rf_stream")
         .option("checkpointLocation", str(tmp_path / "cp"))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert spark.table("rf_stream").count() == 20
    spark.range(3).createOrReplaceTempView("batch_view")
    with pytest.raises(Exception, match="not a temp view of streaming logical plan"):
        spark.sql("SELECT * FROM STREAM(batch_view)")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("SELECT * FROM STREAM no_such_table_anywhere")
    with pytest.raises(PySparkException,
                       match="CREATE_PIPELINE_DATASET_QUERY_EXECUTION"):
        spark.sql("CREATE STREAMING TABLE x AS SELECT 1")
    with pytest.raises(PySparkException, match="CREATE_FLOW_QUERY_EXECUTION"):
        spark.sql("CREATE FLOW f AS INSERT INTO t BY NAME SELECT 1 AS id")


def test_course_pipeline_in_sql_equals_python(spark, tmp_path):
    """The course's bronze/silver/gold job run three times (a late event in the third) as
    Python (spate submit) and as SQL (spate run): the same bronze and gold tables; silver
    differs only by the late row, which the Python version's dropDuplicatesWithinWatermark
    drops and SQL (which has no such operator) keeps. With silver defined in Python in a
    spec (spate run spark-pipeline.yml), silver is equal too."""
    cli = spate_cli()
    src = str(tmp_path / "events")
    py_work, sql_work, spec_work = tmp_path / "py", tmp_path / "sql", tmp_path / "spec"
    for d in (py_work, sql_work, spec_work / "transformations"):
        d.mkdir(parents=True)
    (tmp_path / "job.py").write_text(PYTHON_JOB)
    (sql_work / "pipeline.sql").write_text(BRONZE_SQL.format(src=src) + SILVER_SQL + GOLD_SQL)
    course_spec(spec_work, src, f"{spec_work}/storage", f"{spec_work}/warehouse")

    def run_all():
        run([cli, "submit", str(tmp_path / "job.py"), str(py_work), src])
        out = run([cli, "run", str(sql_work / "pipeline.sql"),
                   "--conf", "spark.sql.session.timeZone=UTC",
                   "--conf", f"spark.sql.warehouse.dir={sql_work}/warehouse"]).stdout
        run([cli, "run", str(spec_work / "spark-pipeline.yml")])
        return out

    land_events(spark, src, 1, 0)
    out = run_all()
    assert "events_bronze: 500 rows in 1 batches" in out, out
    assert "events_per_type: recomputed" in out, out
    land_events(spark, src, 2, 500)
    run_all()
    land_late_event(spark, src)
    land_events(spark, src, 4, 1000)
    run_all()
    out = run_all()  # nothing new: nothing reprocessed
    assert "events_bronze: 0 rows in 0 batches" in out, out

    def table(work, name, order):
        return rows(spark, str(work / "warehouse" / name), order)

    by_id = ["event_id"]
    gold_order = ["window", "event_type"]
    py_bronze = table(py_work, "events_bronze", by_id)
    assert len(py_bronze) == 1501
    for work in (sql_work, spec_work / "warehouse" / ".."):
        assert table(work, "events_bronze", by_id) == py_bronze
        assert table(work, "events_by_type", gold_order) == table(py_work, "events_by_type",
                                                                  gold_order)
    py_silver = table(py_work, "events_silver", by_id)
    assert table(spec_work, "events_silver", by_id) == py_silver
    sql_silver = table(sql_work, "events_silver", by_id)
    assert [r for r in sql_silver if r[0] != 99999] == py_silver
    assert len(sql_silver) == len(py_silver) + 1
    # The materialized view equals the batch query over bronze.
    per_type = sorted((r.event_type, r.events) for r in
                      spark.read.format("delta").load(str(sql_work / "warehouse" / "events_bronze"))
                      .groupBy("event_type").agg(F.count("*").alias("events")).collect())
    assert sorted(tuple(r) for r in spark.read.format("delta").load(
        str(sql_work / "warehouse" / "events_per_type")).collect()) == per_type
    # Spark's checkpoint layout: <storage>/_checkpoints/<catalog>/<database>/<table>/<flow>/0.
    assert (sql_work / "pipeline-storage" / "_checkpoints" / "spark_catalog" / "default" /
            "events_bronze" / "events_bronze" / "0" / "commits").is_dir()
    assert (spec_work / "storage" / "_checkpoints" / "spark_catalog" / "default" /
            "events_silver" / "events_silver" / "0" / "offsets").is_dir()


def test_flows_views_refresh_and_errors(spark, tmp_path):
    cli, src, work = landed(spark, tmp_path, 30)
    conf = ["--conf", f"spark.sql.warehouse.dir={work}/warehouse"]
    (work / "p.sql").write_text(BRONZE_SQL.format(src=src) + """
        CREATE TEMPORARY VIEW buys AS SELECT * FROM STREAM(events_bronze) WHERE event_type = 'buy';
        CREATE STREAMING TABLE picked (event_id BIGINT, event_type STRING)
          TBLPROPERTIES ('quality' = 'silver');
        CREATE FLOW from_buys AS INSERT INTO picked BY NAME
          SELECT event_type, event_id FROM STREAM(buys);
        CREATE FLOW from_views AS INSERT INTO picked BY NAME
          SELECT event_id, event_type FROM STREAM(events_bronze) WHERE event_type = 'view';
    """)
    out = run([cli, "run", str(work / "p.sql"), *conf]).stdout
    assert "picked:" in out and "(flow from_buys)" in out, out
    picked = spark.read.format("delta").load(str(work / "warehouse" / "picked"))
    assert picked.columns == ["event_id", "event_type"]
    bronze = spark.read.format("delta").load(str(work / "warehouse" / "events_bronze"))
    assert picked.count() == bronze.where("event_type IN ('buy', 'view')").count()
    # The table was created with the declared TBLPROPERTIES: in the CREATE TABLE commit's
    # parameters and in the table's configuration, where Delta keeps them.
    log = (work / "warehouse" / "picked" / "_delta_log" / ("0" * 20 + ".json")).read_text()
    assert '\\"quality\\":\\"silver\\"' in log, log
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{work}/warehouse/picked`").collect()[0]
    assert dict(detail["properties"]) == {"quality": "silver"}
    # --full-refresh-all: the tables start over from the files.
    out = run([cli, "run", str(work / "p.sql"), "--full-refresh-all", *conf]).stdout
    assert "events_bronze: 30 rows in 1 batches" in out, out
    assert spark.read.format("delta").load(str(work / "warehouse" / "events_bronze")).count() == 30
    # A cycle, and a batch query into a streaming table, are refused before anything runs.
    (work / "cycle.sql").write_text("""
        CREATE STREAMING TABLE a AS SELECT * FROM STREAM(b);
        CREATE STREAMING TABLE b AS SELECT * FROM STREAM(a);
    """)
    r = subprocess.run([cli, "run", str(work / "cycle.sql"), *conf], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and "cycle" in r.stderr, r.stderr
    (work / "batch.sql").write_text("CREATE STREAMING TABLE s AS SELECT * FROM range(3);")
    r = subprocess.run([cli, "run", str(work / "batch.sql"), *conf], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and "batch query" in r.stderr, r.stderr


def test_a_failed_flow_skips_its_dependents_and_the_others_run_on(spark, tmp_path):
    """As spark-pipelines 4.2 (checked on build/spark-venv): a flow that fails is retried
    (spark.sql.pipelines.maxFlowRetryAttempts), its dependents are SKIPPED, independent
    flows complete, and the run fails with the flow's error."""
    cli, src, work = landed(spark, tmp_path, 20)
    conf = ["--conf", f"spark.sql.warehouse.dir={work}/warehouse",
            "--conf", "spark.sql.pipelines.maxFlowRetryAttempts=1",
            "--conf", "spark.sql.pipelines.execution.watchdog.minRetryTime=1"]
    failing = """
        CREATE MATERIALIZED VIEW broken AS SELECT raise_error('boom') AS x FROM range(3);
        CREATE MATERIALIZED VIEW after_broken AS SELECT * FROM broken;
    """
    (work / "p.sql").write_text(failing + BRONZE_SQL.format(src=src) + SILVER_SQL)
    r = subprocess.run([cli, "run", str(work / "p.sql"), *conf], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "USER_RAISED_EXCEPTION" in r.stderr and "boom" in r.stderr, r.stderr
    assert r.stderr.count("Flow 'spark_catalog.default.broken' has FAILED.") == 2, r.stderr
    assert ("Flow 'spark_catalog.default.after_broken' SKIPPED due to upstream failure(s)."
            in r.stderr), r.stderr
    assert "Flow spark_catalog.default.events_silver has COMPLETED." in r.stderr, r.stderr
    silver = spark.read.format("delta").load(str(work / "warehouse" / "events_silver"))
    assert silver.count() == spark.read.json(src).where("amount >= 0").count() > 0

    # The same from Python: run() raises, last_run() has each flow's fate.
    from spate.pipelines import Pipeline
    spark.conf.set("spark.sql.pipelines.maxFlowRetryAttempts", "0")
    p = Pipeline(spark, str(work / "storage2"))
    p.add_sql(failing + "CREATE MATERIALIZED VIEW fine AS SELECT 1 AS one;")
    with pytest.raises(PySparkException, match="USER_RAISED_EXCEPTION"):
        p.run()
    fates = {f["flow"]: (f["status"], f["error"] is not None) for f in p.last_run()}
    assert fates == {"broken": ("FAILED", True), "after_broken": ("SKIPPED", False),
                     "fine": ("COMPLETED", False)}, fates
    assert spark.table("fine").collect()[0][0] == 1


def test_dry_run_resolves_without_writing(spark, tmp_path):
    """`spate run --dry-run` (SQL files) and on a spec (`spate.pipelines dry-run`), as
    spark-pipelines dry-run: every flow resolved against the graph, nothing written; an
    unresolvable flow and its dependents reported, exit code 1."""
    cli, src, work = landed(spark, tmp_path, 10)
    conf = ["--conf", f"spark.sql.warehouse.dir={work}/warehouse"]
    (work / "p.sql").write_text(BRONZE_SQL.format(src=src) + SILVER_SQL + GOLD_SQL)
    r = run([cli, "run", "--dry-run", str(work / "p.sql"), *conf])
    assert "Run is COMPLETED." in r.stderr, r.stderr
    assert "events_by_type: resolved" in r.stdout, r.stdout
    assert not (work / "warehouse").exists() and not (work / "pipeline-storage").exists()
    (work / "bad.sql").write_text(BRONZE_SQL.format(src=src) + """
        CREATE MATERIALIZED VIEW broken AS SELECT nope FROM events_bronze;
        CREATE MATERIALIZED VIEW after_broken AS SELECT * FROM broken;
    """)
    r = subprocess.run([cli, "run", "--dry-run", str(work / "bad.sql"), *conf],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Failed to resolve flow: 'spark_catalog.default.broken'." in r.stderr, r.stderr
    assert "UNRESOLVED_COLUMN" in r.stderr, r.stderr
    assert ("Failed to resolve flow due to upstream failure: "
            "'spark_catalog.default.after_broken'." in r.stderr), r.stderr
    assert "Flows with errors: spark_catalog.default.broken" in r.stderr, r.stderr
    assert not (work / "warehouse").exists()
    # A spec with a Python flow: resolved in Python, nothing written either.
    spec_work = tmp_path / "spec"
    course_spec(spec_work, src, "storage", "warehouse")
    r = run([cli, "run", "--dry-run", "spark-pipeline.yml"], cwd=spec_work)
    assert "events_silver: resolved" in r.stdout and "Run is COMPLETED." in r.stderr, \
        r.stdout + r.stderr
    assert not (spec_work / "warehouse").exists() and not (spec_work / "storage").exists()


def test_read_stream_table_of_a_temp_view(spark, tmp_path):
    """readStream.table of a temporary view over a stream reads it (as Spark; what a Python
    flow reading another dataset sees in a dry run); a batch view is refused."""
    _, src, _ = landed(spark, tmp_path, 10)
    spark.readStream.schema(SCHEMA).json(f"{src}/batch_1").createOrReplaceTempView("s_view")
    df = spark.readStream.table("s_view").where("amount >= 0")
    assert df.isStreaming
    q = df.writeStream.format("memory").queryName("from_view").trigger(availableNow=True).start()
    q.awaitTermination()
    assert spark.table("from_view").count() == spark.read.json(f"{src}/batch_1").where(
        "amount >= 0").count() > 0
    spark.range(3).createOrReplaceTempView("b_view")
    with pytest.raises(PySparkException, match="not a temp view of streaming logical plan"):
        spark.readStream.table("b_view")


def test_continuous_run_stops_on_sigint(spark, tmp_path):
    import signal
    import time
    cli, src, work = landed(spark, tmp_path, 10)
    (work / "p.sql").write_text(BRONZE_SQL.format(src=src))
    p = subprocess.Popen([cli, "run", str(work / "p.sql"), "--continuous",
                          "--trigger-interval", "200 milliseconds",
                          "--conf", f"spark.sql.warehouse.dir={work}/warehouse"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        table = work / "warehouse" / "events_bronze"
        # Waits on the table's content (no timing threshold: the test's own timeout bounds it).
        while True:
            if (table / "_delta_log").is_dir():
                try:
                    if spark.read.format("delta").load(str(table)).count() == 10:
                        break
                except Exception:
                    pass
            assert p.poll() is None, p.communicate()
            time.sleep(0.1)
        land_events(spark, src, 2, 10, n=5)
        while spark.read.format("delta").load(str(table)).count() != 15:
            assert p.poll() is None, p.communicate()
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "Run is STOPPED." in err, err
    finally:
        if p.poll() is None:
            p.kill()


def test_python_api_outside_a_pipeline():
    from spate import pipelines as dp
    with pytest.raises(PySparkException,
                       match="GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE"):
        @dp.table
        def t():
            return None


def test_checkpoint_check_of_a_pipeline_sql_file(spark, tmp_path):
    """`spate checkpoint check DIR --query pipeline.sql`: the flow DIR belongs to, started as
    `spate run` starts it, checked against its checkpoint (docs/pipelines.md)."""
    from spate import checkpoint
    cli, src, work = landed(spark, tmp_path, 200)
    conf = ["--conf", f"spark.sql.warehouse.dir={work}/warehouse"]
    sql = BRONZE_SQL.format(src=src) + SILVER_SQL + GOLD_SQL
    (work / "p.sql").write_text(sql)
    run([cli, "run", str(work / "p.sql"), *conf])
    cps = work / "pipeline-storage" / "_checkpoints" / "spark_catalog" / "default"
    gold_cp = str(cps / "events_by_type" / "events_by_type" / "0")

    def check(text, cp=gold_cp, *extra):
        (work / "q.sql").write_text(text)
        return subprocess.run([cli, "checkpoint", "check", cp, "--query", str(work / "q.sql"),
                               *conf, *extra], capture_output=True, text=True, timeout=300)

    r = check(sql)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "unchanged" in r.stdout, r.stdout
    # A filter added to silver is safe.
    r = check(sql.replace("amount >= 0;", "amount >= 1;"),
              str(cps / "events_silver" / "events_silver" / "0"))
    assert r.returncode == 0 and "filter" in r.stdout, r.stdout + r.stderr
    # gold grouped by user instead of event type: Spark refuses the state.
    changed = sql.replace("event_type,\n       count(*)", "user_id,\n       count(*)").replace(
        "GROUP BY window(event_ts, '30 minutes'), event_type",
        "GROUP BY window(event_ts, '30 minutes'), user_id")
    assert changed != sql
    r = check(changed)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE" in r.stdout, r.stdout
    # --table picks the flow when DIR is not in the pipeline layout; JSON as for Python files.
    r = check(sql, gold_cp, "--table", "events_by_type", "--json")
    assert r.returncode == 0 and '"exitCode" : 0' in r.stdout, r.stdout + r.stderr
    # From Python (the test session's warehouse differs: the tables are read by path).
    doc = checkpoint.check(str(cps / "events_bronze" / "events_bronze" / "0"),
                           str(work / "p.sql"))
    assert doc["exitCode"] == 0, doc


def replay_and_check_without_query(cli, cps, cwd):
    """`spate checkpoint replay DIR --batch 0|1` and `check DIR` without --query on each
    streaming table's checkpoint under `cps`: equal to the committed output, unchanged."""
    for table in ("events_bronze", "events_silver", "events_by_type"):
        cp = str(cps / table / table / "0")
        for batch in (0, 1):
            r = subprocess.run([cli, "checkpoint", "replay", cp, "--batch", str(batch), "--json"],
                               capture_output=True, text=True, timeout=300, cwd=cwd)
            assert r.returncode == 0, (table, batch, r.stdout + r.stderr)
            doc = json.loads(r.stdout)
            assert doc["equal"] is True and doc["sink"]["kind"] == "delta", doc
        r = subprocess.run([cli, "checkpoint", "check", cp], capture_output=True, text=True,
                           timeout=300, cwd=cwd)
        assert r.returncode == 0 and "unchanged" in r.stdout, r.stdout + r.stderr


def test_checkpoint_replay_of_a_pipeline_without_query(spark, tmp_path):
    """`spate run` records its SQL files, confs and working folder in each flow's query
    record: `spate checkpoint replay DIR --batch N` (and `check DIR`) without --query run
    the flow DIR belongs to again; every replayed batch equals what its table committed."""
    cli, src, work = landed(spark, tmp_path, 200)
    conf = ["--conf", "spark.sql.warehouse.dir=warehouse"]  # relative: the folder matters
    (work / "p.sql").write_text(BRONZE_SQL.format(src=src) + SILVER_SQL + GOLD_SQL)
    run([cli, "run", "p.sql", *conf], cwd=work)
    land_events(spark, src, 2, 200, n=100)
    run([cli, "run", "p.sql", *conf], cwd=work)
    cps = work / "pipeline-storage" / "_checkpoints" / "spark_catalog" / "default"
    record = json.loads((cps / "events_bronze" / "events_bronze" / "0" /
                         "spate-query.json").read_text())
    assert record["program"]["kind"] == "pipeline"
    assert record["program"]["files"] == [str(work / "p.sql")]
    assert record["program"]["cwd"] == str(work)
    replay_and_check_without_query(cli, cps, tmp_path)
    bronze = json.loads(subprocess.run(
        [cli, "checkpoint", "replay", str(cps / "events_bronze" / "events_bronze" / "0"),
         "--batch", "1", "--json"], capture_output=True, text=True, timeout=300).stdout)
    assert bronze["replayedRows"] == 100
    # From Python, in a fresh interpreter (a session that exists keeps its own warehouse:
    # the recorded confs apply to the session the replay creates); and the SQL file as
    # --query works for replay too.
    code = ("import sys; from spate import checkpoint; "
            "sys.exit(0 if checkpoint.replay(sys.argv[1], 1)['equal'] else 1)")
    r = subprocess.run([sys.executable, "-c", code,
                        str(cps / "events_silver" / "events_silver" / "0")],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([cli, "checkpoint", "replay", str(cps / "events_silver" / "events_silver"
                        / "0"), "--batch", "0", "--query", "p.sql", *conf],
                       capture_output=True, text=True, timeout=300, cwd=work)
    assert r.returncode == 0 and "equals what the sink committed" in r.stdout, r.stderr


def test_checkpoint_replay_of_a_spec_pipeline_without_query(spark, tmp_path):
    """`spate run spark-pipeline.yml` (SQL and Python definitions) records the spec in each
    flow's query record: `spate checkpoint replay DIR --batch N` and `check DIR` without
    --query load the spec again and run the flow DIR belongs to — a Python flow (silver)
    and SQL flows alike — and every replayed batch equals what its table committed."""
    cli, src, work = landed(spark, tmp_path, 200)
    course_spec(work, src, "storage", "warehouse")  # relative: the folder matters
    run([cli, "run", "spark-pipeline.yml"], cwd=work)
    land_events(spark, src, 2, 200, n=100)
    run([cli, "run", "spark-pipeline.yml"], cwd=work)
    cps = work / "storage" / "_checkpoints" / "spark_catalog" / "default"
    record = json.loads((cps / "events_silver" / "events_silver" / "0" /
                         "spate-query.json").read_text())
    assert record["program"]["kind"] == "pipeline", record
    assert record["program"]["files"] == [str(work / "spark-pipeline.yml")], record
    replay_and_check_without_query(cli, cps, tmp_path)
    # Every committed batch of the Python flow (silver), replayed, gives the whole table.
    silver_cp = cps / "events_silver" / "events_silver" / "0"
    replayed = 0
    for batch in sorted(int(f.name) for f in (silver_cp / "commits").iterdir()
                        if f.name.isdigit()):
        doc = json.loads(subprocess.run(
            [cli, "checkpoint", "replay", str(silver_cp), "--batch", str(batch), "--json"],
            capture_output=True, text=True, timeout=300).stdout)
        assert doc["equal"] is True, doc
        replayed += doc["replayedRows"]
    assert replayed == spark.read.format("delta").load(
        str(work / "warehouse" / "events_silver")).count() > 0
    # The spec as --query, and a folder that is no flow's checkpoint.
    r = subprocess.run([cli, "checkpoint", "check", str(cps / "events_by_type" /
                        "events_by_type" / "0"), "--query", "spark-pipeline.yml"],
                       capture_output=True, text=True, timeout=300, cwd=work)
    assert r.returncode == 0 and "unchanged" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([cli, "checkpoint", "check", str(tmp_path), "--query",
                        str(work / "spark-pipeline.yml")],
                       capture_output=True, text=True, timeout=300, cwd=work)
    assert r.returncode == 3 and "No streaming flow of the pipeline" in r.stderr, \
        r.stdout + r.stderr


def test_python_pipeline_class_with_decorators_and_sql(spark, tmp_path):
    """spate.pipelines.Pipeline in-process: a decorated bronze, SQL downstream."""
    import uuid
    from spate import pipelines as dp
    # Fresh names: the test session's warehouse outlives the test.
    tag = uuid.uuid4().hex[:8]
    b, m, v = f"py_bronze_{tag}", f"py_buys_{tag}", f"py_views_{tag}"
    src = str(tmp_path / "events")
    land_events(spark, src, 1, 0, n=40)
    events = []
    p = dp.Pipeline(spark, str(tmp_path / "storage"), on_event=events.append)
    with p.definitions():
        # Defined before the table it reads: a code flow's reads are known only when it
        # runs, so it waits for the others (TABLE_OR_VIEW_NOT_FOUND) and runs after them.
        @dp.materialized_view(name=m)
        def buys():
            return spark.table(b).where("event_type = 'buy'")

        @dp.table(name=b, comment="raw")
        def bronze():
            return spark.readStream.schema(SCHEMA).option("recursiveFileLookup", "true").json(src)
    p.add_sql(f"CREATE STREAMING TABLE {v} AS "
              f"SELECT * FROM STREAM({b}) WHERE event_type = 'view';")
    assert sorted(p.flow_order()) == sorted([b, m, v])
    results = {r["target"]: r for r in p.run()}
    assert results[b]["rows"] == 40
    bronze_rows = spark.table(b)
    assert spark.table(m).count() == bronze_rows.where("event_type = 'buy'").count()
    assert spark.table(v).count() == bronze_rows.where("event_type = 'view'").count()
    assert any(f"{b} is RUNNING" in e for e in events), events
    assert any(f"{m} waits for the datasets it reads" in e for e in events), events
    again = {r["target"]: r for r in p.run()}
    assert again[b]["rows"] == 0  # nothing new
