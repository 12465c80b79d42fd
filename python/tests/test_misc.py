import pytest

from spate.sql import Row
from spate.sql import functions as F
from spate.errors import PySparkTypeError, PySparkValueError


def test_struct_star(spark):
    df = spark.sql("SELECT named_struct('a', 1, 'b', 'x') AS j")
    assert df.select(F.col("j.*")).collect() == [Row(a=1, b="x")]
    assert df.select("j.a").collect() == [Row(a=1)]


def test_fillna_dropna(spark):
    df = spark.createDataFrame([(None, None, None), (1, "x", True), (2, None, None)],
                               "n INT, s STRING, b BOOLEAN")
    assert df.fillna(0).collect() == [(0, None, None), (1, "x", True), (2, None, None)]
    assert df.na.fill("?").collect() == [(None, "?", None), (1, "x", True), (2, "?", None)]
    assert df.fillna({"n": 9, "b": False}).collect()[0] == (9, None, False)
    assert df.na.drop().collect() == [(1, "x", True)]
    assert df.dropna(how="all").count() == 2
    assert df.dropna(thresh=1, subset=["n", "s"]).count() == 2
    assert df.fillna(0).dtypes == df.dtypes


def test_transform_foreach(spark):
    seen = []
    spark.range(3).transform(lambda d: d.filter("id > 0")).foreach(lambda r: seen.append(r.id))
    assert seen == [1, 2]


def test_conversion_errors_are_pyspark_errors(spark):
    with pytest.raises(PySparkTypeError) as e:
        spark.createDataFrame([("x",)], "a INT")
    assert e.value.getErrorClass() == "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"
    assert str(e.value) == "[FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME] a: IntegerType() can not accept object x in type str."
    with pytest.raises(PySparkValueError) as e:
        spark.createDataFrame([(None,)], "a INT NOT NULL")
    assert e.value.getErrorClass() == "FIELD_NOT_NULLABLE_WITH_NAME"
    with pytest.raises(PySparkValueError) as e:
        spark.createDataFrame([(128,)], "a TINYINT")
    assert e.value.getErrorClass() == "VALUE_OUT_OF_BOUND"


def test_gil_released_during_execution(spark):
    import threading
    results = []

    def work():
        results.append(spark.range(200000).selectExpr("sum(id) s").collect()[0].s)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [19999900000] * 3
