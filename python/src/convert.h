// Copyright spate authors.
#pragma once

// Conversions between Python objects and the engine's types and values, for the pybind11
// module spate._spate. Data types convert to and from the classes of spate.sql.types
// (mirroring pyspark.sql.types); values convert as PySpark converts them:
//   boolean -> bool, integral -> int, float/double -> float, decimal -> decimal.Decimal,
//   string -> str, binary -> bytearray, date -> datetime.date, timestamp -> naive
//   datetime.datetime in the session time zone, timestamp_ntz -> naive datetime,
//   day-time interval -> datetime.timedelta, year-month interval -> int (months),
//   array -> list, map -> dict, struct -> spate.sql.types.Row, NULL -> None.
// All functions require the GIL. Failures raise Python exceptions (py::error_already_set,
// py::type_error, py::value_error).

#include <pybind11/pybind11.h>

#include <vector>

#include "spate/api/dataframe.h"
#include "spate/columnar/batch.h"
#include "spate/types/data_type.h"
#include "spate/types/timezone.h"
#include "spate/types/value.h"

namespace spate::python {

namespace py = pybind11;

/// A spate.sql.types.DataType instance for `type`.
py::object TypeToPy(const DataTypePtr& type);
/// The engine type of a spate.sql.types.DataType instance.
DataTypePtr TypeFromPy(py::handle type);
/// A spate.sql.types.StructType for the fields of a schema.
py::object SchemaToPy(const std::vector<Field>& fields);

/// The Python value of `v`; timestamps are shown in `tz`.
py::object ValueToPy(const Value& v, const TimeZone& tz);
/// `obj` converted to a value of `type` (naive datetimes are wall-clock times in `tz`).
/// `where` names the field in error messages.
Value ValueFromPy(py::handle obj, const DataTypePtr& type, const TimeZone& tz,
                  const std::string& where);

/// The rows of `batches` as Python Row objects named by `fields`, converted column by
/// column (fast paths for flat types). Rows are instances of a Row subclass that carries
/// the field names (spate.sql.types._row_class).
py::list BatchesToPy(const std::vector<BatchPtr>& batches,
                     const std::vector<Field>& fields, const TimeZone& tz);

/// Rows as Python Row objects named by `fields`.
py::list RowsToPy(const std::vector<api::Row>& rows, const std::vector<Field>& fields,
                  const TimeZone& tz);

}  // namespace spate::python
