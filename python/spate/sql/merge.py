"""MergeIntoWriter (pyspark.sql.merge): df.mergeInto(table, condition) merges the DataFrame
into a Delta table of the catalog, by delta's MERGE (spate.delta.DeltaMergeBuilder). In the
condition and the assignments the table's columns are qualified by its name (the last part
of `table`), the DataFrame's by its alias."""

from typing import Any, Dict, List, Optional, Tuple

__all__ = ["MergeIntoWriter"]


class MergeIntoWriter:
    def __init__(self, df: Any, table: str, condition: Any):
        self._df = df
        self._table = table
        self._condition = condition
        self._clauses: List[Tuple[str, str, Any, Optional[Dict[str, Any]]]] = []
        self._evolve = False

    def whenMatched(self, condition: Any = None) -> "MergeIntoWriter.WhenMatched":
        return MergeIntoWriter.WhenMatched(self, condition)

    def whenNotMatched(self, condition: Any = None) -> "MergeIntoWriter.WhenNotMatched":
        return MergeIntoWriter.WhenNotMatched(self, condition)

    def whenNotMatchedBySource(self, condition: Any = None) -> "MergeIntoWriter.WhenNotMatchedBySource":
        return MergeIntoWriter.WhenNotMatchedBySource(self, condition)

    def withSchemaEvolution(self) -> "MergeIntoWriter":
        """UPDATE SET * / INSERT * add the DataFrame's new columns to the table."""
        self._evolve = True
        return self

    def _add(self, kind: str, action: str, condition: Any, assignments: Optional[Dict[str, Any]]) -> "MergeIntoWriter":
        self._clauses.append((kind, action, condition, assignments))
        return self

    def merge(self) -> None:
        """Runs the MERGE (one commit of the table)."""
        from spate.delta import DeltaTable
        spark = self._df.sparkSession
        b = DeltaTable.forName(spark, self._table).alias(self._table.split(".")[-1]) \
            .merge(self._df, self._condition)
        for kind, action, cond, assignments in self._clauses:
            star = assignments is None
            if kind == "matched":
                b = (b.whenMatchedDelete(cond) if action == "delete" else
                     b.whenMatchedUpdateAll(cond) if star else b.whenMatchedUpdate(cond, assignments))
            elif kind == "notMatched":
                b = b.whenNotMatchedInsertAll(cond) if star else b.whenNotMatchedInsert(cond, assignments)
            else:
                b = (b.whenNotMatchedBySourceDelete(cond) if action == "delete"
                     else b.whenNotMatchedBySourceUpdate(cond, assignments))
        if self._evolve:
            b = b.withSchemaEvolution()
        b.execute()

    class WhenMatched:
        def __init__(self, writer: "MergeIntoWriter", condition: Any):
            self._w, self._c = writer, condition

        def updateAll(self) -> "MergeIntoWriter":
            return self._w._add("matched", "update", self._c, None)

        def update(self, assignments: Dict[str, Any]) -> "MergeIntoWriter":
            return self._w._add("matched", "update", self._c, dict(assignments))

        def delete(self) -> "MergeIntoWriter":
            return self._w._add("matched", "delete", self._c, {})

    class WhenNotMatched:
        def __init__(self, writer: "MergeIntoWriter", condition: Any):
            self._w, self._c = writer, condition

        def insertAll(self) -> "MergeIntoWriter":
            return self._w._add("notMatched", "insert", self._c, None)

        def insert(self, assignments: Dict[str, Any]) -> "MergeIntoWriter":
            return self._w._add("notMatched", "insert", self._c, dict(assignments))

    class WhenNotMatchedBySource:
        def __init__(self, writer: "MergeIntoWriter", condition: Any):
            self._w, self._c = writer, condition

        def update(self, assignments: Dict[str, Any]) -> "MergeIntoWriter":
            return self._w._add("notMatchedBySource", "update", self._c, dict(assignments))

        def delete(self) -> "MergeIntoWriter":
            return self._w._add("notMatchedBySource", "delete", self._c, {})
