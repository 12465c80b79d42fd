"""GroupedData (pyspark.sql.GroupedData): the result of DataFrame.groupBy()."""

from typing import Any, Dict

from spate import _spate
from spate.errors import PySparkTypeError, PySparkValueError
from spate.sql.column import Column

__all__ = ["GroupedData"]

_DICT_AGGS = {"avg": "avg", "mean": "mean", "max": "max", "min": "min", "sum": "sum", "count": "count",
              "first": "first", "last": "last", "stddev": "stddev", "variance": "variance"}


class GroupedData:
    def __init__(self, jgd: Any, df: Any, keys: Any = None, grouping_sets: bool = False):
        self._jgd = jgd
        self._df = df
        self._keys = keys  # the grouping Columns (for pivot)
        self._grouping_sets = grouping_sets  # cube / rollup / groupingSets

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

    def pivot(self, pivot_col: str, values: Any = None) -> "PivotedGroupedData":
        """One output column per value of `pivot_col` (the sorted distinct values if not given)."""
        if self._grouping_sets:
            from spate.errors import UnsupportedOperationException
            raise UnsupportedOperationException(
                "[UNSUPPORTED_FEATURE.PIVOT_AFTER_GROUP_BY] The feature is not supported: PIVOT clause "
                "following a GROUP BY clause. Consider pushing the GROUP BY into a subquery. SQLSTATE: 0A000",
                "UNSUPPORTED_FEATURE.PIVOT_AFTER_GROUP_BY", "0A000", {})
        if values is None:
            values = sorted((r[0] for r in self._df.select(pivot_col).distinct().collect()
                             if r[0] is not None), key=lambda v: (str(type(v)), v))
        return PivotedGroupedData(self, pivot_col, list(values))

    def sum(self, *cols: str):
        return self._wrap(self._jgd.sum(list(cols)))

    def avg(self, *cols: str):
        return self._wrap(self._jgd.avg(list(cols)))

    mean = avg

    def min(self, *cols: str):
        return self._wrap(self._jgd.min(list(cols)))

    def max(self, *cols: str):
        return self._wrap(self._jgd.max(list(cols)))


    def _transform_with_state(self, statefulProcessor: Any, outputStructType: Any, outputMode: str,
                              timeMode: str, pandas: bool, operatorName: str = "transformWithStateExec",
                              initialState: Any = None):
        from spate.sql.column import _session_zone
        from spate.sql.streaming.stateful_processor import StatefulProcessor, _Adapter
        from spate.sql.types import StructType, _parse_datatype_string
        if not isinstance(statefulProcessor, StatefulProcessor):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] statefulProcessor should be a StatefulProcessor.",
                                   "NOT_EXPECTED_TYPE", None, {"arg_name": "statefulProcessor"})
        out = _parse_datatype_string(outputStructType) if isinstance(outputStructType, str) else outputStructType
        if not isinstance(out, StructType):
            raise PySparkTypeError("[NOT_STRUCT] outputStructType should be a StructType.",
                                   "NOT_STRUCT", None, {"arg_name": "outputStructType"})
        if initialState is not None and not isinstance(initialState, GroupedData):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] initialState should be a GroupedData.",
                                   "NOT_EXPECTED_TYPE", None, {"arg_name": "initialState"})
        in_names = list(self._df.columns)
        out_names = [f.name for f in out.fields]
        init_names = list(initialState._df.columns) if initialState is not None else []
        factory = lambda: _Adapter(statefulProcessor, in_names, out_names, pandas,  # noqa: E731
                                   init_names)
        return self._wrap(_spate.transform_with_state(
            self._jgd, factory, out, outputMode, timeMode, _session_zone(), operatorName,
            initialState._jgd if initialState is not None else None))

    def transformWithStateInPandas(self, statefulProcessor: Any, outputStructType: Any, outputMode: str,
                                   timeMode: str, initialState: Any = None, eventTimeColumnName: str = ""):
        """Runs `statefulProcessor` per grouping key; rows in and out as pandas DataFrames."""
        # Spark 4.2's operator (progress, state-metadata) name for this API.
        return self._transform_with_state(statefulProcessor, outputStructType, outputMode, timeMode, True,
                                          "transformWithStateInPandasExec", initialState=initialState)

    def applyInPandasWithState(self, func: Any, outputStructType: Any, stateStructType: Any,
                               outputMode: str, timeoutConf: str):
        """func(key, pdfs, state) per grouping key, with a GroupState (pyspark's
        applyInPandasWithState); runs as the flatMapGroupsWithState operator."""
        from spate.sql.streaming.state import _GroupStateProcessor, GroupStateTimeout
        timeouts = {GroupStateTimeout.NoTimeout: "None", GroupStateTimeout.ProcessingTimeTimeout:
                    "ProcessingTime", GroupStateTimeout.EventTimeTimeout: "EventTime"}
        if timeoutConf not in timeouts:
            raise PySparkValueError(f"[INVALID_TIMEOUT_CONF] Unknown timeout conf {timeoutConf}.",
                                    "INVALID_TIMEOUT_CONF", None, {"timeoutConf": timeoutConf})
        proc = _GroupStateProcessor(func, stateStructType, timeoutConf)
        return self._transform_with_state(proc, outputStructType, outputMode, timeouts[timeoutConf], True,
                                          "flatMapGroupsWithState")

    def applyInPandas(self, func: Any, schema: Any):
        """func(pdf) -> pdf (or func(key, pdf)) per group, the group's rows (all columns) as
        one pandas DataFrame; its result's columns by name (by position when they are not
        the schema's names) become rows of `schema` (a StructType or DDL string)."""
        import inspect
        from spate.sql.streaming.stateful_processor import StatefulProcessor
        if self._grouping_sets:
            raise PySparkTypeError("[NOT_SUPPORTED] applyInPandas needs groupBy.", "NOT_SUPPORTED", None, {})
        try:
            with_key = len(inspect.signature(func).parameters) == 2
        except (TypeError, ValueError):
            with_key = False

        class _PerGroup(StatefulProcessor):
            def init(self, handle: Any) -> None:
                pass

            def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
                for pdf in rows:
                    yield func(key, pdf) if with_key else func(pdf)

        return self._transform_with_state(_PerGroup(), schema, "Append", "None", True,
                                          "flatMapGroupsInPandas")

    def transformWithState(self, statefulProcessor: Any, outputStructType: Any, outputMode: str,
                           timeMode: str, initialState: Any = None, eventTimeColumnName: str = ""):
        """Runs `statefulProcessor` per grouping key; rows in and out as Row objects."""
        return self._transform_with_state(statefulProcessor, outputStructType, outputMode, timeMode, False,
                                          "transformWithStateInPySparkExec", initialState=initialState)


class PivotedGroupedData:
    """groupBy(...).pivot(col, values): aggregates per (keys, pivot value), then spreads the
    pivot values into columns (named `value`, or `value_aggname` for several aggregates)."""

    def __init__(self, grouped: GroupedData, pivot_col: str, values: list):
        self._g = grouped
        self._pivot = pivot_col
        self._values = values

    def agg(self, *exprs: Any):
        from spate.sql import functions as F
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            exprs = tuple(Column(_spate.call_function(_DICT_AGGS.get(fn, fn), [_spate.col(name)]))
                          for name, fn in exprs[0].items())
        df = self._g._df
        keys = list(self._g._keys or [])
        pivot_jc = _spate.col(self._pivot)
        stage = df._wrap(df._jdf.groupBy(keys + [pivot_jc]).agg([c._jc for c in exprs]))
        cols = stage.columns
        nkeys = len(keys)
        key_names, agg_names = cols[:nkeys], cols[nkeys + 1:]
        piv_name = cols[nkeys]
        out = []
        for v in self._values:
            for name in agg_names:
                label = str(v) if len(agg_names) == 1 else "%s_%s" % (v, name)
                hit = F.when(F.col("`%s`" % piv_name) == F.lit(v), F.col("`%s`" % name.replace("`", "``")))
                out.append(F.first(hit, ignorenulls=True).alias(label))
        grouped = stage.groupBy(*[F.col("`%s`" % k.replace("`", "``")) for k in key_names])
        return grouped.agg(*out)

    def count(self):
        from spate.sql import functions as F
        return self.agg(F.count(F.lit(1)).alias("count"))

    def _numeric(self, fn: str, cols: tuple):
        from spate.sql import functions as F
        return self.agg(*[getattr(F, fn)(c) for c in cols])

    def sum(self, *cols: str):
        return self._numeric("sum", cols)

    def avg(self, *cols: str):
        return self._numeric("avg", cols)

    mean = avg

    def min(self, *cols: str):
        return self._numeric("min", cols)

    def max(self, *cols: str):
        return self._numeric("max", cols)
