"""PySpark names spate refuses (they raise PySparkNotImplementedError naming themselves), and
the parts of the DataFrame statistics and sampling API the differential suite cannot pin
against Spark (tests/differential/cases/dataframe_api.py compares the rest)."""

import pytest

from spate.errors import PySparkAssertionError, PySparkNotImplementedError
from spate.sql import Observation
from spate.sql import functions as F


@pytest.mark.parametrize("get", [
    lambda df: df.rdd,
    lambda df: df.executionInfo,
    lambda df: df.pandas_api(),
    lambda df: df.sparkSession.read.jdbc("jdbc:x", "t"),
    lambda df: df.write.jdbc("jdbc:x", "t"),
    lambda df: df.write.bucketBy(2, "age"),
    lambda df: df.sparkSession.addArtifact("x.py"),
    lambda df: df.select(F.reflect(F.lit("java.util.UUID"), F.lit("randomUUID"))),
    lambda df: df.select(F.java_method(F.lit("java.util.UUID"), F.lit("randomUUID"))),
    lambda df: df.select(F.try_reflect(F.lit("java.util.UUID"), F.lit("randomUUID"))),
    lambda df: df.select(F.unwrap_udt("age")),
])
def test_refused_names_say_what_and_why(people, get):
    with pytest.raises(PySparkNotImplementedError) as e:
        get(people)
    assert e.value.getErrorClass() == "NOT_IMPLEMENTED"
    feature = e.value.getMessageParameters()["feature"]
    assert feature.split(".")[-1] in str(e.value) and ":" in str(e.value)


def test_sample_seed_and_fraction(spark):
    df = spark.range(10000)
    a = sorted(r.id for r in df.sample(0.1, 3).collect())
    assert a == sorted(r.id for r in df.sample(fraction=0.1, seed=3).collect())
    assert abs(len(a) - 1000) < 200
    # No seed: a random one each time (almost surely other rows).
    assert sorted(r.id for r in df.sample(0.5).collect()) != sorted(r.id for r in df.sample(0.5).collect())


def test_random_split_weights_normalized(spark):
    parts = spark.range(2000).randomSplit([2, 2], 1)
    assert sum(p.count() for p in parts) == 2000
    assert abs(parts[0].count() - 1000) < 150


def test_observation_once_and_before_observe(spark):
    obs = Observation("m")
    with pytest.raises(PySparkAssertionError):
        obs.get
    df = spark.range(5).observe(obs, F.count(F.lit(1)).alias("n"))
    assert df.count() == 5 and obs.get == {"n": 5}
    with pytest.raises(PySparkAssertionError):
        spark.range(1).observe(obs, F.count(F.lit(1)).alias("n"))


def test_freq_items_exact(spark):
    df = spark.createDataFrame([(1,)] * 6 + [(2,)] * 3 + [(3,)], "x INT")
    row = df.freqItems(["x"], 0.25).collect()[0]
    assert sorted(row.x_freqItems) == [1, 2]


def test_spark_connect_only_names_raise_as_classic_pyspark(spark):
    from spate.errors import PySparkRuntimeError
    for get in (lambda: spark.client, lambda: spark.copyFromLocalToFs("a", "b"),
                lambda: spark.registerProgressHandler(print)):
        with pytest.raises(PySparkRuntimeError) as e:
            get()
        assert e.value.getErrorClass() == "ONLY_SUPPORTED_WITH_SPARK_CONNECT"


def test_checkpoint_needs_a_checkpoint_dir(spark, tmp_path, monkeypatch):
    from spate.errors import SparkException
    from spate.sql import session
    monkeypatch.setattr(session, "_checkpoint_dir", None)
    with pytest.raises(SparkException, match="Checkpoint directory has not been set"):
        spark.range(3).checkpoint()
    spark.sparkContext.setCheckpointDir(str(tmp_path))
    assert spark.sparkContext.getCheckpointDir().startswith("file:" + str(tmp_path))
    assert spark.range(3).checkpoint().count() == 3


def test_is_local_and_storage_level(spark):
    """isLocal is True (one process, no executors: docs/spark-differences.md D21); the
    differential case functions_vector/storage_level compares storageLevel with Spark."""
    from spate.storagelevel import StorageLevel
    df = spark.range(3)
    assert df.isLocal() is True
    assert df.storageLevel == StorageLevel.NONE
    assert df.persist(StorageLevel.DISK_ONLY_2).storageLevel == StorageLevel(True, False, False, False, 2)
    assert str(StorageLevel.OFF_HEAP) == "Disk Memory OffHeap Serialized 1x Replicated"
    assert [r.id for r in df.collect()] == [0, 1, 2]
    with pytest.raises(Exception) as e:
        df.persist("MEMORY_ONLY")
    assert "NOT_STORAGELEVEL" in str(e.value)


def test_partition_transforms_do_not_evaluate(spark):
    """years / bucket are partition transforms: selecting one does not resolve (Spark cannot
    evaluate them either)."""
    df = spark.sql("SELECT 1 AS id, TIMESTAMP'2024-03-04 05:06:07' AS ts")
    for c in (F.years("ts"), F.months("ts"), F.days("ts"), F.hours("ts"), F.bucket(4, "id")):
        with pytest.raises(Exception):
            df.select(c).collect()
    with pytest.raises(Exception) as e:
        F.bucket("4", "id")
    assert "NOT_COLUMN_OR_INT" in str(e.value)
