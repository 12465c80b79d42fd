"""GroupState for applyInPandasWithState, as pyspark.sql.streaming.state: the value of one
grouping key (a tuple of the state schema) and its timeout. Built on transformWithState: the
value is a ValueState, the timeout the key's one timer (set at the timeout + 1 ms, as Spark
times out strictly after it). A timeout set in one call holds until the key's next call."""

from typing import Any, Iterator, Optional

from spate.sql.streaming.stateful_processor import StatefulProcessor

__all__ = ["GroupState", "GroupStateTimeout"]


class GroupStateTimeout:
    NoTimeout = "NoTimeout"
    ProcessingTimeTimeout = "ProcessingTimeTimeout"
    EventTimeTimeout = "EventTimeTimeout"


class GroupState:
    def __init__(self, value: Optional[tuple], timed_out: bool, timeout_conf: str,
                 processing_time_ms: int, watermark_ms: int):
        self._value = value
        self._timed_out = timed_out
        self._conf = timeout_conf
        self._pt = processing_time_ms
        self._wm = watermark_ms
        self._updated = False
        self._removed = False
        self._timeout_at: Optional[int] = None

    @property
    def exists(self) -> bool:
        return self._value is not None

    @property
    def get(self) -> tuple:
        if self._value is None:
            raise ValueError("State is either not defined or has already been removed")
        return self._value

    @property
    def getOption(self) -> Optional[tuple]:
        return self._value

    @property
    def hasTimedOut(self) -> bool:
        return self._timed_out

    def update(self, newValue: tuple) -> None:
        if newValue is None:
            raise ValueError("'None' is not a valid state value")
        self._value = tuple(newValue)
        self._updated, self._removed = True, False

    def remove(self) -> None:
        self._value = None
        self._removed, self._updated = True, False

    def setTimeoutDuration(self, durationMs: int) -> None:
        if self._conf != GroupStateTimeout.ProcessingTimeTimeout:
            raise RuntimeError("Cannot set timeout duration without enabling processing time timeout "
                               "in applyInPandasWithState")
        if durationMs <= 0:
            raise ValueError("Timeout duration must be positive")
        self._timeout_at = self._pt + int(durationMs)

    def setTimeoutTimestamp(self, timestampMs: int) -> None:
        if self._conf != GroupStateTimeout.EventTimeTimeout:
            raise RuntimeError("Cannot set timeout timestamp without enabling event time timeout in "
                               "applyInPandasWithState")
        if self._wm > 0 and timestampMs < self._wm:
            raise ValueError(f"Timeout timestamp ({timestampMs}) cannot be earlier than the current "
                             f"watermark ({self._wm})")
        self._timeout_at = int(timestampMs)

    def getCurrentWatermarkMs(self) -> int:
        return self._wm

    def getCurrentProcessingTimeMs(self) -> int:
        return self._pt


class _GroupStateProcessor(StatefulProcessor):
    def __init__(self, func: Any, state_schema: Any, timeout_conf: str):
        self._func = func
        self._schema = state_schema
        self._conf = timeout_conf

    def init(self, handle) -> None:
        self._handle = handle
        self._state = handle.getValueState("groupState", self._schema)

    def _call(self, key, rows: Iterator[Any], tv, timed_out: bool):
        for t in list(self._handle.listTimers()):
            self._handle.deleteTimer(t)
        gs = GroupState(self._state.get(), timed_out, self._conf, tv.getCurrentProcessingTimeInMs(),
                        tv.getCurrentWatermarkInMs())
        out = list(self._func(key, rows, gs) or [])
        if gs._removed:
            self._state.clear()
        elif gs._updated:
            self._state.update(gs._value)
        if gs._timeout_at is not None and not gs._removed:
            self._handle.registerTimer(gs._timeout_at + 1)
        return iter(out)

    def handleInputRows(self, key, rows, timerValues):
        return self._call(key, rows, timerValues, False)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        return self._call(key, iter([]), timerValues, True)
