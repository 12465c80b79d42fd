"""Built-in functions, named and shaped as :mod:`pyspark.sql.functions`.

Column arguments accept a Column or a column name; literal parameters (scales, patterns,
formats) are plain Python values, as in PySpark. Every other function registered in the
engine is reachable by name too (``F.sinh("x")``) and through ``call_function``/``expr``.
"""

import inspect
import itertools
from typing import Any, Callable, List, Optional, Union

from spate import _spate
from spate.errors import PySparkValueError
from spate.sql.column import Column, _lit_jc, _to_col_jc, _to_jc
from spate.sql.utils import refused

ColumnOrName = Union[Column, str]


def _c(col: Any):
    return _to_col_jc(col)


def _l(value: Any):
    return _lit_jc(value)


def _cl(value: Any):
    """A Column, or a Python literal (not a column name)."""
    return value._jc if isinstance(value, Column) else _lit_jc(value)


def _call(name: str, *jcs: Any) -> Column:
    return Column(_spate.call_function(name, list(jcs)))


def _invoke(name: str, *cols: Any) -> Column:
    return _call(name, *[_c(c) for c in cols])


def _flat(cols: Any) -> List[Any]:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple, set)):
        return list(cols[0])
    return list(cols)


# ---- basics -----------------------------------------------------------------------------------

def col(col: str) -> Column:
    return Column(_spate.col(col))


column = col


def lit(col: Any) -> Column:
    if isinstance(col, Column):
        return col
    return Column(_l(col))


def expr(str: str) -> Column:
    return Column(_spate.expr(str))


def call_function(funcName: str, *cols: ColumnOrName) -> Column:
    return _invoke(funcName, *cols)


def broadcast(df: Any) -> Any:
    """Marks a DataFrame to be broadcast in joins: df.hint("broadcast")."""
    return df.hint("broadcast")


def when(condition: Column, value: Any) -> Column:
    if not isinstance(condition, Column):
        from spate.errors import PySparkTypeError
        raise PySparkTypeError("[NOT_COLUMN] Argument `condition` should be a Column, got %s."
                               % type(condition).__name__, "NOT_COLUMN", None,
                               {"arg_name": "condition", "arg_type": type(condition).__name__})
    return Column(_spate.when(condition._jc, _to_jc(value)))


def coalesce(*cols: ColumnOrName) -> Column:
    return _invoke("coalesce", *cols)


def nanvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _invoke("nanvl", col1, col2)


def nullif(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _invoke("nullif", col1, col2)


def ifnull(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _invoke("ifnull", col1, col2)


def nvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _invoke("nvl", col1, col2)


def nvl2(col1: ColumnOrName, col2: ColumnOrName, col3: ColumnOrName) -> Column:
    return _invoke("nvl2", col1, col2, col3)


def negate(col: ColumnOrName) -> Column:
    return _invoke("negative", col)


negative = negate


def asc(col: ColumnOrName) -> Column:
    return Column(_c(col).asc())


def desc(col: ColumnOrName) -> Column:
    return Column(_c(col).desc())


def asc_nulls_first(col: ColumnOrName) -> Column:
    return Column(_c(col).asc_nulls_first())


def asc_nulls_last(col: ColumnOrName) -> Column:
    return Column(_c(col).asc_nulls_last())


def desc_nulls_first(col: ColumnOrName) -> Column:
    return Column(_c(col).desc_nulls_first())


def desc_nulls_last(col: ColumnOrName) -> Column:
    return Column(_c(col).desc_nulls_last())


# ---- aggregates -------------------------------------------------------------------------------

def count(col: ColumnOrName) -> Column:
    return Column(_spate.count(_c(col)))


def countDistinct(col: ColumnOrName, *cols: ColumnOrName) -> Column:
    return Column(_spate.count_distinct([_c(c) for c in (col,) + cols]))


count_distinct = countDistinct


def sum_distinct(col: ColumnOrName) -> Column:
    return Column(_spate.sum_distinct(_c(col)))


sumDistinct = sum_distinct


def first(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    return Column(_spate.first(_c(col), ignorenulls))


def last(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    return Column(_spate.last(_c(col), ignorenulls))


def any_value(col: ColumnOrName, ignoreNulls: Union[bool, Column, None] = None) -> Column:
    return Column(_spate.any_value(_c(col), bool(ignoreNulls)))


def approx_count_distinct(col: ColumnOrName, rsd: Optional[float] = None) -> Column:
    return _call("approx_count_distinct", _c(col), _l(0.05 if rsd is None else float(rsd)))


approxCountDistinct = approx_count_distinct


def min_by(col: ColumnOrName, ord: ColumnOrName) -> Column:
    return _invoke("min_by", col, ord)


def max_by(col: ColumnOrName, ord: ColumnOrName) -> Column:
    return _invoke("max_by", col, ord)


def percentile(col: ColumnOrName, percentage: Any, frequency: Any = 1) -> Column:
    if frequency == 1:
        return _call("percentile", _c(col), _cl(percentage))
    return _call("percentile", _c(col), _cl(percentage), _cl(frequency))


def bitmap_construct_agg(col: ColumnOrName) -> Column:
    return _invoke("bitmap_construct_agg", col)


def bitmap_or_agg(col: ColumnOrName) -> Column:
    return _invoke("bitmap_or_agg", col)


def bitmap_and_agg(col: ColumnOrName) -> Column:
    return _invoke("bitmap_and_agg", col)


def count_min_sketch(col: ColumnOrName, eps: Any, confidence: Any, seed: Any = None) -> Column:
    """Spark's serialized CountMinSketch; without a seed, a random one (as PySpark)."""
    if seed is None:
        import random
        seed = random.randint(-(1 << 63), (1 << 63) - 1)
    return _call("count_min_sketch", _c(col), _cl(eps), _cl(confidence), _cl(seed))


def histogram_numeric(col: ColumnOrName, nBins: Any) -> Column:
    return _call("histogram_numeric", _c(col), _cl(nBins))


def percentile_approx(col: ColumnOrName, percentage: Any, accuracy: Any = 10000) -> Column:
    return _call("percentile_approx", _c(col), _cl(percentage), _cl(accuracy))


def approx_percentile(col: ColumnOrName, percentage: Any, accuracy: Any = 10000) -> Column:
    return _call("approx_percentile", _c(col), _cl(percentage), _cl(accuracy))


def try_sum(col: ColumnOrName) -> Column:
    return _invoke("try_sum", col)


def try_avg(col: ColumnOrName) -> Column:
    return _invoke("try_avg", col)


def _listagg(name: str, col: ColumnOrName, delimiter: Any, distinct: bool) -> Column:
    d = None if delimiter is None else _cl(delimiter)
    return Column(_spate.listagg(name, _c(col), d, distinct))


def listagg(col: ColumnOrName, delimiter: Any = None) -> Column:
    return _listagg("listagg", col, delimiter, False)


def listagg_distinct(col: ColumnOrName, delimiter: Any = None) -> Column:
    return _listagg("listagg", col, delimiter, True)


def string_agg(col: ColumnOrName, delimiter: Any = None) -> Column:
    return _listagg("string_agg", col, delimiter, False)


def string_agg_distinct(col: ColumnOrName, delimiter: Any = None) -> Column:
    return _listagg("string_agg", col, delimiter, True)


# ---- window functions -------------------------------------------------------------------------

def row_number() -> Column:
    return _call("row_number")


def rank() -> Column:
    return _call("rank")


def dense_rank() -> Column:
    return _call("dense_rank")


def percent_rank() -> Column:
    return _call("percent_rank")


def cume_dist() -> Column:
    return _call("cume_dist")


def ntile(n: int) -> Column:
    return _call("ntile", _l(int(n)))


def lag(col: ColumnOrName, offset: int = 1, default: Optional[Any] = None) -> Column:
    return Column(_spate.lag(_c(col), offset, None if default is None else _cl(default)))


def lead(col: ColumnOrName, offset: int = 1, default: Optional[Any] = None) -> Column:
    return Column(_spate.lead(_c(col), offset, None if default is None else _cl(default)))


def nth_value(col: ColumnOrName, offset: int, ignoreNulls: Optional[bool] = False) -> Column:
    return Column(_spate.nth_value(_c(col), int(offset), bool(ignoreNulls)))


# ---- math -------------------------------------------------------------------------------------

def log(arg1: Union[ColumnOrName, float], arg2: Optional[ColumnOrName] = None) -> Column:
    if arg2 is None:
        return _invoke("ln", arg1)
    return _call("log", _l(float(arg1)), _c(arg2))


def pow(col1: Union[ColumnOrName, float], col2: Union[ColumnOrName, float]) -> Column:
    return _call("power", _c(col1) if isinstance(col1, (str, Column)) else _l(float(col1)),
                 _c(col2) if isinstance(col2, (str, Column)) else _l(float(col2)))


power = pow


def pmod(dividend: Union[ColumnOrName, float], divisor: Union[ColumnOrName, float]) -> Column:
    return _call("pmod", _c(dividend) if isinstance(dividend, (str, Column)) else _l(dividend),
                 _c(divisor) if isinstance(divisor, (str, Column)) else _l(divisor))


def round(col: ColumnOrName, scale: Optional[int] = None) -> Column:
    return _call("round", _c(col), _l(int(scale or 0)))


def bround(col: ColumnOrName, scale: Optional[int] = None) -> Column:
    return _call("bround", _c(col), _l(int(scale or 0)))


def ceil(col: ColumnOrName, scale: Optional[Any] = None) -> Column:
    return _invoke("ceil", col) if scale is None else _call("ceil", _c(col), _cl(scale))


def ceiling(col: ColumnOrName, scale: Optional[Any] = None) -> Column:
    return _invoke("ceiling", col) if scale is None else _call("ceiling", _c(col), _cl(scale))


def floor(col: ColumnOrName, scale: Optional[Any] = None) -> Column:
    return _invoke("floor", col) if scale is None else _call("floor", _c(col), _cl(scale))


def greatest(*cols: ColumnOrName) -> Column:
    return _invoke("greatest", *cols)


def least(*cols: ColumnOrName) -> Column:
    return _invoke("least", *cols)


# ---- strings ----------------------------------------------------------------------------------

def concat(*cols: ColumnOrName) -> Column:
    return _invoke("concat", *cols)


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    return _call("concat_ws", _l(sep), *[_c(c) for c in cols])


def substring(str: ColumnOrName, pos: Any, len: Any) -> Column:
    return _call("substring", _c(str), _cl(pos), _cl(len))


def substr(str: ColumnOrName, pos: ColumnOrName, len: Optional[ColumnOrName] = None) -> Column:
    return _invoke("substr", str, pos) if len is None else _invoke("substr", str, pos, len)


def left(str: ColumnOrName, len: ColumnOrName) -> Column:
    return _invoke("left", str, len)


def right(str: ColumnOrName, len: ColumnOrName) -> Column:
    return _invoke("right", str, len)


def _trim(name: str):
    def f(col: ColumnOrName, trim: Optional[Any] = None) -> Column:
        if trim is None:
            return _invoke(name, col)
        return _call(name, _c(col), _cl(trim))
    f.__name__ = name
    return f


trim = _trim("trim")
ltrim = _trim("ltrim")
rtrim = _trim("rtrim")


def lpad(col: ColumnOrName, len: Any, pad: Any) -> Column:
    return _call("lpad", _c(col), _cl(len), _cl(pad))


def rpad(col: ColumnOrName, len: Any, pad: Any) -> Column:
    return _call("rpad", _c(col), _cl(len), _cl(pad))


def replace(src: ColumnOrName, search: ColumnOrName, replace: Optional[ColumnOrName] = None) -> Column:
    return _invoke("replace", src, search) if replace is None else _invoke("replace", src, search, replace)


def split(str: ColumnOrName, pattern: Any, limit: Any = -1) -> Column:
    return _call("split", _c(str), _cl(pattern), _cl(limit))


def split_part(src: ColumnOrName, delimiter: ColumnOrName, partNum: ColumnOrName) -> Column:
    return _invoke("split_part", src, delimiter, partNum)


def instr(str: ColumnOrName, substr: Any) -> Column:
    return _call("instr", _c(str), _cl(substr))


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:
    return _call("locate", _l(substr), _c(str), _l(int(pos)))


def position(substr: ColumnOrName, str: ColumnOrName, start: Optional[ColumnOrName] = None) -> Column:
    return _invoke("position", substr, str) if start is None else _invoke("position", substr, str, start)


def rlike(str: ColumnOrName, regexp: ColumnOrName) -> Column:
    return _invoke("rlike", str, regexp)


def regexp(str: ColumnOrName, regexp: ColumnOrName) -> Column:
    return _invoke("regexp", str, regexp)


def regexp_like(str: ColumnOrName, regexp: ColumnOrName) -> Column:
    return _invoke("regexp_like", str, regexp)


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:
    return _call("regexp_extract", _c(str), _l(pattern), _l(int(idx)))


def regexp_extract_all(str: ColumnOrName, regexp: ColumnOrName, idx: Optional[Any] = None) -> Column:
    if idx is None:
        return _invoke("regexp_extract_all", str, regexp)
    return _call("regexp_extract_all", _c(str), _c(regexp), _cl(idx))


def regexp_replace(string: ColumnOrName, pattern: Union[str, Column], replacement: Union[str, Column]) -> Column:
    return _call("regexp_replace", _c(string), _cl(pattern), _cl(replacement))


def repeat(col: ColumnOrName, n: Any) -> Column:
    return _call("repeat", _c(col), _cl(n))


def startswith(str: ColumnOrName, prefix: ColumnOrName) -> Column:
    return _invoke("startswith", str, prefix)


def endswith(str: ColumnOrName, suffix: ColumnOrName) -> Column:
    return _invoke("endswith", str, suffix)


def contains(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("contains", left, right)


def format_number(col: ColumnOrName, d: int) -> Column:
    return _call("format_number", _c(col), _l(int(d)))


def format_string(format: str, *cols: ColumnOrName) -> Column:
    return _call("format_string", _l(format), *[_c(c) for c in cols])


def printf(format: ColumnOrName, *cols: ColumnOrName) -> Column:
    return _invoke("printf", format, *cols)


def sha2(col: ColumnOrName, numBits: int) -> Column:
    return _call("sha2", _c(col), _l(int(numBits)))


def translate(srcCol: ColumnOrName, matching: str, replace: str) -> Column:
    return _call("translate", _c(srcCol), _l(matching), _l(replace))


def hash(*cols: ColumnOrName) -> Column:
    return _invoke("hash", *cols)


def xxhash64(*cols: ColumnOrName) -> Column:
    return _invoke("xxhash64", *cols)


# ---- collections ------------------------------------------------------------------------------

def array(*cols: ColumnOrName) -> Column:
    return _invoke("array", *_flat(cols))


def array_contains(col: ColumnOrName, value: Any) -> Column:
    return _call("array_contains", _c(col), _cl(value))


def element_at(col: ColumnOrName, extraction: Any) -> Column:
    return _call("element_at", _c(col), _cl(extraction))


def try_element_at(col: ColumnOrName, extraction: ColumnOrName) -> Column:
    return _invoke("try_element_at", col, extraction)


def array_join(col: ColumnOrName, delimiter: str, null_replacement: Optional[str] = None) -> Column:
    if null_replacement is None:
        return _call("array_join", _c(col), _l(delimiter))
    return _call("array_join", _c(col), _l(delimiter), _l(null_replacement))


def array_position(col: ColumnOrName, value: Any) -> Column:
    return _call("array_position", _c(col), _cl(value))


def array_remove(col: ColumnOrName, element: Any) -> Column:
    return _call("array_remove", _c(col), _cl(element))


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    return _call("sort_array", _c(col), _l(bool(asc)))


def sequence(start: ColumnOrName, stop: ColumnOrName, step: Optional[ColumnOrName] = None) -> Column:
    return _invoke("sequence", start, stop) if step is None else _invoke("sequence", start, stop, step)


def slice(x: ColumnOrName, start: Any, length: Any) -> Column:
    return _call("slice", _c(x), _cl(start), _cl(length))


def arrays_zip(*cols: ColumnOrName) -> Column:
    return _invoke("arrays_zip", *cols)


def create_map(*cols: ColumnOrName) -> Column:
    return _invoke("map", *_flat(cols))


def map_from_arrays(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _invoke("map_from_arrays", col1, col2)


def struct(*cols: ColumnOrName) -> Column:
    return _invoke("struct", *_flat(cols))


def named_struct(*cols: ColumnOrName) -> Column:
    return _invoke("named_struct", *cols)


# ---- date and time ----------------------------------------------------------------------------

def _with_format(name: str, col: ColumnOrName, format: Optional[Any]) -> Column:
    if format is None:
        return _invoke(name, col)
    return _call(name, _c(col), _cl(format))


def to_timestamp(col: ColumnOrName, format: Optional[str] = None) -> Column:
    return _with_format("to_timestamp", col, format)


def try_to_timestamp(col: ColumnOrName, format: Optional[ColumnOrName] = None) -> Column:
    return _invoke("try_to_timestamp", col) if format is None else _invoke("try_to_timestamp", col, format)


def to_timestamp_ntz(timestamp: ColumnOrName, format: Optional[ColumnOrName] = None) -> Column:
    if format is None:
        return _invoke("to_timestamp_ntz", timestamp)
    return _invoke("to_timestamp_ntz", timestamp, format)


def to_date(col: ColumnOrName, format: Optional[str] = None) -> Column:
    return _with_format("to_date", col, format)


def unix_timestamp(timestamp: Optional[ColumnOrName] = None, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:
    if timestamp is None:
        return _call("unix_timestamp")
    return _call("unix_timestamp", _c(timestamp), _l(format))


def date_format(date: ColumnOrName, format: str) -> Column:
    return _call("date_format", _c(date), _l(format))


def from_unixtime(timestamp: ColumnOrName, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:
    return _call("from_unixtime", _c(timestamp), _l(format))


def extract(field: Column, source: ColumnOrName) -> Column:
    return _call("extract", _cl(field), _c(source))


def date_part(field: Column, source: ColumnOrName) -> Column:
    return _call("date_part", _cl(field), _c(source))


def date_add(start: ColumnOrName, days: Any) -> Column:
    return _call("date_add", _c(start), _cl(days))


def date_sub(start: ColumnOrName, days: Any) -> Column:
    return _call("date_sub", _c(start), _cl(days))


def dateadd(start: ColumnOrName, days: Any) -> Column:
    return _call("dateadd", _c(start), _cl(days))


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    return _invoke("datediff", end, start)


def timestamp_add(unit: str, quantity: ColumnOrName, ts: ColumnOrName) -> Column:
    """`ts` plus `quantity` units (SQL's TIMESTAMPADD): unit is "YEAR", "QUARTER", "MONTH",
    "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND" or "MICROSECOND", any case."""
    return Column(_spate.timestamp_add(unit, _c(quantity), _c(ts)))


def timestamp_diff(unit: str, start: ColumnOrName, end: ColumnOrName) -> Column:
    """Whole units from `start` to `end` (SQL's TIMESTAMPDIFF), truncated toward zero."""
    return Column(_spate.timestamp_diff(unit, _c(start), _c(end)))


def add_months(start: ColumnOrName, months: Any) -> Column:
    return _call("add_months", _c(start), _cl(months))


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:
    return _call("months_between", _c(date1), _c(date2), _l(bool(roundOff)))


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:
    return _call("next_day", _c(date), _l(dayOfWeek))


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:
    return _call("date_trunc", _l(format), _c(timestamp))


def trunc(date: ColumnOrName, format: str) -> Column:
    return _call("trunc", _c(date), _l(format))


def make_date(year: ColumnOrName, month: ColumnOrName, day: ColumnOrName) -> Column:
    return _invoke("make_date", year, month, day)


def make_timestamp(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
                   mins: ColumnOrName, secs: ColumnOrName, timezone: Optional[ColumnOrName] = None) -> Column:
    args = [years, months, days, hours, mins, secs] + ([timezone] if timezone is not None else [])
    return _invoke("make_timestamp", *args)


def from_utc_timestamp(timestamp: ColumnOrName, tz: Union[Column, str]) -> Column:
    return _call("from_utc_timestamp", _c(timestamp), _cl(tz))


def to_utc_timestamp(timestamp: ColumnOrName, tz: Union[Column, str]) -> Column:
    return _call("to_utc_timestamp", _c(timestamp), _cl(tz))


def window(timeColumn: ColumnOrName, windowDuration: str, slideDuration: Optional[str] = None,
           startTime: Optional[str] = None) -> Column:
    args = [_c(timeColumn), _l(windowDuration)]
    if slideDuration is not None or startTime is not None:
        args.append(_l(slideDuration if slideDuration is not None else windowDuration))
    if startTime is not None:
        args.append(_l(startTime))
    return _call("window", *args)


def session_window(timeColumn: ColumnOrName, gapDuration: Union[Column, str]) -> Column:
    return _call("session_window", _c(timeColumn), _cl(gapDuration))


def window_time(windowColumn: ColumnOrName) -> Column:
    return _invoke("window_time", windowColumn)


from spate.sql.udf import udf  # noqa: E402


# ---- generated: functions whose arguments are all columns --------------------------------------

def _make(name: str, sql_name: str, arity: int) -> Callable[..., Column]:
    if arity == 0:
        def f0() -> Column:
            return _call(sql_name)
        f = f0
    elif arity == 1:
        def f1(col: ColumnOrName) -> Column:
            return _invoke(sql_name, col)
        f = f1
    else:
        def f2(col1: ColumnOrName, col2: ColumnOrName) -> Column:
            return _invoke(sql_name, col1, col2)
        f = f2
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = "pyspark.sql.functions.%s: the SQL function %s." % (name, sql_name)
    return f


_NULLARY = ["current_timestamp", "current_date", "now", "localtimestamp", "current_timezone",
            "current_catalog", "current_database", "current_schema", "monotonically_increasing_id",
            "spark_partition_id", "uuid", "input_file_name", "pi", "e", "rand", "randn"]
_UNARY = ["abs", "sqrt", "cbrt", "exp", "expm1", "ln", "log10", "log2", "log1p", "sign", "signum",
          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
          "cot", "sec", "csc", "degrees", "radians", "rint", "factorial", "bin", "positive",
          "isnan", "isnull", "isnotnull", "length", "char_length", "character_length", "bit_length",
          "octet_length", "upper", "lower", "ucase", "lcase", "reverse", "initcap", "ascii", "chr", "char",
          "base64", "unbase64", "hex", "unhex", "md5", "sha1", "crc32", "soundex", "typeof",
          "sum", "avg", "mean", "min", "max", "collect_list", "collect_set", "stddev", "stddev_samp",
          "stddev_pop", "std", "variance", "var_samp", "var_pop", "count_if", "bool_and", "every",
          "bool_or", "some", "median", "mode", "skewness", "kurtosis", "product",
          "size", "cardinality", "array_distinct", "array_max", "array_min", "array_sort", "flatten",
          "map_keys", "map_values", "map_entries", "explode", "explode_outer", "posexplode",
          "posexplode_outer", "inline", "inline_outer",
          "timestamp_seconds", "timestamp_millis", "timestamp_micros", "unix_seconds", "unix_millis",
          "unix_micros", "unix_date", "date_from_unix_date", "year", "quarter", "month", "dayofmonth",
          "day", "dayofweek", "weekday", "dayofyear", "weekofyear", "hour", "minute", "second",
          "last_day"]
_BINARY = ["atan2", "hypot", "corr", "covar_pop", "covar_samp", "array_union", "array_intersect",
           "array_except", "arrays_overlap"]

for _n in _NULLARY:
    globals()[_n] = _make(_n, _n, 0)
for _n in _UNARY:
    globals()[_n] = _make(_n, _n, 1)
for _n in _BINARY:
    globals()[_n] = _make(_n, _n, 2)
del _n

collectList = collect_list  # noqa: F821
collectSet = collect_set  # noqa: F821
stddev_samp_ = None
del stddev_samp_

_KNOWN = None


# ---- higher-order functions --------------------------------------------------------------

_lambda_ids = itertools.count(1)


def _lambda(f: Callable[..., Any]) -> Any:
    """A lambda expression from a Python function of Columns (PySpark's rules: 1 to 3
    positional parameters, a Column returned)."""
    params = list(inspect.signature(f).parameters.values())
    name = getattr(f, "__name__", "lambda")
    if not 1 <= len(params) <= 3:
        raise PySparkValueError(errorClass="WRONG_NUM_ARGS_FOR_HIGHER_ORDER_FUNCTION",
                                messageParameters={"func_name": name, "num_args": str(len(params))})
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)
    if not all(p.kind in kinds for p in params):
        raise PySparkValueError(errorClass="UNSUPPORTED_PARAM_TYPE_FOR_HIGHER_ORDER_FUNCTION",
                                messageParameters={"func_name": name})
    n = next(_lambda_ids)
    names = ["%s_%d" % (p.name, n) for p in params]
    body = f(*[Column(_spate.col(v)) for v in names])
    if not isinstance(body, Column):
        raise PySparkValueError(errorClass="HIGHER_ORDER_FUNCTION_SHOULD_RETURN_COLUMN",
                                messageParameters={"func_name": name,
                                                   "return_type": type(body).__name__})
    return _spate.lambda_function(names, body._jc)


def transform(col: ColumnOrName, f: Callable[..., Column]) -> Column:
    return _call("transform", _c(col), _lambda(f))


def filter(col: ColumnOrName, f: Callable[..., Column]) -> Column:
    return _call("filter", _c(col), _lambda(f))


def exists(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    return _call("exists", _c(col), _lambda(f))


def forall(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    return _call("forall", _c(col), _lambda(f))


def _fold(name: str, col: ColumnOrName, initialValue: ColumnOrName, merge: Callable[..., Column],
          finish: Optional[Callable[..., Column]]) -> Column:
    jcs = [_c(col), _c(initialValue), _lambda(merge)]
    if finish is not None:
        jcs.append(_lambda(finish))
    return _call(name, *jcs)


def aggregate(col: ColumnOrName, initialValue: ColumnOrName, merge: Callable[[Column, Column], Column],
              finish: Optional[Callable[[Column], Column]] = None) -> Column:
    return _fold("aggregate", col, initialValue, merge, finish)


def reduce(col: ColumnOrName, initialValue: ColumnOrName, merge: Callable[[Column, Column], Column],
           finish: Optional[Callable[[Column], Column]] = None) -> Column:
    return _fold("reduce", col, initialValue, merge, finish)


def zip_with(left: ColumnOrName, right: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    return _call("zip_with", _c(left), _c(right), _lambda(f))


def array_sort(col: ColumnOrName, comparator: Optional[Callable[[Column, Column], Column]] = None) -> Column:
    if comparator is None:
        return _call("array_sort", _c(col))
    return _call("array_sort", _c(col), _lambda(comparator))


def map_filter(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    return _call("map_filter", _c(col), _lambda(f))


def transform_keys(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    return _call("transform_keys", _c(col), _lambda(f))


def transform_values(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    return _call("transform_values", _c(col), _lambda(f))


def map_zip_with(col1: ColumnOrName, col2: ColumnOrName,
                 f: Callable[[Column, Column, Column], Column]) -> Column:
    return _call("map_zip_with", _c(col1), _c(col2), _lambda(f))


def __getattr__(name: str) -> Callable[..., Column]:
    """Any other function registered in the engine, called with Columns/names."""
    global _KNOWN
    if name.startswith("_"):
        raise AttributeError(name)
    if _KNOWN is None:
        _KNOWN = set(_spate.function_names())
    if name.lower() not in _KNOWN:
        raise AttributeError("module 'spate.sql.functions' has no attribute '%s'" % name)

    def f(*cols: ColumnOrName) -> Column:
        return _invoke(name.lower(), *cols)
    f.__name__ = name
    return f


def try_add(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("try_add", left, right)


def try_subtract(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("try_subtract", left, right)


def try_multiply(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("try_multiply", left, right)


def try_divide(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("try_divide", left, right)


def try_mod(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _invoke("try_mod", left, right)


def make_dt_interval(days: Optional[ColumnOrName] = None, hours: Optional[ColumnOrName] = None,
                     mins: Optional[ColumnOrName] = None,
                     secs: Optional[ColumnOrName] = None) -> Column:
    parts = [days, hours, mins, secs]
    while parts and parts[-1] is None:
        parts.pop()
    return _call("make_dt_interval", *[_l(0) if p is None else _c(p) for p in parts])


def make_ym_interval(years: Optional[ColumnOrName] = None,
                     months: Optional[ColumnOrName] = None) -> Column:
    parts = [years, months]
    while parts and parts[-1] is None:
        parts.pop()
    return _call("make_ym_interval", *[_l(0) if p is None else _c(p) for p in parts])


# ---- CSV ------------------------------------------------------------------------------------

def _options_map(options: Optional[dict]) -> List[Any]:
    if not options:
        return []
    kv = []
    for k, v in options.items():
        kv += [_l(str(k)), _l("true" if v is True else "false" if v is False else str(v))]
    return [_call("map", *kv)._jc]


def _schema_arg(schema: Any) -> Any:
    """A schema argument: a DDL string or DataType (a literal, never a column name) or a Column."""
    if isinstance(schema, Column):
        return schema._jc
    if hasattr(schema, "simpleString"):
        schema = schema.simpleString()
    return _l(schema)


def from_json(col: ColumnOrName, schema: Any, options: Optional[dict] = None) -> Column:
    """Parses JSON text into `schema` (a DDL string, a StructType/ArrayType/MapType or a Column)."""
    return _call("from_json", _c(col), _schema_arg(schema), *_options_map(options))


def get_json_object(col: ColumnOrName, path: str) -> Column:
    """The value at JSON `path` ("$.a.b[0]", a literal) in the JSON text of `col`."""
    return _call("get_json_object", _c(col), _l(path))


def json_tuple(col: ColumnOrName, *fields: str) -> Column:
    """The top-level `fields` (literal names) of the JSON text of `col`, as columns c0, c1, ..."""
    return _call("json_tuple", _c(col), *[_l(f) for f in fields])


def schema_of_json(json: Any, options: Optional[dict] = None) -> Column:
    """The DDL schema of a JSON string literal (or a foldable Column)."""
    return _call("schema_of_json", _cl(json), *_options_map(options))


def schema_of_csv(csv: Any, options: Optional[dict] = None) -> Column:
    return _call("schema_of_csv", _cl(csv), *_options_map(options))


def from_csv(col: ColumnOrName, schema: Union[Column, str], options: Optional[dict] = None) -> Column:
    """A STRUCT parsed from CSV text with a DDL schema ("a INT, b STRING")."""
    return _call("from_csv", _c(col), _cl(schema), *_options_map(options))


def to_csv(col: ColumnOrName, options: Optional[dict] = None) -> Column:
    return _call("to_csv", _c(col), *_options_map(options))


def schema_of_csv(csv: Union[Column, str], options: Optional[dict] = None) -> Column:
    return _call("schema_of_csv", _cl(csv), *_options_map(options))


# ---- functions with literal parameters (docs/functions.md) -----------------------------------

def _seeded(name: str, *jcs: Any, seed: Any = None) -> Column:
    return _call(name, *jcs) if seed is None else _call(name, *jcs, _cl(seed))


def rand(seed: Optional[int] = None) -> Column:
    """Uniform in [0, 1): Spark's values for a seed (seed + partition index per partition)."""
    return _seeded("rand", seed=seed)


def randn(seed: Optional[int] = None) -> Column:
    return _seeded("randn", seed=seed)


def random(seed: Optional[int] = None) -> Column:
    return _seeded("random", seed=seed)


def uniform(min: Any, max: Any, seed: Any = None) -> Column:
    return _seeded("uniform", _cl(min), _cl(max), seed=seed)


def randstr(length: Any, seed: Any = None) -> Column:
    return _seeded("randstr", _cl(length), seed=seed)


def shuffle(col: ColumnOrName, seed: Any = None) -> Column:
    return _seeded("shuffle", _c(col), seed=seed)


def _number_or_col(v: Any) -> Any:
    return _l(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else _c(v)


def atan2(col1: Any, col2: Any) -> Column:
    return _call("atan2", _number_or_col(col1), _number_or_col(col2))


def hypot(col1: Any, col2: Any) -> Column:
    return _call("hypot", _number_or_col(col1), _number_or_col(col2))


def shiftleft(col: ColumnOrName, numBits: int) -> Column:
    return _call("shiftleft", _c(col), _l(numBits))


def shiftright(col: ColumnOrName, numBits: int) -> Column:
    return _call("shiftright", _c(col), _l(numBits))


def shiftrightunsigned(col: ColumnOrName, numBits: int) -> Column:
    return _call("shiftrightunsigned", _c(col), _l(numBits))


shiftLeft = shiftleft
shiftRight = shiftright
shiftRightUnsigned = shiftrightunsigned


def bit_get(col: ColumnOrName, pos: ColumnOrName) -> Column:
    return _invoke("bit_get", col, pos)


def getbit(col: ColumnOrName, pos: ColumnOrName) -> Column:
    return _invoke("getbit", col, pos)


def width_bucket(v: ColumnOrName, min: ColumnOrName, max: ColumnOrName, numBucket: Any) -> Column:
    nb = _l(numBucket) if isinstance(numBucket, int) else _c(numBucket)
    return _call("width_bucket", _c(v), _c(min), _c(max), nb)


def levenshtein(left: ColumnOrName, right: ColumnOrName, threshold: Optional[int] = None) -> Column:
    if threshold is None:
        return _invoke("levenshtein", left, right)
    return _call("levenshtein", _c(left), _c(right), _l(threshold))


# ---- number and binary formats, URLs, mask, sentences (number_format.cc, text_functions.cc) ----

def to_number(col: ColumnOrName, format: ColumnOrName) -> Column:
    return _invoke("to_number", col, format)


def try_to_number(col: ColumnOrName, format: ColumnOrName) -> Column:
    return _invoke("try_to_number", col, format)


def to_char(col: ColumnOrName, format: ColumnOrName) -> Column:
    return _invoke("to_char", col, format)


def to_varchar(col: ColumnOrName, format: ColumnOrName) -> Column:
    return _invoke("to_varchar", col, format)


def to_binary(col: ColumnOrName, format: Optional[ColumnOrName] = None) -> Column:
    return _invoke("to_binary", col) if format is None else _invoke("to_binary", col, format)


def try_to_binary(col: ColumnOrName, format: Optional[ColumnOrName] = None) -> Column:
    return _invoke("try_to_binary", col) if format is None else _invoke("try_to_binary", col, format)


def xpath(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath", xml, path)


def xpath_string(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_string", xml, path)


def xpath_boolean(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_boolean", xml, path)


def xpath_number(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_number", xml, path)


def xpath_double(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_double", xml, path)


def xpath_float(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_float", xml, path)


def xpath_long(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_long", xml, path)


def xpath_int(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_int", xml, path)


def xpath_short(xml: ColumnOrName, path: ColumnOrName) -> Column:
    return _invoke("xpath_short", xml, path)


def parse_url(url: ColumnOrName, partToExtract: ColumnOrName, key: Optional[ColumnOrName] = None) -> Column:
    if key is None:
        return _invoke("parse_url", url, partToExtract)
    return _invoke("parse_url", url, partToExtract, key)


def try_parse_url(url: ColumnOrName, partToExtract: ColumnOrName,
                  key: Optional[ColumnOrName] = None) -> Column:
    if key is None:
        return _invoke("try_parse_url", url, partToExtract)
    return _invoke("try_parse_url", url, partToExtract, key)


def mask(col: ColumnOrName, upperChar: Optional[ColumnOrName] = None,
         lowerChar: Optional[ColumnOrName] = None, digitChar: Optional[ColumnOrName] = None,
         otherChar: Optional[ColumnOrName] = None) -> Column:
    """Masks upper-case letters, lower-case letters and digits ('X', 'x', 'n' by default);
    a None replacement other than `otherChar` takes its default, `otherChar` None keeps
    other characters (as PySpark)."""
    return _call("mask", _c(col), _c(upperChar) if upperChar is not None else _l("X"),
                 _c(lowerChar) if lowerChar is not None else _l("x"),
                 _c(digitChar) if digitChar is not None else _l("n"),
                 _c(otherChar) if otherChar is not None else _l(None))


def sentences(string: ColumnOrName, language: Optional[ColumnOrName] = None,
              country: Optional[ColumnOrName] = None) -> Column:
    return _call("sentences", _c(string), _c(language) if language is not None else _l(""),
                 _c(country) if country is not None else _l(""))


def convert_timezone(sourceTz: Optional[Column], targetTz: Column, sourceTs: ColumnOrName) -> Column:
    if sourceTz is None:
        return _call("convert_timezone", _c(targetTz), _c(sourceTs))
    return _call("convert_timezone", _c(sourceTz), _c(targetTz), _c(sourceTs))


def aes_encrypt(input: ColumnOrName, key: ColumnOrName, mode: Optional[ColumnOrName] = None,
                padding: Optional[ColumnOrName] = None, iv: Optional[ColumnOrName] = None,
                aad: Optional[ColumnOrName] = None) -> Column:
    return _call("aes_encrypt", _c(input), _c(key), _c(mode) if mode is not None else _l("GCM"),
                 _c(padding) if padding is not None else _l("DEFAULT"),
                 _c(iv) if iv is not None else _l(""), _c(aad) if aad is not None else _l(""))


def _aes_decrypt(name: str, input: ColumnOrName, key: ColumnOrName, mode: Optional[ColumnOrName],
                 padding: Optional[ColumnOrName], aad: Optional[ColumnOrName]) -> Column:
    return _call(name, _c(input), _c(key), _c(mode) if mode is not None else _l("GCM"),
                 _c(padding) if padding is not None else _l("DEFAULT"),
                 _c(aad) if aad is not None else _l(""))


def aes_decrypt(input: ColumnOrName, key: ColumnOrName, mode: Optional[ColumnOrName] = None,
                padding: Optional[ColumnOrName] = None, aad: Optional[ColumnOrName] = None) -> Column:
    return _aes_decrypt("aes_decrypt", input, key, mode, padding, aad)


def try_aes_decrypt(input: ColumnOrName, key: ColumnOrName, mode: Optional[ColumnOrName] = None,
                    padding: Optional[ColumnOrName] = None, aad: Optional[ColumnOrName] = None) -> Column:
    return _aes_decrypt("try_aes_decrypt", input, key, mode, padding, aad)


def substring_index(str: ColumnOrName, delim: str, count: int) -> Column:
    return _call("substring_index", _c(str), _l(delim), _l(count))


def encode(col: ColumnOrName, charset: str) -> Column:
    return _call("encode", _c(col), _l(charset))


def decode(col: ColumnOrName, charset: str) -> Column:
    return _call("decode", _c(col), _l(charset))


def elt(*inputs: ColumnOrName) -> Column:
    return _invoke("elt", *inputs)


def find_in_set(str: ColumnOrName, str_array: ColumnOrName) -> Column:
    return _invoke("find_in_set", str, str_array)


def assert_true(col: ColumnOrName, errMsg: Any = None) -> Column:
    if errMsg is None:
        return _invoke("assert_true", col)
    return _call("assert_true", _c(col), _cl(errMsg))


def raise_error(errMsg: Any) -> Column:
    return _call("raise_error", _cl(errMsg))


toDegrees = degrees  # noqa: F821
toRadians = radians  # noqa: F821


def _col_or_lit(v: Any) -> Any:
    """A Column or a column name as a Column; other Python values as literals (PySpark's
    rule for `value: Any` parameters)."""
    return v._jc if isinstance(v, Column) else _lit_jc(v)


def _int_or_col(v: Any) -> Any:
    return _l(v) if isinstance(v, int) and not isinstance(v, bool) else _c(v)


def array_append(col: ColumnOrName, value: Any) -> Column:
    return _call("array_append", _c(col), _col_or_lit(value))


def array_prepend(col: ColumnOrName, value: Any) -> Column:
    return _call("array_prepend", _c(col), _col_or_lit(value))


def array_insert(arr: ColumnOrName, pos: Any, value: Any) -> Column:
    return _call("array_insert", _c(arr), _int_or_col(pos), _col_or_lit(value))


def array_repeat(col: ColumnOrName, count: Any) -> Column:
    return _call("array_repeat", _c(col), _int_or_col(count))


def get(col: ColumnOrName, index: Any) -> Column:
    return _call("get", _c(col), _int_or_col(index))


def map_contains_key(col: ColumnOrName, value: Any) -> Column:
    return _call("map_contains_key", _c(col), _col_or_lit(value))


def map_concat(*cols: ColumnOrName) -> Column:
    return _invoke("map_concat", *_flat(cols))


def mode(col: ColumnOrName, deterministic: bool = False) -> Column:
    return _invoke("mode", col)


def regexp_instr(str: ColumnOrName, regexp: ColumnOrName, idx: Any = None) -> Column:
    if idx is None:
        return _invoke("regexp_instr", str, regexp)
    return _call("regexp_instr", _c(str), _c(regexp), _int_or_col(idx))


def str_to_map(text: ColumnOrName, pairDelim: Optional[ColumnOrName] = None,
               keyValueDelim: Optional[ColumnOrName] = None) -> Column:
    args = [_c(text)]
    if pairDelim is not None or keyValueDelim is not None:
        args.append(_lit_jc(",") if pairDelim is None else _c(pairDelim))
    if keyValueDelim is not None:
        args.append(_c(keyValueDelim))
    return _call("str_to_map", *args)


def overlay(src: ColumnOrName, replace: ColumnOrName, pos: Any, len: Any = -1) -> Column:
    return _call("overlay", _c(src), _c(replace), _int_or_col(pos), _int_or_col(len))


def _make_ts(name: str, parts: tuple, timezone: Optional[ColumnOrName]) -> Column:
    cols = [_c(p) for p in parts]
    if timezone is not None:
        cols.append(_c(timezone))
    return _call(name, *cols)


def try_make_timestamp(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                       hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                       timezone: Optional[ColumnOrName] = None) -> Column:
    return _make_ts("try_make_timestamp", (years, months, days, hours, mins, secs), timezone)


def try_make_timestamp_ltz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                           hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                           timezone: Optional[ColumnOrName] = None) -> Column:
    return _make_ts("try_make_timestamp_ltz", (years, months, days, hours, mins, secs), timezone)


def try_make_timestamp_ntz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                           hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName) -> Column:
    return _make_ts("try_make_timestamp_ntz", (years, months, days, hours, mins, secs), None)


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:
    return _call("conv", _c(col), _l(fromBase), _l(toBase))


# ---- session 13: names PySpark has that reach existing engine functions -------------------

def bitwise_not(col: ColumnOrName) -> Column:
    """SQL's ~col (Column's ~ is the logical NOT, as in PySpark)."""
    return _invoke("~", col)


def bitwiseNOT(col: ColumnOrName) -> Column:
    """Deprecated alias of bitwise_not (PySpark 3.2)."""
    return bitwise_not(col)


def call_udf(udfName: str, *cols: ColumnOrName) -> Column:
    """A call of the function registered as `udfName` (spark.udf.register); as Spark,
    a built-in of that name resolves too."""
    return _invoke(udfName, *cols)


def json_array_length(col: ColumnOrName) -> Column:
    """The number of elements of the outermost JSON array (NULL for other JSON)."""
    return _invoke("json_array_length", col)


def json_object_keys(col: ColumnOrName) -> Column:
    """The keys of the outermost JSON object, as an array (NULL for other JSON)."""
    return _invoke("json_object_keys", col)


def to_json(col: ColumnOrName, options: Optional[dict] = None) -> Column:
    """JSON text of a struct, map, array or variant-free value, with to_json's options."""
    return _call("to_json", _c(col), *_options_map(options))


_NO_JVM = "it calls Java methods by reflection, and spate has no JVM"
reflect = refused("functions.reflect", _NO_JVM)
java_method = refused("functions.java_method", _NO_JVM)
try_reflect = refused("functions.try_reflect", _NO_JVM)
# Spark's unwrap_udt takes only a user-defined type's column (any other type is
# DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE); spate has no user-defined types.
unwrap_udt = refused("functions.unwrap_udt", "spate has no user-defined types (UDTs)")


class _PartitionTransform(Column):
    """years / months / days / hours / bucket: a partition transform for
    DataFrameWriterV2.partitionedBy. Delta (the only table format of spate's catalog)
    refuses them there as delta-spark does (DELTA_OPERATION_NOT_ALLOWED); elsewhere the
    call does not resolve, as Spark cannot evaluate a transform either."""

    def __init__(self, name: str, args: List[Any]):
        super().__init__(_spate.call_function(name, args))
        self._transform = name


def years(col: ColumnOrName) -> Column:
    return _PartitionTransform("years", [_c(col)])


def months(col: ColumnOrName) -> Column:
    return _PartitionTransform("months", [_c(col)])


def days(col: ColumnOrName) -> Column:
    return _PartitionTransform("days", [_c(col)])


def hours(col: ColumnOrName) -> Column:
    return _PartitionTransform("hours", [_c(col)])


def bucket(numBuckets: Union[Column, int], col: ColumnOrName) -> Column:
    if not isinstance(numBuckets, (int, Column)) or isinstance(numBuckets, bool):
        from spate.errors import PySparkTypeError
        raise PySparkTypeError(
            "[NOT_COLUMN_OR_INT] Argument `numBuckets` should be a Column or int, got %s."
            % type(numBuckets).__name__, "NOT_COLUMN_OR_INT", None,
            {"arg_name": "numBuckets", "arg_type": type(numBuckets).__name__})
    return _PartitionTransform("bucket", [_cl(numBuckets), _c(col)])
