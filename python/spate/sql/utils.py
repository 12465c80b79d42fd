"""Exceptions at PySpark's pre-3.4 location (pyspark.sql.utils), and `refused`: how spate
marks a PySpark name that cannot apply to it."""

from typing import Any, Callable

from spate.errors import *  # noqa: F401,F403
from spate.errors import __all__  # noqa: F401
from spate.errors import PySparkNotImplementedError


def refused(name: str, reason: str, prop: bool = False) -> Any:
    """A method (a property when `prop`) that raises PySparkNotImplementedError naming
    `name` and `reason` (error class NOT_IMPLEMENTED, as Spark Connect refuses JVM-only
    names). scripts/pyspark_coverage.py counts these names as "refused with a reason"."""

    def f(*args: Any, **kwargs: Any) -> Any:
        raise PySparkNotImplementedError(
            "[NOT_IMPLEMENTED] %s is not implemented: %s." % (name, reason),
            "NOT_IMPLEMENTED", "0A000", {"feature": name})

    f.__name__ = name.rsplit(".", 1)[-1]
    f.__doc__ = "Not available in spate: %s." % reason
    f._spate_refused = reason  # type: ignore[attr-defined]
    return property(f) if prop else f


