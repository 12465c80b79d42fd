import pytest

from spate.errors import PythonException
from spate.sql import Row
from spate.sql import functions as F
from spate.sql.types import ArrayType, IntegerType, LongType, StringType


def test_udf_basic_and_naming(spark):
    square = F.udf(lambda x: None if x is None else x * x, IntegerType())

    @F.udf("string")
    def tag(s, n):
        return "%s-%s" % (s, n)

    df = spark.createDataFrame([(1, "a"), (2, "b"), (None, "c")], "n INT, s STRING")
    out = df.select(square("n"), tag(df.s, df.n), F.upper(tag("s", "n")), (square("n") + 1).alias("p"))
    assert out.columns == ["<lambda>(n)", "tag(s, n)", "upper(tag(s, n))", "p"]
    assert out.collect() == [(1, "a-1", "A-1", 2), (4, "b-2", "B-2", 5), (None, "c-None", "C-NONE", None)]


def test_udf_default_return_type_is_string(spark):
    f = F.udf(lambda x: x + 1)
    assert spark.range(2).select(f("id").alias("v")).collect() == [Row(v="1"), Row(v="2")]


def test_udf_complex_return_type_and_values(spark):
    split = F.udf(lambda s: s.split(","), ArrayType(StringType()))
    assert spark.createDataFrame([("a,b",)], ["s"]).select(split("s").alias("v")).collect() == [Row(v=["a", "b"])]


def test_udf_runs_in_worker_threads(spark):
    double = F.udf(lambda x: 2 * x, LongType())
    total = spark.range(0, 100000, 1, 4).select(double("id").alias("d")).agg(F.sum("d")).collect()[0][0]
    assert total == 2 * sum(range(100000))


def test_udf_register_for_sql(spark):
    spark.udf.register("plus_one", lambda x: x + 1, "bigint")
    assert spark.sql("SELECT plus_one(id) AS v FROM range(3)").collect() == [Row(v=1), Row(v=2), Row(v=3)]


def test_udf_exception_is_python_exception(spark):
    bad = F.udf(lambda x: 1 // 0, LongType())
    with pytest.raises(PythonException) as e:
        spark.range(1).select(bad("id")).collect()
    assert e.value.getErrorClass() == "FAILED_EXECUTE_UDF"
    assert "ZeroDivisionError" in str(e.value)


def test_udf_bad_return_value(spark):
    f = F.udf(lambda x: "not a number", LongType())
    with pytest.raises(PythonException) as e:
        spark.range(1).select(f("id")).collect()
    assert "can not accept object" in str(e.value)
