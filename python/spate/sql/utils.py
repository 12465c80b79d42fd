"""Exceptions at PySpark's pre-3.4 location (pyspark.sql.utils), and `refused`: how spate
marks a PySpark name that cannot apply to it."""

from typing import Any, Callable

from spate.errors import *  # noqa: F401,F403
from spate.errors import __all__  # noqa: F401
from spate.errors import PySparkNotImplementedError, PySparkRuntimeError


def refused(name: str, reason: str, prop: bool = False, connect_only: bool = False) -> Any:
    """A method (a property when `prop`) that raises PySparkNotImplementedError naming
    `name` and `reason` (error class NOT_IMPLEMENTED, as Spark Connect refuses JVM-only
    names), or with `connect_only` the PySparkRuntimeError classic PySpark raises for Spark
    Connect's APIs. spate/sql/refusals.py lists them; scripts/pyspark_coverage.py counts
    them as "refused with a reason"."""

    def f(*args: Any, **kwargs: Any) -> Any:
        if connect_only:
            raise PySparkRuntimeError(
                "[ONLY_SUPPORTED_WITH_SPARK_CONNECT] %s is only supported with Spark Connect; however, "
                "the current Spark session does not use Spark Connect." % name,
                "ONLY_SUPPORTED_WITH_SPARK_CONNECT", None, {"feature": name})
        raise PySparkNotImplementedError(
            "[NOT_IMPLEMENTED] %s is not implemented: %s." % (name, reason),
            "NOT_IMPLEMENTED", "0A000", {"feature": name})

    f.__name__ = name.rsplit(".", 1)[-1]
    f.__doc__ = "Not available in spate: %s." % reason
    f._spate_refused = reason  # type: ignore[attr-defined]
    return property(f) if prop else f


