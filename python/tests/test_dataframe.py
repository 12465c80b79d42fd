import pytest

from spate.sql import Column, DataFrame, Row, Window
from spate.sql import functions as F
from spate.errors import AnalysisException, PySparkAttributeError


def test_collect_rows(people):
    rows = people.collect()
    assert rows == [Row(age=14, name="Tom"), Row(age=23, name="Alice"), Row(age=16, name="Bob")]
    assert rows[0] == (14, "Tom")
    assert rows[1].name == "Alice" and rows[1]["age"] == 23 and rows[1][0] == 23
    assert rows[2].asDict() == {"age": 16, "name": "Bob"}
    assert repr(rows[0]) == "Row(age=14, name='Tom')"


def test_metadata(people):
    assert people.columns == ["age", "name"]
    assert people.dtypes == [("age", "bigint"), ("name", "string")]
    assert repr(people) == "DataFrame[age: bigint, name: string]"
    assert people.count() == 3
    assert not people.isEmpty()
    assert not people.isStreaming


def test_attribute_and_item_access(people):
    assert isinstance(people.age, Column)
    assert isinstance(people["name"], Column)
    assert people.filter(people.age > 15).count() == 2
    assert people[people["age"] < 15].collect() == [Row(age=14, name="Tom")]
    assert people[["name"]].columns == ["name"]
    assert people[0].__class__ is Column
    with pytest.raises(PySparkAttributeError) as e:
        people.nope
    assert e.value.getErrorClass() == "ATTRIBUTE_NOT_SUPPORTED"
    with pytest.raises(AttributeError):
        people.nope


def test_select_variants(people):
    assert people.select("name").collect()[0] == ("Tom",)
    assert people.select(["name", "age"]).columns == ["name", "age"]
    assert people.select(people.name, (people.age + 1).alias("next")).collect()[0] == ("Tom", 15)
    assert people.select("*").columns == ["age", "name"]
    assert people.selectExpr("age * 2 AS a2", "upper(name) n").collect()[0] == Row(a2=28, n="TOM")


def test_filter_where_string(people):
    assert people.filter("age > 15").count() == 2
    assert people.where(F.col("name") == "Bob").collect() == [Row(age=16, name="Bob")]


def test_with_column_rename_drop(people):
    df = people.withColumn("age2", people.age * 2).withColumnRenamed("name", "who").drop("age")
    assert df.columns == ["who", "age2"]
    assert df.collect()[0] == Row(who="Tom", age2=28)
    df2 = people.withColumns({"a": F.lit(1), "b": F.col("age") + 1})
    assert df2.columns == ["age", "name", "a", "b"]
    assert people.toDF("x", "y").columns == ["x", "y"]


def test_group_by_agg(spark):
    df = spark.range(10).withColumn("k", F.col("id") % 3)
    rows = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("n")).orderBy("k").collect()
    assert rows == [Row(k=0, s=18, n=4), Row(k=1, s=12, n=3), Row(k=2, s=15, n=3)]
    assert df.groupBy("k").count().orderBy("k").collect()[0] == Row(k=0, count=4)
    assert df.groupBy(df.k).agg({"id": "max"}).orderBy("k").collect()[2] == Row(k=2, **{"max(id)": 8})
    assert df.agg(F.max("id")).collect() == [Row(**{"max(id)": 9})]
    assert df.groupBy("k").sum("id").orderBy("k").collect()[1] == (1, 12)


def test_join(spark):
    a = spark.createDataFrame([(1, "x"), (2, "y")], ["id", "a"])
    b = spark.createDataFrame([(1, "p"), (3, "q")], ["id", "b"])
    assert a.join(b, "id").collect() == [Row(id=1, a="x", b="p")]
    assert a.join(b, ["id"], "left").orderBy("id").collect() == [(1, "x", "p"), (2, "y", None)]
    rows = a.join(b, a.id == b.id, "inner").select(a.a, b.b).collect()
    assert rows == [Row(a="x", b="p")]
    assert a.crossJoin(b).count() == 4
    assert a.join(b, on="id", how="left_anti").collect() == [Row(id=2, a="y")]


def test_order_limit_distinct_union(spark):
    df = spark.createDataFrame([(3,), (1,), (2,), (1,)], ["v"])
    assert [r.v for r in df.orderBy("v").collect()] == [1, 1, 2, 3]
    assert [r.v for r in df.orderBy(F.desc("v")).collect()] == [3, 2, 1, 1]
    assert [r.v for r in df.sort("v", ascending=False).limit(2).collect()] == [3, 2]
    assert [r.v for r in df.orderBy(df.v.asc()).offset(2).collect()] == [2, 3]
    assert sorted(r.v for r in df.distinct().collect()) == [1, 2, 3]
    assert df.union(df).count() == 8
    assert df.unionByName(df).count() == 8
    assert sorted(r.v for r in df.subtract(spark.createDataFrame([(1,)], ["v"])).collect()) == [2, 3]
    assert df.dropDuplicates(["v"]).count() == 3


def test_head_first_take_tail(people):
    assert people.first() == Row(age=14, name="Tom")
    assert people.head() == Row(age=14, name="Tom")
    assert people.head(2) == [(14, "Tom"), (23, "Alice")]
    assert people.take(1) == [(14, "Tom")]
    assert people.tail(1) == [(16, "Bob")]
    assert people.filter("age > 100").first() is None


def test_window(spark):
    df = spark.createDataFrame([("a", 1), ("a", 2), ("b", 3)], ["k", "v"])
    w = Window.partitionBy("k").orderBy("v")
    rows = df.select("k", "v", F.row_number().over(w).alias("rn"),
                     F.sum("v").over(w.rowsBetween(Window.unboundedPreceding, Window.currentRow)).alias("cs"),
                     F.lag("v", 1, 0).over(w).alias("prev")).orderBy("k", "v").collect()
    assert rows == [Row(k="a", v=1, rn=1, cs=1, prev=0), Row(k="a", v=2, rn=2, cs=3, prev=1),
                    Row(k="b", v=3, rn=1, cs=3, prev=0)]


def test_temp_view_and_sql(spark, people):
    people.createOrReplaceTempView("people_view")
    assert spark.sql("SELECT name FROM people_view WHERE age = 23").collect() == [Row(name="Alice")]
    assert spark.table("people_view").count() == 3


def test_explain(people, capsys):
    people.filter("age > 1").explain()
    assert capsys.readouterr().out.startswith("== Physical Plan ==\n")


def test_dataframe_not_iterable(people):
    with pytest.raises(TypeError):
        iter(people)


def test_to_pandas(people):
    pd = pytest.importorskip("pandas")
    pdf = people.toPandas()
    assert list(pdf.columns) == ["age", "name"]
    assert pdf["name"].tolist() == ["Tom", "Alice", "Bob"]


def test_to_pandas_dtypes(spark):
    pd = pytest.importorskip("pandas")
    import datetime
    df = spark.createDataFrame([(1, 2, 1.5, True, "x", datetime.datetime(2024, 1, 1)),
                                (2, None, None, False, None, None)],
                               "a INT, b BIGINT, c DOUBLE, d BOOLEAN, e STRING, t TIMESTAMP")
    pdf = df.toPandas()
    assert [str(t) for t in pdf.dtypes] == ["int32", "float64", "float64", "bool", "object", "datetime64[ns]"]
    assert pdf["e"].tolist() == ["x", None]
    assert pdf["t"][0] == pd.Timestamp("2024-01-01")


def test_create_dataframe_from_pandas(spark):
    pd = pytest.importorskip("pandas")
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    df = spark.createDataFrame(pdf)
    assert df.dtypes == [("a", "bigint"), ("b", "string")]
    assert df.collect() == [Row(a=1, b="x"), Row(a=2, b="y")]


def test_pivot(spark):
    df = spark.createDataFrame([("dotNET", 2012, 10000), ("Java", 2012, 20000), ("dotNET", 2012, 5000),
                                ("dotNET", 2013, 48000), ("Java", 2013, 30000)], ["course", "year", "earnings"])
    # PySpark's documented example (GroupedData.pivot).
    rows = df.groupBy("year").pivot("course", ["dotNET", "Java"]).sum("earnings").orderBy("year").collect()
    assert rows == [Row(year=2012, dotNET=15000, Java=20000), Row(year=2013, dotNET=48000, Java=30000)]
    rows = df.groupBy("year").pivot("course").sum("earnings").orderBy("year").collect()
    assert rows == [Row(year=2012, Java=20000, dotNET=15000), Row(year=2013, Java=30000, dotNET=48000)]
    two = df.groupBy("course").pivot("year", [2012]).agg(F.sum("earnings"), F.count("*"))
    assert two.columns == ["course", "2012_sum(earnings)", "2012_count(1)"]


def test_unpivot(spark):
    df = spark.createDataFrame([(1, 11, 12), (2, 21, 22)], ["id", "a", "b"])
    out = df.unpivot("id", ["a", "b"], "var", "val")
    assert out.columns == ["id", "var", "val"]
    assert out.collect() == [Row(id=1, var="a", val=11), Row(id=1, var="b", val=12),
                             Row(id=2, var="a", val=21), Row(id=2, var="b", val=22)]
    assert df.melt(["id"], None, "k", "v").count() == 4
