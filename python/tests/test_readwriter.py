import os

import pytest

from spate.sql import Row
from spate.sql import functions as F
from spate.errors import AnalysisException


def test_parquet_round_trip(spark, tmp_path):
    path = str(tmp_path / "out")
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, None)], "id BIGINT, s STRING")
    df.write.parquet(path)
    assert os.path.exists(os.path.join(path, "_SUCCESS"))
    back = spark.read.parquet(path)
    assert back.schema == df.schema
    assert sorted(back.collect()) == [Row(id=1, s="a"), Row(id=2, s="b"), Row(id=3, s=None)]


def test_write_modes_and_options(spark, tmp_path):
    path = str(tmp_path / "modes")
    spark.range(3).write.mode("overwrite").option("compression", "zstd").format("parquet").save(path)
    with pytest.raises(AnalysisException) as e:
        spark.range(3).write.parquet(path)
    assert e.value.getErrorClass() == "PATH_ALREADY_EXISTS"
    spark.range(3, 5).write.mode("append").parquet(path)
    assert sorted(r.id for r in spark.read.format("parquet").load(path).collect()) == [0, 1, 2, 3, 4]
    spark.range(1).write.parquet(path, mode="overwrite", compression="gzip")
    assert spark.read.load(path).count() == 1


def test_read_missing_path(spark, tmp_path):
    with pytest.raises(AnalysisException) as e:
        spark.read.parquet(str(tmp_path / "nope"))
    assert e.value.getErrorClass() == "PATH_NOT_FOUND"


def test_partition_by(spark, tmp_path):
    path = str(tmp_path / "parts")
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "id BIGINT, k STRING")
    df.write.partitionBy("k").parquet(path)
    assert sorted(os.listdir(path)) == ["_SUCCESS", "k=a", "k=b"]
    back = spark.read.parquet(path)
    assert sorted(back.collect()) == [Row(id=1, k="a"), Row(id=2, k="b"), Row(id=3, k="a")]
    df.write.parquet(str(tmp_path / "p2"), partitionBy=["k"])
    assert spark.read.parquet(str(tmp_path / "p2")).filter("k = 'b'").count() == 1


def test_read_json_and_text(spark, tmp_path):
    path = tmp_path / "j.json"
    path.write_text('{"b": "x", "a": 1}\n{"a": 2, "c": [1, 2]}\n{oops\n')
    df = spark.read.json(str(path))
    assert df.columns == ["_corrupt_record", "a", "b", "c"]
    assert df.collect()[1] == Row(_corrupt_record=None, a=2, b=None, c=[1, 2])
    typed = spark.read.json(str(path), schema="a INT", mode="DROPMALFORMED")
    assert typed.collect() == [Row(a=1), Row(a=2)]
    same = spark.read.format("json").schema("a INT").option("mode", "DROPMALFORMED").load(str(path))
    assert same.collect() == typed.collect()
    lines = spark.read.text(str(path))
    assert lines.columns == ["value"]
    assert [r.value for r in lines.collect()] == ['{"b": "x", "a": 1}', '{"a": 2, "c": [1, 2]}', "{oops"]
    assert spark.read.text(str(path), wholetext=True).count() == 1
