"""Every PySpark name spate refuses, in one place, with its reason. Each becomes a method
(or property) of its class that raises, naming itself: PySparkNotImplementedError
(NOT_IMPLEMENTED) for what cannot apply to a one-process engine without a JVM, and, for
Spark Connect's session APIs, the PySparkRuntimeError (ONLY_SUPPORTED_WITH_SPARK_CONNECT)
classic PySpark raises. A name a class implements is never replaced, so implementing one
only needs its entry removed here. scripts/pyspark_coverage.py counts these as "refused
with a reason"."""

from typing import Any, Dict, Tuple

from spate.sql.utils import refused

_JVM_RDD = "spate has no RDDs (no SparkContext, no JVM)"
_CONNECT = "only supported with Spark Connect"

# class name -> {name: (reason, is a property)}
REFUSED: Dict[str, Dict[str, Tuple[str, bool]]] = {
    "DataFrame": {
        "rdd": (_JVM_RDD, True),
        "pandas_api": ("pandas-on-Spark runs on Spark's JVM", False),
        "executionInfo": ("Spark Connect's query execution info", True),
    },
    "DataFrameReader": {"jdbc": ("JDBC drivers are JVM libraries", False)},
    "DataFrameWriter": {
        "jdbc": ("JDBC drivers are JVM libraries", False),
        "bucketBy": ("spate's catalog keeps Delta tables, which have no buckets", False),
        "sortBy": ("spate's catalog keeps Delta tables, which have no buckets", False),
    },
    "SparkSession": {
        "addArtifact": ("spate runs in one process: no executors to ship artifacts to", False),
        "addArtifacts": ("spate runs in one process: no executors to ship artifacts to", False),
        "client": (_CONNECT, True),
        "copyFromLocalToFs": (_CONNECT, False),
        "registerProgressHandler": (_CONNECT, False),
        "removeProgressHandler": (_CONNECT, False),
        "clearProgressHandlers": (_CONNECT, False),
    },
}


def install(classes: Dict[str, Any]) -> None:
    """Adds the refused names to `classes` (name -> class) where the class lacks them."""
    for cls_name, names in REFUSED.items():
        cls = classes[cls_name]
        for name, (reason, prop) in names.items():
            if name not in cls.__dict__:
                setattr(cls, name, refused("%s.%s" % (cls_name, name), reason, prop,
                                           connect_only=reason == _CONNECT))
