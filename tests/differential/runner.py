"""Runs one differential case on one engine and describes its outcome as plain JSON data,
the same way on both sides (the pytest process for spate, spark_server.py for Spark).

An outcome is {"error": {...}} or {"value": ...} where DataFrames inside the value are
{"df": {"schema", "rows", "show"}} and other values are normalized (normalize) so that equal
results are equal JSON."""

import datetime
import decimal
import math
import os
import shutil
import traceback
from typing import Any, Dict

import dsl


def normalize(v: Any) -> Any:
    """A JSON-able canonical form of a collected value: tagged where JSON would lose the type."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return ["float", "NaN"]
        if math.isinf(v):
            return ["float", "Infinity" if v > 0 else "-Infinity"]
        return ["float", repr(v)]
    if isinstance(v, decimal.Decimal):
        return ["decimal", str(v)]
    if isinstance(v, datetime.datetime):
        return ["timestamp", v.isoformat()]
    if isinstance(v, datetime.date):
        return ["date", v.isoformat()]
    if isinstance(v, datetime.timedelta):
        return ["interval", v.days * 86400_000_000 + v.seconds * 1_000_000 + v.microseconds]
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ["binary", bytes(v).hex()]
    if isinstance(v, tuple) and hasattr(v, "__fields__"):  # Row
        return ["row", [[k, normalize(x)] for k, x in zip(v.__fields__, v)]]
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    if isinstance(v, dict):
        # Entries sorted: PySpark builds the dict from a java.util.HashMap, whose order is
        # not the map's (show() compares the real order).
        return ["map", sorted(([normalize(k), normalize(x)] for k, x in v.items()), key=repr)]
    if _is_dataframe(v):
        return {"df": describe(v)}
    return ["object", type(v).__name__, repr(v)]


def _is_dataframe(v: Any) -> bool:
    return hasattr(v, "collect") and hasattr(v, "schema") and hasattr(v, "columns")


def _strip_metadata(t: Any) -> Any:
    if isinstance(t, dict):
        return {k: _strip_metadata(x) for k, x in t.items() if k != "metadata"}
    if isinstance(t, list):
        return [_strip_metadata(x) for x in t]
    return t


def show_string(df: Any) -> str:
    f = getattr(df, "_show_string", None) or getattr(df, "showString")
    return f(20, 20, False)


# The Spark server's way to run a query once for both rows and show() text (see
# spark_server.py); None: collect() and show() each run it, as on spate's side.
RUN_ONCE = None


def describe(df: Any) -> Dict[str, Any]:
    local = RUN_ONCE(df) if RUN_ONCE is not None else df
    rows = [[normalize(x) for x in r] for r in local.collect()]
    return {"schema": _strip_metadata(df.schema.jsonValue()), "rows": rows,
            "show": show_string(local)}


def _condition(e: Any) -> Any:
    get = getattr(e, "getCondition", None) or getattr(e, "getErrorClass", None)
    if get is None:
        return None
    try:
        return get()
    except Exception:  # an exception without an error class
        return None


def error_of(e: BaseException) -> Dict[str, Any]:
    cls = _condition(e)
    # A JVM exception PySpark did not convert (Py4JJavaError): its own error class, or its
    # first cause's that has one.
    j = getattr(e, "java_exception", None)
    while cls is None and j is not None:
        cls = _condition(j)
        try:
            j = j.getCause()
        except Exception:
            j = None
    return {"class": cls, "type": type(e).__name__,
            "message": str(e).strip().splitlines()[0][:300] if str(e).strip() else "",
            "trace": traceback.format_exc()[-2000:]}


def new_env(base_spark: Any, modules: Dict[str, Any], case: dsl.Case, tmp_root: str,
            side: str) -> dsl.Env:
    spark = base_spark.newSession()
    for k, v in {**dsl.BASE_CONF, **case.conf}.items():
        spark.conf.set(k, v)
    tmp = os.path.join(tmp_root, case.name.replace("/", "__"))
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    return dsl.Env(spark=spark, tmp=tmp, side=side, **modules)


def run(case: dsl.Case, env: dsl.Env) -> Dict[str, Any]:
    try:
        out = case.fn(env)
        if isinstance(out, dict):  # named results, compared one by one
            return {"value": {str(k): normalize(v) for k, v in out.items()}}
        return {"value": normalize(out)}
    except Exception as e:  # the outcome under test
        return {"error": error_of(e)}
    finally:
        for q in list(env.spark.streams.active):
            try:
                q.stop()
            except Exception:
                pass


def load_cases() -> Dict[str, dsl.Case]:
    """Imports every module of cases/ (each registers its cases in dsl.REGISTRY)."""
    import importlib
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
    for f in sorted(os.listdir(here)):
        if f.endswith(".py") and not f.startswith("_"):
            importlib.import_module(f"cases.{f[:-3]}")
    return dsl.REGISTRY
