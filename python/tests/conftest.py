import os

import pytest

from spate.sql import SparkSession


@pytest.fixture(scope="session")
def spark():
    return SparkSession.builder.appName("spate-tests").getOrCreate()


@pytest.fixture
def people(spark):
    # PySpark's documentation example DataFrame.
    return spark.createDataFrame([(14, "Tom"), (23, "Alice"), (16, "Bob")], ["age", "name"])


@pytest.fixture
def stream_tmpdir(tmp_path, monkeypatch):
    # Temporary checkpoints (memory/noop/foreachBatch sinks) go to the test's folder.
    d = tmp_path / "tmpdir"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    return d


def missing_peer(msg):
    """A tool, server or package a test needs is missing: fails under CI=true (CI must not
    pass by skipping), else skips."""
    if os.environ.get("CI") in ("true", "1"):
        pytest.fail(msg)
    pytest.skip(msg)
