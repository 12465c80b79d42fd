"""spate.delta: Delta Lake tables, shaped as delta-spark's ``delta.tables.DeltaTable``.

    from spate.delta import DeltaTable
    t = DeltaTable.forName(spark, "events")      # or DeltaTable.forPath(spark, "/data/t")
    t.history(5).show()
    t.toDF().count()
    (t.alias("t").merge(updates.alias("s"), "t.id = s.id")
        .whenMatchedUpdate(set={"v": "s.v"}).whenNotMatchedInsertAll().execute())
"""

from typing import Any, Dict, Optional, Union

from spate import _spate
from spate.sql.column import Column
from spate.sql.dataframe import DataFrame

__all__ = ["DeltaTable", "DeltaMergeBuilder", "DeltaOptimizeBuilder"]

ExpressionOrColumn = Union[str, Column]


def _cond_jc(condition: Optional[ExpressionOrColumn]):
    """A condition (SQL text or Column) as a native Column, or None."""
    if condition is None:
        return None
    if isinstance(condition, Column):
        return condition._jc
    if isinstance(condition, str):
        return _spate.expr(condition)
    raise TypeError(f"condition must be a str or a Column, got {type(condition).__name__}")


def _set_jc(assignments: Optional[Dict[str, Any]], what: str):
    """{column: SQL text | Column | literal} as native (name, Column) pairs."""
    if not assignments:
        raise ValueError(f"{what} must be a non-empty dict of column names to expressions")
    from spate.sql.column import _lit_jc

    out = []
    for name, value in assignments.items():
        if isinstance(value, Column):
            out.append((name, value._jc))
        elif isinstance(value, str):
            out.append((name, _spate.expr(value)))
        else:
            out.append((name, _lit_jc(value)))
    return out


class DeltaTable:
    """A Delta table at a path or in the catalog. Reads go to the table's latest version."""

    def __init__(self, spark: Any, jdt: Any):
        self._spark = spark
        self._jdt = jdt

    @classmethod
    def forPath(cls, sparkSession: Any, path: str, hadoopConf: Optional[dict] = None) -> "DeltaTable":
        """The table at ``path``; DELTA_MISSING_DELTA_TABLE when it holds no Delta log."""
        return cls(sparkSession, _spate.DeltaTable.forPath(sparkSession._js, path))

    @classmethod
    def forName(cls, sparkSession: Any, tableOrViewName: str) -> "DeltaTable":
        """A catalog table (``t``, ``db.t``, ``spark_catalog.db.t``) or ``delta.`/path```."""
        return cls(sparkSession, _spate.DeltaTable.forName(sparkSession._js, tableOrViewName))

    @classmethod
    def isDeltaTable(cls, sparkSession: Any, identifier: str) -> bool:
        return _spate.DeltaTable.isDeltaTable(sparkSession._js, identifier)

    def toDF(self) -> DataFrame:
        return DataFrame(self._jdt.toDF(), self._spark)

    def alias(self, aliasName: str) -> "DeltaTable":
        """The table under an alias that merge conditions and assignments can use."""
        return DeltaTable(self._spark, self._jdt.alias(aliasName))

    def merge(self, source: DataFrame, condition: ExpressionOrColumn) -> "DeltaMergeBuilder":
        """MERGE ``source`` into this table on ``condition``; add clauses, then execute()."""
        return DeltaMergeBuilder(self._spark, self._jdt.merge(source._jdf, _cond_jc(condition)))

    def update(self, condition: Optional[ExpressionOrColumn] = None,
               set: Optional[Dict[str, Any]] = None) -> None:
        """UPDATE: ``set`` maps columns to new values (SQL text, Column or literal) for the
        rows where ``condition`` holds (None: every row). One commit; nothing when no row
        matches. Returns None, as delta-spark (SQL UPDATE returns num_affected_rows)."""
        if isinstance(condition, dict) and set is None:
            condition, set = None, condition
        self._jdt.update(_cond_jc(condition), _set_jc(set, "set"))

    def delete(self, condition: Optional[ExpressionOrColumn] = None) -> None:
        """DELETE of the rows where ``condition`` holds (None: all rows)."""
        self._jdt.delete_(_cond_jc(condition))

    def restoreToVersion(self, version: int) -> DataFrame:
        """RESTORE to ``version``; returns Delta's one-row result."""
        return DataFrame(self._jdt.restoreToVersion(int(version)), self._spark)

    def restoreToTimestamp(self, timestamp: str) -> DataFrame:
        """RESTORE to the version current at ``timestamp``."""
        return DataFrame(self._jdt.restoreToTimestamp(str(timestamp)), self._spark)

    def vacuum(self, retentionHours: Optional[float] = None) -> DataFrame:
        """VACUUM: deletes files no version within the retention references."""
        hours = None if retentionHours is None else float(retentionHours)
        return DataFrame(self._jdt.vacuum(hours), self._spark)

    def optimize(self) -> "DeltaOptimizeBuilder":
        """OPTIMIZE: ``optimize().where("p = 'a'").executeCompaction()``."""
        return DeltaOptimizeBuilder(self, [])

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """Commits newest first, with DESCRIBE HISTORY's columns."""
        return DataFrame(self._jdt.history(int(limit or 0)), self._spark)

    def detail(self) -> DataFrame:
        """One row with DESCRIBE DETAIL's columns."""
        return DataFrame(self._jdt.detail(), self._spark)


class DeltaMergeBuilder:
    """delta-spark's DeltaMergeBuilder: WHEN clauses in the order they are added, then
    execute() (one commit; returns num_affected_rows, num_updated_rows,
    num_deleted_rows, num_inserted_rows as SQL MERGE does)."""

    def __init__(self, spark: Any, jbuilder: Any):
        self._spark = spark
        self._jbuilder = jbuilder

    def _clause(self, match, action, condition, star, assignments) -> "DeltaMergeBuilder":
        j = self._jbuilder.clause(match, action, _cond_jc(condition), star, assignments)
        return DeltaMergeBuilder(self._spark, j)

    def whenMatchedUpdate(self, condition: Optional[ExpressionOrColumn] = None,
                          set: Optional[Dict[str, Any]] = None) -> "DeltaMergeBuilder":
        return self._clause("matched", "update", condition, False, _set_jc(set, "set"))

    def whenMatchedUpdateAll(self, condition: Optional[ExpressionOrColumn] = None
                             ) -> "DeltaMergeBuilder":
        return self._clause("matched", "update", condition, True, [])

    def whenMatchedDelete(self, condition: Optional[ExpressionOrColumn] = None
                          ) -> "DeltaMergeBuilder":
        return self._clause("matched", "delete", condition, False, [])

    def whenNotMatchedInsert(self, condition: Optional[ExpressionOrColumn] = None,
                             values: Optional[Dict[str, Any]] = None) -> "DeltaMergeBuilder":
        return self._clause("notMatched", "insert", condition, False, _set_jc(values, "values"))

    def whenNotMatchedInsertAll(self, condition: Optional[ExpressionOrColumn] = None
                                ) -> "DeltaMergeBuilder":
        return self._clause("notMatched", "insert", condition, True, [])

    def whenNotMatchedBySourceUpdate(self, condition: Optional[ExpressionOrColumn] = None,
                                     set: Optional[Dict[str, Any]] = None
                                     ) -> "DeltaMergeBuilder":
        return self._clause("notMatchedBySource", "update", condition, False,
                            _set_jc(set, "set"))

    def whenNotMatchedBySourceDelete(self, condition: Optional[ExpressionOrColumn] = None
                                     ) -> "DeltaMergeBuilder":
        return self._clause("notMatchedBySource", "delete", condition, False, [])

    def withSchemaEvolution(self) -> "DeltaMergeBuilder":
        """UPDATE SET * / INSERT * add the source's new columns to the table."""
        return DeltaMergeBuilder(self._spark, self._jbuilder.withSchemaEvolution())

    def execute(self) -> DataFrame:
        return DataFrame(self._jbuilder.execute(), self._spark)


class DeltaOptimizeBuilder:
    """delta-spark's DeltaOptimizeBuilder: where(partitionFilter) (repeatable, ANDed),
    then executeCompaction() (bin-packing) or executeZOrderBy(*cols)."""

    def __init__(self, table: DeltaTable, where: list):
        self._table = table
        self._where = where

    def where(self, partitionFilter: str) -> "DeltaOptimizeBuilder":
        return DeltaOptimizeBuilder(self._table, self._where + [partitionFilter])

    def executeCompaction(self) -> DataFrame:
        return DataFrame(self._table._jdt.optimize(self._where, []), self._table._spark)

    def executeZOrderBy(self, *cols: str) -> DataFrame:
        names = list(cols[0]) if len(cols) == 1 and isinstance(cols[0], (list, tuple)) else list(cols)
        return DataFrame(self._table._jdt.optimize(self._where, names), self._table._spark)
