"""DataFrame (pyspark.sql.DataFrame) over the engine's DataFrame."""

import sys
from typing import Any, Dict, List, Optional, Tuple, Union

from spate import _spate
from spate.errors import PySparkAttributeError, PySparkTypeError, PySparkValueError
from spate.sql.column import Column, _to_col_jc, _to_jc
from spate.sql.types import Row, StructType

__all__ = ["DataFrame"]


def _flatten(cols: Tuple[Any, ...]) -> List[Any]:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return list(cols)


def _sort_cols(cols: Tuple[Any, ...], kwargs: Dict[str, Any]) -> List[Any]:
    cols_list = _flatten(cols)
    if not cols_list:
        raise PySparkValueError("[CANNOT_BE_EMPTY] At least one column must be specified.",
                                "CANNOT_BE_EMPTY", None, {"item": "column"})
    jcols = []
    for c in cols_list:
        if isinstance(c, int) and not isinstance(c, bool):
            raise PySparkTypeError("ordinal sort is not supported", "NOT_COLUMN_OR_STR", None, {})
        jcols.append(_to_col_jc(c))
    ascending = kwargs.get("ascending", True)
    if isinstance(ascending, (bool, int)):
        if not ascending:
            jcols = [jc.desc() for jc in jcols]
    elif isinstance(ascending, list):
        jcols = [jc if asc else jc.desc() for asc, jc in zip(ascending, jcols)]
    else:
        raise PySparkTypeError("[NOT_BOOL_OR_LIST] Argument `ascending` should be a bool or list, got %s."
                               % type(ascending).__name__, "NOT_BOOL_OR_LIST", None,
                               {"arg_name": "ascending", "arg_type": type(ascending).__name__})
    return jcols


def _check_subset(subset: Any) -> None:
    if subset is not None and not isinstance(subset, (list, tuple)):
        raise PySparkTypeError("[NOT_LIST_OR_TUPLE] Argument `subset` should be a list or tuple, got %s."
                               % type(subset).__name__, "NOT_LIST_OR_TUPLE", None,
                               {"arg_name": "subset", "arg_type": type(subset).__name__})


class DataFrame:
    """A distributed collection of rows with named columns; immutable, lazily evaluated."""

    def __init__(self, jdf: Any, session: Any):
        self._jdf = jdf
        self.sparkSession = session

    def _wrap(self, jdf: Any) -> "DataFrame":
        return DataFrame(jdf, self.sparkSession)

    # ---- metadata ---------------------------------------------------------------------------
    @property
    def schema(self) -> StructType:
        return self._jdf.schema()

    @property
    def columns(self) -> List[str]:
        return list(self._jdf.columns())

    @property
    def dtypes(self) -> List[Tuple[str, str]]:
        return [tuple(d) for d in self._jdf.dtypes()]

    @property
    def isStreaming(self) -> bool:
        """True when the DataFrame reads a stream (spark.readStream)."""
        return _spate.isStreaming(self._jdf)

    def printSchema(self, level: Optional[int] = None) -> None:
        print(self._jdf.treeString())

    def __repr__(self) -> str:
        return "DataFrame[%s]" % (", ".join("%s: %s" % c for c in self.dtypes))

    # ---- columns ----------------------------------------------------------------------------
    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, str):
            return Column(self._jdf.col(item))
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        if isinstance(item, int) and not isinstance(item, bool):
            cols = self.columns
            if item < 0 or item >= len(cols):
                raise PySparkIndexError("[INDEX_OUT_OF_RANGE] index out of range, got '%d'." % item,
                                        "INDEX_OUT_OF_RANGE", None, {"arg_name": "item", "index": str(item)})
            return Column(self._jdf.col(cols[item]))
        raise PySparkTypeError("[NOT_COLUMN_OR_INT_OR_LIST_OR_STR_OR_TUPLE] Argument `item` should be a "
                               "Column, int, list, str or tuple, got %s." % type(item).__name__,
                               "NOT_COLUMN_OR_INT_OR_LIST_OR_STR_OR_TUPLE", None,
                               {"arg_name": "item", "arg_type": type(item).__name__})

    def __getattr__(self, name: str) -> Column:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns:
            raise PySparkAttributeError(
                "[ATTRIBUTE_NOT_SUPPORTED] Attribute `%s` is not supported." % name,
                "ATTRIBUTE_NOT_SUPPORTED", None, {"attr_name": name})
        return Column(self._jdf.col(name))

    def __dir__(self) -> List[str]:
        attrs = set(super().__dir__())
        attrs.update(c for c in self.columns if c.isidentifier())
        return sorted(attrs)

    def col(self, name: str) -> Column:
        return Column(self._jdf.col(name))

    # ---- transformations --------------------------------------------------------------------
    def select(self, *cols: Any) -> "DataFrame":
        return self._wrap(self._jdf.select([_to_col_jc(c) for c in _flatten(cols)]))

    def selectExpr(self, *expr: Any) -> "DataFrame":
        return self._wrap(self._jdf.selectExpr(_flatten(expr)))

    def filter(self, condition: Union[Column, str]) -> "DataFrame":
        if isinstance(condition, str):
            return self._wrap(self._jdf.filterExpr(condition))
        if isinstance(condition, Column):
            return self._wrap(self._jdf.filter(condition._jc))
        raise PySparkTypeError("[NOT_COLUMN_OR_STR] Argument `condition` should be a Column or str, got "
                               "%s." % type(condition).__name__, "NOT_COLUMN_OR_STR", None,
                               {"arg_name": "condition", "arg_type": type(condition).__name__})

    where = filter

    def withColumn(self, colName: str, col: Column) -> "DataFrame":
        if not isinstance(col, Column):
            raise PySparkTypeError("[NOT_COLUMN] Argument `col` should be a Column, got %s."
                                   % type(col).__name__, "NOT_COLUMN", None,
                                   {"arg_name": "col", "arg_type": type(col).__name__})
        return self._wrap(self._jdf.withColumn(colName, col._jc))

    def withColumns(self, *colsMap: Dict[str, Column]) -> "DataFrame":
        if len(colsMap) != 1 or not isinstance(colsMap[0], dict):
            raise PySparkTypeError("[NOT_DICT] Argument `colsMap` should be a dict.", "NOT_DICT", None,
                                   {"arg_name": "colsMap"})
        return self._wrap(self._jdf.withColumns([(k, _to_jc(v)) for k, v in colsMap[0].items()]))

    def withColumnRenamed(self, existing: str, new: str) -> "DataFrame":
        return self._wrap(self._jdf.withColumnRenamed(existing, new))

    def withColumnsRenamed(self, colsMap: Dict[str, str]) -> "DataFrame":
        jdf = self._jdf
        for k, v in colsMap.items():
            jdf = jdf.withColumnRenamed(k, v)
        return self._wrap(jdf)

    def drop(self, *cols: Any) -> "DataFrame":
        names = []
        for c in cols:
            if isinstance(c, Column):
                names.append(str(c._jc.toString())[8:-2])
            else:
                names.append(c)
        return self._wrap(self._jdf.drop(names))

    def toDF(self, *cols: str) -> "DataFrame":
        if len(cols) != len(self.columns):
            raise IllegalArgumentException_(len(self.columns), len(cols))
        return self._wrap(self._jdf.select([_spate.col("`%s`" % old.replace("`", "``")).alias(new)
                                            for old, new in zip(self.columns, cols)]))

    def alias(self, alias: str) -> "DataFrame":
        return self._wrap(self._jdf.alias(alias))

    def groupBy(self, *cols: Any) -> "GroupedData":
        from spate.sql.group import GroupedData
        keys = [_to_col_jc(c) for c in _flatten(cols)]
        return GroupedData(self._jdf.groupBy(keys), self, keys)

    groupby = groupBy

    def agg(self, *exprs: Any) -> "DataFrame":
        return self.groupBy().agg(*exprs)

    def join(self, other: "DataFrame", on: Any = None, how: Optional[str] = None) -> "DataFrame":
        how = "inner" if how is None else how
        if on is None:
            if how in ("inner", "cross"):
                return self._wrap(self._jdf.joinCross(other._jdf))
            return self._wrap(self._jdf.joinOn(other._jdf, _spate.lit(True, _bool_type(), "UTC"), how))
        if isinstance(on, str):
            return self._wrap(self._jdf.joinUsing(other._jdf, [on], how))
        if isinstance(on, Column):
            return self._wrap(self._jdf.joinOn(other._jdf, on._jc, how))
        if isinstance(on, (list, tuple)):
            if all(isinstance(o, str) for o in on):
                return self._wrap(self._jdf.joinUsing(other._jdf, list(on), how))
            if all(isinstance(o, Column) for o in on):
                cond = on[0]
                for o in on[1:]:
                    cond = cond & o
                return self._wrap(self._jdf.joinOn(other._jdf, cond._jc, how))
        raise PySparkTypeError("[NOT_COLUMN_OR_LIST_OR_STR] Argument `on` should be a Column, list or str, "
                               "got %s." % type(on).__name__, "NOT_COLUMN_OR_LIST_OR_STR", None,
                               {"arg_name": "on", "arg_type": type(on).__name__})

    def crossJoin(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.crossJoin(other._jdf))

    def orderBy(self, *cols: Any, **kwargs: Any) -> "DataFrame":
        return self._wrap(self._jdf.orderBy(_sort_cols(cols, kwargs)))

    sort = orderBy

    def sortWithinPartitions(self, *cols: Any, **kwargs: Any) -> "DataFrame":
        return self.orderBy(*cols, **kwargs)

    def limit(self, num: int) -> "DataFrame":
        return self._wrap(self._jdf.limit(num))

    def offset(self, num: int) -> "DataFrame":
        return self._wrap(self._jdf.offset(num))

    def union(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.union(other._jdf))

    unionAll = union

    def unionByName(self, other: "DataFrame", allowMissingColumns: bool = False) -> "DataFrame":
        return self._wrap(self._jdf.unionByName(other._jdf, allowMissingColumns))

    def intersect(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.intersect(other._jdf))

    def intersectAll(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.intersectAll(other._jdf))

    def subtract(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.subtract(other._jdf))

    def exceptAll(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._jdf.exceptAll(other._jdf))

    def distinct(self) -> "DataFrame":
        return self._wrap(self._jdf.distinct())

    def dropDuplicates(self, subset: Optional[List[str]] = None) -> "DataFrame":
        _check_subset(subset)
        return self._wrap(self._jdf.dropDuplicates(list(subset or [])))

    drop_duplicates = dropDuplicates

    def dropDuplicatesWithinWatermark(self, subset: Optional[List[str]] = None) -> "DataFrame":
        """Streaming: drops a row whose key was seen while within the watermark (Spark 3.5+).
        Needs a watermark on the stream; in a batch query it is dropDuplicates."""
        _check_subset(subset)
        return self._wrap(self._jdf.dropDuplicatesWithinWatermark(list(subset or [])))

    drop_duplicates_within_watermark = dropDuplicatesWithinWatermark

    def withWatermark(self, eventTime: str, delayThreshold: str) -> "DataFrame":
        """Defines an event-time watermark: stateful streaming operators drop rows older than
        max(eventTime) - delayThreshold and evict state past it. No effect in batch queries."""
        for name, value in (("eventTime", eventTime), ("delayThreshold", delayThreshold)):
            if not isinstance(value, str):
                raise PySparkTypeError("[NOT_STR] Argument `%s` should be a str, got %s."
                                       % (name, type(value).__name__), "NOT_STR", None,
                                       {"arg_name": name, "arg_type": type(value).__name__})
        return self._wrap(self._jdf.withWatermark(eventTime, delayThreshold))

    def coalesce(self, numPartitions: int) -> "DataFrame":
        return self._wrap(self._jdf.coalesce(numPartitions))

    def repartition(self, numPartitions: Any = None, *cols: Any) -> "DataFrame":
        if isinstance(numPartitions, (str, Column)):
            cols = (numPartitions,) + cols
            numPartitions = 0
        return self._wrap(self._jdf.repartition(int(numPartitions or 0), [_to_col_jc(c) for c in cols]))

    def cache(self) -> "DataFrame":
        return self

    def persist(self, storageLevel: Any = None) -> "DataFrame":
        return self

    def unpersist(self, blocking: bool = False) -> "DataFrame":
        return self

    def hint(self, name: str, *parameters: Any) -> "DataFrame":
        return self

    @property
    def write(self) -> "DataFrameWriter":
        from spate.sql.readwriter import DataFrameWriter
        return DataFrameWriter(self)

    @property
    def writeStream(self) -> "DataStreamWriter":
        """A DataStreamWriter; only for streaming DataFrames (WRITE_STREAM_NOT_ALLOWED)."""
        from spate.sql.streaming.readwriter import DataStreamWriter
        if not self.isStreaming:
            from spate.errors import AnalysisException
            raise AnalysisException(
                "[WRITE_STREAM_NOT_ALLOWED] `writeStream` can be called only on streaming "
                "Dataset/DataFrame.", "WRITE_STREAM_NOT_ALLOWED", "42601", {})
        return DataStreamWriter(self)

    def transform(self, func: Any, *args: Any, **kwargs: Any) -> "DataFrame":
        result = func(self, *args, **kwargs)
        if not isinstance(result, DataFrame):
            raise PySparkTypeError("[NOT_DATAFRAME] Argument `func` should return a DataFrame, got %s."
                                   % type(result).__name__, "NOT_DATAFRAME", None,
                                   {"arg_name": "func", "arg_type": type(result).__name__})
        return result

    def unpivot(self, ids: Any, values: Any, variableColumnName: str, valueColumnName: str) -> "DataFrame":
        """Turns the `values` columns into rows of (variable, value) next to the `ids` columns
        (all other non-id columns when `values` is None)."""
        from spate.sql import functions as F
        ids = [ids] if isinstance(ids, (str, Column)) else list(ids)
        id_names = [c for c in ids if isinstance(c, str)]
        if values is None:
            values = [c for c in self.columns if c not in id_names]
        values = [values] if isinstance(values, (str, Column)) else list(values)
        if not values:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one value column needs to be specified "
                                    "for UNPIVOT, all columns specified as ids.", "UNPIVOT_REQUIRES_VALUE_COLUMNS",
                                    None, {})
        entries = []
        for v in values:
            name = v if isinstance(v, str) else str(v)[8:-2]
            col = F.col("`%s`" % v.replace("`", "``")) if isinstance(v, str) else v
            entries.append(F.named_struct(F.lit(variableColumnName), F.lit(name), F.lit(valueColumnName), col))
        exploded = self.select(*(ids + [F.explode(F.array(*entries)).alias("__unpivot")]))
        return exploded.select(*([F.col("`%s`" % c.replace("`", "``")) for c in exploded.columns[:-1]] +
                                 [F.col("__unpivot.`%s`" % variableColumnName),
                                  F.col("__unpivot.`%s`" % valueColumnName)]))

    melt = unpivot

    # ---- statistics -------------------------------------------------------------------------
    def describe(self, *cols: Any) -> "DataFrame":
        """count, mean, stddev, min and max of numeric and string columns, as strings."""
        return self._summary(["count", "mean", "stddev", "min", "max"], _flatten(cols))

    def summary(self, *statistics: str) -> "DataFrame":
        """Like describe(), with percentiles: count, mean, stddev, min, 25%, 50%, 75%, max."""
        stats = list(statistics) or ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
        return self._summary(stats, [])

    def _summary(self, stats: List[str], cols: List[str]) -> "DataFrame":
        from spate.sql import functions as F
        from spate.sql.types import StringType, StructField
        dtypes = dict(self.dtypes)
        numeric_types = ("tinyint", "smallint", "int", "bigint", "float", "double")
        if not cols:
            cols = [n for n, t in self.dtypes if t in numeric_types or t.startswith("decimal") or t == "string"]
        exprs, layout = [], []
        for stat in stats:
            row = []
            for c in cols:
                ref = F.col("`%s`" % c.replace("`", "``"))
                numeric = dtypes[c] in numeric_types or dtypes[c].startswith("decimal")
                if stat == "count":
                    e = F.count(ref)
                elif stat == "min":
                    e = F.min(ref)
                elif stat == "max":
                    e = F.max(ref)
                elif stat == "mean" and numeric:
                    e = F.avg(ref)
                elif stat == "stddev" and numeric:
                    e = F.stddev(ref)
                elif stat.endswith("%") and numeric:
                    e = F.percentile_approx(ref, float(stat[:-1]) / 100.0, 10000)
                elif stat in ("mean", "stddev") or stat.endswith("%"):
                    e = None
                else:
                    raise PySparkValueError("%s is not a recognised statistic." % stat,
                                            "ILLEGAL_ARGUMENT", None, {})
                if e is not None:
                    exprs.append(e.cast("string").alias("_s%d" % len(exprs)))
                    row.append(len(exprs) - 1)
                else:
                    row.append(None)
            layout.append(row)
        values = self.agg(*exprs).collect()[0] if exprs else ()
        rows = [tuple([stat] + [None if i is None else values[i] for i in row]) for stat, row in zip(stats, layout)]
        schema = StructType([StructField("summary", StringType())] + [StructField(c, StringType()) for c in cols])
        return self.sparkSession.createDataFrame(rows, schema)

    # ---- missing values (df.na) -------------------------------------------------------------
    @property
    def na(self) -> "DataFrameNaFunctions":
        return DataFrameNaFunctions(self)

    def fillna(self, value: Any, subset: Any = None) -> "DataFrame":
        """Replaces NULLs in the columns whose type fits `value` (a number fills numeric columns,
        a str string columns, a bool boolean columns; a dict maps column names to values)."""
        if isinstance(value, dict):
            fills = dict(value)
        else:
            if not isinstance(value, (bool, int, float, str)):
                raise PySparkTypeError("[NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_STR] Argument `value` should be "
                                       "a bool, dict, float, int or str, got %s." % type(value).__name__,
                                       "NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_STR", None,
                                       {"arg_name": "value", "arg_type": type(value).__name__})
            if isinstance(subset, str):
                subset = [subset]
            fills = {}
            for name, dtype in self.dtypes:
                if subset is not None and name not in subset:
                    continue
                numeric = dtype in ("tinyint", "smallint", "int", "bigint", "float", "double") or \
                    dtype.startswith("decimal")
                if isinstance(value, bool):
                    ok = dtype == "boolean"
                elif isinstance(value, (int, float)):
                    ok = numeric
                else:
                    ok = dtype == "string"
                if ok:
                    fills[name] = value
        from spate.sql import functions as F
        dtypes = dict(self.dtypes)
        cols = []
        for name in self.columns:
            c = F.col("`%s`" % name.replace("`", "``"))
            if name in fills:
                c = F.coalesce(c, F.lit(fills[name]).cast(dtypes[name])).alias(name)
            cols.append(c)
        return self.select(*cols)

    def dropna(self, how: str = "any", thresh: Optional[int] = None, subset: Any = None) -> "DataFrame":
        if how not in ("any", "all"):
            raise PySparkValueError("[VALUE_NOT_ANY_OR_ALL] Value for `how` must be 'any' or 'all', got '%s'."
                                    % how, "VALUE_NOT_ANY_OR_ALL", None, {"arg_name": "how", "arg_type": how})
        if isinstance(subset, str):
            subset = [subset]
        names = list(subset) if subset is not None else self.columns
        if thresh is None:
            thresh = len(names) if how == "any" else 1
        from spate.sql import functions as F
        non_null = None
        for n in names:
            term = F.when(F.col("`%s`" % n.replace("`", "``")).isNotNull(), 1).otherwise(0)
            non_null = term if non_null is None else non_null + term
        if non_null is None:
            return self
        return self.filter(non_null >= thresh)

    def foreach(self, f: Any) -> None:
        for row in self.collect():
            f(row)

    def foreachPartition(self, f: Any) -> None:
        f(iter(self.collect()))

    # ---- actions ----------------------------------------------------------------------------
    def collect(self) -> List[Row]:
        return self._jdf.collect()

    def toLocalIterator(self, prefetchPartitions: bool = False):
        return iter(self.collect())

    def count(self) -> int:
        return self._jdf.count()

    def take(self, num: int) -> List[Row]:
        return self._jdf.take(num)

    def tail(self, num: int) -> List[Row]:
        return self._jdf.tail(num)

    def head(self, n: Optional[int] = None) -> Union[Optional[Row], List[Row]]:
        if n is None:
            rs = self._jdf.take(1)
            return rs[0] if rs else None
        return self._jdf.take(n)

    def first(self) -> Optional[Row]:
        return self.head()

    def isEmpty(self) -> bool:
        return self._jdf.isEmpty()

    def showString(self, n: int = 20, truncate: Union[bool, int] = True, vertical: bool = False) -> str:
        if not isinstance(n, int) or isinstance(n, bool):
            raise PySparkTypeError("[NOT_INT] Argument `n` should be an int, got %s." % type(n).__name__,
                                   "NOT_INT", None, {"arg_name": "n", "arg_type": type(n).__name__})
        if not isinstance(vertical, bool):
            raise PySparkTypeError("[NOT_BOOL] Argument `vertical` should be a bool, got %s."
                                   % type(vertical).__name__, "NOT_BOOL", None,
                                   {"arg_name": "vertical", "arg_type": type(vertical).__name__})
        if isinstance(truncate, bool):
            width = 20 if truncate else 0
        elif isinstance(truncate, int):
            width = truncate
        else:
            raise PySparkTypeError("[NOT_BOOL] Argument `truncate` should be a bool, got %s."
                                   % type(truncate).__name__, "NOT_BOOL", None,
                                   {"arg_name": "truncate", "arg_type": type(truncate).__name__})
        return self._jdf.showString(n, width, vertical)

    def show(self, n: int = 20, truncate: Union[bool, int] = True, vertical: bool = False) -> None:
        """Prints the first `n` rows as Spark's show() does (to sys.stdout)."""
        print(self.showString(n, truncate, vertical))

    def explain(self, extended: Any = None, mode: Optional[str] = None) -> None:
        if isinstance(extended, str):
            mode, extended = extended, None
        if mode is None:
            mode = "extended" if extended else "simple"
        print(self._jdf.explainString(mode))

    def createOrReplaceTempView(self, name: str) -> None:
        self._jdf.createOrReplaceTempView(name)

    def createTempView(self, name: str) -> None:
        self._jdf.createTempView(name)

    def createGlobalTempView(self, name: str) -> None:
        self._jdf.createGlobalTempView(name)

    def createOrReplaceGlobalTempView(self, name: str) -> None:
        self._jdf.createOrReplaceGlobalTempView(name)

    registerTempTable = createOrReplaceTempView

    def toPandas(self):
        """The rows as a pandas.DataFrame (requires pandas), with PySpark's dtypes: integral and
        boolean columns without NULLs get their numpy type, floats float32/64, timestamps
        datetime64[ns], day-time intervals timedelta64[ns]; everything else is object."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("toPandas() requires pandas") from e
        from spate.sql import types as T
        rows = self.collect()
        pdf = pd.DataFrame.from_records([tuple(r) for r in rows], columns=self.columns)
        for i, field in enumerate(self.schema.fields):
            t = field.dataType
            series = pdf.iloc[:, i]
            has_nulls = series.isnull().any()
            target = None
            if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
                kind = {T.ByteType: "int8", T.ShortType: "int16", T.IntegerType: "int32", T.LongType: "int64"}
                target = "float64" if has_nulls else kind[type(t)]
            elif isinstance(t, T.FloatType):
                target = "float32"
            elif isinstance(t, T.DoubleType):
                target = "float64"
            elif isinstance(t, T.BooleanType):
                target = None if has_nulls else "bool"
            elif isinstance(t, (T.TimestampType, T.TimestampNTZType)):
                target = "datetime64[ns]"
            elif isinstance(t, T.DayTimeIntervalType):
                target = "timedelta64[ns]"
            if target is not None:
                if hasattr(pdf, "isetitem"):
                    pdf.isetitem(i, series.astype(target))
                else:  # pandas < 1.5
                    pdf[pdf.columns[i]] = series.astype(target)
        return pdf

    # ---- Arrow PyCapsule interface (pyarrow, polars, DuckDB read these without copies) -----
    def __arrow_c_schema__(self) -> Any:
        """The schema as an "arrow_schema" PyCapsule (a struct of the columns)."""
        return self._jdf.arrowSchema()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """Runs the query; its batches as an "arrow_array_stream" PyCapsule (zero-copy)."""
        return self._jdf.arrowStream()

    def __iter__(self):
        raise PySparkTypeError("[NOT_ITERABLE] DataFrame is not iterable.", "NOT_ITERABLE", None,
                               {"objectName": "DataFrame"})


class DataFrameNaFunctions:
    """df.na: fill and drop (pyspark.sql.DataFrameNaFunctions)."""

    def __init__(self, df: DataFrame):
        self.df = df

    def fill(self, value: Any, subset: Any = None) -> DataFrame:
        return self.df.fillna(value, subset)

    def drop(self, how: str = "any", thresh: Optional[int] = None, subset: Any = None) -> DataFrame:
        return self.df.dropna(how, thresh, subset)


def _bool_type():
    from spate.sql.types import BooleanType
    return BooleanType()


def IllegalArgumentException_(expected: int, got: int):
    from spate.errors import IllegalArgumentException
    return IllegalArgumentException(
        "requirement failed: The number of columns doesn't match.\nOld column names (%d)\nNew column names (%d)"
        % (expected, got))


from spate.errors import PySparkIndexError  # noqa: E402
