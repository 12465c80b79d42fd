import datetime

import pytest

from spate.delta import DeltaTable
from spate.errors import AnalysisException
from spate.sql import Row


@pytest.fixture
def wspark(spark, tmp_path):
    s = spark.newSession()
    s.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return s


def test_path_tables_and_time_travel(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(3).write.format("delta").save(path)
    spark.range(3, 5).write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").load(path).count() == 5
    assert spark.read.format("delta").option("versionAsOf", 0).load(path).count() == 3
    t = DeltaTable.forPath(spark, path)
    assert DeltaTable.isDeltaTable(spark, path)
    assert not DeltaTable.isDeltaTable(spark, str(tmp_path))
    assert t.toDF().count() == 5
    h = t.history().collect()
    assert [r.version for r in h] == [1, 0]
    assert h[0].operation == "WRITE"
    assert h[0].operationParameters["mode"] == "Append"
    assert isinstance(h[0].timestamp, datetime.datetime)
    assert len(t.history(1).collect()) == 1
    d = t.detail().collect()[0]
    assert d.format == "delta" and d.numFiles >= 2
    with pytest.raises(AnalysisException) as e:
        DeltaTable.forPath(spark, str(tmp_path / "nope"))
    assert e.value.getErrorClass() == "DELTA_MISSING_DELTA_TABLE"


def test_catalog_tables(wspark):
    spark = wspark
    spark.range(3).write.saveAsTable("events")
    assert spark.table("events").count() == 3
    assert spark.read.table("default.events").count() == 3
    spark.range(3, 4).write.mode("append").saveAsTable("events")
    spark.createDataFrame([(10,)], "id BIGINT").write.insertInto("events")
    assert sorted(r.id for r in spark.table("events").collect()) == [0, 1, 2, 3, 10]
    with pytest.raises(AnalysisException) as e:
        spark.range(1).write.saveAsTable("events")
    assert e.value.getErrorClass() == "TABLE_OR_VIEW_ALREADY_EXISTS"
    t = DeltaTable.forName(spark, "events")
    assert [r.operation for r in t.history().collect()] == ["WRITE", "WRITE", "CREATE TABLE AS SELECT"]
    spark.sql("CREATE SCHEMA sales")
    spark.sql("CREATE TABLE sales.orders (id INT, amount DOUBLE) USING delta")
    spark.sql("INSERT INTO sales.orders VALUES (1, 2.5)")
    assert spark.table("sales.orders").collect() == [Row(id=1, amount=2.5)]
    assert [d.name for d in spark.catalog.listDatabases()] == ["default", "sales"]
    assert spark.catalog.databaseExists("sales")
    assert spark.catalog.tableExists("events")
    assert spark.catalog.tableExists("orders", "sales")
    assert spark.catalog.tableExists("sales.orders")
    assert not spark.catalog.tableExists("nope")
    tables = spark.catalog.listTables("sales")
    assert [(t.name, t.tableType, t.isTemporary) for t in tables] == [("orders", "MANAGED", False)]
    spark.catalog.setCurrentDatabase("sales")
    assert spark.catalog.currentDatabase() == "sales"
    assert spark.table("orders").count() == 1
    spark.catalog.setCurrentDatabase("default")
    hist = spark.sql("DESCRIBE HISTORY sales.orders").select("version", "operation").collect()
    assert hist == [Row(version=1, operation="WRITE"), Row(version=0, operation="CREATE TABLE")]
