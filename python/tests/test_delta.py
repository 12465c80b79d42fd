import pytest

from spate.errors import AnalysisException


def test_delta_round_trip_time_travel_and_sql(spark, tmp_path):
    path = str(tmp_path / "delta")
    spark.range(5).write.format("delta").save(path)
    spark.range(5, 8).write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").load(path).count() == 8
    assert spark.read.format("delta").option("versionAsOf", 0).load(path).count() == 5
    assert spark.sql(f"SELECT count(*) AS n FROM delta.`{path}`").collect()[0].n == 8
    with pytest.raises(AnalysisException) as e:
        spark.range(1).write.format("delta").save(path)
    assert e.value.getErrorClass() == "DELTA_PATH_EXISTS"


def test_delta_partitions_and_schema_enforcement(spark, tmp_path):
    path = str(tmp_path / "parts")
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "id BIGINT, k STRING")
    df.write.format("delta").partitionBy("k").save(path)
    back = spark.read.format("delta").load(path)
    assert sorted(r.id for r in back.filter("k = 'a'").collect()) == [1, 3]
    wider = spark.createDataFrame([(4, "c", 1.5)], "id BIGINT, k STRING, x DOUBLE")
    with pytest.raises(AnalysisException) as e:
        wider.write.format("delta").mode("append").save(path)
    assert e.value.getErrorClass() == "DELTA_METADATA_MISMATCH"
    wider.write.format("delta").mode("append").option("mergeSchema", "true").save(path)
    assert spark.read.format("delta").load(path).columns == ["id", "k", "x"]
