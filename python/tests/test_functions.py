import datetime

import pytest

from spate.sql import Row
from spate.sql import functions as F


def one(df):
    return df.collect()[0]


def test_aggregates(spark):
    df = spark.createDataFrame([("a", 1), ("a", 3), ("b", None)], "k STRING, v INT")
    r = one(df.agg(F.count("v").alias("c"), F.count("*").alias("n"), F.sum("v").alias("s"),
                   F.avg("v").alias("a"), F.min("v").alias("mn"), F.max(df.v).alias("mx"),
                   F.countDistinct("k").alias("d"), F.collect_list("v").alias("l")))
    assert r == Row(c=2, n=3, s=4, a=2.0, mn=1, mx=3, d=2, l=[1, 3])
    r = one(df.agg(F.first("v", ignorenulls=True).alias("f"), F.sum_distinct(F.lit(1)).alias("sd")))
    assert r == Row(f=1, sd=1)


def test_string_functions(spark):
    df = spark.createDataFrame([("  Hello World  ",)], ["s"])
    r = one(df.select(F.trim("s").alias("t"), F.upper(F.trim(df.s)).alias("u"), F.length("s").alias("n"),
                      F.concat_ws("-", F.lit("a"), F.lit("b")).alias("cw"),
                      F.substring(F.trim("s"), 1, 5).alias("sub"),
                      F.regexp_replace("s", "o", "0").alias("rr"),
                      F.regexp_extract(F.trim("s"), r"(\w+) (\w+)", 2).alias("re"),
                      F.lpad(F.lit("7"), 3, "0").alias("lp"),
                      F.split(F.trim("s"), " ").alias("sp")))
    assert r == Row(t="Hello World", u="HELLO WORLD", n=15, cw="a-b", sub="Hello", rr="  Hell0 W0rld  ",
                    re="World", lp="007", sp=["Hello", "World"])


def test_math_functions(spark):
    r = one(spark.range(1).select(F.round(F.lit(2.567), 1).alias("r"), F.abs(F.lit(-3)).alias("a"),
                                  F.sqrt(F.lit(16)).alias("s"), F.pow(F.lit(2), 10).alias("p"),
                                  F.log(F.lit(1.0)).alias("ln"), F.greatest(F.lit(1), F.lit(5)).alias("g"),
                                  F.pmod(F.lit(-7), F.lit(3)).alias("pm"), F.floor(F.lit(2.5)).alias("f")))
    assert r == Row(r=2.6, a=3, s=4.0, p=1024.0, ln=0.0, g=5, pm=2, f=2)


def test_null_functions(spark):
    df = spark.createDataFrame([(None, 2), (1, None)], "a INT, b INT")
    assert [r[0] for r in df.select(F.coalesce("a", "b")).collect()] == [2, 1]
    assert [r[0] for r in df.select(F.isnull("a")).collect()] == [True, False]


def test_collection_functions(spark):
    df = spark.createDataFrame([([3, 1, 2], {"a": 1})], "arr ARRAY<INT>, m MAP<STRING, INT>")
    r = one(df.select(F.size("arr").alias("n"), F.array_contains("arr", 2).alias("c"),
                      F.sort_array("arr").alias("s"), F.map_keys("m").alias("k"),
                      F.element_at("arr", 1).alias("e"), F.array(F.lit(1), F.lit(2)).alias("a"),
                      F.struct(F.lit(1).alias("x")).alias("st")))
    assert r == Row(n=3, c=True, s=[1, 2, 3], k=["a"], e=3, a=[1, 2], st=Row(x=1))
    rows = df.select(F.explode("arr").alias("v")).collect()
    assert [x.v for x in rows] == [3, 1, 2]


def test_datetime_functions(spark):
    df = spark.createDataFrame([("2024-03-15 10:20:30",)], ["s"])
    r = one(df.select(F.to_timestamp("s").alias("ts"), F.to_date("s").alias("d"),
                      F.year(F.to_date("s")).alias("y"),
                      F.date_format(F.to_timestamp("s"), "yyyy/MM/dd").alias("f"),
                      F.date_add(F.to_date("s"), 20).alias("da"),
                      F.datediff(F.lit("2024-03-20").cast("date"), F.to_date("s")).alias("dd")))
    assert r == Row(ts=datetime.datetime(2024, 3, 15, 10, 20, 30), d=datetime.date(2024, 3, 15), y=2024,
                    f="2024/03/15", da=datetime.date(2024, 4, 4), dd=5)


def test_timestamp_add_and_diff(spark):
    # PySpark's signatures: the unit is a Python str, the others Columns or names; the
    # columns are named as SQL's TIMESTAMPADD / TIMESTAMPDIFF.
    df = spark.createDataFrame([(datetime.datetime(2016, 3, 11, 9, 0, 7), 2,
                                 datetime.datetime(2024, 4, 2, 9, 0, 7))], ["ts", "q", "ts2"])
    out = df.select(F.timestamp_add("year", "q", "ts"), F.timestamp_add("WEEK", F.lit(5), df.ts),
                    F.timestamp_diff("day", df.ts2, df.ts), F.timestamp_diff("month", "ts", "ts2"))
    assert out.columns == ["timestampadd(year, q, ts)", "timestampadd(WEEK, 5, ts)",
                           "timestampdiff(day, ts2, ts)", "timestampdiff(month, ts, ts2)"]
    assert one(out) == (datetime.datetime(2018, 3, 11, 9, 0, 7), datetime.datetime(2016, 4, 15, 9, 0, 7),
                        -2944, 96)
    with pytest.raises(Exception, match="INVALID_PARAMETER_VALUE.DATETIME_UNIT"):
        df.select(F.timestamp_add("FOO", "q", "ts")).collect()
    assert "timestamp_add" not in [f.name for f in spark.catalog.listFunctions()]


def test_expr_and_call_function(spark):
    df = spark.range(3)
    assert [r[0] for r in df.select(F.expr("id * 10")).collect()] == [0, 10, 20]
    assert one(df.select(F.call_function("abs", F.lit(-2)))) == (2,)
    # any registered function by name
    assert one(spark.range(1).select(F.btrim(F.lit("  a  ")))) == ("a",)
    with pytest.raises(AttributeError):
        F.no_such_function


def test_literals(spark):
    r = one(spark.range(1).select(F.lit(1).alias("i"), F.lit(1 << 40).alias("l"), F.lit(1.5).alias("d"),
                                  F.lit("s").alias("s"), F.lit(True).alias("b"), F.lit(None).alias("n"),
                                  F.lit(datetime.date(2020, 1, 2)).alias("dt")))
    assert r == Row(i=1, l=1 << 40, d=1.5, s="s", b=True, n=None, dt=datetime.date(2020, 1, 2))
    dtypes = spark.range(1).select(F.lit(1), F.lit(1 << 40), F.lit(None)).dtypes
    assert [t for _, t in dtypes] == ["int", "bigint", "void"]


def test_try_arithmetic_and_intervals(spark):
    df = spark.createDataFrame([(2147483647, 0)], "a INT, b INT")
    r = one(df.select(F.try_add("a", F.lit(1)).alias("s"), F.try_divide("a", "b").alias("d"),
                      F.try_multiply("a", F.lit(2)).alias("m"), F.try_subtract("b", F.lit(1)).alias("x"),
                      F.try_mod("a", "b").alias("r")))
    assert r == Row(s=None, d=None, m=None, x=-1, r=None)
    r = one(spark.range(1).select(F.make_dt_interval(F.lit(1), F.lit(2)).alias("dt"),
                                  F.make_ym_interval(F.lit(1), F.lit(2)).alias("ym")))
    assert r.dt == datetime.timedelta(days=1, hours=2)
    assert spark.range(1).select(F.make_ym_interval(F.lit(1), F.lit(2))).dtypes[0][1] == \
        "interval year to month"


def test_higher_order_functions(spark):
    df = spark.createDataFrame([(1, [3, 1, 2], {"a": 1, "b": 2}), (2, None, None)],
                               "k int, a array<int>, m map<string,int>")
    r = df.select(
        F.transform("a", lambda x: x * F.col("k")).alias("t"),
        F.transform("a", lambda x, i: i).alias("ti"),
        F.filter("a", lambda x: x > 1).alias("f"),
        F.exists("a", lambda x: x == 3).alias("e"),
        F.forall("a", lambda x: x > 1).alias("fa"),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + x, lambda acc: acc * 10).alias("ag"),
        F.reduce("a", F.lit(1), lambda acc, x: acc * x).alias("rd"),
        F.zip_with("a", F.array(F.lit(10)), lambda x, y: F.coalesce(y, x)).alias("z"),
        F.array_sort("a", lambda l, r: r - l).alias("s"),
        F.array_sort("a").alias("s0"),
        F.map_filter("m", lambda k, v: v > 1).alias("mf"),
        F.transform_keys("m", lambda k, v: F.upper(k)).alias("tk"),
        F.transform_values("m", lambda k, v: v * 100).alias("tv"),
        F.map_zip_with("m", "m", lambda k, v1, v2: v1 + v2).alias("mz"),
    ).orderBy(F.col("t").asc_nulls_last()).collect()
    assert r[0] == Row(t=[3, 1, 2], ti=[0, 1, 2], f=[3, 2], e=True, fa=False, ag=60, rd=6,
                       z=[10, 1, 2], s=[3, 2, 1], s0=[1, 2, 3], mf={"b": 2}, tk={"A": 1, "B": 2},
                       tv={"a": 100, "b": 200}, mz={"a": 2, "b": 4})
    assert all(v is None for v in r[1])
    # Spark's column names; nested lambdas see their enclosing variables.
    assert df.select(F.transform("a", lambda x: x + 1)).columns == [
        "transform(a, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))"]
    nested = df.select(F.transform("a", lambda x: F.transform(F.array(x, x), lambda y: y * x)).alias("n"))
    assert nested.where("n IS NOT NULL").collect()[0].n == [[9, 9], [1, 1], [4, 4]]


def test_higher_order_function_errors(spark):
    from spate.errors import AnalysisException, PySparkValueError
    df = spark.createDataFrame([([1],)], "a array<int>")
    with pytest.raises(PySparkValueError) as e:
        F.transform("a", lambda: F.lit(1))
    assert e.value.getCondition() == "WRONG_NUM_ARGS_FOR_HIGHER_ORDER_FUNCTION"
    with pytest.raises(PySparkValueError) as e:
        F.transform("a", lambda x: 1)
    assert e.value.getCondition() == "HIGHER_ORDER_FUNCTION_SHOULD_RETURN_COLUMN"
    with pytest.raises(PySparkValueError) as e:
        F.transform("a", lambda *xs: xs[0])
    assert e.value.getCondition() == "UNSUPPORTED_PARAM_TYPE_FOR_HIGHER_ORDER_FUNCTION"
    with pytest.raises(AnalysisException) as e:
        df.select(F.filter("a", lambda x: x + 1)).collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    assert spark.sql("SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x) AS s").collect()[0].s == 6


def test_sketch_aggregates(spark):
    # Spark 4.2's bytes (tests/differential/cases/sketches.py checks them against real Spark).
    df = spark.createDataFrame([(1, 3), (1, 5), (2, 7)], "k INT, v LONG")
    r = one(df.agg(F.bitmap_count(F.bitmap_construct_agg(F.bitmap_bit_position("v"))).alias("n"),
                   F.hex(F.count_min_sketch("v", 1.0, 0.3, 2)).alias("c")))
    assert r.n == 3
    assert r.c == ("00000001000000000000000300000001000000020000000"
                   "05D96391C00000000000000010000000000000002")
    h = one(spark.createDataFrame([(3,), (5,), (9,)], "v LONG").agg(
        F.histogram_numeric("v", F.lit(2)).alias("h"))).h
    assert [(b.x, b.y) for b in h] == [(4, 2.0), (9, 1.0)]
    bitmaps = spark.createDataFrame([(bytearray(b"\x0f"),), (bytearray(b"\x3c"),)], "b BINARY")
    r = one(bitmaps.agg(F.hex(F.substring(F.bitmap_or_agg("b"), 1, 1)).alias("o"),
                        F.hex(F.substring(F.bitmap_and_agg("b"), 1, 1)).alias("a")))
    assert (r.o, r.a) == ("3F", "0C")
    # Without a seed PySpark draws one: the sketch is well formed either way.
    b = one(df.agg(F.count_min_sketch("v", 0.5, 0.5).alias("b"))).b
    assert len(b) == 20 + 8 * 1 + 8 * 4 and b[:4] == b"\x00\x00\x00\x01"
