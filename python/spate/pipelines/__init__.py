"""Declarative pipelines with the shape of ``pyspark.pipelines`` (Spark 4.1's Spark
Declarative Pipelines): datasets defined by decorated query functions, run by spate's
pipeline runner (``spate run spark-pipeline.yml`` or ``python -m spate.pipelines run``)
with the SQL files of the same spec (docs/pipelines.md)::

    from pyspark import pipelines as dp      # spate.pipelines under spate

    @dp.table(comment="raw events")
    def bronze():
        return spark.readStream.schema(schema).json(src)

    @dp.materialized_view
    def by_type():
        return spark.table("bronze").groupBy("event_type").count()

The decorators register their dataset with the pipeline being loaded; outside one they fail
as PySpark's do (GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE). Query functions
run when their flow runs, after the datasets they read.
"""
import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from spate import _spate
from spate.pipelines.api import registration_context
from spate.pipelines.api import (
    append_flow,
    create_auto_cdc_flow,
    create_sink,
    create_streaming_table,
    materialized_view,
    table,
    temporary_view,
)



class Pipeline:
    """spate's pipeline runner from Python (what ``spate run`` does)::

        p = Pipeline(spark, storage="/data/pipeline-storage")
        p.add_sql(open("pipeline.sql").read(), "pipeline.sql")
        with p.definitions():             # decorators here register with p
            @dp.table
            def bronze(): ...
        for r in p.run(): print(r["target"], r["rows"])

    ``run()`` processes what is available (availableNow) or, with ``continuous=True``, runs
    until ``stop()`` or Ctrl-C; with ``dry_run=True`` it only resolves every flow (as
    ``spark-pipelines dry-run``: nothing is written; unresolvable flows raise). Datasets, checkpoints and refusals: docs/pipelines.md."""

    def __init__(self, spark: Any, storage: str, *, database: Optional[str] = None,
                 continuous: bool = False, trigger_interval: str = "10 seconds",
                 full_refresh: Sequence[str] = (), full_refresh_all: bool = False,
                 on_event: Optional[Callable[[str], None]] = None,
                 dry_run: bool = False) -> None:
        self._p = _spate.Pipeline(spark._js, storage, database, continuous, trigger_interval,
                                  list(full_refresh), full_refresh_all, on_event, dry_run)

    def add_sql(self, text: str, file: str = "") -> "Pipeline":
        self._p.add_sql(text, file)
        return self

    @contextlib.contextmanager
    def definitions(self) -> Iterator["Pipeline"]:
        with registration_context(self._p):
            yield self

    def flow_order(self) -> List[str]:
        return self._p.flow_order()

    def run(self) -> List[Dict[str, Any]]:
        """Runs the pipeline; returns per flow ``flow``, ``target``, ``kind``, ``batches``,
        ``rows``, ``status`` (COMPLETED). A flow that fails (after
        ``spark.sql.pipelines.maxFlowRetryAttempts`` retries) has its dependents SKIPPED
        while the other flows run on; the run then raises the first failure, and
        ``last_run()`` has every flow's status (FAILED ones with their ``error``)."""
        return self._p.run()

    def last_run(self) -> List[Dict[str, Any]]:
        """The per-flow results of the last run, also of one that raised."""
        return self._p.last_run()

    def stop(self) -> None:
        self._p.stop()


__all__ = [
    "Pipeline",
    "append_flow",
    "create_auto_cdc_flow",
    "create_streaming_table",
    "materialized_view",
    "table",
    "temporary_view",
    "create_sink",
]
