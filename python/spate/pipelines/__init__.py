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
from spate.pipelines.api import (
    append_flow,
    create_auto_cdc_flow,
    create_sink,
    create_streaming_table,
    materialized_view,
    table,
    temporary_view,
)

__all__ = [
    "append_flow",
    "create_auto_cdc_flow",
    "create_streaming_table",
    "materialized_view",
    "table",
    "temporary_view",
    "create_sink",
]
