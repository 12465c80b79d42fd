"""DataFrame.colRegex (Spark's backticked regex column selection)."""

import pytest

from spate.errors import AnalysisException, PySparkTypeError
from spate.sql import Row
from spate.sql import functions as F


@pytest.fixture
def wide(spark):
    return spark.createDataFrame([("a", 1, 2.0, 3)], ["Col1", "Col2", "col3", "other"])


def test_regex_selects_matching_columns(wide):
    assert wide.select(wide.colRegex("`Col.*`")).columns == ["Col1", "Col2", "col3"]
    assert wide.select("other", wide.colRegex("`Col[12]`"), F.lit(1)).columns == \
        ["other", "Col1", "Col2", "1"]
    assert wide.select(wide.colRegex("`(Col1|other)`")).collect() == [Row(Col1="a", other=3)]
    assert wide.select(wide.colRegex("`zz.*`")).columns == []


def test_plain_name_and_qualifier(wide):
    assert wide.select(wide.colRegex("col2")).columns == ["col2"]
    t = wide.alias("t")
    assert t.select(F.col("t.other"), t.colRegex("t.`col.*`")).columns == \
        ["other", "Col1", "Col2", "col3"]
    assert t.select(t.colRegex("u.`col.*`")).columns == []


def test_errors(wide):
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        wide.colRegex("nope")
    with pytest.raises(AnalysisException, match="INVALID_USAGE_OF_STAR_OR_REGEX"):
        wide.withColumn("x", wide.colRegex("`Col2`"))
    with pytest.raises(PySparkTypeError, match="NOT_EXPECTED_TYPE"):
        wide.colRegex(1)
