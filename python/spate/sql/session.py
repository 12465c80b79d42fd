"""SparkSession (pyspark.sql.SparkSession): the entry point of the DataFrame API."""

import threading
from collections import namedtuple
from typing import Any, Dict, Iterable, List, Optional, Union

from spate import _spate
from spate.errors import PySparkTypeError, PySparkValueError
from spate.sql.dataframe import DataFrame
from spate.sql.types import (DataType, Row, StructField, StructType, _has_nulltype, _infer_schema,
                             _merge_type, _parse_datatype_string)

__all__ = ["SparkSession", "RuntimeConfig"]

_NO_DEFAULT = object()
# SparkContext.setCheckpointDir's folder (one per process, as the SparkContext's).
_checkpoint_dir: Optional[str] = None

# Settings beneath every builder's own, set by `spate submit` (its --conf, --name and
# properties file): spark-submit puts them in the SparkConf from which the first getOrCreate()
# starts, so a builder's .config() wins over them.
_submit_conf: Dict[str, str] = {}


def _conf_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class RuntimeConfig:
    """spark.conf: session configuration (pyspark.sql.conf.RuntimeConfig)."""

    def __init__(self, jsession: Any, builder_conf: Optional[Dict[str, str]] = None):
        self._js = jsession
        # The builder's settings, which Spark keeps in the SparkContext's conf, so that every
        # session of it (newSession) starts from them (the warehouse, time zone, ...).
        self._builder_conf = builder_conf or {}

    def set(self, key: str, value: Any) -> None:
        self._js.confSet(key, _conf_str(value))

    def get(self, key: str, default: Any = _NO_DEFAULT) -> Optional[str]:
        if default is _NO_DEFAULT:
            return self._js.confGet(key)
        if default is None:
            sentinel = "\x00spate-no-value\x00"
            v = self._js.confGetOr(key, sentinel)
            return None if v == sentinel else v
        return self._js.confGetOr(key, _conf_str(default))

    def unset(self, key: str) -> None:
        self._js.confUnset(key)

    def isModifiable(self, key: str) -> bool:
        return self._js.confIsModifiable(key)


class _classproperty:
    def __init__(self, f):
        self.f = f

    def __get__(self, instance, owner):
        return self.f(owner)


class SparkSession:
    """The entry point: ``SparkSession.builder.appName("x").getOrCreate()``."""

    _active: Optional["SparkSession"] = None
    _lock = threading.RLock()

    class Builder:
        def __init__(self) -> None:
            self._options: Dict[str, str] = {}

        def config(self, key: Optional[str] = None, value: Any = None, conf: Any = None,
                   *, map: Optional[Dict[str, Any]] = None) -> "SparkSession.Builder":
            with SparkSession._lock:
                if map is not None:
                    for k, v in map.items():
                        self._options[k] = _conf_str(v)
                elif conf is not None:
                    for k, v in conf.getAll():
                        self._options[k] = _conf_str(v)
                elif key is not None:
                    self._options[key] = _conf_str(value)
            return self

        def appName(self, name: str) -> "SparkSession.Builder":
            return self.config("spark.app.name", name)

        def master(self, master: str) -> "SparkSession.Builder":
            return self.config("spark.master", master)

        def remote(self, url: str) -> "SparkSession.Builder":
            return self

        def enableHiveSupport(self) -> "SparkSession.Builder":
            return self

        def getOrCreate(self) -> "SparkSession":
            with SparkSession._lock:
                options = self._options
                if SparkSession._active is None:
                    options = {**_submit_conf, **options}
                js = _spate.getOrCreate(list(options.items()))
                active = SparkSession._active
                if active is None or not active._js.same(js):
                    active = SparkSession(js, dict(options))
                    SparkSession._active = active
                return active

        def create(self) -> "SparkSession":
            return self.getOrCreate()

    @_classproperty
    def builder(cls) -> "SparkSession.Builder":
        return cls.Builder()

    def __init__(self, jsession: Any, builder_conf: Optional[Dict[str, str]] = None):
        self._js = jsession
        # The builder's settings, which Spark keeps in the SparkContext's conf, so that every
        # session of it (newSession) starts from them (the warehouse, time zone, ...).
        self._builder_conf = builder_conf or {}

    @classmethod
    def getActiveSession(cls) -> Optional["SparkSession"]:
        return cls._active

    @classmethod
    def active(cls) -> "SparkSession":
        if cls._active is None:
            return cls.builder.getOrCreate()
        return cls._active

    def newSession(self) -> "SparkSession":
        js = self._js.newSession()
        for k, v in self._builder_conf.items():
            js.confSet(k, v)
        return SparkSession(js, self._builder_conf)

    @property
    def conf(self) -> RuntimeConfig:
        return RuntimeConfig(self._js)

    @property
    def version(self) -> str:
        return self._js.version()

    def stop(self) -> None:
        """Stops the session's active streaming queries and the monitoring server."""
        for q in self.streams.active:
            q.stop()
        self._js.stop()

    def __enter__(self) -> "SparkSession":
        return self

    def __exit__(self, *args: Any) -> None:
        self.stop()

    # ---- DataFrames -------------------------------------------------------------------------
    def sql(self, sqlQuery: str, args: Any = None, **kwargs: Any) -> DataFrame:
        if args or kwargs:
            raise PySparkTypeError("parameterized queries are not supported", "UNSUPPORTED", None, {})
        return DataFrame(self._js.sql(sqlQuery), self)

    def table(self, tableName: str) -> DataFrame:
        return DataFrame(self._js.table(tableName), self)

    def range(self, start: int, end: Optional[int] = None, step: int = 1,
              numPartitions: Optional[int] = None) -> DataFrame:
        if end is None:
            start, end = 0, start
        return DataFrame(self._js.range(int(start), int(end), int(step), int(numPartitions or 0)), self)

    def createDataFrame(self, data: Any, schema: Union[StructType, str, List[str], None] = None,
                        samplingRatio: Optional[float] = None, verifySchema: bool = True) -> DataFrame:
        """Rows from a list of tuples, lists, Rows or dicts (or a pandas DataFrame); `schema` is a
        StructType, a DDL string ("a INT, b STRING") or a list of column names."""
        if isinstance(data, DataFrame) and schema is not None:
            raise PySparkTypeError("[INVALID_TYPE] Argument `data` should not be a DataFrame.",
                                   "INVALID_TYPE", None, {"arg_name": "data", "arg_type": "DataFrame"})
        if hasattr(data, "__arrow_c_stream__") and schema is None:
            # Any Arrow producer (pyarrow Table, polars, a spate DataFrame): zero-copy import.
            return DataFrame(self._js.createDataFrameFromArrow(data.__arrow_c_stream__()), self)
        try:
            import pandas as pd  # noqa: F401
            if isinstance(data, pd.DataFrame):
                if schema is None:
                    schema = [str(c) for c in data.columns]
                data = [tuple(None if _isnan(v) else _unbox(v) for v in r)
                        for r in data.itertuples(index=False, name=None)]
        except ImportError:
            pass
        data = list(data)
        if isinstance(schema, str):
            parsed = _parse_datatype_string(schema)
            if not isinstance(parsed, StructType):
                parsed = StructType([StructField("value", parsed, True)])
                data = [r if isinstance(r, (tuple, list, dict)) else (r,) for r in data]
            schema = parsed
        if isinstance(schema, DataType) and not isinstance(schema, StructType):
            schema = StructType([StructField("value", schema, True)])
            data = [r if isinstance(r, (tuple, list, dict)) else (r,) for r in data]
        if schema is None or isinstance(schema, (list, tuple)):
            names = list(schema) if schema is not None else None
            if not data:
                raise PySparkValueError("[CANNOT_INFER_EMPTY_SCHEMA] Can not infer schema from an empty "
                                        "dataset.", "CANNOT_INFER_EMPTY_SCHEMA", None, {})
            inferred = None
            for row in data:
                s = _infer_schema(row, names)
                inferred = s if inferred is None else _merge_type(inferred, s)
            if _has_nulltype(inferred):
                raise PySparkValueError("[CANNOT_DETERMINE_TYPE] Some of types cannot be determined after "
                                        "inferring.", "CANNOT_DETERMINE_TYPE", None, {})
            if names is not None and len(names) >= len(inferred.fields):
                for f, n in zip(inferred.fields, names):
                    f.name = n
                inferred = StructType(inferred.fields)
            schema = inferred
            # dict rows are matched by name, others by position
            data = [tuple(r.get(f.name) for f in schema.fields) if isinstance(r, dict) else r for r in data]
        if not isinstance(schema, StructType):
            raise PySparkTypeError("[NOT_LIST_OR_NONE_OR_STRUCT] Argument `schema` should be a list, None or "
                                   "StructType, got %s." % type(schema).__name__, "NOT_LIST_OR_NONE_OR_STRUCT",
                                   None, {"arg_name": "schema", "arg_type": type(schema).__name__})
        rows = []
        for r in data:
            if isinstance(r, Row) and hasattr(r, "__fields__"):
                if list(r.__fields__) != schema.names and set(r.__fields__) == set(schema.names):
                    r = tuple(r[n] for n in schema.names)
                else:
                    r = tuple(r)
            elif not isinstance(r, (tuple, list, dict)):
                if len(schema.fields) == 1:
                    r = (r,)
                else:
                    raise PySparkTypeError("[CANNOT_ACCEPT_OBJECT_IN_TYPE] `StructType()` can not accept "
                                           "object `%r` in type `%s`." % (r, type(r).__name__),
                                           "CANNOT_ACCEPT_OBJECT_IN_TYPE", None, {})
            rows.append(r)
        return DataFrame(self._js.createDataFrame(rows, schema), self)

    @property
    def read(self) -> "DataFrameReader":
        from spate.sql.readwriter import DataFrameReader
        return DataFrameReader(self)

    @property
    def readStream(self) -> "DataStreamReader":
        """A DataStreamReader for streaming DataFrames (spate.sql.streaming)."""
        from spate.sql.streaming.readwriter import DataStreamReader
        return DataStreamReader(self)

    @property
    def streams(self) -> "StreamingQueryManager":
        """The session's active streaming queries and listeners."""
        from spate.sql.streaming.query import StreamingQueryManager
        return StreamingQueryManager(_spate.streams(self._js), self)

    @property
    def tvf(self) -> "TableValuedFunction":
        """Table-valued functions as DataFrames (spate.sql.tvf)."""
        from spate.sql.tvf import TableValuedFunction
        return TableValuedFunction(self)

    def emptyDataFrame(self, schema: Union[StructType, str]) -> DataFrame:
        """A DataFrame of no rows with `schema` (a StructType or DDL string)."""
        return self.createDataFrame([], schema)

    @property
    def catalog(self) -> "Catalog":
        return Catalog(self)

    @property
    def udf(self) -> "UDFRegistration":
        from spate.sql.udf import UDFRegistration
        return UDFRegistration(self)

    @property
    def sparkContext(self) -> "SparkContext":
        return SparkContext(self)


Table = namedtuple("Table", "name catalog namespace description tableType isTemporary")
Database = namedtuple("Database", "name catalog description locationUri")
CatalogColumn = namedtuple("Column", "name description dataType nullable isPartition isBucket isCluster")
Function = namedtuple("Function", "name catalog namespace description className isTemporary")
CatalogMetadata = namedtuple("CatalogMetadata", "name description")


def _quoted(name: str) -> str:
    return ".".join("`%s`" % p.replace("`", "``") for p in name.split("."))


class Catalog:
    """spark.catalog (pyspark.sql.catalog.Catalog): the warehouse's schemas and Delta tables,
    and the session's temp views."""

    def __init__(self, session: SparkSession):
        self._s = session

    def currentCatalog(self) -> str:
        return "spark_catalog"

    def currentDatabase(self) -> str:
        return self._s.sql("SELECT current_database()").collect()[0][0]

    def setCurrentDatabase(self, dbName: str) -> None:
        self._s.sql("USE `%s`" % dbName.replace("`", "``"))

    def listDatabases(self, pattern: Optional[str] = None) -> List[Database]:
        sql = "SHOW SCHEMAS" if pattern is None else "SHOW SCHEMAS LIKE '%s'" % pattern.replace("'", "\\'")
        return [Database(r.namespace, "spark_catalog",
                         "default database" if r.namespace == "default" else None, "")
                for r in self._s.sql(sql).collect()]

    def databaseExists(self, dbName: str) -> bool:
        name = dbName.split(".")[-1].lower()
        return any(d.name == name for d in self.listDatabases())

    def listTables(self, dbName: Optional[str] = None, pattern: Optional[str] = None) -> List[Table]:
        import fnmatch
        out = []
        sql = "SHOW TABLES" if dbName is None else "SHOW TABLES IN `%s`" % dbName.replace("`", "``")
        for r in self._s.sql(sql).collect():
            if pattern is not None and not fnmatch.fnmatch(r.tableName, pattern):
                continue
            if r.isTemporary:
                out.append(Table(r.tableName, None, [], None, "TEMPORARY", True))
            else:
                out.append(Table(r.tableName, "spark_catalog", [r.namespace], None,
                                 self._table_type(r.namespace, r.tableName), False))
        return out

    def _table_type(self, db: str, name: str) -> str:
        rows = self._s.sql("DESCRIBE EXTENDED `%s`.`%s`" % (db, name)).collect()
        for r in rows:
            if r.col_name == "Type":
                return r.data_type
        return "MANAGED"

    def tableExists(self, tableName: str, dbName: Optional[str] = None) -> bool:
        if dbName is None and "." in tableName:
            dbName, tableName = tableName.rsplit(".", 1)
            dbName = dbName.split(".")[-1]
        if dbName is not None and not self.databaseExists(dbName):
            return False
        return any(t.name == tableName.lower() or (t.isTemporary and t.name == tableName)
                   for t in self.listTables(dbName))

    def getTable(self, tableName: str) -> Table:
        db = None
        name = tableName
        if "." in tableName:
            db, name = tableName.rsplit(".", 1)
            db = db.split(".")[-1]
        for t in self.listTables(db):
            if t.name == name or t.name == name.lower():
                return t
        self._s.table(tableName)  # raises TABLE_OR_VIEW_NOT_FOUND
        raise AssertionError("unreachable")

    def listColumns(self, tableName: str, dbName: Optional[str] = None) -> List[CatalogColumn]:
        schema = self._s.table(tableName).schema
        return [CatalogColumn(f.name, None, f.dataType.simpleString(), f.nullable, False, False, False)
                for f in schema.fields]

    def listFunctions(self, dbName: Optional[str] = None, pattern: Optional[str] = None) -> List[Function]:
        import fnmatch
        names = sorted(n for n in _spate.function_names() if n.isidentifier() and not n.startswith("__"))
        if pattern is not None:
            names = [n for n in names if fnmatch.fnmatch(n, pattern)]
        return [Function(n, None, None, None, None, True) for n in names]

    def functionExists(self, functionName: str, dbName: Optional[str] = None) -> bool:
        return functionName.lower() in set(_spate.function_names())

    def dropTempView(self, viewName: str) -> bool:
        exists = self.tableExists(viewName)
        if exists:
            self._s.sql("DROP VIEW `%s`" % viewName.replace("`", "``"))
        return exists

    def dropGlobalTempView(self, viewName: str) -> bool:
        try:
            self._s.table("global_temp.%s" % viewName)
        except Exception:
            return False
        self._s.sql("DROP VIEW global_temp.`%s`" % viewName.replace("`", "``"))
        return True

    def isCached(self, tableName: str) -> bool:
        return False

    def cacheTable(self, tableName: str, storageLevel: Any = None) -> None:
        self._s.table(tableName)

    def uncacheTable(self, tableName: str) -> None:
        pass

    def clearCache(self) -> None:
        pass

    def refreshTable(self, tableName: str) -> None:
        pass

    # -- catalogs, schemas, tables, views and functions by name (PySpark 4.x) --------------
    def refreshByPath(self, path: str) -> None:
        """spate caches no table data: reads always see the files as they are."""

    def listCatalogs(self, pattern: Optional[str] = None) -> List["CatalogMetadata"]:
        import fnmatch
        return [CatalogMetadata("spark_catalog", None)] if pattern is None or fnmatch.fnmatch(
            "spark_catalog", pattern) else []

    def setCurrentCatalog(self, catalogName: str) -> None:
        if catalogName != "spark_catalog":
            from spate.errors import AnalysisException
            raise AnalysisException("[CATALOG_NOT_FOUND] The catalog `%s` not found. SQLSTATE: 42P08"
                                    % catalogName, "CATALOG_NOT_FOUND", "42P08",
                                    {"catalogName": "`%s`" % catalogName})

    def getDatabase(self, dbName: str) -> Database:
        name = dbName.split(".")[-1].lower()
        for d in self.listDatabases():
            if d.name == name:
                return d
        from spate.errors import AnalysisException
        raise AnalysisException(
            "[SCHEMA_NOT_FOUND] The schema `%s` cannot be found. SQLSTATE: 42704" % name,
            "SCHEMA_NOT_FOUND", "42704", {"schemaName": "`%s`" % name})

    def createDatabase(self, dbName: str, ifNotExists: bool = False, properties: Optional[Dict[str, str]] = None) -> None:
        self._s.sql("CREATE SCHEMA %s%s" % ("IF NOT EXISTS " if ifNotExists else "", _quoted(dbName)))

    def dropDatabase(self, dbName: str, ifExists: bool = False, cascade: bool = False) -> None:
        self._s.sql("DROP SCHEMA %s%s%s" % ("IF EXISTS " if ifExists else "", _quoted(dbName),
                                             " CASCADE" if cascade else ""))

    def dropTable(self, tableName: str, ifExists: bool = False, purge: bool = False) -> None:
        self._s.sql("DROP TABLE %s%s" % ("IF EXISTS " if ifExists else "", _quoted(tableName)))

    def dropView(self, viewName: str, ifExists: bool = False) -> None:
        self._s.sql("DROP VIEW %s%s" % ("IF EXISTS " if ifExists else "", _quoted(viewName)))

    def listViews(self, dbName: Optional[str] = None, pattern: Optional[str] = None) -> List[Table]:
        return [t for t in self.listTables(dbName, pattern) if t.tableType in ("VIEW", "TEMPORARY")]

    def truncateTable(self, tableName: str) -> None:
        """Deletes every row (a new table version)."""
        self._s.sql("DELETE FROM %s" % _quoted(tableName))

    def getFunction(self, functionName: str) -> Function:
        name = functionName.split(".")[-1].lower()
        if not self.functionExists(name):
            from spate.errors import AnalysisException
            raise AnalysisException(
                "[UNRESOLVED_ROUTINE] Cannot resolve routine `%s` on search path [`system`.`builtin`, "
                "`system`.`session`, `spark_catalog`.`default`]. SQLSTATE: 42883" % name,
                "UNRESOLVED_ROUTINE", "42883", {"routineName": "`%s`" % name})
        return Function(name, None, None, None, None, True)

    def registerFunction(self, name: str, f: Any, returnType: Any = None) -> Any:
        """Deprecated PySpark alias of spark.udf.register."""
        return self._s.udf.register(name, f, returnType)

    def createTable(self, tableName: str, path: Optional[str] = None, source: Optional[str] = None,
                    schema: Optional[StructType] = None, description: Optional[str] = None,
                    **options: Any) -> DataFrame:
        """A Delta table: with `schema` an empty one, with `path` one over the Delta table
        there (EXTERNAL)."""
        sql = "CREATE TABLE %s" % _quoted(tableName)
        if schema is not None:
            if isinstance(schema, str):
                schema = _parse_datatype_string(schema)
            sql += " (%s)" % ", ".join("`%s` %s%s" % (f.name.replace("`", "``"), f.dataType.simpleString(),
                                                     "" if f.nullable else " NOT NULL") for f in schema.fields)
        sql += " USING %s" % (source or "delta")
        path = path or options.get("path")
        if path is not None:
            sql += " LOCATION '%s'" % path.replace("'", "\\'")
        if description is not None:
            sql += " COMMENT '%s'" % description.replace("'", "\\'")
        self._s.sql(sql)
        return self._s.table(tableName)

    def createExternalTable(self, tableName: str, path: Optional[str] = None, source: Optional[str] = None,
                            schema: Optional[StructType] = None, **options: Any) -> DataFrame:
        return self.createTable(tableName, path, source, schema, **options)


class SparkContext:
    """The few SparkContext members PySpark jobs commonly touch (spark.sparkContext)."""

    def __init__(self, session: SparkSession):
        self._s = session

    @property
    def appName(self) -> str:
        return self._s._js.appName()

    @property
    def version(self) -> str:
        return self._s.version

    @property
    def master(self) -> str:
        return self._s.conf.get("spark.master", "local[*]")

    @property
    def uiWebUrl(self) -> Optional[str]:
        """The monitoring server's URL ("http://127.0.0.1:4040"), started by getOrCreate()
        when ``spark.ui.enabled`` is ``true`` (spate's default is off); None otherwise."""
        return self._s._js.uiWebUrl()

    @property
    def defaultParallelism(self) -> int:
        import os
        return int(self._s.conf.get("spark.default.parallelism", None) or os.cpu_count() or 1)

    def setCheckpointDir(self, dirName: str) -> None:
        """The folder of DataFrame.checkpoint() (spate keeps checkpointed rows in memory, as
        localCheckpoint: one process has no executors to lose; the folder is created)."""
        import os
        import uuid
        global _checkpoint_dir
        path = os.path.join(os.path.abspath(dirName), str(uuid.uuid4()))
        os.makedirs(path, exist_ok=True)
        _checkpoint_dir = "file:" + path

    def getCheckpointDir(self) -> Optional[str]:
        return _checkpoint_dir

    def setLogLevel(self, logLevel: str) -> None:
        """The level of spate's log lines (spate.log.level: OFF, ERROR, WARN, INFO, DEBUG,
        TRACE, ALL; docs/observability.md "Log lines")."""
        if str(logLevel).upper() not in ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG",
                                         "TRACE", "ALL"):
            raise ValueError(f"Unsupported log level {logLevel!r}: OFF, FATAL, ERROR, WARN, "
                             "INFO, DEBUG, TRACE or ALL")
        self._s.conf.set("spate.log.level", str(logLevel).upper())

    def setJobDescription(self, value: str) -> None:
        pass

    def setJobGroup(self, groupId: str, description: str, interruptOnCancel: bool = False) -> None:
        pass

    def stop(self) -> None:
        self._s.stop()


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def _unbox(v: Any) -> Any:
    item = getattr(v, "item", None)
    if item is not None and type(v).__module__ == "numpy":
        return item()
    return v
