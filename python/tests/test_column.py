import pytest

from spate.sql import Column, Row
from spate.sql import functions as F
from spate.errors import PySparkValueError


def one(df):
    return df.collect()[0]


def test_arithmetic_operators(spark):
    df = spark.createDataFrame([(7, 2)], ["a", "b"])
    r = one(df.select((df.a + df.b).alias("add"), (df.a - df.b).alias("sub"), (df.a * df.b).alias("mul"),
                      (df.a / df.b).alias("div"), (df.a % df.b).alias("mod"), (-df.a).alias("neg"),
                      (df.a ** 2).alias("pow")))
    assert r == Row(add=9, sub=5, mul=14, div=3.5, mod=1, neg=-7, pow=49.0)


def test_reflected_operators(spark):
    df = spark.createDataFrame([(4,)], ["a"])
    r = one(df.select((1 + df.a).alias("x"), (10 - df.a).alias("y"), (3 * df.a).alias("z"),
                      (8 / df.a).alias("w"), (10 % df.a).alias("m")))
    assert r == (5, 6, 12, 2.0, 2)


def test_comparison_operators(spark):
    df = spark.createDataFrame([(1, 2)], ["a", "b"])
    r = one(df.select(df.a == 1, df.a != 1, df.a < df.b, df.a <= 1, df.a > 0, df.b >= 3, 1 < df.b))
    assert tuple(r) == (True, False, True, True, True, False, True)


def test_logical_operators(spark):
    df = spark.createDataFrame([(True, False)], ["t", "f"])
    r = one(df.select(df.t & df.f, df.t | df.f, ~df.f, df.t & True))
    assert tuple(r) == (True and False, True, True, True)


def test_column_bool_raises(spark):
    df = spark.range(1)
    with pytest.raises(PySparkValueError) as e:
        bool(df.id > 1)
    assert e.value.getErrorClass() == "CANNOT_CONVERT_COLUMN_INTO_BOOL"
    with pytest.raises(ValueError):
        df.id > 1 and df.id < 3


def test_when_otherwise(spark):
    df = spark.range(4)
    rows = df.select(F.when(df.id == 0, "zero").when(df.id == 1, "one").otherwise("many").alias("w")).collect()
    assert [r.w for r in rows] == ["zero", "one", "many", "many"]
    rows = df.select(F.when(df.id > 1, 1).alias("w")).collect()
    assert [r.w for r in rows] == [None, None, 1, 1]


def test_isin_between_like(spark):
    df = spark.createDataFrame([("apple", 1), ("banana", 5), ("cherry", 9)], ["s", "n"])
    assert [r.s for r in df.filter(df.n.isin(1, 9)).collect()] == ["apple", "cherry"]
    assert [r.s for r in df.filter(df.n.isin([5])).collect()] == ["banana"]
    assert [r.s for r in df.filter(df.n.between(2, 9)).collect()] == ["banana", "cherry"]
    assert [r.s for r in df.filter(df.s.like("%an%")).collect()] == ["banana"]
    assert [r.s for r in df.filter(df.s.rlike("^c")).collect()] == ["cherry"]
    assert [r.s for r in df.filter(df.s.startswith("b")).collect()] == ["banana"]
    assert [r.s for r in df.filter(df.s.contains("err")).collect()] == ["cherry"]


def test_null_checks_and_cast(spark):
    df = spark.createDataFrame([(1, None), (2, "x")], "a INT, b STRING")
    assert [r.a for r in df.filter(df.b.isNull()).collect()] == [1]
    assert [r.a for r in df.filter(df.b.isNotNull()).collect()] == [2]
    r = one(df.select(df.a.cast("string").alias("s"), df.a.cast("double").alias("d")))
    assert r == Row(s="1", d=1.0)
    from spate.sql.types import LongType
    assert df.select(df.a.cast(LongType())).dtypes == [("CAST(a AS BIGINT)", "bigint")]


def test_alias_and_repr(spark):
    c = (F.col("a") + 1).alias("b")
    assert isinstance(c, Column)
    assert repr(F.col("a") + 1) == "Column<'(a + 1)'>"


def test_nested_access(spark):
    df = spark.sql("SELECT named_struct('x', 1, 'y', 'z') AS s, array(10, 20) AS a, map('k', 5) AS m")
    r = one(df.select(df.s.x, df.s.getField("y"), df.a[1], df.a.getItem(0), df.m["k"]))
    assert tuple(r) == (1, "z", 20, 10, 5)


def test_sort_helpers(spark):
    df = spark.createDataFrame([(None,), (1,), (2,)], "v INT")
    assert [r.v for r in df.orderBy(df.v.desc_nulls_last()).collect()] == [2, 1, None]
    assert [r.v for r in df.orderBy(df.v.asc_nulls_first()).collect()] == [None, 1, 2]
    assert [r.v for r in df.orderBy(F.asc_nulls_last("v")).collect()] == [1, 2, None]
