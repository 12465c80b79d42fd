"""spate.delta: Delta Lake tables, shaped as delta-spark's ``delta.tables.DeltaTable``.

    from spate.delta import DeltaTable
    t = DeltaTable.forName(spark, "events")      # or DeltaTable.forPath(spark, "/data/t")
    t.history(5).show()
    t.toDF().count()
"""

from typing import Any, Optional

from spate import _spate
from spate.sql.dataframe import DataFrame

__all__ = ["DeltaTable"]


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

    def alias(self, aliasName: str) -> DataFrame:
        return self.toDF().alias(aliasName)

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """Commits newest first, with DESCRIBE HISTORY's columns."""
        return DataFrame(self._jdt.history(int(limit or 0)), self._spark)

    def detail(self) -> DataFrame:
        """One row with DESCRIBE DETAIL's columns."""
        return DataFrame(self._jdt.detail(), self._spark)
