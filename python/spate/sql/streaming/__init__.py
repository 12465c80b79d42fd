"""Structured Streaming, as pyspark.sql.streaming:
``from spate.sql.streaming import StreamingQueryListener``."""

from spate.sql.streaming.query import StreamingQuery, StreamingQueryManager
from spate.sql.streaming.readwriter import DataStreamReader, DataStreamWriter
from spate.sql.streaming.listener import StreamingQueryListener
from spate.sql.streaming.stateful_processor import (StatefulProcessor, StatefulProcessorHandle,
                                                    TimerValues, ExpiredTimerInfo)
from spate.sql.streaming.state import GroupState, GroupStateTimeout

__all__ = ["StreamingQuery", "StreamingQueryManager", "DataStreamReader", "DataStreamWriter",
           "StreamingQueryListener", "StatefulProcessor", "StatefulProcessorHandle", "TimerValues",
           "ExpiredTimerInfo", "GroupState", "GroupStateTimeout"]
