"""spark.tvf (pyspark.sql.tvf.TableValuedFunction): the table-valued functions as
DataFrames: range and the generators (explode, posexplode, inline, json_tuple and their
_outer forms) over constant arguments, and sql_keywords(); spate has no stack() yet."""

from typing import Any, Optional

from spate import _spate

__all__ = ["TableValuedFunction"]


class TableValuedFunction:
    def __init__(self, sparkSession: Any):
        self._s = sparkSession

    def range(self, start: int, end: Optional[int] = None, step: int = 1,
              numPartitions: Optional[int] = None) -> Any:
        return self._s.range(start, end, step, numPartitions)

    def sql_keywords(self) -> Any:
        """Spark's SQL keywords (keyword, reserved), as SELECT * FROM sql_keywords()."""
        return self._s.sql("SELECT * FROM sql_keywords()")

    def _generate(self, name: str, *cols: Any) -> Any:
        from spate.sql.column import Column, _to_jc
        one = self._s.range(1)
        return one.select(Column(_spate.call_function(name, [_to_jc(c) for c in cols])))

    def explode(self, collection: Any) -> Any:
        return self._generate("explode", collection)

    def explode_outer(self, collection: Any) -> Any:
        return self._generate("explode_outer", collection)

    def posexplode(self, collection: Any) -> Any:
        return self._generate("posexplode", collection)

    def posexplode_outer(self, collection: Any) -> Any:
        return self._generate("posexplode_outer", collection)

    def inline(self, input: Any) -> Any:
        return self._generate("inline", input)

    def inline_outer(self, input: Any) -> Any:
        return self._generate("inline_outer", input)

    def json_tuple(self, input: Any, *fields: Any) -> Any:
        return self._generate("json_tuple", input, *fields)
