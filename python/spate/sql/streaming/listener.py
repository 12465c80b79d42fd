"""StreamingQueryListener and its events, as pyspark.sql.streaming.listener.

Listeners run on the query's thread (onQueryStarted on the thread calling ``start()``)
with the GIL held; an exception raised by a listener is printed and ignored, as Spark's
listener bus logs and ignores it.
"""

import json
import uuid
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional, Set

__all__ = ["StreamingQueryListener", "QueryStartedEvent", "QueryProgressEvent", "QueryIdleEvent",
           "QueryTerminatedEvent", "StreamingQueryProgress", "StateOperatorProgress",
           "SourceProgress", "SinkProgress"]


class StreamingQueryListener(ABC):
    """Receives the life-cycle events of the session's streaming queries
    (``spark.streams.addListener(listener)``)."""

    @property
    def spark(self) -> Any:
        return getattr(self, "_sparkSession", None)

    @spark.setter
    def spark(self, session: Any) -> None:
        self._sparkSession = session

    def _set_spark_session(self, session: Any) -> None:
        if self.spark is None:
            self.spark = session

    @abstractmethod
    def onQueryStarted(self, event: "QueryStartedEvent") -> None:
        """Called when a query is started, before ``start()`` returns."""

    @abstractmethod
    def onQueryProgress(self, event: "QueryProgressEvent") -> None:
        """Called after each micro-batch with its progress."""

    def onQueryIdle(self, event: "QueryIdleEvent") -> None:
        """Called when the query is idle and waiting for new data."""

    @abstractmethod
    def onQueryTerminated(self, event: "QueryTerminatedEvent") -> None:
        """Called when a query is stopped, with or without error."""


def _dispatcher(listener: StreamingQueryListener):
    """The callable the native listener calls as (kind, dict) for each event."""

    def dispatch(kind: str, d: Dict[str, Any]) -> None:
        if kind == "started":
            listener.onQueryStarted(QueryStartedEvent(uuid.UUID(d["id"]), uuid.UUID(d["runId"]),
                                                      d["name"], d["timestamp"], set()))
        elif kind == "progress":
            progress = StreamingQueryProgress.fromJson(json.loads(d["json"]))
            # A listener gets PySpark's progress of the JVM object: the JSON texts as the
            # engine wrote them and each offset as the source's own JSON text ("None" before
            # the first offset).
            progress._json = d["json"]
            progress._pretty = d["prettyJson"]
            for s in progress.sources:
                for k in ("startOffset", "endOffset", "latestOffset"):
                    v = s._jdict.get(k)
                    dict.__setitem__(s, k, v if isinstance(v, str) else
                                     "None" if v is None else json.dumps(v, separators=(",", ":")))
            listener.onQueryProgress(QueryProgressEvent(progress))
        elif kind == "idle":
            listener.onQueryIdle(QueryIdleEvent(uuid.UUID(d["id"]), uuid.UUID(d["runId"]),
                                                d["timestamp"]))
        elif kind == "terminated":
            listener.onQueryTerminated(QueryTerminatedEvent(
                uuid.UUID(d["id"]), uuid.UUID(d["runId"]), d["exception"],
                d["errorClassOnException"]))

    return dispatch


class QueryStartedEvent:
    """A query started: ``id``, ``runId`` (uuid.UUID), ``name``, ``timestamp``, ``jobTags``."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, name: Optional[str], timestamp: str,
                 jobTags: Optional[Set[str]] = None) -> None:
        self._id = id
        self._runId = runId
        self._name = name
        self._timestamp = timestamp
        self._jobTags = set(jobTags or ())

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "QueryStartedEvent":
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j["name"], j["timestamp"],
                   set(j.get("jobTags", [])))

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def name(self) -> Optional[str]:
        return self._name

    @property
    def timestamp(self) -> str:
        return self._timestamp

    @property
    def jobTags(self) -> Set[str]:
        return self._jobTags


class QueryProgressEvent:
    """A micro-batch finished: ``progress`` is a :class:`StreamingQueryProgress`."""

    def __init__(self, progress: "StreamingQueryProgress") -> None:
        self._progress = progress

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "QueryProgressEvent":
        return cls(StreamingQueryProgress.fromJson(j["progress"]))

    @property
    def progress(self) -> "StreamingQueryProgress":
        return self._progress


class QueryIdleEvent:
    """The query found no new data: ``id``, ``runId``, ``timestamp``."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, timestamp: str) -> None:
        self._id = id
        self._runId = runId
        self._timestamp = timestamp

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "QueryIdleEvent":
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j["timestamp"])

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def timestamp(self) -> str:
        return self._timestamp


class QueryTerminatedEvent:
    """A query ended: ``exception`` (its message, None when stopped) and
    ``errorClassOnException``."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, exception: Optional[str],
                 errorClassOnException: Optional[str]) -> None:
        self._id = id
        self._runId = runId
        self._exception = exception
        self._errorClassOnException = errorClassOnException

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "QueryTerminatedEvent":
        return cls(uuid.UUID(j["id"]), uuid.UUID(j["runId"]), j["exception"],
                   j["errorClassOnException"])

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def exception(self) -> Optional[str]:
        return self._exception

    @property
    def errorClassOnException(self) -> Optional[str]:
        return self._errorClassOnException


class _ProgressDict(dict):
    """A dict of progress fields with attribute access, json and prettyJson."""

    _json: Optional[str] = None
    _pretty: Optional[str] = None
    _jdict: Optional[Dict[str, Any]] = None

    @property
    def json(self) -> str:
        if self._json is not None:
            return self._json
        return json.dumps(self._jdict)

    @property
    def prettyJson(self) -> str:
        if self._pretty is not None:
            return self._pretty
        return json.dumps(self._jdict, indent=4)

    def __str__(self) -> str:
        return self.prettyJson

    def __repr__(self) -> str:
        return self.prettyJson


class StreamingQueryProgress(_ProgressDict):
    """The progress of one micro-batch (a dict subclass, as in PySpark 4): fields by key or
    attribute (``p.batchId``, ``p["numInputRows"]``, ``p.sources[0].description``)."""

    def __init__(self, id: uuid.UUID, runId: uuid.UUID, name: Optional[str], timestamp: str,
                 batchId: int, batchDuration: int, durationMs: Dict[str, int],
                 eventTime: Dict[str, str], stateOperators: List["StateOperatorProgress"],
                 sources: List["SourceProgress"], sink: "SinkProgress", numInputRows: Optional[int],
                 inputRowsPerSecond: Optional[float], processedRowsPerSecond: Optional[float],
                 observedMetrics: Dict[str, Any], jdict: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(id=id, runId=runId, name=name, timestamp=timestamp, batchId=batchId,
                         batchDuration=batchDuration, durationMs=durationMs, eventTime=eventTime,
                         stateOperators=stateOperators, sources=sources, sink=sink,
                         numInputRows=numInputRows, inputRowsPerSecond=inputRowsPerSecond,
                         processedRowsPerSecond=processedRowsPerSecond,
                         observedMetrics=observedMetrics)
        self._jdict = jdict

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "StreamingQueryProgress":
        from spate.sql.types import Row
        return cls(
            jdict=j, id=uuid.UUID(j["id"]), runId=uuid.UUID(j["runId"]), name=j["name"],
            timestamp=j["timestamp"], batchId=j["batchId"], batchDuration=j["batchDuration"],
            durationMs=dict(j.get("durationMs", {})), eventTime=dict(j.get("eventTime", {})),
            stateOperators=[StateOperatorProgress.fromJson(s) for s in j["stateOperators"]],
            sources=[SourceProgress.fromJson(s) for s in j["sources"]],
            sink=SinkProgress.fromJson(j["sink"]),
            numInputRows=j.get("numInputRows"),
            inputRowsPerSecond=j.get("inputRowsPerSecond"),
            processedRowsPerSecond=j.get("processedRowsPerSecond"),
            observedMetrics={k: Row(**v) for k, v in j.get("observedMetrics", {}).items()})

    def __getitem__(self, key: str) -> Any:
        # As PySpark: item access gives id/runId as str, attribute access as uuid.UUID.
        if key in ("id", "runId"):
            return str(super().__getitem__(key))
        return super().__getitem__(key)

    @property
    def id(self) -> uuid.UUID:
        v = super().__getitem__("id")
        return v if isinstance(v, uuid.UUID) else uuid.UUID(v)

    @property
    def runId(self) -> uuid.UUID:
        v = super().__getitem__("runId")
        return v if isinstance(v, uuid.UUID) else uuid.UUID(v)

    @property
    def name(self) -> Optional[str]:
        return self["name"]

    @property
    def timestamp(self) -> str:
        return self["timestamp"]

    @property
    def batchId(self) -> int:
        return self["batchId"]

    @property
    def batchDuration(self) -> int:
        return self["batchDuration"]

    @property
    def durationMs(self) -> Dict[str, int]:
        return self["durationMs"]

    @property
    def eventTime(self) -> Dict[str, str]:
        return self.get("eventTime", {})

    @property
    def stateOperators(self) -> List["StateOperatorProgress"]:
        return self["stateOperators"]

    @property
    def sources(self) -> List["SourceProgress"]:
        return self["sources"]

    @property
    def sink(self) -> "SinkProgress":
        return self["sink"]

    @property
    def observedMetrics(self) -> Dict[str, Any]:
        return self.get("observedMetrics", {})

    @property
    def numInputRows(self) -> int:
        if self["numInputRows"] is not None:
            return self["numInputRows"]
        return sum(s.numInputRows for s in self.sources)

    @property
    def inputRowsPerSecond(self) -> float:
        if self["inputRowsPerSecond"] is not None:
            return self["inputRowsPerSecond"]
        return sum(s.inputRowsPerSecond or 0.0 for s in self.sources)

    @property
    def processedRowsPerSecond(self) -> float:
        if self["processedRowsPerSecond"] is not None:
            return self["processedRowsPerSecond"]
        return sum(s.processedRowsPerSecond or 0.0 for s in self.sources)


class StateOperatorProgress(_ProgressDict):
    """The progress of one stateful operator."""

    _FIELDS = ("operatorName", "numRowsTotal", "numRowsUpdated", "numRowsRemoved",
               "allUpdatesTimeMs", "allRemovalsTimeMs", "commitTimeMs", "memoryUsedBytes",
               "numRowsDroppedByWatermark", "numShufflePartitions", "numStateStoreInstances",
               "customMetrics")

    def __init__(self, jdict: Optional[Dict[str, Any]] = None, **fields: Any) -> None:
        super().__init__(**fields)
        self._jdict = jdict

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "StateOperatorProgress":
        fields = {k: j.get(k) for k in cls._FIELDS}
        fields["customMetrics"] = dict(j.get("customMetrics", {}))
        return cls(jdict=j, **fields)

    def __getattr__(self, name: str) -> Any:
        if name in StateOperatorProgress._FIELDS:
            return self.get(name, {} if name == "customMetrics" else None)
        raise AttributeError(name)


class SourceProgress(_ProgressDict):
    """The progress of one source: description, offsets (as JSON text), rows and rates."""

    def __init__(self, description: str, startOffset: str, endOffset: str, latestOffset: str,
                 numInputRows: int, inputRowsPerSecond: float, processedRowsPerSecond: float,
                 metrics: Dict[str, str], jdict: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(description=description, startOffset=startOffset, endOffset=endOffset,
                         latestOffset=latestOffset, numInputRows=numInputRows,
                         inputRowsPerSecond=inputRowsPerSecond,
                         processedRowsPerSecond=processedRowsPerSecond, metrics=metrics)
        self._jdict = jdict

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "SourceProgress":
        def text(v: Any) -> str:
            # PySpark 4: an offset is JSON text (json.dumps of the parsed value; "null"
            # before the first offset).
            return v if isinstance(v, str) else json.dumps(v)
        return cls(jdict=j, description=j["description"], startOffset=text(j.get("startOffset")),
                   endOffset=text(j.get("endOffset")), latestOffset=text(j.get("latestOffset")),
                   numInputRows=j["numInputRows"], inputRowsPerSecond=j.get("inputRowsPerSecond"),
                   processedRowsPerSecond=j.get("processedRowsPerSecond"),
                   metrics=dict(j.get("metrics", {})))

    @property
    def description(self) -> str:
        return self["description"]

    @property
    def startOffset(self) -> str:
        return self["startOffset"]

    @property
    def endOffset(self) -> str:
        return self["endOffset"]

    @property
    def latestOffset(self) -> str:
        return self["latestOffset"]

    @property
    def numInputRows(self) -> int:
        return self["numInputRows"]

    @property
    def inputRowsPerSecond(self) -> float:
        return self["inputRowsPerSecond"]

    @property
    def processedRowsPerSecond(self) -> float:
        return self["processedRowsPerSecond"]

    @property
    def metrics(self) -> Dict[str, str]:
        return self.get("metrics", {})


class SinkProgress(_ProgressDict):
    """The progress of the sink: description, numOutputRows (-1 when unknown), metrics."""

    def __init__(self, description: str, numOutputRows: int, metrics: Dict[str, str],
                 jdict: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(description=description, numOutputRows=numOutputRows, metrics=metrics)
        self._jdict = jdict

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "SinkProgress":
        return cls(jdict=j, description=j["description"], numOutputRows=j["numOutputRows"],
                   metrics=dict(j.get("metrics", {})))

    @property
    def description(self) -> str:
        return self["description"]

    @property
    def numOutputRows(self) -> int:
        return self["numOutputRows"]

    @property
    def metrics(self) -> Dict[str, str]:
        return self.get("metrics", {})
