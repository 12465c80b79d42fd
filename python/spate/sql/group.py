"""GroupedData (pyspark.sql.GroupedData): the result of DataFrame.groupBy()."""

from typing import Any, Dict

from spate import _spate
from spate.errors import PySparkTypeError, PySparkValueError
from spate.sql.column import Column

__all__ = ["GroupedData"]

_DICT_AGGS = {"avg": "avg", "mean": "mean", "max": "max", "min": "min", "sum": "sum", "count": "count",
              "first": "first", "last": "last", "stddev": "stddev", "variance": "variance"}


class GroupedData:
    def __init__(self, jgd: Any, df: Any):
        self._jgd = jgd
        self._df = df

    def _wrap(self, jdf: Any):
        from spate.sql.dataframe import DataFrame
        return DataFrame(jdf, self._df.sparkSession)

    def agg(self, *exprs: Any):
        if not exprs:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one agg expression must be specified.",
                                    "CANNOT_BE_EMPTY", None, {"item": "exprs"})
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            jcs = []
            for name, fn in exprs[0].items():
                arg = _spate.col(name)
                if fn == "count" and name == "*":
                    jcs.append(_spate.count(arg))
                else:
                    jcs.append(_spate.call_function(_DICT_AGGS.get(fn, fn), [arg]))
            return self._wrap(self._jgd.agg(jcs))
        if not all(isinstance(c, Column) for c in exprs):
            raise PySparkTypeError("[ALL_ARGS_SHOULD_BE_COLUMN] All arguments of agg should be Column.",
                                   "ALL_ARGS_SHOULD_BE_COLUMN", None, {"arg_name": "exprs"})
        return self._wrap(self._jgd.agg([c._jc for c in exprs]))

    def count(self):
        return self._wrap(self._jgd.count())

    def sum(self, *cols: str):
        return self._wrap(self._jgd.sum(list(cols)))

    def avg(self, *cols: str):
        return self._wrap(self._jgd.avg(list(cols)))

    mean = avg

    def min(self, *cols: str):
        return self._wrap(self._jgd.min(list(cols)))

    def max(self, *cols: str):
        return self._wrap(self._jgd.max(list(cols)))
