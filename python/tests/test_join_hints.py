"""Join hints through PySpark's API: F.broadcast on the static side of a stream-static right
outer join (BroadcastHashJoin BuildLeft each micro-batch, also with
autoBroadcastJoinThreshold=-1) and the warning for hints spate does not know."""

import warnings

import pytest

import spate.sql.functions as F
from spate.sql import SparkSession


@pytest.fixture
def spark():
    s = SparkSession.builder.getOrCreate().newSession()
    s.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    return s


def test_stream_static_right_outer_join_broadcasts_the_static_left_side(spark, tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"k":1,"v":"a"}\n{"k":5,"v":"e"}\n')
    static = spark.createDataFrame([(1, "one"), (2, "two")], "k INT, name STRING")
    stream = spark.readStream.schema("k INT, v STRING").json(str(src))
    q = (F.broadcast(static).join(stream, "k", "right").writeStream.format("memory")
         .queryName("hinted_stream_static").trigger(availableNow=True).start())
    q.awaitTermination()
    capsys.readouterr()
    q.explain()
    plan = capsys.readouterr().out
    assert "BroadcastHashJoin" in plan and "RightOuter, BuildLeft" in plan, plan
    rows = sorted(map(tuple, spark.sql("SELECT * FROM hinted_stream_static").collect()))
    assert rows == [(1, "one", "a"), (5, None, "e")]


def test_unknown_hint_warns_and_join_hints_do_not(spark):
    df = spark.range(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.hint("broadcast")
        df.hint("MERGE")
        assert not caught
        assert df.hint("coalesce", 1).count() == 3
    assert len(caught) == 1 and "coalesce" in str(caught[0].message)
