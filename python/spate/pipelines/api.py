"""pyspark.pipelines' decorators over spate's pipeline graph (spate._spate.Pipeline)."""
import contextlib
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from spate import _spate
from spate.errors import PySparkException, PySparkTypeError

_Kind = _spate.PipelineDatasetKind
_local = threading.local()


def _registry() -> Any:
    reg = getattr(_local, "registry", None)
    if reg is None:
        raise PySparkException(
            errorClass="GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE",
            messageParameters={})
    return reg


@contextlib.contextmanager
def registration_context(pipeline: Any) -> Iterator[None]:
    """Decorators used inside register their datasets and flows with ``pipeline``."""
    previous = getattr(_local, "registry", None)
    _local.registry = pipeline
    try:
        yield
    finally:
        _local.registry = previous


def _schema_ddl(schema: Any) -> Optional[str]:
    if schema is None or isinstance(schema, str):
        return schema
    return ", ".join(f"`{f.name}` {f.dataType.simpleString()}"
                     + ("" if f.nullable else " NOT NULL") for f in schema.fields)


def _check_function(fn: Any, decorator: str) -> None:
    if not callable(fn):
        raise PySparkTypeError(errorClass="DECORATOR_ARGUMENT_NOT_CALLABLE",
                               messageParameters={"decorator_name": decorator,
                                                  "example_usage": f"@{decorator}(...)"})


def _dataset(kind: Any, query_function: Optional[Callable[[], Any]], decorator: str,
             name: Optional[str], comment: Optional[str],
             table_properties: Optional[Dict[str, str]],
             partition_cols: Optional[List[str]], schema: Any) -> Any:
    def register(fn: Callable[[], Any]) -> None:
        _check_function(fn, decorator)
        reg = _registry()
        dataset = name or fn.__name__
        reg.define_dataset(dataset, kind, comment, list((table_properties or {}).items()),
                           list(partition_cols or []), _schema_ddl(schema))
        reg.define_flow(dataset, dataset, fn)
    if query_function is not None:
        return register(query_function)
    return register


def table(query_function: Optional[Callable[[], Any]] = None, *, name: Optional[str] = None,
          comment: Optional[str] = None, spark_conf: Optional[Dict[str, str]] = None,
          table_properties: Optional[Dict[str, str]] = None,
          partition_cols: Optional[List[str]] = None, cluster_by: Optional[List[str]] = None,
          schema: Any = None, format: Optional[str] = None) -> Any:
    """A streaming table whose flow is the decorated function's streaming DataFrame."""
    return _dataset(_Kind.STREAMING_TABLE, query_function, "table", name, comment,
                    table_properties, partition_cols, schema)


def materialized_view(query_function: Optional[Callable[[], Any]] = None, *,
                      name: Optional[str] = None, comment: Optional[str] = None,
                      spark_conf: Optional[Dict[str, str]] = None,
                      table_properties: Optional[Dict[str, str]] = None,
                      partition_cols: Optional[List[str]] = None,
                      cluster_by: Optional[List[str]] = None, schema: Any = None,
                      format: Optional[str] = None) -> Any:
    """A materialized view: the decorated function's batch DataFrame, recomputed each run."""
    return _dataset(_Kind.MATERIALIZED_VIEW, query_function, "materialized_view", name,
                    comment, table_properties, partition_cols, schema)


def temporary_view(query_function: Optional[Callable[[], Any]] = None, *,
                   name: Optional[str] = None, comment: Optional[str] = None,
                   spark_conf: Optional[Dict[str, str]] = None) -> Any:
    """A view the pipeline's other flows read (not written anywhere)."""
    return _dataset(_Kind.TEMPORARY_VIEW, query_function, "temporary_view", name, comment,
                    None, None, None)


def create_streaming_table(name: str, *, comment: Optional[str] = None,
                           table_properties: Optional[Dict[str, str]] = None,
                           partition_cols: Optional[List[str]] = None,
                           cluster_by: Optional[List[str]] = None, schema: Any = None,
                           format: Optional[str] = None) -> None:
    """A streaming table without a query of its own: append_flow(target=name) writes it."""
    _registry().define_dataset(name, _Kind.STREAMING_TABLE, comment,
                               list((table_properties or {}).items()),
                               list(partition_cols or []), _schema_ddl(schema))


def append_flow(*, target: str, name: Optional[str] = None,
                spark_conf: Optional[Dict[str, str]] = None,
                once: bool = False) -> Callable[[Callable[[], Any]], None]:
    """A flow appending the decorated function's streaming DataFrame to ``target``."""
    def register(fn: Callable[[], Any]) -> None:
        _check_function(fn, "append_flow")
        _registry().define_flow(name or fn.__name__, target, fn)
    return register


def create_sink(name: str, format: str, options: Optional[Dict[str, str]] = None) -> None:
    """Not supported by spate's pipelines yet (sinks other than tables)."""
    raise PySparkException(errorClass="NOT_IMPLEMENTED",
                           messageParameters={"feature": "pipelines.create_sink"})


def create_auto_cdc_flow(*args: Any, **kwargs: Any) -> None:
    """Not supported by spate's pipelines yet (AUTO CDC)."""
    raise PySparkException(errorClass="NOT_IMPLEMENTED",
                           messageParameters={"feature": "pipelines.create_auto_cdc_flow"})
