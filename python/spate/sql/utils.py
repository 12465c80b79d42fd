"""Exceptions at PySpark's pre-3.4 location (pyspark.sql.utils)."""

from spate.errors import *  # noqa: F401,F403
from spate.errors import __all__  # noqa: F401
