"""DataStreamReader (spark.readStream) and DataStreamWriter (df.writeStream), as
pyspark.sql.streaming.readwriter.

Sources: json, csv, parquet, text (files arriving in a folder), delta (load(path) or
table(name)), rate, rate-micro-batch. Sinks: memory, console, noop, parquet, delta (start(path)
or toTable(name)), foreachBatch(func) and foreach(writer), whose Python code runs on the
query's thread with the GIL held; an exception it raises fails the query with
STREAM_FAILED carrying the Python traceback.
"""

import atexit
import json
import os
import sys
import traceback
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from spate import _spate
from spate.errors import PySparkAttributeError, PySparkTypeError, PySparkValueError
from spate.sql.streaming.query import StreamingQuery
from spate.sql.readwriter import _Options, _partition_columns
from spate.sql.types import StructType

__all__ = ["DataStreamReader", "DataStreamWriter"]

# Queries started from Python run Python callbacks on their threads: stop them before the
# interpreter finalizes.
atexit.register(_spate.stop_all_queries)


def _non_empty_str(name: str, value: Any) -> None:
    if type(value) is not str or len(value.strip()) == 0:
        raise PySparkValueError(
            "[VALUE_NOT_NON_EMPTY_STR] Value for `%s` must be a non-empty string, got '%s'."
            % (name, value), "VALUE_NOT_NON_EMPTY_STR", None,
            {"arg_name": name, "arg_value": str(value)})


def _path_str(path: Any) -> str:
    if not isinstance(path, str):
        raise PySparkTypeError(
            "[NOT_STR] Argument `path` should be a str, got %s." % type(path).__name__,
            "NOT_STR", None, {"arg_name": "path", "arg_type": type(path).__name__})
    return path


class DataStreamReader(_Options):
    """Loads a streaming DataFrame (``spark.readStream``)."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._format = ""
        self._options: Dict[str, str] = {}
        self._schema: Union[StructType, str, None] = None

    def _df(self, jdf: Any):
        from spate.sql.dataframe import DataFrame
        return DataFrame(jdf, self._spark)

    def format(self, source: str) -> "DataStreamReader":
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> "DataStreamReader":
        if not isinstance(schema, (StructType, str)):
            raise PySparkTypeError(
                "[NOT_STR_OR_STRUCT] Argument `schema` should be a str or structType, got %s."
                % type(schema).__name__, "NOT_STR_OR_STRUCT", None,
                {"arg_name": "schema", "arg_type": type(schema).__name__})
        self._schema = schema
        return self

    def _set_opts(self, schema: Union[StructType, str, None] = None, **options: Any) -> None:
        if schema is not None:
            self.schema(schema)
        self.options(**{k: v for k, v in options.items() if v is not None})

    def load(self, path: Optional[str] = None, format: Optional[str] = None,
             schema: Union[StructType, str, None] = None, **options: Any):
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        if path is not None:
            _non_empty_str("path", path)
        return self._df(_spate.readStreamLoad(self._spark._js, self._format, self._options,
                                              self._schema, path))

    def json(self, path: str, schema: Union[StructType, str, None] = None,
             primitivesAsString: Any = None, prefersDecimal: Any = None,
             allowComments: Any = None, allowUnquotedFieldNames: Any = None,
             allowSingleQuotes: Any = None, allowNumericLeadingZero: Any = None,
             allowBackslashEscapingAnyCharacter: Any = None, mode: Optional[str] = None,
             columnNameOfCorruptRecord: Optional[str] = None, dateFormat: Optional[str] = None,
             timestampFormat: Optional[str] = None, multiLine: Any = None,
             allowUnquotedControlChars: Any = None, lineSep: Optional[str] = None,
             locale: Optional[str] = None, dropFieldIfAllNull: Any = None,
             encoding: Optional[str] = None, pathGlobFilter: Any = None,
             recursiveFileLookup: Any = None, allowNonNumericNumbers: Any = None):
        """A stream of the JSON Lines files arriving in ``path``."""
        self._set_opts(
            schema=schema, primitivesAsString=primitivesAsString, prefersDecimal=prefersDecimal,
            allowComments=allowComments, allowUnquotedFieldNames=allowUnquotedFieldNames,
            allowSingleQuotes=allowSingleQuotes, allowNumericLeadingZero=allowNumericLeadingZero,
            allowBackslashEscapingAnyCharacter=allowBackslashEscapingAnyCharacter, mode=mode,
            columnNameOfCorruptRecord=columnNameOfCorruptRecord, dateFormat=dateFormat,
            timestampFormat=timestampFormat, multiLine=multiLine,
            allowUnquotedControlChars=allowUnquotedControlChars, lineSep=lineSep, locale=locale,
            dropFieldIfAllNull=dropFieldIfAllNull, encoding=encoding,
            pathGlobFilter=pathGlobFilter, recursiveFileLookup=recursiveFileLookup,
            allowNonNumericNumbers=allowNonNumericNumbers)
        return self.format("json").load(_path_str(path))

    def parquet(self, path: str, mergeSchema: Any = None, pathGlobFilter: Any = None,
                recursiveFileLookup: Any = None, datetimeRebaseMode: Any = None,
                int96RebaseMode: Any = None):
        """A stream of the Parquet files arriving in ``path``."""
        self._set_opts(mergeSchema=mergeSchema, pathGlobFilter=pathGlobFilter,
                       recursiveFileLookup=recursiveFileLookup,
                       datetimeRebaseMode=datetimeRebaseMode, int96RebaseMode=int96RebaseMode)
        return self.format("parquet").load(_path_str(path))

    def text(self, path: str, wholetext: bool = False, lineSep: Optional[str] = None,
             pathGlobFilter: Any = None, recursiveFileLookup: Any = None):
        """A stream of the lines (column ``value``) of the text files arriving in ``path``."""
        self._set_opts(wholetext=wholetext, lineSep=lineSep, pathGlobFilter=pathGlobFilter,
                       recursiveFileLookup=recursiveFileLookup)
        return self.format("text").load(_path_str(path))

    def csv(self, path: str, schema: Union[StructType, str, None] = None,
            sep: Optional[str] = None, encoding: Optional[str] = None,
            quote: Optional[str] = None, escape: Optional[str] = None,
            comment: Optional[str] = None, header: Any = None, inferSchema: Any = None,
            ignoreLeadingWhiteSpace: Any = None, ignoreTrailingWhiteSpace: Any = None,
            nullValue: Optional[str] = None, nanValue: Optional[str] = None,
            positiveInf: Optional[str] = None, negativeInf: Optional[str] = None,
            dateFormat: Optional[str] = None, timestampFormat: Optional[str] = None,
            maxColumns: Any = None, maxCharsPerColumn: Any = None,
            maxMalformedLogPerPartition: Any = None, mode: Optional[str] = None,
            columnNameOfCorruptRecord: Optional[str] = None, multiLine: Any = None,
            charToEscapeQuoteEscaping: Any = None, enforceSchema: Any = None,
            emptyValue: Optional[str] = None, locale: Optional[str] = None,
            lineSep: Optional[str] = None, pathGlobFilter: Any = None,
            recursiveFileLookup: Any = None, unescapedQuoteHandling: Optional[str] = None):
        """A stream of the CSV files arriving in ``path``."""
        self._set_opts(
            schema=schema, sep=sep, encoding=encoding, quote=quote, escape=escape,
            comment=comment, header=header, inferSchema=inferSchema,
            ignoreLeadingWhiteSpace=ignoreLeadingWhiteSpace,
            ignoreTrailingWhiteSpace=ignoreTrailingWhiteSpace, nullValue=nullValue,
            nanValue=nanValue, positiveInf=positiveInf, negativeInf=negativeInf,
            dateFormat=dateFormat, timestampFormat=timestampFormat, maxColumns=maxColumns,
            maxCharsPerColumn=maxCharsPerColumn,
            maxMalformedLogPerPartition=maxMalformedLogPerPartition, mode=mode,
            columnNameOfCorruptRecord=columnNameOfCorruptRecord, multiLine=multiLine,
            charToEscapeQuoteEscaping=charToEscapeQuoteEscaping, enforceSchema=enforceSchema,
            emptyValue=emptyValue, locale=locale, lineSep=lineSep,
            pathGlobFilter=pathGlobFilter, recursiveFileLookup=recursiveFileLookup,
            unescapedQuoteHandling=unescapedQuoteHandling)
        return self.format("csv").load(_path_str(path))

    def changes(self, tableName: str):
        """A stream of the row-level changes of a Delta table (its change data feed), as
        option("readChangeFeed", "true").table(tableName)."""
        return self.option("readChangeFeed", "true").table(tableName)

    def table(self, tableName: str):
        """A stream of the commits of a Delta table of the catalog."""
        if not isinstance(tableName, str):
            raise PySparkTypeError(
                "[NOT_STR] Argument `tableName` should be a str, got %s." % type(tableName).__name__,
                "NOT_STR", None, {"arg_name": "tableName", "arg_type": type(tableName).__name__})
        return self._df(_spate.readStreamTable(self._spark._js, self._options, tableName))


class _ForeachAdapter:
    """PySpark's foreach contract, driven by the engine's foreach sink: f(row) per row, or an
    object with process(row) and optional open(partition_id, epoch_id) / close(error).
    Each call returns None, or the traceback text when the user's code raised (the query then
    fails with FOREACH_USER_FUNCTION_ERROR); close(error) gets the exception process raised."""

    def __init__(self, f: Any) -> None:
        self._f = f
        self._error: Optional[BaseException] = None
        if callable(f):
            self._open = self._close = None
            self._process = f
            return
        if not hasattr(f, "process") or not callable(getattr(f, "process")):
            raise PySparkAttributeError(
                "[ATTRIBUTE_NOT_CALLABLE] Attribute `process` in provided object `f` is not callable.",
                "ATTRIBUTE_NOT_CALLABLE", None, {"attr_name": "process", "obj_name": "f"})

        def method(name: str) -> Optional[Callable[..., Any]]:
            if hasattr(f, name) and not callable(getattr(f, name)):
                raise PySparkAttributeError(
                    "[ATTRIBUTE_NOT_CALLABLE] Attribute `%s` in provided object `f` is not callable."
                    % name, "ATTRIBUTE_NOT_CALLABLE", None, {"attr_name": name, "obj_name": "f"})
            return getattr(f, name) if hasattr(f, name) else None

        self._open, self._close = method("open"), method("close")
        self._process = f.process

    def open(self, partition_id: int, epoch_id: int) -> Any:
        self._error = None
        try:
            return True if self._open is None else bool(self._open(partition_id, epoch_id))
        except BaseException as ex:
            self._error = ex
            return traceback.format_exc()

    def process(self, names: List[str], values: List[Any]) -> Optional[str]:
        from spate.sql.types import _create_row
        try:
            self._process(_create_row(names, values))
        except BaseException as ex:
            self._error = ex
            return traceback.format_exc()
        return None

    def close(self, error: Optional[str]) -> Optional[str]:
        raised = self._error if error is not None else None
        self._error = None
        if self._close is None:
            return None
        try:
            self._close(raised)
        except BaseException:
            return traceback.format_exc()
        return None


def _running_program() -> Dict[str, Any]:
    """The program starting a query, for its checkpoint's query record (`spate checkpoint
    replay DIR` runs it again): the script ``__main__`` runs from (``python3 job.py``,
    ``spate submit job.py``; not ``python -m``, a session or a test runner) with its
    arguments, working folder and ``spate submit --conf`` defaults."""
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None)
    files: List[str] = []
    if isinstance(script, str) and script.endswith(".py") and \
            getattr(main, "__spec__", None) is None and os.path.isfile(script):
        files = [os.path.abspath(script)]
    from spate.sql import session as _session
    return {"kind": "python", "cwd": os.getcwd(), "executable": sys.executable,
            "files": files, "args": list(sys.argv[1:]) if files else [],
            "confs": {str(k): str(v) for k, v in _session._submit_conf.items()}}


class DataStreamWriter(_Options):
    """Starts a streaming query writing a streaming DataFrame (``df.writeStream``)."""

    def __init__(self, df: Any) -> None:
        self._df = df
        self._spark = df.sparkSession
        self._format: Optional[str] = None
        self._output_mode: Optional[str] = None
        self._options: Dict[str, str] = {}
        self._query_name: Optional[str] = None
        self._partition_by: List[str] = []
        self._trigger: Tuple[str, str] = ("", "")
        self._batch_fn: Optional[Callable[[Any, int], None]] = None
        self._foreach = False

    def outputMode(self, outputMode: str) -> "DataStreamWriter":
        """append (default), update or complete."""
        _non_empty_str("outputMode", outputMode)
        self._output_mode = outputMode
        return self

    def format(self, source: str) -> "DataStreamWriter":
        self._format = source
        return self

    def partitionBy(self, *cols: Any) -> "DataStreamWriter":
        self._partition_by = _partition_columns(cols)
        return self

    def queryName(self, queryName: str) -> "DataStreamWriter":
        _non_empty_str("queryName", queryName)
        self._query_name = queryName
        return self

    def trigger(self, *, processingTime: Optional[str] = None, once: Optional[bool] = None,
                continuous: Optional[str] = None,
                availableNow: Optional[bool] = None,
                realTime: Optional[str] = None) -> "DataStreamWriter":
        """Exactly one of processingTime='10 seconds', once=True, availableNow=True,
        realTime='5 minutes' (real-time mode: docs/real-time-mode.md) or
        continuous='1 second' (refused when the query starts: not supported)."""
        params = [processingTime, once, continuous, availableNow, realTime]
        if params.count(None) != 4:
            raise PySparkValueError("[ONLY_ALLOW_SINGLE_TRIGGER] Only a single trigger is allowed.",
                                    "ONLY_ALLOW_SINGLE_TRIGGER", None, {})
        if processingTime is not None:
            _non_empty_str("processingTime", processingTime)
            _spate.triggerIntervalMs(processingTime.strip())
            self._trigger = ("processingTime", processingTime.strip())
        elif once is not None:
            if once is not True:
                raise PySparkValueError(
                    "[VALUE_NOT_TRUE] Value for `once` must be True, got '%s'." % once,
                    "VALUE_NOT_TRUE", None, {"arg_name": "once", "arg_value": str(once)})
            self._trigger = ("once", "")
        elif realTime is not None:
            _non_empty_str("realTime", realTime)
            _spate.triggerIntervalMs(realTime.strip())
            self._trigger = ("realTime", realTime.strip())
        elif continuous is not None:
            _non_empty_str("continuous", continuous)
            _spate.triggerIntervalMs(continuous.strip())
            self._trigger = ("continuous", continuous.strip())
        else:
            if availableNow is not True:
                raise PySparkValueError(
                    "[VALUE_NOT_TRUE] Value for `availableNow` must be True, got '%s'." % availableNow,
                    "VALUE_NOT_TRUE", None, {"arg_name": "availableNow", "arg_value": str(availableNow)})
            self._trigger = ("availableNow", "")
        return self

    def foreach(self, f: Any) -> "DataStreamWriter":
        """Each output row to ``f(row)``, or to ``f.process(row)`` between optional
        ``f.open(partition_id, epoch_id)`` and ``f.close(error)`` per micro-batch."""
        self._batch_fn = _ForeachAdapter(f)
        self._foreach = True
        return self

    def foreachBatch(self, func: Callable[[Any, int], None]) -> "DataStreamWriter":
        """``func(batch_df, batch_id)`` for every micro-batch (ids stable on replay)."""
        self._batch_fn = func
        self._foreach = False
        return self

    def _native_batch_fn(self) -> Optional[Callable[[Any, int], Optional[str]]]:
        if self._batch_fn is None:
            return None
        if self._foreach:
            return self._batch_fn  # the _ForeachAdapter itself
        from spate.sql.dataframe import DataFrame
        fn, spark = self._batch_fn, self._spark

        def call(jdf: Any, batch_id: int) -> Optional[str]:
            try:
                fn(DataFrame(jdf, spark), batch_id)
            except BaseException:
                return traceback.format_exc()
            return None

        return call

    def _start(self, path: Optional[str], table: Optional[str], format: Optional[str],
               outputMode: Optional[str], partitionBy: Any, queryName: Optional[str],
               options: Dict[str, Any]) -> StreamingQuery:
        self.options(**options)
        if outputMode is not None:
            self.outputMode(outputMode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        if format is not None:
            self.format(format)
        if queryName is not None:
            self.queryName(queryName)
        spec = {"format": self._format, "outputMode": self._output_mode,
                "options": self._options, "queryName": self._query_name,
                "partitionBy": self._partition_by, "trigger": self._trigger, "path": path,
                "table": table}
        _spate.setQueryProgram(json.dumps(_running_program()))
        jsq = _spate.writeStreamStart(self._df._jdf, spec, self._native_batch_fn(), self._foreach)
        return StreamingQuery(jsq)

    def start(self, path: Optional[str] = None, format: Optional[str] = None,
              outputMode: Optional[str] = None, partitionBy: Any = None,
              queryName: Optional[str] = None, **options: Any) -> StreamingQuery:
        """Starts the query; ``checkpointLocation`` is required except for memory, console,
        noop, foreach and foreachBatch sinks."""
        return self._start(path, None, format, outputMode, partitionBy, queryName, options)

    def toTable(self, tableName: str, format: Optional[str] = None,
                outputMode: Optional[str] = None, partitionBy: Any = None,
                queryName: Optional[str] = None, **options: Any) -> StreamingQuery:
        """Streams into a Delta table of the catalog (created by the first batch)."""
        return self._start(None, tableName, format, outputMode, partitionBy, queryName, options)
