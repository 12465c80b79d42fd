"""Exceptions raised by spate, mirroring :mod:`pyspark.errors`.

Engine errors carry Spark's error class (``getErrorClass()`` / ``getCondition()``), SQLSTATE
(``getSqlState()``) and message parameters (``getMessageParameters()``); ``str(e)`` is the
message Spark prints, e.g. ``[DIVIDE_BY_ZERO] Division by zero. ... SQLSTATE: 22012``.
"""

from typing import Dict, Optional

__all__ = [
    "PySparkException", "CapturedException", "SparkException", "AnalysisException",
    "ParseException", "TempTableAlreadyExistsException", "ArithmeticException",
    "NumberFormatException", "DateTimeException", "IllegalArgumentException",
    "UnsupportedOperationException", "SparkRuntimeException", "ArrayIndexOutOfBoundsException",
    "StreamingQueryException", "SparkUpgradeException", "PythonException", "PySparkValueError", "PySparkTypeError",
    "PySparkAttributeError", "PySparkRuntimeError", "PySparkIndexError", "PySparkNotImplementedError",
    "PySparkAssertionError",
]


class PySparkException(Exception):
    """Base of all spate exceptions (pyspark.errors.PySparkException)."""

    def __init__(self, message: Optional[str] = None, errorClass: Optional[str] = None,
                 sqlState: Optional[str] = None, messageParameters: Optional[Dict[str, str]] = None,
                 *, error_class: Optional[str] = None, message_parameters: Optional[Dict[str, str]] = None):
        self._error_class = errorClass or error_class or None
        self._sql_state = sqlState or None
        self._message_parameters = dict(messageParameters or message_parameters or {})
        if message is None:
            message = "[%s] %s" % (self._error_class, self._message_parameters)
        self._message = message
        super().__init__(message)

    def getErrorClass(self) -> Optional[str]:
        return self._error_class

    def getCondition(self) -> Optional[str]:
        return self._error_class

    def getMessageParameters(self) -> Dict[str, str]:
        return dict(self._message_parameters)

    def getSqlState(self) -> Optional[str]:
        return self._sql_state

    def getMessage(self) -> str:
        return self._message

    def __str__(self) -> str:
        return self._message


class CapturedException(PySparkException):
    """An error raised by the engine (pyspark's CapturedException)."""


class SparkException(CapturedException):
    pass


class AnalysisException(CapturedException):
    pass


class ParseException(AnalysisException):
    pass


class TempTableAlreadyExistsException(AnalysisException):
    pass


class IllegalArgumentException(CapturedException):
    pass


class ArithmeticException(CapturedException):
    pass


# PySpark's name for the same class.
SparkArithmeticException = ArithmeticException


class NumberFormatException(IllegalArgumentException):
    pass


class DateTimeException(CapturedException):
    pass


class UnsupportedOperationException(CapturedException):
    pass


class SparkRuntimeException(CapturedException):
    pass


class ArrayIndexOutOfBoundsException(CapturedException):
    pass


class StreamingQueryException(CapturedException):
    pass


class SparkUpgradeException(CapturedException):
    pass


class PythonException(CapturedException):
    """A Python UDF raised (error class FAILED_EXECUTE_UDF)."""


class PySparkValueError(PySparkException, ValueError):
    pass


class PySparkTypeError(PySparkException, TypeError):
    pass


class PySparkAttributeError(PySparkException, AttributeError):
    pass


class PySparkRuntimeError(PySparkException, RuntimeError):
    pass


class PySparkIndexError(PySparkException, IndexError):
    pass


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    pass


class PySparkAssertionError(PySparkException, AssertionError):
    pass
