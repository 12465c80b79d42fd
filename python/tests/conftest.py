import pytest

from spate.sql import SparkSession


@pytest.fixture(scope="session")
def spark():
    return SparkSession.builder.appName("spate-tests").getOrCreate()


@pytest.fixture
def people(spark):
    # PySpark's documentation example DataFrame.
    return spark.createDataFrame([(14, "Tom"), (23, "Alice"), (16, "Bob")], ["age", "name"])
