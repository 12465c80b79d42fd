// Copyright spate authors.
#pragma once

// Date/time arithmetic with intervals that the arithmetic operators delegate to
// (implemented in datetime_functions.cc beside the date/time functions):
//   timestamp +/- year-month interval, date +/- year-month interval, date +/- day-time
//   interval, interval * number, number * interval, interval / number.
// Thread safety: pure functions.

#include <cstdint>
#include <string_view>

#include "spate/compute/bound_expr.h"

namespace spate {

class FunctionRegistry;

/// `op` is one of '+', '-', '*', '/'. Returns nullptr when the operand types are not one
/// of the combinations above (the caller then tries its other rules).
Result<BoundExprPtr> ResolveIntervalArithmetic(char op, const BoundExprPtr& a,
                                               const BoundExprPtr& b);

/// Days since the epoch plus `months`, the day clamped to the month's end (Spark's
/// DateTimeUtils.dateAddMonths); add_months, date +/- interval and sequence use it.
int64_t AddMonthsToDays(int64_t days, int64_t months);

/// The calls SQL's TIMESTAMPADD / DATEADD / DATE_ADD (unit, n, ts) and TIMESTAMPDIFF /
/// DATEDIFF / DATE_DIFF / TIMEDIFF (unit, start, end) and the DataFrame API's
/// timestamp_add / timestamp_diff build: (unit as a STRING literal, n | start, ts | end),
/// shown as timestampadd(UNIT, n, ts) / timestampdiff(UNIT, start, end). Internal names
/// (Spark's are internal functions), so that `timestampadd` itself is no function: with a
/// unit that is no keyword, timestampadd(FOO, 1, ts) is UNRESOLVED_ROUTINE, as in Spark.
/// timestamp_add_diff.cc. Each name holds an upper-case letter: SQL and call_function
/// lower-case the names they call, so no user text reaches these entries.
inline constexpr const char* kTimestampAddCall = "__spate_timestampAdd";
inline constexpr const char* kTimestampDiffCall = "__spate_timestampDiff";
/// True for the units those calls take, in any case: YEAR, QUARTER, MONTH, WEEK, DAY,
/// DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND.
bool IsTimestampUnit(std::string_view word);
/// Registers kTimestampAddCall and kTimestampDiffCall (from RegisterDatetimeFunctions).
void RegisterTimestampAddDiff(FunctionRegistry& r);
/// Spark's ARITHMETIC_OVERFLOW "long overflow" of the datetime arithmetic.
Status LongOverflow();

}  // namespace spate
