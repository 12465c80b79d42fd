"""Python user-defined functions (pyspark.sql.functions.udf, spark.udf.register).

A UDF runs row by row in the engine's worker threads, which take the GIL for each batch;
arguments arrive as the Python values collect() returns and the result is converted to the
declared return type (default string). An exception in the function fails the query with
spate.errors.PythonException (error class FAILED_EXECUTE_UDF).
"""

import functools
from typing import Any, Callable, Optional, Union

from spate import _spate
from spate.sql.column import Column, _lit_jc, _to_col_jc
from spate.sql.types import DataType, LongType, StringType, _parse_datatype_string

__all__ = ["UserDefinedFunction", "UDFRegistration"]


def _type(returnType: Union[DataType, str, None]) -> DataType:
    if returnType is None:
        return StringType()
    if isinstance(returnType, str):
        return _parse_datatype_string(returnType)
    return returnType


def _arg_text(jc: Any) -> str:
    text = jc.toString()
    return text[len("Column<'"):-len("'>")] if text.startswith("Column<'") else text


class UserDefinedFunction:
    def __init__(self, func: Callable[..., Any], returnType: Union[DataType, str, None] = None,
                 name: Optional[str] = None, deterministic: bool = True):
        if not callable(func):
            from spate.errors import PySparkTypeError
            raise PySparkTypeError("[NOT_CALLABLE] Argument `func` should be a callable, got %s."
                                   % type(func).__name__, "NOT_CALLABLE", None,
                                   {"arg_name": "func", "arg_type": type(func).__name__})
        self.func = func
        self.returnType = _type(returnType)
        self._name = name or getattr(func, "__name__", func.__class__.__name__)
        self.deterministic = deterministic
        self._id = _spate.register_udf(func, self.returnType, self._name, deterministic)

    def __call__(self, *cols: Any) -> Column:
        jcs = [_to_col_jc(c) for c in cols]
        call = _spate.call_function(_spate.udf_function_name(), [_lit_jc(self._id, LongType())] + jcs)
        # The column is named as in PySpark: f(arg, ...).
        return Column(call.alias("%s(%s)" % (self._name, ", ".join(_arg_text(j) for j in jcs))))

    def asNondeterministic(self) -> "UserDefinedFunction":
        return UserDefinedFunction(self.func, self.returnType, self._name, deterministic=False)

    def __repr__(self) -> str:
        return "<spate UDF %s returning %s>" % (self._name, self.returnType.simpleString())


class UDFRegistration:
    """spark.udf: registers Python functions for use in SQL."""

    def __init__(self, session: Any):
        self._session = session

    def register(self, name: str, f: Any, returnType: Union[DataType, str, None] = None) -> UserDefinedFunction:
        if isinstance(f, UserDefinedFunction):
            func, rtype, det = f.func, f.returnType, f.deterministic
        else:
            func, rtype, det = f, _type(returnType), True
        udf = UserDefinedFunction(func, rtype, name, det)
        _spate.register_udf(func, rtype, name, det, name)
        return udf


def udf(f: Any = None, returnType: Union[DataType, str, None] = None, *, useArrow: Optional[bool] = None) -> Any:
    """``udf(f, "int")``, ``@udf``, ``@udf("int")`` or ``@udf(returnType=IntegerType())``."""
    if f is None or isinstance(f, (str, DataType)):
        rtype = f if f is not None else returnType
        return functools.partial(_make_udf, returnType=rtype)
    return _make_udf(f, returnType)


def _make_udf(f: Callable[..., Any], returnType: Union[DataType, str, None] = None) -> Any:
    u = UserDefinedFunction(f, returnType)

    @functools.wraps(f)
    def wrapper(*cols: Any) -> Column:
        return u(*cols)

    wrapper.func = f  # type: ignore[attr-defined]
    wrapper.returnType = u.returnType  # type: ignore[attr-defined]
    wrapper.asNondeterministic = u.asNondeterministic  # type: ignore[attr-defined]
    wrapper._udf = u  # type: ignore[attr-defined]
    return wrapper
