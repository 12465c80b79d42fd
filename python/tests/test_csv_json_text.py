import glob
import os

import pytest

from spate.sql import Row
from spate.errors import AnalysisException


def _write(path, text):
    with open(path, "w", newline="") as f:
        f.write(text)


def test_read_csv_keywords(spark, tmp_path):
    p = str(tmp_path / "a.csv")
    _write(p, "id;name;score\n1;ann;1.5\n2;\"b;c\";NA\n")
    df = spark.read.csv(p, sep=";", header=True, inferSchema=True, nullValue="NA")
    assert df.schema.simpleString() == "struct<id:int,name:string,score:double>"
    assert df.orderBy("id").collect() == [Row(id=1, name="ann", score=1.5),
                                          Row(id=2, name="b;c", score=None)]
    df2 = spark.read.csv(p, schema="a INT, b STRING, c STRING", sep=";", mode="DROPMALFORMED")
    assert df2.collect() == [Row(a=1, b="ann", c="1.5"), Row(a=2, b="b;c", c="NA")]
    df3 = spark.read.format("csv").option("header", "true").load(p)
    assert df3.columns == ["id;name;score"]


def test_csv_modes_and_corrupt_column(spark, tmp_path):
    p = str(tmp_path / "m.csv")
    _write(p, "1,a\nx,b\n")
    df = spark.read.csv(p, schema="i INT, s STRING, _corrupt_record STRING")
    assert df.collect() == [Row(i=1, s="a", _corrupt_record=None),
                            Row(i=None, s="b", _corrupt_record="x,b")]
    with pytest.raises(Exception) as e:
        spark.read.csv(p, schema="i INT, s STRING", mode="FAILFAST").collect()
    assert "m.csv" in str(e.value)


def test_write_csv_json_text_round_trip(spark, tmp_path):
    df = spark.createDataFrame([(1, "a,b", 1.5), (2, 'q"x', None), (3, None, -2.0)],
                               "id INT, s STRING, d DOUBLE")
    c = str(tmp_path / "c")
    df.write.csv(c, header=True, nullValue="\\N")
    assert os.path.exists(os.path.join(c, "_SUCCESS"))
    assert all(os.path.basename(f).startswith("part-") and f.endswith("-c000.csv")
               for f in glob.glob(os.path.join(c, "*.csv")))
    back = spark.read.csv(c, header=True, schema=df.schema, nullValue="\\N")
    assert sorted(back.collect()) == sorted(df.collect())

    j = str(tmp_path / "j")
    df.write.json(j, compression="gzip")
    assert glob.glob(os.path.join(j, "*.json.gz"))
    assert sorted(spark.read.json(j, schema=df.schema).collect()) == sorted(df.collect())
    df.write.json(j, mode="overwrite")
    assert sorted(spark.read.schema(df.schema).json(j).collect()) == sorted(df.collect())

    t = str(tmp_path / "t")
    df.select("s").write.text(t)
    assert sorted(r.value for r in spark.read.text(t).collect()) == ["", "a,b", 'q"x']
    with pytest.raises(AnalysisException):
        df.write.text(str(tmp_path / "bad"))
    with pytest.raises(AnalysisException) as e:
        df.write.csv(c)
    assert e.value.getErrorClass() == "PATH_ALREADY_EXISTS"
    df.write.mode("append").format("csv").save(c)
    assert spark.read.csv(c).count() == 3 + 1 + 3


def test_sql_on_csv(spark, tmp_path):
    p = str(tmp_path / "s.csv")
    _write(p, "1,x\n2,y\n")
    assert spark.sql(f"SELECT count(*) AS n FROM csv.`{p}`").collect() == [Row(n=2)]


def test_csv_functions(spark):
    from spate.sql import functions as F
    df = spark.createDataFrame([("1,abc",), (None,)], "s STRING")
    rows = df.select(F.from_csv("s", "a INT, b STRING").alias("v"),
                     F.schema_of_csv("1,abc").alias("t"),
                     F.to_csv(F.struct(F.lit(1), F.lit("x;y")), {"sep": ";"}).alias("c")).collect()
    assert rows[0].v == Row(a=1, b="abc")
    assert rows[1].v is None
    assert rows[0].t == "STRUCT<_c0: INT, _c1: STRING>"
    assert rows[0].c == '1;"x;y"'


def test_inference_over_many_files(spark, tmp_path):
    # Inference runs in parallel over the files' splits; the schema is the sequential one
    # (docs/schema-inference.md), the same as Spark 4's for these files.
    j = tmp_path / "j"
    j.mkdir()
    _write(str(j / "a.json"), '{"n": 1, "s": {"x": 1}}\n{"d": 12345678901234567890}\nnull\n')
    _write(str(j / "b.json"), '{"n": 2.5, "s": {"y": true}}\n{"d": 0.5}\n')
    lines = "".join('{"i": %d}\n' % i for i in range(2000))
    _write(str(j / "c.json"), lines)
    df = spark.read.json(str(j))
    assert df.schema.simpleString() == \
        "struct<d:double,i:bigint,n:double,s:struct<x:bigint,y:boolean>>"
    assert spark.read.json(str(j), samplingRatio=0.995).schema == df.schema
    # prefersDecimal: 1.5e3 is BigDecimal 15E+2, a negative scale (Spark 4's error).
    _write(str(tmp_path / "e.json"), '{"a": 1.5e3}\n')
    with pytest.raises(Exception) as e:
        spark.read.json(str(tmp_path / "e.json"), prefersDecimal=True)
    assert "NEGATIVE_SCALE_DISALLOWED" in str(e.value)
    c = tmp_path / "c"
    c.mkdir()
    _write(str(c / "a.csv"), "k,x,y\n1,1,1\n")
    _write(str(c / "b.csv"), "k,x,y\n5000000000,2.5,true\n")
    _write(str(c / "c.csv"), "k,x,y\n3,,2020-01-05\n")
    csv = spark.read.csv(str(c), header=True, inferSchema=True)
    assert csv.schema.simpleString() == "struct<k:bigint,x:double,y:string>"
