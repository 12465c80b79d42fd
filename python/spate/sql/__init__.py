"""The DataFrame API, as pyspark.sql: ``from spate.sql import SparkSession, functions as F``."""

from spate.sql.types import Row
from spate.sql.column import Column
from spate.sql.dataframe import DataFrame
from spate.sql.group import GroupedData
from spate.sql.session import Catalog, RuntimeConfig, SparkSession
from spate.sql.window import Window, WindowSpec
from spate.sql.readwriter import DataFrameReader, DataFrameWriter
from spate.sql.dataframe import DataFrameNaFunctions, DataFrameStatFunctions
from spate.sql.observation import Observation
from spate.sql import functions, types
from spate.errors import AnalysisException, ParseException
from spate.sql import refusals as _refusals

_refusals.install({"DataFrame": DataFrame, "DataFrameReader": DataFrameReader,
                   "DataFrameWriter": DataFrameWriter, "SparkSession": SparkSession})

__all__ = ["SparkSession", "DataFrame", "Column", "Row", "GroupedData", "Window", "WindowSpec",
           "RuntimeConfig", "Catalog", "DataFrameReader", "DataFrameWriter", "DataFrameNaFunctions",
           "DataFrameStatFunctions", "Observation", "functions", "types"]
