"""Column: an expression over a DataFrame's columns (pyspark.sql.Column)."""

from typing import Any, Union

from spate import _spate
from spate.errors import PySparkTypeError, PySparkValueError
from spate.sql.types import DataType, _infer_type

__all__ = ["Column"]


def _session_zone() -> str:
    from spate.sql.session import SparkSession
    s = SparkSession._active
    if s is None:
        return "UTC"
    return s.conf.get("spark.sql.session.timeZone", "UTC")


def _lit_jc(value: Any, datatype: Union[DataType, None] = None):
    """A native literal Column of a Python value (PySpark's lit())."""
    if isinstance(value, Column):
        return value._jc
    if datatype is None:
        datatype = _infer_type(value, for_literal=True)
    return _spate.lit(value, datatype, _session_zone())


def _to_jc(value: Any):
    """A Column or a Python literal as a native Column (operands of operators)."""
    if isinstance(value, Column):
        return value._jc
    return _lit_jc(value)


def _to_col_jc(value: Any):
    """A Column or a column name as a native Column (arguments of functions)."""
    if isinstance(value, Column):
        return value._jc
    if isinstance(value, str):
        return _spate.col(value)
    raise PySparkTypeError(
        "[NOT_COLUMN_OR_STR] Argument `col` should be a Column or str, got %s." % type(value).__name__,
        "NOT_COLUMN_OR_STR", None, {"arg_name": "col", "arg_type": type(value).__name__})


def _bin(name: str, reflected: bool = False):
    def op(self: "Column", other: Any) -> "Column":
        o = _to_jc(other)
        if reflected:
            return Column(getattr(o, name)(self._jc))
        return Column(getattr(self._jc, name)(o))
    return op


class Column:
    """An expression; build with :func:`spate.sql.functions.col`, ``df.col`` or ``df["col"]``."""

    __slots__ = ("_jc",)

    def __init__(self, jc: Any):
        self._jc = jc

    # arithmetic
    __add__ = _bin("plus")
    __sub__ = _bin("minus")
    __mul__ = _bin("multiply")
    __truediv__ = _bin("divide")
    __div__ = _bin("divide")
    __mod__ = _bin("mod")
    __radd__ = _bin("plus", True)
    __rsub__ = _bin("minus", True)
    __rmul__ = _bin("multiply", True)
    __rtruediv__ = _bin("divide", True)
    __rdiv__ = _bin("divide", True)
    __rmod__ = _bin("mod", True)

    def __pow__(self, other: Any) -> "Column":
        return Column(_spate.call_function("power", [self._jc, _to_jc(other)]))

    def __rpow__(self, other: Any) -> "Column":
        return Column(_spate.call_function("power", [_to_jc(other), self._jc]))

    def __neg__(self) -> "Column":
        return Column(self._jc.negate())

    # comparison
    __eq__ = _bin("equalTo")  # type: ignore[assignment]
    __ne__ = _bin("notEqual")  # type: ignore[assignment]
    __lt__ = _bin("lt")
    __le__ = _bin("leq")
    __gt__ = _bin("gt")
    __ge__ = _bin("geq")
    eqNullSafe = _bin("eqNullSafe")

    # logical (PySpark's & | ~ are AND / OR / NOT)
    __and__ = _bin("and_")
    __or__ = _bin("or_")
    __rand__ = _bin("and_", True)
    __ror__ = _bin("or_", True)

    def __invert__(self) -> "Column":
        return Column(self._jc.not_())

    bitwiseAND = _bin("bitwiseAND")
    bitwiseOR = _bin("bitwiseOR")
    bitwiseXOR = _bin("bitwiseXOR")

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise PySparkValueError(
            "[CANNOT_CONVERT_COLUMN_INTO_BOOL] Cannot convert column into bool: please use '&' for "
            "'and', '|' for 'or', '~' for 'not' when building DataFrame boolean expressions.",
            "CANNOT_CONVERT_COLUMN_INTO_BOOL", None, {})

    __nonzero__ = __bool__

    def __iter__(self):
        raise PySparkTypeError("[NOT_ITERABLE] Column is not iterable.", "NOT_ITERABLE", None,
                               {"objectName": "Column"})

    def __contains__(self, item: Any) -> bool:
        raise PySparkValueError(
            "[CANNOT_APPLY_IN_FOR_COLUMN] Cannot apply 'in' operator against a column: please use "
            "'contains' in a string column or 'array_contains' function for an array column.",
            "CANNOT_APPLY_IN_FOR_COLUMN", None, {})

    # names
    def alias(self, *alias: str, **kwargs: Any) -> "Column":
        if len(alias) != 1:
            raise PySparkValueError("[ONLY_ALLOWED_FOR_SINGLE_COLUMN] Argument `alias` can only be "
                                    "provided for a single column.", "ONLY_ALLOWED_FOR_SINGLE_COLUMN",
                                    None, {"arg_name": "alias"})
        return Column(self._jc.alias(alias[0]))

    name = alias

    def cast(self, dataType: Union[DataType, str]) -> "Column":
        if not isinstance(dataType, (DataType, str)):
            raise PySparkTypeError("[NOT_DATATYPE_OR_STR] Argument `dataType` should be a DataType or "
                                   "str, got %s." % type(dataType).__name__, "NOT_DATATYPE_OR_STR", None,
                                   {"arg_name": "dataType", "arg_type": type(dataType).__name__})
        return Column(self._jc.cast(dataType))

    astype = cast

    def try_cast(self, dataType: Union[DataType, str]) -> "Column":
        return Column(self._jc.try_cast(dataType))

    # predicates
    def isNull(self) -> "Column":
        return Column(self._jc.isNull())

    def isNotNull(self) -> "Column":
        return Column(self._jc.isNotNull())

    def isNaN(self) -> "Column":
        """True where the value is NaN (isnan)."""
        return Column(_spate.call_function("isnan", [self._jc]))

    def isin(self, *cols: Any) -> "Column":
        if len(cols) == 1 and isinstance(cols[0], (list, set, tuple)):
            cols = tuple(cols[0])
        return Column(self._jc.isin([_to_jc(c) for c in cols]))

    def between(self, lowerBound: Any, upperBound: Any) -> "Column":
        return Column(self._jc.between(_to_jc(lowerBound), _to_jc(upperBound)))

    def like(self, other: str) -> "Column":
        return Column(self._jc.like(other))

    def ilike(self, other: str) -> "Column":
        return Column(self._jc.ilike(other))

    def rlike(self, other: str) -> "Column":
        return Column(self._jc.rlike(other))

    def contains(self, other: Any) -> "Column":
        return Column(_spate.call_function("contains", [self._jc, _to_jc(other)]))

    def startswith(self, other: Any) -> "Column":
        return Column(_spate.call_function("startswith", [self._jc, _to_jc(other)]))

    def endswith(self, other: Any) -> "Column":
        return Column(_spate.call_function("endswith", [self._jc, _to_jc(other)]))

    def substr(self, startPos: Any, length: Any) -> "Column":
        return Column(_spate.call_function("substr", [self._jc, _to_jc(startPos), _to_jc(length)]))

    # nested access
    def getField(self, name: Any) -> "Column":
        if isinstance(name, Column):
            raise PySparkTypeError("[NOT_STR] Argument `name` should be a str, got Column.", "NOT_STR",
                                   None, {"arg_name": "name", "arg_type": "Column"})
        return Column(self._jc.getField(name))

    def getItem(self, key: Any) -> "Column":
        return Column(self._jc.getItem(_to_jc(key)))

    def __getitem__(self, k: Any) -> "Column":
        if isinstance(k, slice):
            if k.step is not None:
                raise PySparkValueError("[SLICE_WITH_STEP] Slice with step is not supported.",
                                        "SLICE_WITH_STEP", None, {})
            return self.substr(k.start, k.stop)
        return self.getItem(k)

    def __getattr__(self, item: str) -> "Column":
        if item.startswith("__"):
            raise AttributeError(item)
        return self.getField(item)

    def withField(self, fieldName: str, col: "Column") -> "Column":
        """This struct with field `fieldName` (a dotted path into nested structs) set to
        `col`: replaced where it exists, appended where it does not (Spark's withField)."""
        if not isinstance(fieldName, str):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] Argument `fieldName` should be str, got %s."
                                   % type(fieldName).__name__, "NOT_EXPECTED_TYPE", None,
                                   {"arg_name": "fieldName", "expected_type": "str",
                                    "arg_type": type(fieldName).__name__})
        if not isinstance(col, Column):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] Argument `col` should be Column, got %s."
                                   % type(col).__name__, "NOT_EXPECTED_TYPE", None,
                                   {"arg_name": "col", "expected_type": "Column",
                                    "arg_type": type(col).__name__})
        return Column(self._jc.withField(fieldName, col._jc))

    def dropFields(self, *fieldNames: str) -> "Column":
        """This struct without the fields `fieldNames` (dotted paths into nested structs);
        a missing field is no change (Spark's dropFields)."""
        return Column(self._jc.dropFields(list(fieldNames)))

    # sorting
    def asc(self) -> "Column":
        return Column(self._jc.asc())

    def asc_nulls_first(self) -> "Column":
        return Column(self._jc.asc_nulls_first())

    def asc_nulls_last(self) -> "Column":
        return Column(self._jc.asc_nulls_last())

    def desc(self) -> "Column":
        return Column(self._jc.desc())

    def desc_nulls_first(self) -> "Column":
        return Column(self._jc.desc_nulls_first())

    def desc_nulls_last(self) -> "Column":
        return Column(self._jc.desc_nulls_last())

    # CASE WHEN and windows
    def when(self, condition: "Column", value: Any) -> "Column":
        if not isinstance(condition, Column):
            raise PySparkTypeError("[NOT_COLUMN] Argument `condition` should be a Column, got %s."
                                   % type(condition).__name__, "NOT_COLUMN", None,
                                   {"arg_name": "condition", "arg_type": type(condition).__name__})
        return Column(self._jc.when(condition._jc, _to_jc(value)))

    def otherwise(self, value: Any) -> "Column":
        return Column(self._jc.otherwise(_to_jc(value)))

    def over(self, window: Any) -> "Column":
        return Column(self._jc.over(window._jspec))

    def transform(self, f: Any) -> "Column":
        """f(self): chains a function of a Column (PySpark 4.1)."""
        out = f(self)
        if not isinstance(out, Column):
            raise PySparkTypeError("[NOT_COLUMN] Argument `f` should return a Column, got %s."
                                   % type(out).__name__, "NOT_COLUMN", None,
                                   {"arg_name": "f", "arg_type": type(out).__name__})
        return out

    def __repr__(self) -> str:
        return self._jc.toString()

    def __str__(self) -> str:
        return self._jc.toString()
