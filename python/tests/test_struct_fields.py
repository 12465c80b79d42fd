"""Column.withField / Column.dropFields (Spark's UpdateFields) from Python."""

import pytest

from spate.errors import AnalysisException, ParseException, PySparkTypeError
from spate.sql import Row
from spate.sql import functions as F


@pytest.fixture
def structs(spark):
    return spark.sql(
        "SELECT 1 AS id, named_struct('a', 1, 'b', 'x', 'c', named_struct('d', 2, 'e', 3)) AS s "
        "UNION ALL SELECT 2, NULL UNION ALL SELECT 3, named_struct('a', 4, 'b', 'y', 'c', NULL)")


def test_with_field_replaces_appends_and_keeps_null(structs):
    df = structs.orderBy("id").select(F.col("s").withField("a", F.lit(10)),
                                      F.col("s").withField("z", F.col("id")).alias("t"))
    assert df.columns == ["update_fields(s, WithField(10))", "t"]
    assert df.schema["t"].dataType.simpleString() == \
        "struct<a:int,b:string,c:struct<d:int,e:int>,z:int>"
    rows = df.collect()
    assert rows[0][0] == Row(a=10, b="x", c=Row(d=2, e=3))
    assert rows[0].t.z == 1
    assert rows[1][0] is None and rows[1].t is None
    assert rows[2].t == Row(a=4, b="y", c=None, z=3)


def test_nested_paths_and_case_insensitive_names(structs):
    df = structs.orderBy("id").select(F.col("s").withField("C.D", F.lit(0)).alias("u"),
                                      F.col("s").withField("c.f", F.lit("n")).alias("v"))
    rows = df.collect()
    assert rows[0].u == Row(a=1, b="x", C=Row(D=0, e=3))
    assert rows[0].v.c == Row(d=2, e=3, f="n")
    assert rows[2].u.C is None  # a NULL inner struct stays NULL


def test_drop_fields(structs):
    c = F.col("s").dropFields("a", "c.d", "missing")
    assert repr(c) == ("Column<'update_fields(s, dropfield(), WithField(update_fields("
                       "update_fields(s, dropfield()).c, dropfield())), dropfield())'>")
    rows = structs.orderBy("id").select(c.alias("u")).collect()
    assert [r.u for r in rows] == [Row(b="x", c=Row(e=3)), None, Row(b="y", c=None)]


def test_chains_in_with_column_and_filter(structs):
    df = (structs.withColumn("s", F.col("s").withField("a", F.col("id") * 10).dropFields("b"))
          .filter(F.col("s").withField("z", F.lit(1)).getField("a") > 15))
    assert df.columns == ["id", "s"]
    assert df.collect() == [Row(id=3, s=Row(a=30, c=None))]


def test_errors(structs):
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"):
        structs.select(F.col("id").withField("x", F.lit(1)))
    with pytest.raises(AnalysisException, match="FIELD_NOT_FOUND"):
        structs.select(F.col("s").withField("zz.x", F.lit(1)))
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS"):
        structs.select(F.col("s").dropFields("a", "b", "c"))
    with pytest.raises(ParseException):
        F.col("s").withField("a..b", F.lit(1))
    with pytest.raises(PySparkTypeError, match="NOT_EXPECTED_TYPE"):
        F.col("s").withField("a", 1)
    with pytest.raises(PySparkTypeError, match="NOT_EXPECTED_TYPE"):
        F.col("s").withField(None, F.lit(1))


def test_streaming(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"id": 1, "s": {"a": 5, "b": "x"}}\n{"id": 2, "s": null}\n')
    stream = (spark.readStream.schema("id INT, s STRUCT<a: INT, b: STRING>").json(str(src))
              .select("id", F.col("s").withField("a", F.col("id") + 1).dropFields("b").alias("t")))
    q = stream.writeStream.format("memory").queryName("struct_fields_stream").start()
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    rows = spark.sql("SELECT * FROM struct_fields_stream ORDER BY id").collect()
    assert rows == [Row(id=1, t=Row(a=2)), Row(id=2, t=None)]
