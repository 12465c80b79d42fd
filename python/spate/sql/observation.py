"""Observation (pyspark.sql.Observation): named metrics of a batch DataFrame's rows."""

from typing import Any, Dict, Optional

from spate.errors import PySparkAssertionError, PySparkTypeError, PySparkValueError

__all__ = ["Observation"]


class Observation:
    """`df.observe(Observation("m"), F.count(F.lit(1)).alias("rows"))` returns `df`; after
    an action, `observation.get` is the dict of the metrics. spate computes them with one
    aggregate over the observed DataFrame when `get` is first read (Spark collects them
    while the action runs: the same values for a deterministic input;
    docs/spark-differences.md)."""

    def __init__(self, name: Optional[str] = None):
        if name is not None:
            if not isinstance(name, str):
                raise PySparkTypeError("[NOT_STR] Argument `name` should be a str, got %s."
                                       % type(name).__name__, "NOT_STR", None,
                                       {"arg_name": "name", "arg_type": type(name).__name__})
            if name == "":
                raise PySparkValueError("[VALUE_NOT_NON_EMPTY_STR] Value for `name` must be a non empty "
                                        "string, got ''.", "VALUE_NOT_NON_EMPTY_STR", None,
                                        {"arg_name": "name", "arg_value": name})
        self._name = name
        self._df: Any = None
        self._exprs: Any = None
        self._metrics: Optional[Dict[str, Any]] = None

    def _on(self, df: Any, exprs: Any) -> Any:
        if self._df is not None:
            raise PySparkAssertionError("[REUSE_OBSERVATION] An Observation can be used with a DataFrame "
                                        "only once.", "REUSE_OBSERVATION", None, {})
        if df.isStreaming:
            from spate.errors import PySparkNotImplementedError
            raise PySparkNotImplementedError(
                "[NOT_IMPLEMENTED] Observation on a streaming DataFrame is not implemented: spate's "
                "progress has no observedMetrics yet.", "NOT_IMPLEMENTED", "0A000",
                {"feature": "Observation on a streaming DataFrame"})
        self._df, self._exprs = df, list(exprs)
        return df

    @property
    def get(self) -> Dict[str, Any]:
        """The metrics by name."""
        if self._df is None:
            raise PySparkAssertionError("[NO_OBSERVE_BEFORE_GET] Should observe by calling "
                                        "`DataFrame.observe` before `get`.", "NO_OBSERVE_BEFORE_GET",
                                        None, {})
        if self._metrics is None:
            row = self._df.agg(*self._exprs).collect()[0]
            self._metrics = row.asDict()
        return dict(self._metrics)
