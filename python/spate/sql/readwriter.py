"""DataFrameReader (spark.read) and DataFrameWriter (df.write), as in PySpark, for the file
formats the engine has (Parquet, JSON, CSV, text)."""

from typing import Any, Dict, List, Optional, Union

from spate.errors import PySparkNotImplementedError
from spate.sql.types import StructType

__all__ = ["DataFrameReader", "DataFrameWriter", "DataFrameWriterV2"]


def _opt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Options:
    """option() / options() of the readers and writers (batch and streaming): values kept
    as Spark's option strings in self._options."""

    _options: Dict[str, str]

    def option(self, key: str, value: Any) -> Any:
        self._options[key] = _opt(value)
        return self

    def options(self, **options: Any) -> Any:
        for k, v in options.items():
            self.option(k, v)
        return self


def _partition_columns(cols: Any) -> List[str]:
    """partitionBy("a", "b") or partitionBy(["a", "b"])."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return [str(c) for c in cols]


class DataFrameReader(_Options):
    def __init__(self, session: Any):
        self._session = session
        self._format = "parquet"
        self._options: Dict[str, str] = {}
        self._schema: Union[StructType, str, None] = None

    def format(self, source: str) -> "DataFrameReader":
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> "DataFrameReader":
        self._schema = schema
        return self

    def table(self, tableName: str):
        """A table of the catalog, as spark.table(tableName); with the option
        readChangeFeed=true (and startingVersion, ...), its Delta change data feed."""
        from spate.sql.dataframe import DataFrame
        if self._options:
            return DataFrame(self._session._js.readTable(self._options, tableName), self._session)
        return self._session.table(tableName)

    def changes(self, tableName: str):
        """The row-level changes of a Delta table (its change data feed: startingVersion,
        endingVersion, ... as options), as read.option("readChangeFeed", "true").table()."""
        return self.option("readChangeFeed", "true").table(tableName)

    def load(self, path: Union[str, List[str], None] = None, format: Optional[str] = None,
             schema: Union[StructType, str, None] = None, **options: Any):
        """format("statestore") / format("state-metadata"): the state of a streaming
        checkpoint as a table (options batchId, operatorId, storeName, joinSide,
        readChangeFeed, changeStartBatchId, changeEndBatchId; see docs/state.md)."""
        from spate.sql.dataframe import DataFrame
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        paths = [] if path is None else [path] if isinstance(path, str) else list(path)
        jdf = self._session._js.readLoad(self._format, self._options, self._schema, paths)
        return DataFrame(jdf, self._session)

    def parquet(self, *paths: str, **options: Any):
        self.options(**options)
        return self.format("parquet").load(list(paths))

    def json(self, path: Union[str, List[str]], schema: Union[StructType, str, None] = None,
             **options: Any):
        self.options(**{k: v for k, v in options.items() if v is not None})
        return self.format("json").load(path, schema=schema)

    def text(self, paths: Union[str, List[str]], wholetext: bool = False, **options: Any):
        self.options(wholetext=wholetext, **{k: v for k, v in options.items() if v is not None})
        return self.format("text").load(paths)

    def csv(self, path: Union[str, List[str]], schema: Union[StructType, str, None] = None,
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
            charToEscapeQuoteEscaping: Optional[str] = None, samplingRatio: Any = None,
            enforceSchema: Any = None, emptyValue: Optional[str] = None,
            locale: Optional[str] = None, lineSep: Optional[str] = None,
            pathGlobFilter: Any = None, recursiveFileLookup: Any = None,
            modifiedBefore: Any = None, modifiedAfter: Any = None,
            unescapedQuoteHandling: Optional[str] = None):
        """CSV files; PySpark's keyword options (None leaves Spark's default)."""
        opts = dict(sep=sep, encoding=encoding, quote=quote, escape=escape, comment=comment,
                    header=header, inferSchema=inferSchema,
                    ignoreLeadingWhiteSpace=ignoreLeadingWhiteSpace,
                    ignoreTrailingWhiteSpace=ignoreTrailingWhiteSpace, nullValue=nullValue,
                    nanValue=nanValue, positiveInf=positiveInf, negativeInf=negativeInf,
                    dateFormat=dateFormat, timestampFormat=timestampFormat,
                    maxColumns=maxColumns, maxCharsPerColumn=maxCharsPerColumn,
                    maxMalformedLogPerPartition=maxMalformedLogPerPartition, mode=mode,
                    columnNameOfCorruptRecord=columnNameOfCorruptRecord, multiLine=multiLine,
                    charToEscapeQuoteEscaping=charToEscapeQuoteEscaping,
                    samplingRatio=samplingRatio, enforceSchema=enforceSchema,
                    emptyValue=emptyValue, locale=locale, lineSep=lineSep,
                    pathGlobFilter=pathGlobFilter, recursiveFileLookup=recursiveFileLookup,
                    modifiedBefore=modifiedBefore, modifiedAfter=modifiedAfter,
                    unescapedQuoteHandling=unescapedQuoteHandling)
        self.options(**{k: v for k, v in opts.items() if v is not None})
        return self.format("csv").load(path, schema=schema)


class DataFrameWriter(_Options):
    def __init__(self, df: Any):
        self._df = df
        self._format_set = False
        self._format = "parquet"
        self._mode = "errorifexists"
        self._options: Dict[str, str] = {}
        self._partition_by: List[str] = []

    def mode(self, saveMode: Optional[str]) -> "DataFrameWriter":
        if saveMode is not None:
            self._mode = saveMode
        return self

    def format(self, source: str) -> "DataFrameWriter":
        self._format = source
        self._format_set = True
        return self

    def partitionBy(self, *cols: Any) -> "DataFrameWriter":
        """Writes one `col=value` folder level per column (Hive layout)."""
        self._partition_by = _partition_columns(cols)
        return self

    def save(self, path: Optional[str] = None, format: Optional[str] = None, mode: Optional[str] = None,
             partitionBy: Any = None, **options: Any) -> None:
        if partitionBy:
            self.partitionBy(partitionBy)
        if format is not None:
            self.format(format)
        self.mode(mode)
        self.options(**options)
        if path is None and (self._format or "").lower() == "kafka":
            path = ""  # Kafka: the topic comes from the `topic` option or column
        if path is None:
            raise PySparkNotImplementedError("[NOT_IMPLEMENTED] save() needs a path.", "NOT_IMPLEMENTED",
                                             None, {"feature": "save without path"})
        self._df._jdf.writeSave(self._format, self._mode, self._options, self._partition_by, path)

    def parquet(self, path: str, mode: Optional[str] = None, partitionBy: Any = None,
                compression: Optional[str] = None) -> None:
        if compression is not None:
            self.option("compression", compression)
        self.save(path, "parquet", mode, partitionBy)

    def _set(self, **opts: Any) -> None:
        self.options(**{k: v for k, v in opts.items() if v is not None})

    def json(self, path: str, mode: Optional[str] = None, compression: Optional[str] = None,
             dateFormat: Optional[str] = None, timestampFormat: Optional[str] = None,
             lineSep: Optional[str] = None, encoding: Optional[str] = None,
             ignoreNullFields: Any = None) -> None:
        """JSON Lines part files (part-00000-<uuid>-c000.json)."""
        self._set(compression=compression, dateFormat=dateFormat,
                  timestampFormat=timestampFormat, lineSep=lineSep, encoding=encoding,
                  ignoreNullFields=ignoreNullFields)
        self.save(path, "json", mode)

    def csv(self, path: str, mode: Optional[str] = None, compression: Optional[str] = None,
            sep: Optional[str] = None, quote: Optional[str] = None,
            escape: Optional[str] = None, header: Any = None, nullValue: Optional[str] = None,
            escapeQuotes: Any = None, quoteAll: Any = None, dateFormat: Optional[str] = None,
            timestampFormat: Optional[str] = None, ignoreLeadingWhiteSpace: Any = None,
            ignoreTrailingWhiteSpace: Any = None,
            charToEscapeQuoteEscaping: Optional[str] = None, encoding: Optional[str] = None,
            emptyValue: Optional[str] = None, lineSep: Optional[str] = None) -> None:
        """CSV part files (part-00000-<uuid>-c000.csv)."""
        self._set(compression=compression, sep=sep, quote=quote, escape=escape, header=header,
                  nullValue=nullValue, escapeQuotes=escapeQuotes, quoteAll=quoteAll,
                  dateFormat=dateFormat, timestampFormat=timestampFormat,
                  ignoreLeadingWhiteSpace=ignoreLeadingWhiteSpace,
                  ignoreTrailingWhiteSpace=ignoreTrailingWhiteSpace,
                  charToEscapeQuoteEscaping=charToEscapeQuoteEscaping, encoding=encoding,
                  emptyValue=emptyValue, lineSep=lineSep)
        self.save(path, "csv", mode)

    def text(self, path: str, compression: Optional[str] = None,
             lineSep: Optional[str] = None) -> None:
        """One line per row of the single STRING column (part-00000-<uuid>-c000.txt)."""
        self._set(compression=compression, lineSep=lineSep)
        self.save(path, "text")

    def saveAsTable(self, name: str, format: Optional[str] = None, mode: Optional[str] = None,
                    partitionBy: Any = None, **options: Any) -> None:
        """A Delta table of the warehouse catalog (the only format the catalog keeps)."""
        if partitionBy:
            self.partitionBy(partitionBy)
        if format is not None:
            self.format(format)
        self.mode(mode)
        self.options(**options)
        self._df._jdf.writeSaveAsTable(self._format if self._format_set else "delta", self._mode,
                                       self._options, self._partition_by, name)

    def insertInto(self, tableName: str, overwrite: Optional[bool] = None) -> None:
        """Rows of an existing table, by column position."""
        self._df._jdf.writeInsertInto(tableName, bool(overwrite) or self._mode == "overwrite")


class DataFrameWriterV2:
    """df.writeTo(table) (pyspark.sql.DataFrameWriterV2) over the warehouse catalog's Delta
    tables: create / replace / createOrReplace write the table (its schema and partitioning
    from the DataFrame), append adds rows matched by column name, overwrite(condition) and
    overwritePartitions replace the rows the condition (the DataFrame's partition values)
    selects: a delete and an append, two table versions where Spark commits one."""

    def __init__(self, df: Any, table: str):
        self._df = df
        self._table = table
        self._provider: Optional[str] = None
        self._options: Dict[str, str] = {}
        self._partitioning: List[Any] = []
        self._transforms: List[str] = []

    def using(self, provider: str) -> "DataFrameWriterV2":
        self._provider = provider
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriterV2":
        self._options[key] = _opt(value)
        return self

    def options(self, **options: Any) -> "DataFrameWriterV2":
        for k, v in options.items():
            self.option(k, v)
        return self

    def tableProperty(self, property: str, value: str) -> "DataFrameWriterV2":
        """A table property (delta.* properties become the table's configuration)."""
        return self.option(property, value)

    def partitionedBy(self, col: Any, *cols: Any) -> "DataFrameWriterV2":
        """Partition columns. The transforms (functions.years, months, days, hours, bucket)
        are refused when the table is written, as delta-spark refuses them
        (DELTA_OPERATION_NOT_ALLOWED: a Delta table partitions by columns only)."""
        from spate.sql.column import Column
        names = []
        self._transforms = []
        for c in (col,) + cols:
            if getattr(c, "_transform", None):
                self._transforms.append(c._transform)
                continue
            if isinstance(c, Column):
                text = str(c)[8:-2]
                if not text.replace("_", "").isalnum():
                    raise PySparkNotImplementedError(
                        "[NOT_IMPLEMENTED] partition transform %s is not implemented." % text,
                        "NOT_IMPLEMENTED", "0A000", {"feature": "partition transform %s" % text})
                c = text
            names.append(c)
        self._partitioning = names
        return self

    def _exists(self) -> bool:
        return self._df.sparkSession.catalog.tableExists(self._table)

    def _refuse_transforms(self) -> None:
        from spate.errors import AnalysisException
        if "bucket" in self._transforms:
            parts = self._table.split(".")
            if len(parts) == 1:
                parts = [self._df.sparkSession.catalog.currentDatabase()] + parts
            name = ".".join("`%s`" % p for p in parts)
            raise AnalysisException(
                "[DELTA_OPERATION_NOT_ALLOWED_DETAIL] Operation not allowed: `Bucketing` is not "
                "supported for Delta tables: %s" % name, "DELTA_OPERATION_NOT_ALLOWED_DETAIL",
                "0AKDC", {"operation": "Bucketing", "tableName": name})
        if self._transforms:
            raise AnalysisException(
                "[DELTA_OPERATION_NOT_ALLOWED] Operation not allowed: `Partitioning by expressions` "
                "is not supported for Delta tables", "DELTA_OPERATION_NOT_ALLOWED", "0AKDC",
                {"operation": "Partitioning by expressions"})

    def _write(self, mode: str, df: Any = None, **extra: str) -> None:
        self._refuse_transforms()
        w = (df or self._df).write.format(self._provider or "delta").mode(mode)
        w.options(**self._options).options(**extra)
        if self._partitioning:
            w.partitionBy(*self._partitioning)
        w.saveAsTable(self._table)

    def _missing(self) -> None:
        from spate.errors import AnalysisException
        name = ".".join("`%s`" % p for p in self._table.split("."))
        raise AnalysisException(
            "[TABLE_OR_VIEW_NOT_FOUND] The table or view %s cannot be found. Verify the spelling and "
            "correctness of the schema and catalog. SQLSTATE: 42P01" % name, "TABLE_OR_VIEW_NOT_FOUND",
            "42P01", {"relationName": name})

    def create(self) -> None:
        self._write("errorifexists")

    def replace(self) -> None:
        if not self._exists():
            self._missing()
        self._write("overwrite", overwriteSchema="true")

    def createOrReplace(self) -> None:
        self._write("overwrite", overwriteSchema="true") if self._exists() else self._write("errorifexists")

    def _by_name(self) -> Any:
        """The DataFrame's columns in the table's order, matched by name."""
        if not self._exists():
            self._missing()
        from spate.sql import functions as F
        target = self._df.sparkSession.table(self._table).columns
        have = {c.lower(): c for c in self._df.columns}
        missing = [c for c in target if c.lower() not in have]
        extra = [c for c in self._df.columns if c.lower() not in {t.lower() for t in target}]
        if missing or extra:
            from spate.errors import AnalysisException
            cls = ("INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA" if missing
                   else "INCOMPATIBLE_DATA_FOR_TABLE.EXTRA_COLUMNS")
            raise AnalysisException("[%s] Cannot write incompatible data for the table `%s`: %s." % (
                cls, self._table, ", ".join(missing or extra)), cls, "KD000",
                {"tableName": self._table})
        return self._df.select(*[F.col("`%s`" % have[c.lower()].replace("`", "``")).alias(c) for c in target])

    def append(self) -> None:
        self._by_name().write.insertInto(self._table)

    def overwrite(self, condition: Any) -> None:
        from spate.delta import DeltaTable
        rows = self._by_name()
        DeltaTable.forName(self._df.sparkSession, self._table).delete(condition)
        rows.write.insertInto(self._table)

    def overwritePartitions(self) -> None:
        """Replaces the partitions the DataFrame has rows for (all rows of an unpartitioned
        table)."""
        from spate.delta import DeltaTable
        from spate.sql import functions as F
        rows = self._by_name()
        spark = self._df.sparkSession
        parts = spark.sql("DESCRIBE DETAIL %s" % self._table).collect()[0]["partitionColumns"]
        if not parts:
            rows.write.mode("overwrite").insertInto(self._table, overwrite=True)
            return
        cond = None
        for r in rows.select(*parts).distinct().collect():
            match = None
            for p in parts:
                eq = F.col("`%s`" % p).eqNullSafe(F.lit(r[p]))
                match = eq if match is None else match & eq
            cond = match if cond is None else cond | match
        if cond is not None:
            DeltaTable.forName(spark, self._table).delete(cond)
        rows.write.insertInto(self._table)
