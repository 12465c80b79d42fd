import datetime
from decimal import Decimal

import pytest

from spate.sql import Row
from spate.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DateType, DayTimeIntervalType,
                             DecimalType, DoubleType, FloatType, IntegerType, LongType, MapType, NullType,
                             ShortType, StringType, StructField, StructType, TimestampNTZType,
                             TimestampType, YearMonthIntervalType)


def test_simple_strings_and_repr():
    st = StructType([StructField("a", IntegerType()), StructField("b", ArrayType(StringType()), False),
                     StructField("m", MapType(StringType(), DecimalType(10, 2)))])
    assert st.simpleString() == "struct<a:int,b:array<string>,m:map<string,decimal(10,2)>>"
    assert repr(st) == ("StructType([StructField('a', IntegerType(), True), StructField('b', "
                        "ArrayType(StringType(), True), False), StructField('m', MapType(StringType(), "
                        "DecimalType(10,2), True), True)])")
    assert LongType().simpleString() == "bigint"
    assert ByteType().simpleString() == "tinyint"
    assert ShortType().simpleString() == "smallint"
    assert DayTimeIntervalType().simpleString() == "interval day to second"
    assert YearMonthIntervalType().simpleString() == "interval year to month"
    assert TimestampNTZType().simpleString() == "timestamp_ntz"
    assert NullType().simpleString() == "void"
    assert IntegerType() is IntegerType()
    assert st.fieldNames() == ["a", "b", "m"]
    assert st["b"].nullable is False and st[0].name == "a"


def test_struct_add_and_ddl():
    st = StructType().add("a", LongType()).add("b", "string", False)
    assert st == StructType([StructField("a", LongType()), StructField("b", StringType(), False)])
    assert StructType.fromDDL("a INT, b STRING") == StructType(
        [StructField("a", IntegerType()), StructField("b", StringType())])
    assert st.json() == ('{"fields":[{"metadata":{},"name":"a","nullable":true,"type":"long"},'
                         '{"metadata":{},"name":"b","nullable":false,"type":"string"}],"type":"struct"}')


def test_schema_round_trip(spark):
    schema = StructType([
        StructField("b", BooleanType()), StructField("i8", ByteType()), StructField("i16", ShortType()),
        StructField("i32", IntegerType()), StructField("i64", LongType(), False), StructField("f", FloatType()),
        StructField("d", DoubleType()), StructField("dec", DecimalType(12, 3)), StructField("s", StringType()),
        StructField("bin", BinaryType()), StructField("date", DateType()), StructField("ts", TimestampType()),
        StructField("ntz", TimestampNTZType()), StructField("dt", DayTimeIntervalType()),
        StructField("ym", YearMonthIntervalType()), StructField("arr", ArrayType(LongType(), False)),
        StructField("map", MapType(StringType(), LongType())),
        StructField("st", StructType([StructField("x", IntegerType())]))])
    row = (True, 1, 2, 3, 4, 1.5, 2.25, Decimal("123.456"), "str", b"\x00\x01", datetime.date(2024, 2, 29),
           datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), datetime.datetime(2000, 1, 1),
           datetime.timedelta(days=1, seconds=2, microseconds=3), 14, [1, 2], {"k": 1}, Row(x=7))
    df = spark.createDataFrame([row, tuple([None] * 4 + [5] + [None] * 13)], schema)
    assert df.schema == schema
    got = df.collect()
    assert got[0] == row
    assert isinstance(got[0].bin, bytearray)
    assert got[0].st.x == 7
    assert isinstance(got[0].dec, Decimal) and str(got[0].dec) == "123.456"
    assert got[1] == tuple([None] * 4 + [5] + [None] * 13)


def test_infer_schema(spark):
    df = spark.createDataFrame([(1, 2.0, "a", True, Decimal("1.5"), datetime.date(2020, 1, 1), [1], {"a": 1})])
    assert df.dtypes == [("_1", "bigint"), ("_2", "double"), ("_3", "string"), ("_4", "boolean"),
                         ("_5", "decimal(38,18)"), ("_6", "date"), ("_7", "array<bigint>"),
                         ("_8", "map<string,bigint>")]


def test_create_from_rows_and_dicts(spark):
    df = spark.createDataFrame([Row(name="a", n=1), Row(name="b", n=None)])
    assert df.columns == ["name", "n"]
    assert df.collect() == [Row(name="a", n=1), Row(name="b", n=None)]
    df = spark.createDataFrame([{"b": 1, "a": "x"}, {"a": "y", "b": 2}])
    assert df.columns == ["a", "b"]
    assert df.collect() == [("x", 1), ("y", 2)]
    df = spark.createDataFrame([{"a": "x"}], "a STRING, b INT")
    assert df.collect() == [("x", None)]


def test_create_with_ddl_schema(spark):
    df = spark.createDataFrame([(1, "a")], "id INT, s STRING")
    assert df.schema == StructType([StructField("id", IntegerType()), StructField("s", StringType())])
    df = spark.createDataFrame([1, 2, 3], "int")
    assert df.columns == ["value"] and [r.value for r in df.collect()] == [1, 2, 3]


def test_create_type_errors(spark):
    with pytest.raises(TypeError):
        spark.createDataFrame([("x",)], "a INT")
    with pytest.raises(ValueError):
        spark.createDataFrame([(1 << 40,)], "a INT")
    with pytest.raises(ValueError):
        spark.createDataFrame([(None,)])


def test_timestamps_follow_session_zone(spark):
    ts = datetime.datetime(2024, 6, 1, 12, 0, 0)
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df = spark.createDataFrame([(ts,)], "t TIMESTAMP")
        assert df.collect()[0].t == ts
        assert df.selectExpr("CAST(t AS STRING) s").collect()[0].s == "2024-06-01 12:00:00"
        assert df.selectExpr("unix_timestamp(t) u").collect()[0].u == 1717268400
        aware = datetime.datetime(2024, 6, 1, 12, 0, tzinfo=datetime.timezone.utc)
        assert spark.createDataFrame([(aware,)], "t TIMESTAMP").collect()[0].t == datetime.datetime(2024, 6, 1, 5)
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


def test_sql_values_to_python(spark):
    r = spark.sql("SELECT 1Y a, 2S b, 3 c, 4L d, 1.5F e, 2.5D f, 3.14BD g, 'x' h, X'0102' i, "
                  "DATE'2024-01-31' j, TIMESTAMP_NTZ'2024-01-31 10:11:12.5' k, INTERVAL '1 02:03:04' DAY TO SECOND l, "
                  "INTERVAL '1-2' YEAR TO MONTH m, array(1, NULL) n, map(1, 'a') o, named_struct('p', 1) q, "
                  "NULL r").collect()[0]
    assert r == (1, 2, 3, 4, 1.5, 2.5, Decimal("3.14"), "x", bytearray(b"\x01\x02"), datetime.date(2024, 1, 31),
                 datetime.datetime(2024, 1, 31, 10, 11, 12, 500000),
                 datetime.timedelta(days=1, hours=2, minutes=3, seconds=4), 14, [1, None], {1: "a"}, Row(p=1), None)


def test_row_semantics():
    r = Row(a=1, b="x")
    assert r == (1, "x") and r.a == 1 and r["b"] == "x" and "a" in r
    assert r.asDict() == {"a": 1, "b": "x"}
    Person = Row("name", "age")
    p = Person("Alice", 11)
    assert p.name == "Alice" and p == ("Alice", 11) and repr(p) == "Row(name='Alice', age=11)"
    nested = Row(x=Row(y=[Row(z=1)]))
    assert nested.asDict(recursive=True) == {"x": {"y": [{"z": 1}]}}
    with pytest.raises(AttributeError):
        r.c
    with pytest.raises(RuntimeError):
        r.a = 2


def test_create_many_rows(spark):
    df = spark.createDataFrame([(i, str(i)) for i in range(5000)], "id BIGINT, s STRING")
    rows = df.collect()
    assert [r.id for r in rows] == list(range(5000))
    assert rows[4999].s == "4999"


def test_json_round_trip():
    from spate.sql.types import _parse_datatype_json_string
    st = StructType([StructField("a", IntegerType(), False), StructField("b", ArrayType(DecimalType(5, 2))),
                     StructField("m", MapType(StringType(), StructType([StructField("x", DateType())]), False)),
                     StructField("i", DayTimeIntervalType(1, 3))])
    assert _parse_datatype_json_string(st.json()) == st
    assert StructType.fromJson(st.jsonValue()) == st
    assert IntegerType().json() == '"integer"'


def test_collected_rows_feed_create_dataframe(spark):
    src = spark.createDataFrame([(1, "a", datetime.datetime(1969, 12, 31, 23, 59, 59, 500000)),
                                 (2, None, datetime.datetime(1900, 1, 1))], "id INT, s STRING, t TIMESTAMP")
    rows = src.collect()
    assert isinstance(rows[0], Row) and rows[0].t == datetime.datetime(1969, 12, 31, 23, 59, 59, 500000)
    again = spark.createDataFrame(rows)
    assert again.columns == ["id", "s", "t"]
    assert again.collect() == rows
    assert spark.createDataFrame(rows, src.schema).collect() == rows
