// Copyright spate authors.
#pragma once

// Event-time windows (Spark's TimeWindow, SessionWindow, WindowTime): the per-row
// kernels. The analyzer plans `window(...)` and `session_window(...)` itself
// (sql/time_window.cc, like Spark's TimeWindowing/SessionWindowing rules): durations are
// constants in microseconds, tumbling windows become a projection, sliding windows a
// Generate whose generator is a TimeWindowSpec, session windows a projection plus a merge
// before the aggregate. `window_time` is an ordinary scalar function registered here.
//
// Thread safety: everything here is immutable after construction / pure.
// Failure: type errors at resolve time; kernels do not fail (overflow wraps like Spark's
// long arithmetic).

#include <cstdint>
#include <string_view>

#include "spate/compute/bound_expr.h"

namespace spate {

class FunctionRegistry;
struct GeneratedRows;

/// window(ts, windowDuration, slideDuration, startTime), all in microseconds.
struct TimeWindowParams {
  int64_t window = 0;
  int64_t slide = 0;
  int64_t start = 0;
  /// Upper bound of the windows one row can fall in: ceil(window / slide).
  int overlapping() const { return static_cast<int>((window + slide - 1) / slide); }
};

/// struct<start: T, end: T> for a timestamp type T (timestamp or timestamp_ntz).
DataTypePtr WindowStructType(const DataTypePtr& ts_type);

/// The i-th window (i = 0: the one starting last) of each row, as Spark's getWindow(i):
/// remainder = (ts - start) % slide; lastStart = ts - (remainder < 0 ? remainder + slide
/// : remainder); windowStart = lastStart - i * slide; windowEnd = windowStart + window.
/// NULL fields where `ts` is NULL. The struct itself is never NULL.
BoundExprPtr MakeTimeWindowExpr(BoundExprPtr ts, TimeWindowParams params, int i,
                                const std::string& display);

/// Every window of a sliding window(...) that contains each row's `ts` (rows with NULL
/// `ts` produce nothing), in Spark's Expand order: per row, i = 0, 1, ...
Result<GeneratedRows> RunTimeWindowGenerator(const BoundExpr& ts,
                                             const TimeWindowParams& params,
                                             const DataTypePtr& struct_type,
                                             const Batch& input, const EvalContext& ctx);

/// window_time(w): w.end - 1 µs, typed as w.start.
Result<BoundExprPtr> MakeWindowTimeExpr(BoundExprPtr window_column);

/// Parses an interval string ("5 minutes", "interval 1 hour") for a per-row session gap;
/// provided by the sql module (its interval-literal grammar).
using IntervalStringParser = Result<Value> (*)(std::string_view text,
                                               std::string_view literal_text);

/// The end of a row's initial session window: ts + gap (µs), with `gap` a string (parsed
/// per row with `parser`; invalid strings give NULL as Spark's cast to interval does) or
/// a day-time interval. NULL when either side is NULL. Typed as `ts`.
Result<BoundExprPtr> MakeSessionEndExpr(BoundExprPtr ts, BoundExprPtr gap,
                                        IntervalStringParser parser);

/// Registers window_time, and window/session_window as names the analyzer plans itself
/// (their resolvers fail with an error naming the unsupported position).
void RegisterTimeWindowFunctions(FunctionRegistry& r);

}  // namespace spate
