"""StreamingQuery and StreamingQueryManager, as pyspark.sql.streaming.query.

Blocking calls release the GIL; ``awaitTermination()`` waits in short slices and a Ctrl-C
(KeyboardInterrupt) during it stops the query before the exception propagates.
"""

import json
from typing import Any, Dict, List, Optional

from spate.errors import PySparkTypeError, PySparkValueError, StreamingQueryException
from spate.sql.streaming.listener import (StreamingQueryListener, StreamingQueryProgress,
                                          _dispatcher)

__all__ = ["StreamingQuery", "StreamingQueryManager"]


def _check_timeout(timeout: Any, allow_zero: bool) -> float:
    if (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)
            or timeout < 0 or (timeout == 0 and not allow_zero)):
        raise PySparkValueError(
            "[VALUE_NOT_POSITIVE] Value for `timeout` must be positive, got '%s'."
            % type(timeout).__name__, "VALUE_NOT_POSITIVE", None,
            {"arg_name": "timeout", "arg_value": type(timeout).__name__})
    return float(timeout)


class StreamingQuery:
    """A handle to a query running in the background; all methods are thread-safe."""

    def __init__(self, jsq: Any) -> None:
        self._jsq = jsq

    @property
    def id(self) -> str:
        """The id that persists across restarts from the same checkpoint."""
        return self._jsq.id()

    @property
    def runId(self) -> str:
        """The id of this run (a new one on every start or restart)."""
        return self._jsq.runId()

    @property
    def name(self) -> Optional[str]:
        return self._jsq.name()

    @property
    def isActive(self) -> bool:
        return self._jsq.isActive()

    def awaitTermination(self, timeout: Optional[float] = None) -> Optional[bool]:
        """Waits for the query to end (raises its StreamingQueryException if it failed);
        with ``timeout`` (seconds) returns whether it ended in time."""
        if timeout is not None:
            return self._jsq.awaitTermination(_check_timeout(timeout, allow_zero=False))
        return self._jsq.awaitTermination(None)

    @property
    def status(self) -> Dict[str, Any]:
        """{'message': ..., 'isDataAvailable': ..., 'isTriggerActive': ...}."""
        return json.loads(self._jsq.statusJson())

    @property
    def recentProgress(self) -> List[StreamingQueryProgress]:
        """The most recent progress updates (see lastProgress)."""
        return [StreamingQueryProgress.fromJson(json.loads(j))
                for j, _ in self._jsq.recentProgressJson()]

    @property
    def lastProgress(self) -> Optional[StreamingQueryProgress]:
        """The last progress update, or None: PySpark 4.2's StreamingQueryProgress (a dict
        with attribute access, built by ``fromJson`` of the progress JSON: every field
        present, eventTime and observedMetrics ``{}`` when empty, each source's offsets as
        JSON text; ``json`` / ``prettyJson`` are ``json.dumps`` of the parsed JSON)."""
        p = self._jsq.lastProgressJson()
        return StreamingQueryProgress.fromJson(json.loads(p[0])) if p is not None else None

    def processAllAvailable(self) -> None:
        """Blocks until everything available at the call is processed and committed."""
        self._jsq.processAllAvailable()

    def stop(self) -> None:
        self._jsq.stop()

    def explain(self, extended: bool = False) -> None:
        print(self._jsq.explainString(bool(extended)))

    def exception(self) -> Optional[StreamingQueryException]:
        """The StreamingQueryException the query failed with, or None."""
        e = self._jsq.exception()
        if e is None:
            return None
        message, error_class, sql_state, params = e
        return StreamingQueryException(message, error_class or None, sql_state or None, params)

    def __repr__(self) -> str:
        return "<StreamingQuery id=%s name=%s>" % (self.id, self.name)


class StreamingQueryManager:
    """The active streaming queries of a session (``spark.streams``)."""

    def __init__(self, jsqm: Any, session: Any = None) -> None:
        self._jsqm = jsqm
        self._session = session

    @property
    def active(self) -> List[StreamingQuery]:
        return [StreamingQuery(q) for q in self._jsqm.active()]

    def get(self, id: str) -> Optional[StreamingQuery]:
        q = self._jsqm.get(str(id))
        return StreamingQuery(q) if q is not None else None

    def awaitAnyTermination(self, timeout: Optional[float] = None) -> Optional[bool]:
        if timeout is not None:
            return self._jsqm.awaitAnyTermination(_check_timeout(timeout, allow_zero=True))
        return self._jsqm.awaitAnyTermination(None)

    def resetTerminated(self) -> None:
        self._jsqm.resetTerminated()

    def addListener(self, listener: StreamingQueryListener) -> None:
        if not isinstance(listener, StreamingQueryListener):
            raise PySparkTypeError(
                "[NOT_EXPECTED_TYPE] listener should be a StreamingQueryListener, got %s."
                % type(listener).__name__, "NOT_EXPECTED_TYPE", None,
                {"arg_name": "listener", "arg_type": type(listener).__name__})
        if self._session is not None:
            listener._set_spark_session(self._session)
        self._jsqm.addListener(listener, _dispatcher(listener))

    def removeListener(self, listener: StreamingQueryListener) -> None:
        self._jsqm.removeListener(listener)
