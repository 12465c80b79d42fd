from spate.sql import SparkSession, Row


def test_builder_returns_active_session(spark):
    s2 = SparkSession.builder.appName("other").config("spark.sql.shuffle.partitions", 3).getOrCreate()
    assert s2 is spark
    assert SparkSession.getActiveSession() is spark
    assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
    spark.conf.unset("spark.sql.shuffle.partitions")


def test_conf(spark):
    spark.conf.set("spark.sql.ansi.enabled", False)
    assert spark.conf.get("spark.sql.ansi.enabled") == "false"
    assert spark.sql("SELECT 1 / 0 AS x").collect() == [Row(x=None)]
    spark.conf.unset("spark.sql.ansi.enabled")
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"
    assert spark.conf.get("spark.custom.key", "dflt") == "dflt"
    assert spark.conf.get("spark.custom.key", None) is None
    assert spark.conf.isModifiable("spark.sql.ansi.enabled")


def test_range(spark):
    assert [r.id for r in spark.range(3).collect()] == [0, 1, 2]
    assert [r.id for r in spark.range(1, 10, 4).collect()] == [1, 5, 9]
    assert spark.range(0, 100, 1, 4).count() == 100


def test_sql_commands(spark):
    spark.sql("CREATE OR REPLACE TEMP VIEW v_sql AS SELECT 1 AS a")
    assert spark.sql("SELECT * FROM v_sql").collect() == [Row(a=1)]
    assert spark.catalog.tableExists("v_sql")
    spark.sql("DROP VIEW v_sql")
    assert not spark.catalog.tableExists("v_sql")


def test_new_session_is_isolated(spark):
    other = spark.newSession()
    other.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    assert spark.conf.get("spark.sql.session.timeZone") != "Asia/Tokyo"
    assert other.version == spark.version


def test_catalog(spark):
    spark.range(2).createOrReplaceTempView("cat_v")
    tables = spark.catalog.listTables()
    t = [x for x in tables if x.name == "cat_v"][0]
    assert t.isTemporary and t.tableType == "TEMPORARY"
    assert [c.name for c in spark.catalog.listColumns("cat_v")] == ["id"]
    assert spark.catalog.listColumns("cat_v")[0].dataType == "bigint"
    assert spark.catalog.currentDatabase() == "default"
    assert spark.catalog.functionExists("abs") and not spark.catalog.functionExists("no_such_fn")
    assert "upper" in [f.name for f in spark.catalog.listFunctions()]
    assert spark.catalog.dropTempView("cat_v") is True
    assert spark.catalog.dropTempView("cat_v") is False


def test_spark_context_stub(spark):
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    assert sc.version == spark.version
    assert sc.defaultParallelism >= 1
