// Copyright spate authors.
#pragma once

// Date/time arithmetic with intervals that the arithmetic operators delegate to
// (implemented in datetime_functions.cc beside the date/time functions):
//   timestamp +/- year-month interval, date +/- year-month interval, date +/- day-time
//   interval, interval * number, number * interval, interval / number.
// Thread safety: pure functions.

#include <cstdint>

#include "spate/compute/bound_expr.h"

namespace spate {

/// `op` is one of '+', '-', '*', '/'. Returns nullptr when the operand types are not one
/// of the combinations above (the caller then tries its other rules).
Result<BoundExprPtr> ResolveIntervalArithmetic(char op, const BoundExprPtr& a,
                                               const BoundExprPtr& b);

/// Days since the epoch plus `months`, the day clamped to the month's end (Spark's
/// DateTimeUtils.dateAddMonths); add_months, date +/- interval and sequence use it.
int64_t AddMonthsToDays(int64_t days, int64_t months);

}  // namespace spate
