"""Arbitrary state, as pyspark.sql.streaming.stateful_processor (Spark 4):
``df.groupBy("k").transformWithStateInPandas(MyProcessor(), outputStructType, "append",
"None")`` (rows as pandas DataFrames) and ``transformWithState`` (rows as Row objects).

A StatefulProcessor is copied for every partition of every micro-batch (as PySpark ships a
pickled copy to each task); ``init(handle)`` declares its state variables, then
``handleInputRows(key, rows, timerValues)`` runs per grouping key with new rows and
``handleExpiredTimer(key, timerValues, expiredTimerInfo)`` per expired timer. State lives in
the query's state store (checkpointed, recovered after a crash)."""

import copy
from abc import ABC, abstractmethod
from typing import Any, Iterator, List, Optional, Union

__all__ = ["StatefulProcessor", "StatefulProcessorHandle", "TimerValues", "ExpiredTimerInfo",
           "ValueState", "ListState", "MapState"]


class TimerValues:
    def __init__(self, processing_time_ms: int, watermark_ms: int):
        self._pt = processing_time_ms
        self._wm = watermark_ms

    def getCurrentProcessingTimeInMs(self) -> int:
        return self._pt

    def getCurrentWatermarkInMs(self) -> int:
        return self._wm


class ExpiredTimerInfo:
    def __init__(self, expiry_ms: int):
        self._expiry = expiry_ms

    def getExpiryTimeInMs(self) -> int:
        return self._expiry


def _schema(s: Any):
    from spate.sql.types import StructType, _parse_datatype_string
    if isinstance(s, str):
        s = _parse_datatype_string(s)
    if not isinstance(s, StructType):
        raise TypeError("a state schema must be a StructType or a DDL string")
    return s


class ValueState:
    def __init__(self, j):
        self._j = j

    def exists(self) -> bool:
        return self._j.exists()

    def get(self) -> Optional[tuple]:
        return self._j.get()

    def update(self, newValue: tuple) -> None:
        self._j.update(tuple(newValue))

    def clear(self) -> None:
        self._j.clear()


class ListState:
    def __init__(self, j):
        self._j = j

    def exists(self) -> bool:
        return self._j.exists()

    def get(self) -> Iterator[tuple]:
        return iter(self._j.get())

    def put(self, newState: List[tuple]) -> None:
        self._j.put([tuple(v) for v in newState])

    def appendValue(self, newState: tuple) -> None:
        self._j.appendValue(tuple(newState))

    def appendList(self, newState: List[tuple]) -> None:
        self._j.appendList([tuple(v) for v in newState])

    def clear(self) -> None:
        self._j.clear()


class MapState:
    def __init__(self, j):
        self._j = j

    def exists(self) -> bool:
        return self._j.exists()

    def getValue(self, key: tuple) -> Optional[tuple]:
        return self._j.getValue(tuple(key))

    def containsKey(self, key: tuple) -> bool:
        return self._j.containsKey(tuple(key))

    def updateValue(self, key: tuple, value: tuple) -> None:
        self._j.updateValue(tuple(key), tuple(value))

    def iterator(self) -> Iterator[tuple]:
        return iter(self._j.iterator())

    def keys(self) -> Iterator[tuple]:
        return iter(k for k, _ in self._j.iterator())

    def values(self) -> Iterator[tuple]:
        return iter(v for _, v in self._j.iterator())

    def removeKey(self, key: tuple) -> None:
        self._j.removeKey(tuple(key))

    def clear(self) -> None:
        self._j.clear()


class StatefulProcessorHandle:
    """What a processor reaches its state and timers through (valid during the batch)."""

    def __init__(self, j):
        self._j = j

    def getValueState(self, stateName: str, schema: Any, ttlDurationMs: Optional[int] = None) -> ValueState:
        return ValueState(self._j.getValueState(stateName, _schema(schema), ttlDurationMs))

    def getListState(self, stateName: str, schema: Any, ttlDurationMs: Optional[int] = None) -> ListState:
        return ListState(self._j.getListState(stateName, _schema(schema), ttlDurationMs))

    def getMapState(self, stateName: str, userKeySchema: Any, valueSchema: Any,
                    ttlDurationMs: Optional[int] = None) -> MapState:
        return MapState(self._j.getMapState(stateName, _schema(userKeySchema), _schema(valueSchema),
                                            ttlDurationMs))

    def registerTimer(self, expiryTimestampMs: int) -> None:
        self._j.registerTimer(int(expiryTimestampMs))

    def deleteTimer(self, expiryTimestampMs: int) -> None:
        self._j.deleteTimer(int(expiryTimestampMs))

    def listTimers(self) -> Iterator[int]:
        return iter(self._j.listTimers())

    def deleteIfExists(self, stateName: str) -> None:
        self._j.deleteIfExists(stateName)


class StatefulProcessor(ABC):
    """Subclass with init / handleInputRows (and optionally handleExpiredTimer, close)."""

    @abstractmethod
    def init(self, handle: StatefulProcessorHandle) -> None:
        ...

    @abstractmethod
    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: TimerValues) -> Iterator[Any]:
        ...

    def handleExpiredTimer(self, key: Any, timerValues: TimerValues,
                           expiredTimerInfo: ExpiredTimerInfo) -> Iterator[Any]:
        return iter([])

    def handleInitialState(self, key: Any, initialState: Any, timerValues: TimerValues) -> None:
        """With transformWithState's initialState: called in the query's first batch before any
        input, once per row of the initial state (a Row), or once per key with its rows (a
        pandas DataFrame, transformWithStateInPandas). A no-op unless overridden."""
        pass

    def close(self) -> None:
        pass


class _Adapter:
    """One partition's processor of one batch, for the engine: rows come in and go out as
    tuples; the user's processor sees pandas DataFrames (pandas=True) or Rows."""

    def __init__(self, processor: StatefulProcessor, in_names: List[str], out_names: List[str],
                 pandas: bool, init_names: Optional[List[str]] = None):
        self._p = copy.deepcopy(processor)
        self._in = in_names
        self._out = out_names
        self._pandas = pandas
        self._init = init_names or []

    def init(self, jhandle) -> None:
        self._p.init(StatefulProcessorHandle(jhandle))

    def _rows_in(self, rows: List[tuple]):
        if self._pandas:
            import pandas as pd
            return iter([pd.DataFrame.from_records(rows, columns=self._in)])
        from spate.sql.types import Row
        return iter([Row(**dict(zip(self._in, r))) for r in rows])

    def _rows_out(self, produced) -> List[tuple]:
        out: List[tuple] = []
        if produced is None:
            return out
        for item in produced:
            if self._pandas:
                frame = item[self._out] if all(c in item.columns for c in self._out) else item
                for rec in frame.itertuples(index=False, name=None):
                    out.append(tuple(None if _isna(v) else _unbox(v) for v in rec))
            else:
                out.append(tuple(item))
        return out

    def handle_input(self, key: tuple, rows: List[tuple], pt: int, wm: int) -> List[tuple]:
        return self._rows_out(self._p.handleInputRows(key, self._rows_in(rows), TimerValues(pt, wm)))

    def handle_initial_state(self, key: tuple, rows: List[tuple], pt: int, wm: int) -> None:
        """PySpark's calls: the key's initial rows as one pandas DataFrame, or one Row each."""
        if self._pandas:
            import pandas as pd
            self._p.handleInitialState(key, pd.DataFrame.from_records(rows, columns=self._init),
                                       TimerValues(pt, wm))
            return
        from spate.sql.types import Row
        for row in rows:
            self._p.handleInitialState(key, Row(**dict(zip(self._init, row))), TimerValues(pt, wm))

    def handle_timer(self, key: tuple, pt: int, wm: int, expiry: int) -> List[tuple]:
        return self._rows_out(self._p.handleExpiredTimer(key, TimerValues(pt, wm), ExpiredTimerInfo(expiry)))

    def close(self) -> None:
        self._p.close()


def _isna(v) -> bool:
    try:
        import pandas as pd
        return v is None or (not isinstance(v, (list, tuple, dict)) and bool(pd.isna(v)))
    except (TypeError, ValueError):
        return False


def _unbox(v):
    """numpy scalars and pandas timestamps as plain Python values."""
    if hasattr(v, "to_pydatetime"):
        return v.to_pydatetime()
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict, str, bytes)):
        try:
            return v.item()
        except (AttributeError, ValueError):
            return v
    return v
