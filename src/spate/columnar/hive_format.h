// Copyright spate authors.
#pragma once

// The text spark-sql prints for a value (Spark's HiveResult.toHiveString): NULL,
// true/false, Java float/double text, plain decimals, dates, timestamps in the session
// zone, Hive-style intervals ("1 02:03:04.000000000", "1-2"), and nested values as [1,2],
// {"k":1} (map entries sorted), {"a":1,"b":"x"} with strings quoted and nulls as null
// inside them. Used by the `spate sql` TSV output and the SQL logic test runner. Pure
// functions.

#include <string>

#include "spate/types/timezone.h"
#include "spate/types/value.h"

namespace spate {

/// `nested` selects the form used inside arrays/maps/structs; `tz` is the session zone
/// for TIMESTAMP values (nullptr = UTC).
std::string HiveString(const Value& v, bool nested = false, const TimeZone* tz = nullptr);
/// IntervalUtils' Hive-style day-time and year-month interval text.
std::string HiveDayTimeString(int64_t micros);
std::string HiveYearMonthString(int64_t months);

}  // namespace spate
