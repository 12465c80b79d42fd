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
