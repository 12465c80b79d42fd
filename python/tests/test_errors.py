import pytest

from spate import errors
from spate.errors import (AnalysisException, ArithmeticException, IllegalArgumentException,
                          NumberFormatException, ParseException, PySparkException, SparkRuntimeException)
from spate.sql import functions as F


def test_analysis_exception(spark):
    with pytest.raises(AnalysisException) as e:
        spark.range(3).select("nope")
    ex = e.value
    assert ex.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    assert ex.getCondition() == ex.getErrorClass()
    assert ex.getSqlState() == "42703"
    assert ex.getMessageParameters() == {"objectName": "`nope`", "proposal": "`id`"}
    assert str(ex).startswith("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter "
                              "with name `nope` cannot be resolved.")
    assert isinstance(ex, PySparkException)


def test_parse_exception(spark):
    with pytest.raises(ParseException) as e:
        spark.sql("SELEC 1")
    assert e.value.getErrorClass() == "PARSE_SYNTAX_ERROR"
    assert e.value.getSqlState() == "42601"
    assert isinstance(e.value, AnalysisException)


def test_table_not_found(spark):
    with pytest.raises(AnalysisException) as e:
        spark.table("no_such_table")
    assert e.value.getErrorClass() == "TABLE_OR_VIEW_NOT_FOUND"


def test_divide_by_zero(spark):
    with pytest.raises(ArithmeticException) as e:
        spark.range(1).select(F.col("id") / 0).collect()
    assert e.value.getErrorClass() == "DIVIDE_BY_ZERO"
    assert e.value.getSqlState() == "22012"
    assert "SQLSTATE: 22012" in str(e.value)
    assert errors.SparkArithmeticException is ArithmeticException


def test_cast_invalid_input(spark):
    with pytest.raises(NumberFormatException) as e:
        spark.sql("SELECT CAST('abc' AS INT)").collect()
    assert e.value.getErrorClass() == "CAST_INVALID_INPUT"
    assert isinstance(e.value, IllegalArgumentException)


def test_conf_errors(spark):
    with pytest.raises(PySparkException) as e:
        spark.conf.get("spark.sql.no.such.key")
    assert e.value.getErrorClass() == "SQL_CONF_NOT_FOUND"


def test_old_location():
    from spate.sql.utils import AnalysisException as A, ParseException as P
    assert A is AnalysisException and P is ParseException
