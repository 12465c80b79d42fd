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


def test_vector_aggregates_and_collation(spark):
    # vector_sum / vector_avg (SQL functions PySpark reaches with call_function) and
    # PySpark's collation / current_path, through the functions module's fallback.
    df = spark.createDataFrame([(1, [1.0, 2.0]), (1, [3.0, None]), (1, [5.0, 7.0]), (2, None)],
                               "g int, v array<float>")
    rows = df.groupBy("g").agg(F.vector_sum("v").alias("s"),
                               F.call_function("vector_avg", F.col("v")).alias("a")).orderBy("g")
    assert rows.collect() == [Row(g=1, s=[6.0, 9.0], a=[3.0, 4.5]), Row(g=2, s=None, a=None)]
    r = df.select(F.collation(F.lit("x")).alias("c"), F.current_path().alias("p")).first()
    assert r == Row(c="SYSTEM.BUILTIN.UTF8_BINARY",
                    p="system.builtin,system.session,spark_catalog.default")
    with pytest.raises(Exception, match="VECTOR_DIMENSION_MISMATCH"):
        spark.sql("SELECT vector_sum(v) FROM VALUES (array(1.0F)), (array(1.0F, 2.0F)) t(v)").collect()


def test_vector_aggregates_in_a_streaming_aggregation(spark, tmp_path):
    # The partial states (vector and count) go to the state store and come back merged,
    # also after a restart from the checkpoint.
    import json
    src = tmp_path / "in"
    src.mkdir()

    def put(name, rows):
        (src / (name + ".json")).write_text("".join(json.dumps(r) + "\n" for r in rows))

    def start(name):
        df = spark.readStream.schema("g int, v array<float>").json(str(src))
        return (df.groupBy("g").agg(F.vector_sum("v").alias("s"), F.vector_avg("v").alias("a"))
                .writeStream.outputMode("complete").format("memory").queryName(name)
                .option("checkpointLocation", str(tmp_path / "cp")).start())

    put("a", [{"g": 1, "v": [1.0, 2.0]}, {"g": 1, "v": [3.0, 4.0]}, {"g": 2, "v": None}])
    q = start("vector_agg_1")
    q.processAllAvailable()
    put("b", [{"g": 1, "v": [5.0, 6.0]}, {"g": 2, "v": [1.0]}])
    q.processAllAvailable()
    assert sorted(spark.sql("SELECT * FROM vector_agg_1").collect()) == [
        Row(g=1, s=[9.0, 12.0], a=[3.0, 4.0]), Row(g=2, s=[1.0], a=[1.0])]
    q.stop()
    put("c", [{"g": 2, "v": [3.0]}])
    q = start("vector_agg_2")
    q.processAllAvailable()
    q.stop()
    assert sorted(spark.sql("SELECT * FROM vector_agg_2").collect()) == [
        Row(g=1, s=[9.0, 12.0], a=[3.0, 4.0]), Row(g=2, s=[4.0], a=[2.0])]
