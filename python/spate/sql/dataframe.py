"""DataFrame (pyspark.sql.DataFrame) over the engine's DataFrame."""

import sys
from typing import Any, Dict, List, Optional, Tuple, Union

from spate import _spate
from spate.errors import (PySparkAttributeError, PySparkNotImplementedError, PySparkTypeError,
                          PySparkValueError)
from spate.sql.column import Column, _to_col_jc, _to_jc
from spate.sql.types import Row, StructType

# Spark's join strategy hint names (JoinStrategyHint.hintAliases).
_JOIN_HINTS = frozenset(["broadcast", "broadcastjoin", "mapjoin", "shuffle_merge", "mergejoin",
                         "merge", "shuffle_hash", "shuffle_replicate_nl"])

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
        self._session = session

    @property
    def sparkSession(self) -> Any:
        return self._session

    def _wrap(self, jdf: Any) -> "DataFrame":
        return DataFrame(jdf, self._session)

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

    def colRegex(self, colName: str) -> Column:
        """The columns whose names match a Java regex in backticks ("`(id|v)_.*`"; "t.`...`"
        for those of the DataFrame aliased t), expanded by select; a name without backticks
        is that column (Spark's colRegex)."""
        if not isinstance(colName, str):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] Argument `colName` should be str, got %s."
                                   % type(colName).__name__, "NOT_EXPECTED_TYPE", None,
                                   {"arg_name": "colName", "expected_type": "str",
                                    "arg_type": type(colName).__name__})
        return Column(self._jdf.colRegex(colName))

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
        if not isinstance(colsMap, dict):
            raise PySparkTypeError("[NOT_DICT] Argument `colsMap` should be a dict, got %s."
                                   % type(colsMap).__name__, "NOT_DICT", None,
                                   {"arg_name": "colsMap", "arg_type": type(colsMap).__name__})
        return self._wrap(self._jdf.withColumnsRenamed(list(colsMap.items())))

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

    def cube(self, *cols: Any) -> "GroupedData":
        """GROUP BY CUBE: one group per subset of `cols` (the others NULL)."""
        from spate.sql.group import GroupedData
        return GroupedData(self._jdf.cube([_to_col_jc(c) for c in _flatten(cols)]), self, grouping_sets=True)

    def rollup(self, *cols: Any) -> "GroupedData":
        """GROUP BY ROLLUP: one group per prefix of `cols` (the others NULL)."""
        from spate.sql.group import GroupedData
        return GroupedData(self._jdf.rollup([_to_col_jc(c) for c in _flatten(cols)]), self, grouping_sets=True)

    def groupingSets(self, groupingSets: Any, *cols: Any) -> "GroupedData":
        """GROUP BY GROUPING SETS: `groupingSets` lists sets of the key columns `cols`."""
        from spate.sql.group import GroupedData
        sets = [[_to_col_jc(c) for c in (s if isinstance(s, (list, tuple)) else [s])]
                for s in groupingSets]
        return GroupedData(self._jdf.groupingSets(sets, [_to_col_jc(c) for c in _flatten(cols)]), self, grouping_sets=True)

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

    # spate recomputes a plan per action (one process: nothing to keep on executors); the
    # level a DataFrame was persisted with is what storageLevel reports, as Spark's. As in
    # Spark, persisting again keeps the first level.
    def cache(self) -> "DataFrame":
        return self.persist()

    def persist(self, storageLevel: Any = None) -> "DataFrame":
        from spate.storagelevel import StorageLevel
        if storageLevel is None:
            storageLevel = StorageLevel.MEMORY_AND_DISK_DESER
        if not isinstance(storageLevel, StorageLevel):
            raise PySparkTypeError(
                "[NOT_STORAGELEVEL] Argument `storageLevel` should be a StorageLevel, got %s."
                % type(storageLevel).__name__, "NOT_STORAGELEVEL", None,
                {"arg_name": "storageLevel", "arg_type": type(storageLevel).__name__})
        if getattr(self, "_storage_level", None) is None:
            self._storage_level = storageLevel
        return self

    def unpersist(self, blocking: bool = False) -> "DataFrame":
        self._storage_level = None
        return self

    @property
    def storageLevel(self) -> Any:
        """The level of cache() / persist() (StorageLevel.NONE when not persisted)."""
        from spate.storagelevel import StorageLevel
        return getattr(self, "_storage_level", None) or StorageLevel.NONE

    def isLocal(self) -> bool:
        """True: collect() and take() run without executors. spate runs every plan in its own
        process; Spark answers True only for a local relation or a command's result
        (docs/spark-differences.md D21)."""
        return True

    def hint(self, name: str, *parameters: Any) -> "DataFrame":
        """Spark's join strategy hints: "broadcast" / "broadcastjoin" / "mapjoin" (a join
        broadcasts this side where the join type allows it), "shuffle_merge" / "mergejoin"
        / "merge", "shuffle_hash", "shuffle_replicate_nl" (the join stays shuffled).
        Without parameters the whole DataFrame is hinted; string parameters name the
        relations inside it. Other hints (the partitioning hints among them) are ignored
        with a warning, as Spark ignores the hints it does not know."""
        if len(parameters) == 1 and isinstance(parameters[0], list):
            parameters = tuple(parameters[0])
        if not isinstance(name, str):
            raise PySparkTypeError("[NOT_EXPECTED_TYPE] Argument `name` should be str, got %s."
                                   % type(name).__name__, "NOT_EXPECTED_TYPE", None,
                                   {"arg_name": "name", "expected_type": "str",
                                    "arg_type": type(name).__name__})
        for p in parameters:
            ok = isinstance(p, (str, float, int, Column)) or (
                isinstance(p, list) and all(isinstance(x, (str, float, int)) for x in p))
            if not ok:
                raise PySparkTypeError(
                    "[DISALLOWED_TYPE_FOR_CONTAINER] Argument `parameters`(type: tuple) should only "
                    "contain a type in [str, float, int, Column, list[str], list[float], list[int]], "
                    "got %s" % type(p).__name__, "DISALLOWED_TYPE_FOR_CONTAINER", None,
                    {"arg_name": "parameters", "arg_type": "tuple",
                     "allowed_types": "str, float, int, Column, list[str], list[float], list[int]",
                     "item_type": type(p).__name__})
        if name.lower() not in _JOIN_HINTS:
            import warnings
            warnings.warn("spate ignores the hint %r: it knows the join strategy hints only (%s)"
                          % (name, ", ".join(sorted(_JOIN_HINTS))), stacklevel=2)
        from spate.sql.column import _lit_jc
        params = []
        for p in parameters:
            for v in (p if isinstance(p, list) else [p]):
                params.append(v._jc if isinstance(v, Column) else _lit_jc(v))
        return self._wrap(self._jdf.hint(name, params))

    # ---- sampling ---------------------------------------------------------------------------
    def sample(self, withReplacement: Any = None, fraction: Any = None, seed: Optional[int] = None) -> "DataFrame":
        """A Bernoulli sample (Poisson with replacement) drawn per row from a hash of the seed
        and the row's position: a seed gives the same rows for the same input, but not the
        rows Spark's XORShiftRandom picks (docs/spark-differences.md)."""
        with_replacement, frac, sd = _sample_args(withReplacement, fraction, seed)
        return self._wrap(self._jdf.sample(with_replacement, frac, sd))

    def randomSplit(self, weights: List[float], seed: Optional[int] = None) -> List["DataFrame"]:
        """Disjoint DataFrames that cover the rows, in proportions `weights` (normalized)."""
        for w in weights:
            if w < 0.0:
                raise PySparkValueError("[VALUE_NOT_POSITIVE] Value for `weights` must be positive, got '%s'."
                                        % w, "VALUE_NOT_POSITIVE", None,
                                        {"arg_name": "weights", "arg_value": str(w)})
        if seed is not None and not isinstance(seed, int):
            raise PySparkTypeError("[NOT_INT] Argument `seed` should be an int, got %s." % type(seed).__name__,
                                   "NOT_INT", None, {"arg_name": "seed", "arg_type": type(seed).__name__})
        return [self._wrap(j) for j in self._jdf.randomSplit([float(w) for w in weights], seed)]

    def sampleBy(self, col: Any, fractions: Dict[Any, float], seed: Optional[int] = None) -> "DataFrame":
        return self.stat.sampleBy(col, fractions, seed)

    # ---- replace, JSON, observe, transpose ----------------------------------------------------
    def replace(self, to_replace: Any, value: Any = None, subset: Any = None, **kwargs: Any) -> "DataFrame":
        """Replaces values equal to `to_replace` (a value, a list, or a dict of old -> new)
        by `value` in the columns of their kind (numbers, strings or booleans)."""
        value_given = "value" in kwargs or value is not None or not isinstance(to_replace, dict)
        value = kwargs.pop("value", value)
        if isinstance(to_replace, dict):
            if value_given and value is not None:
                pass  # PySpark ignores `value` when to_replace is a dict
            pairs = list(to_replace.items())
        else:
            if not isinstance(to_replace, (bool, int, float, str, list, tuple)):
                raise PySparkTypeError(
                    "[NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_LIST_OR_STR_OR_TUPLE] Argument `to_replace` should "
                    "be a bool, dict, float, int, list, str or tuple, got %s." % type(to_replace).__name__,
                    "NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_LIST_OR_STR_OR_TUPLE", None,
                    {"arg_name": "to_replace", "arg_type": type(to_replace).__name__})
            if value is not None and not isinstance(value, (bool, int, float, str, list, tuple)):
                raise PySparkTypeError(
                    "[NOT_BOOL_OR_FLOAT_OR_INT_OR_LIST_OR_NONE_OR_STR_OR_TUPLE] Argument `value` should be "
                    "a bool, float, int, list, None, str or tuple, got %s." % type(value).__name__,
                    "NOT_BOOL_OR_FLOAT_OR_INT_OR_LIST_OR_NONE_OR_STR_OR_TUPLE", None,
                    {"arg_name": "value", "arg_type": type(value).__name__})
            keys = list(to_replace) if isinstance(to_replace, (list, tuple)) else [to_replace]
            if isinstance(value, (list, tuple)):
                values = list(value)
                if len(values) != len(keys):
                    raise PySparkValueError(
                        "[LENGTH_SHOULD_BE_THE_SAME] to_replace and value should be of the same length, "
                        "got %d and %d." % (len(keys), len(values)), "LENGTH_SHOULD_BE_THE_SAME", None,
                        {"arg1": "to_replace", "arg2": "value", "arg1_length": str(len(keys)),
                         "arg2_length": str(len(values))})
            else:
                values = [value] * len(keys)
            pairs = list(zip(keys, values))
        if subset is not None and not isinstance(subset, (list, tuple, str)):
            raise PySparkTypeError("[NOT_LIST_OR_STR_OR_TUPLE] Argument `subset` should be a list, str or "
                                   "tuple, got %s." % type(subset).__name__, "NOT_LIST_OR_STR_OR_TUPLE", None,
                                   {"arg_name": "subset", "arg_type": type(subset).__name__})
        subset = [subset] if isinstance(subset, str) else list(subset or [])
        kinds = set()
        for k, v in pairs:
            for x in (k, v):
                if x is None and x is v:
                    continue
                kinds.add("bool" if isinstance(x, bool) else "num" if isinstance(x, (int, float)) else
                          "str" if isinstance(x, str) else type(x).__name__)
        if len(kinds) > 1 or (kinds and kinds.pop() not in ("bool", "num", "str")):
            raise PySparkValueError("[MIXED_TYPE_REPLACEMENT] Mixed type replacements are not supported.",
                                    "MIXED_TYPE_REPLACEMENT", None, {})
        from spate.sql.column import _lit_jc
        return self._wrap(self._jdf.replace([(_lit_jc(k), _lit_jc(v)) for k, v in pairs], subset))

    def toJSON(self, use_unicode: bool = True) -> "DataFrame":
        """The rows as JSON strings in a column `value`. Spark Connect's shape: classic
        PySpark returns an RDD of str, and spate has no RDDs (docs/spark-differences.md)."""
        return self._wrap(self._jdf.toJSON())

    def observe(self, observation: Any, *exprs: Column) -> "DataFrame":
        """Named aggregate metrics of the rows: `observation` is an Observation (its get()
        returns them) or a name (batch metrics reach no listener in spate)."""
        from spate.sql.observation import Observation
        if not exprs:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one Column must be specified.",
                                    "CANNOT_BE_EMPTY", None, {"item": "exprs"})
        if not all(isinstance(e, Column) for e in exprs):
            raise PySparkTypeError("[NOT_LIST_OF_COLUMN] Argument `exprs` should be a list of Column.",
                                   "NOT_LIST_OF_COLUMN", None, {"arg_name": "exprs"})
        if isinstance(observation, Observation):
            return observation._on(self, exprs)
        if isinstance(observation, str):
            if self.isStreaming:
                raise PySparkNotImplementedError(
                    "[NOT_IMPLEMENTED] observe on a streaming DataFrame is not implemented: spate's "
                    "progress has no observedMetrics yet.", "NOT_IMPLEMENTED", "0A000",
                    {"feature": "observe on a streaming DataFrame"})
            return self
        raise PySparkTypeError("[NOT_LIST_OF_COLUMN] Argument `observation` should be an Observation or "
                               "str, got %s." % type(observation).__name__, "NOT_OBSERVATION_OR_STR",
                               None, {"arg_name": "observation", "arg_type": type(observation).__name__})

    def transpose(self, indexColumn: Any = None) -> "DataFrame":
        """Rows become columns: the values of `indexColumn` (the first column by default),
        sorted, name the new columns; column `key` holds the other columns' names. Their
        values take the least common type of those columns."""
        from spate.sql import functions as F
        from spate.sql.types import StructField, StructType as ST, StringType
        from spate.errors import AnalysisException
        cols = self.columns
        if indexColumn is None:
            index = cols[0]
        elif isinstance(indexColumn, Column):
            index = str(indexColumn._jc.toString())[8:-2]
        else:
            index = indexColumn
        others = [c for c in cols if c != index]
        quoted = lambda c: F.col("`%s`" % c.replace("`", "``"))  # noqa: E731
        # The least common type: what an array of the columns' values gets.
        if others:
            probe = self.select(F.array(*[quoted(c) for c in others]).alias("v")).schema.fields[0]
            value_type = probe.dataType.elementType
        else:
            value_type = StringType()
        index_type = dict(self.dtypes)[index]
        if index_type not in ("string", "tinyint", "smallint", "int", "bigint", "float", "double", "boolean",
                              "date", "timestamp") and not index_type.startswith("decimal"):
            raise AnalysisException(
                "[TRANSPOSE_INVALID_INDEX_COLUMN] Invalid index column for TRANSPOSE because: Index column "
                "must be of atomic type, but found: %s." % index_type, "TRANSPOSE_INVALID_INDEX_COLUMN",
                "42804", {"reason": "Index column must be of atomic type, but found: %s" % index_type})
        rows = self.select(quoted(index), *[quoted(c).cast(value_type.simpleString()) for c in others]) \
            .filter(quoted(index).isNotNull()).orderBy(quoted(index)).collect()
        names = [str(r[0]) if not isinstance(r[0], bool) else str(r[0]).lower() for r in rows]
        schema = ST([StructField("key", StringType(), False)] +
                    [StructField(n, value_type, True) for n in names])
        data = [tuple([c] + [r[i + 1] for r in rows]) for i, c in enumerate(others)]
        return self.sparkSession.createDataFrame(data, schema)

    @property
    def stat(self) -> "DataFrameStatFunctions":
        return DataFrameStatFunctions(self)

    def corr(self, col1: str, col2: str, method: Optional[str] = None) -> float:
        return self.stat.corr(col1, col2, method)

    def cov(self, col1: str, col2: str) -> float:
        return self.stat.cov(col1, col2)

    def crosstab(self, col1: str, col2: str) -> "DataFrame":
        return self.stat.crosstab(col1, col2)

    def freqItems(self, cols: Any, support: Optional[float] = None) -> "DataFrame":
        return self.stat.freqItems(cols, support)

    def approxQuantile(self, col: Any, probabilities: Any, relativeError: float) -> Any:
        return self.stat.approxQuantile(col, probabilities, relativeError)

    def to(self, schema: StructType) -> "DataFrame":
        """The columns of `schema`, in its order, matched by name and cast to its types (a
        column the DataFrame lacks is NULL); a non-nullable field needs a non-nullable column."""
        from spate.sql import functions as F
        from spate.errors import AnalysisException
        if not isinstance(schema, StructType):
            raise PySparkTypeError("[NOT_STRUCT] Argument `schema` should be a StructType, got %s."
                                   % type(schema).__name__, "NOT_STRUCT", None,
                                   {"arg_name": "schema", "arg_type": type(schema).__name__})
        have = {f.name.lower(): f for f in self.schema.fields}
        cols = []
        for f in schema.fields:
            src = have.get(f.name.lower())
            if not f.nullable and (src is None or src.nullable):
                raise AnalysisException(
                    "[NULLABLE_COLUMN_OR_FIELD] Column or field `%s` is nullable while it's required to be "
                    "non-nullable. SQLSTATE: 42000" % f.name, "NULLABLE_COLUMN_OR_FIELD", "42000",
                    {"name": "`%s`" % f.name})
            c = F.lit(None) if src is None else F.col("`%s`" % src.name.replace("`", "``"))
            if src is None or src.dataType != f.dataType:
                c = c.cast(f.dataType)
            cols.append(c.alias(f.name))
        return self.select(*cols)

    def zipWithIndex(self, indexColName: str = "index") -> "DataFrame":
        """The rows with a column of their position (0, 1, ...), in the DataFrame's order."""
        from spate.sql import functions as F
        from spate.sql.window import Window
        order = Window.orderBy(F.monotonically_increasing_id())
        return self.withColumn(indexColName, (F.row_number().over(order) - F.lit(1)).cast("bigint"))

    def localCheckpoint(self, eager: bool = True, storageLevel: Any = None) -> "DataFrame":
        """The rows computed once and kept in memory (the plan is not run again)."""
        return self.sparkSession.createDataFrame(self)

    def checkpoint(self, eager: bool = True) -> "DataFrame":
        """As localCheckpoint (the rows computed once and kept in memory); needs
        sparkContext.setCheckpointDir() first, as Spark (docs/spark-differences.md D21)."""
        from spate.sql import session as _session
        if _session._checkpoint_dir is None:
            from spate.errors import SparkException
            raise SparkException("Checkpoint directory has not been set in the SparkContext")
        return self.localCheckpoint(eager)

    def repartitionByRange(self, numPartitions: Any, *cols: Any) -> "DataFrame":
        """Repartitions by `cols` (spate hashes them: the rows are the same, only their
        partitions differ from Spark's ranges)."""
        if isinstance(numPartitions, (str, Column)):
            cols = (numPartitions,) + cols
            numPartitions = 0
        if not cols:
            raise PySparkValueError("[CANNOT_BE_EMPTY] At least one partition-by expression must be specified.",
                                    "CANNOT_BE_EMPTY", None, {"item": "partition-by expression"})
        return self.repartition(int(numPartitions or 0), *cols)

    def toArrow(self) -> Any:
        """The rows as a pyarrow.Table (requires pyarrow), through the Arrow C stream."""
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("toArrow() requires pyarrow") from e
        return pa.RecordBatchReader.from_stream(self).read_all()

    @property
    def write(self) -> "DataFrameWriter":
        from spate.sql.readwriter import DataFrameWriter
        return DataFrameWriter(self)

    def mapInPandas(self, func: Any, schema: Any, barrier: bool = False, profile: Any = None) -> "DataFrame":
        """func(iterator of pandas DataFrames) -> iterator of pandas DataFrames, over the rows
        of each partition (lazily: a stateless processor of the grouped operator keyed by
        spark_partition_id()); the results' columns by name (else by position) become rows
        of `schema`. Partition boundaries are spate's own."""
        from spate.sql.group import GroupedData
        from spate.sql.streaming.stateful_processor import StatefulProcessor

        class _PerPartition(StatefulProcessor):
            def init(self, handle: Any) -> None:
                pass

            def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
                return func(rows)

        keys = [_spate.call_function("spark_partition_id", [])]
        grouped = GroupedData(self._jdf.groupBy(keys), self, keys)
        return grouped._transform_with_state(_PerPartition(), schema, "Append", "None", True,
                                             "mapInPandas")

    def scalar(self) -> Column:
        """This DataFrame (one column, at most one row) as a scalar subquery Column."""
        return Column(self._jdf.scalar())

    def exists(self) -> Column:
        """EXISTS (this DataFrame) as a Column."""
        return Column(self._jdf.exists())

    def mergeInto(self, table: str, condition: Column) -> "MergeIntoWriter":
        """MERGE of this DataFrame into the Delta table `table` (spate.sql.merge)."""
        from spate.sql.merge import MergeIntoWriter
        if not isinstance(condition, Column):
            raise PySparkTypeError("[NOT_COLUMN] Argument `condition` should be a Column, got %s."
                                   % type(condition).__name__, "NOT_COLUMN", None,
                                   {"arg_name": "condition", "arg_type": type(condition).__name__})
        return MergeIntoWriter(self, table, condition)

    def writeTo(self, table: str) -> "DataFrameWriterV2":
        """A DataFrameWriterV2 for the table `table` (create, append, overwrite, ...)."""
        from spate.sql.readwriter import DataFrameWriterV2
        return DataFrameWriterV2(self, table)

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
    """df.na: fill, drop and replace (pyspark.sql.DataFrameNaFunctions)."""

    def __init__(self, df: DataFrame):
        self.df = df

    def fill(self, value: Any, subset: Any = None) -> DataFrame:
        return self.df.fillna(value, subset)

    def drop(self, how: str = "any", thresh: Optional[int] = None, subset: Any = None) -> DataFrame:
        return self.df.dropna(how, thresh, subset)

    def replace(self, to_replace: Any, value: Any = None, subset: Any = None) -> DataFrame:
        return self.df.replace(to_replace, value, subset)


class DataFrameStatFunctions:
    """df.stat (pyspark.sql.DataFrameStatFunctions)."""

    def __init__(self, df: DataFrame):
        self.df = df

    def corr(self, col1: str, col2: str, method: Optional[str] = None) -> float:
        """Pearson correlation of two numeric columns."""
        _check_str("col1", col1)
        _check_str("col2", col2)
        method = method or "pearson"
        if method != "pearson":
            raise PySparkValueError(
                "[VALUE_NOT_PEARSON] Value for `method` only supports the 'pearson', got '%s'." % method,
                "VALUE_NOT_PEARSON", None, {"arg_name": "method", "arg_value": method})
        return self.df._jdf.statCorr(col1, col2, method)

    def cov(self, col1: str, col2: str) -> float:
        """Sample covariance of two numeric columns."""
        _check_str("col1", col1)
        _check_str("col2", col2)
        return self.df._jdf.statCov(col1, col2)

    def crosstab(self, col1: str, col2: str) -> DataFrame:
        """Pair counts: a row per value of col1, a column per value of col2."""
        _check_str("col1", col1)
        _check_str("col2", col2)
        return self.df._wrap(self.df._jdf.statCrosstab(col1, col2))

    def approxQuantile(self, col: Any, probabilities: Any, relativeError: float) -> Any:
        """Quantiles of numeric columns (NULLs ignored); relativeError 0 is exact."""
        single = isinstance(col, str)
        if not single and not (isinstance(col, (list, tuple)) and all(isinstance(c, str) for c in col)):
            raise PySparkTypeError("[NOT_LIST_OR_STR_OR_TUPLE] Argument `col` should be a list, str or tuple, "
                                   "got %s." % type(col).__name__, "NOT_LIST_OR_STR_OR_TUPLE", None,
                                   {"arg_name": "col", "arg_type": type(col).__name__})
        if not isinstance(probabilities, (list, tuple)) or not all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p <= 1 for p in probabilities):
            raise PySparkTypeError("[NOT_LIST_OF_FLOAT_OR_INT] Argument `probabilities` should be a list of "
                                   "float or int, got %s." % type(probabilities).__name__,
                                   "NOT_LIST_OF_FLOAT_OR_INT", None,
                                   {"arg_name": "probabilities", "arg_type": type(probabilities).__name__})
        if not isinstance(relativeError, (int, float)) or relativeError < 0:
            raise PySparkValueError("[NEGATIVE_VALUE] Value for `relativeError` must be greater than or equal "
                                    "to 0, got '%s'." % relativeError, "NEGATIVE_VALUE", None,
                                    {"arg_name": "relativeError", "arg_value": str(relativeError)})
        cols = [col] if single else list(col)
        out = self.df._jdf.statApproxQuantile(cols, [float(p) for p in probabilities], float(relativeError))
        return list(out[0]) if single else [list(q) for q in out]

    def freqItems(self, cols: Any, support: Optional[float] = None) -> DataFrame:
        """Items that occur in more than `support` (default 1%) of the rows, per column, in
        array columns `<col>_freqItems`. Exact: Spark's one-pass algorithm may also list
        some items below the support (docs/spark-differences.md)."""
        if isinstance(cols, tuple):
            cols = list(cols)
        if not isinstance(cols, list):
            raise PySparkTypeError("[NOT_LIST_OR_TUPLE] Argument `cols` should be a list or tuple, got %s."
                                   % type(cols).__name__, "NOT_LIST_OR_TUPLE", None,
                                   {"arg_name": "cols", "arg_type": type(cols).__name__})
        support = 0.01 if support is None else support
        return self.df._wrap(self.df._jdf.statFreqItems([str(c) for c in cols], float(support)))

    def sampleBy(self, col: Any, fractions: Dict[Any, float], seed: Optional[int] = None) -> DataFrame:
        """A stratified sample: rows whose `col` is a key of `fractions` kept with its
        fraction (others dropped), each row drawn as in DataFrame.sample()."""
        if not isinstance(col, (str, Column)):
            raise PySparkTypeError("[NOT_COLUMN_OR_STR] Argument `col` should be a Column or str, got %s."
                                   % type(col).__name__, "NOT_COLUMN_OR_STR", None,
                                   {"arg_name": "col", "arg_type": type(col).__name__})
        if not isinstance(fractions, dict):
            raise PySparkTypeError("[NOT_DICT] Argument `fractions` should be a dict, got %s."
                                   % type(fractions).__name__, "NOT_DICT", None,
                                   {"arg_name": "fractions", "arg_type": type(fractions).__name__})
        for k, v in fractions.items():
            if not isinstance(k, (float, int, str)):
                raise PySparkTypeError("[DISALLOWED_TYPE_FOR_CONTAINER] Argument `fractions`(type: dict) should "
                                       "only contain a type in [float, int, str], got %s" % type(k).__name__,
                                       "DISALLOWED_TYPE_FOR_CONTAINER", None,
                                       {"arg_name": "fractions", "arg_type": "dict",
                                        "allowed_types": "float, int, str", "item_type": type(k).__name__})
        import random
        from spate.sql.column import _lit_jc
        seed = seed if seed is not None else random.randint(0, sys.maxsize)
        pairs = [(_lit_jc(k), float(v)) for k, v in fractions.items()]
        return self.df._wrap(self.df._jdf.statSampleBy(_to_col_jc(col), pairs, int(seed)))


def _check_str(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise PySparkTypeError("[NOT_STR] Argument `%s` should be a str, got %s." % (name, type(value).__name__),
                               "NOT_STR", None, {"arg_name": name, "arg_type": type(value).__name__})


def _sample_args(with_replacement: Any, fraction: Any, seed: Any) -> Tuple[bool, float, Optional[int]]:
    """PySpark's ways to call sample(): (fraction[, seed]), (withReplacement, fraction[, seed])
    and keywords; a fraction must be a float."""
    if isinstance(with_replacement, bool) and isinstance(fraction, float):
        return with_replacement, fraction, None if seed is None else int(seed)
    if with_replacement is None and isinstance(fraction, float):
        return False, fraction, None if seed is None else int(seed)
    if isinstance(with_replacement, float):
        return False, with_replacement, None if fraction is None else int(fraction)
    kinds = ", ".join(type(a).__name__ for a in (with_replacement, fraction, seed))
    raise PySparkTypeError(
        "[NOT_EXPECTED_TYPE] Argument `withReplacement (optional), fraction (required) and seed (optional)` "
        "should be bool, float or int, got %s." % kinds, "NOT_EXPECTED_TYPE", None,
        {"expected_type": "bool, float or int",
         "arg_name": "withReplacement (optional), fraction (required) and seed (optional)", "arg_type": kinds})


def _bool_type():
    from spate.sql.types import BooleanType
    return BooleanType()


def IllegalArgumentException_(expected: int, got: int):
    from spate.errors import IllegalArgumentException
    return IllegalArgumentException(
        "requirement failed: The number of columns doesn't match.\nOld column names (%d)\nNew column names (%d)"
        % (expected, got))


from spate.errors import PySparkIndexError  # noqa: E402
