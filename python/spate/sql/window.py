"""Window specifications (pyspark.sql.Window / WindowSpec)."""

import sys
from typing import Any, List

from spate import _spate
from spate.sql.column import Column, _to_col_jc

__all__ = ["Window", "WindowSpec"]

_JAVA_MIN_LONG = -(1 << 63)
_JAVA_MAX_LONG = (1 << 63) - 1
_PRECEDING_THRESHOLD = max(-sys.maxsize, _JAVA_MIN_LONG)
_FOLLOWING_THRESHOLD = min(sys.maxsize, _JAVA_MAX_LONG)


def _cols(cols: Any) -> List[Any]:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = cols[0]
    return [_to_col_jc(c) for c in cols]


def _bounds(start: int, end: int):
    if start <= _PRECEDING_THRESHOLD:
        start = _JAVA_MIN_LONG
    if end >= _FOLLOWING_THRESHOLD:
        end = _JAVA_MAX_LONG
    return int(start), int(end)


class WindowSpec:
    """Partitioning, ordering and frame of a window; immutable (methods return new specs)."""

    def __init__(self, jspec: Any):
        self._jspec = jspec

    def partitionBy(self, *cols: Any) -> "WindowSpec":
        return WindowSpec(self._jspec.partitionBy(_cols(cols)))

    def orderBy(self, *cols: Any) -> "WindowSpec":
        return WindowSpec(self._jspec.orderBy(_cols(cols)))

    def rowsBetween(self, start: int, end: int) -> "WindowSpec":
        return WindowSpec(self._jspec.rowsBetween(*_bounds(start, end)))

    def rangeBetween(self, start: int, end: int) -> "WindowSpec":
        return WindowSpec(self._jspec.rangeBetween(*_bounds(start, end)))


class Window:
    """Entry points of window specifications: ``Window.partitionBy("k").orderBy("v")``."""

    unboundedPreceding: int = _JAVA_MIN_LONG
    unboundedFollowing: int = _JAVA_MAX_LONG
    currentRow: int = 0

    @staticmethod
    def partitionBy(*cols: Any) -> WindowSpec:
        return WindowSpec(_spate.WindowSpec()).partitionBy(*cols)

    @staticmethod
    def orderBy(*cols: Any) -> WindowSpec:
        return WindowSpec(_spate.WindowSpec()).orderBy(*cols)

    @staticmethod
    def rowsBetween(start: int, end: int) -> WindowSpec:
        return WindowSpec(_spate.WindowSpec()).rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start: int, end: int) -> WindowSpec:
        return WindowSpec(_spate.WindowSpec()).rangeBetween(start, end)
