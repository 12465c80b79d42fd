// Copyright spate authors.
#pragma once

// More aggregate functions (aggregate_extra.cc): collect_list, collect_set, the central
// moment family (stddev, variance, ...), count_if, bool_and/bool_or, min_by/max_by,
// median, percentile and percentile_approx, and the WITHIN GROUP (ORDER BY ...)
// aggregates percentile_cont, percentile_disc and listagg / string_agg. MakeAggregate
// (aggregate.cc) delegates to MakeExtraAggregate for these names. Thread safety: as
// aggregate.h.

#include <string>
#include <vector>

#include "spate/compute/aggregate.h"

namespace spate {

// Helpers of the aggregate families (aggregate_extra.cc, aggregate_stats.cc).
namespace agg {
/// A DOUBLE column of `v` (NULL where `valid` is 0; no NULLs without `valid`).
ColumnPtr DoubleColumn(const std::vector<double>& v, const std::vector<uint8_t>* valid);
/// Row i of a numeric column as a double (decimals scaled).
double AsDouble(const Column& c, int64_t i);
/// WRONG_NUM_ARGS.WITHOUT_SUGGESTION / DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE as
/// Spark's.
Status WrongArgs(const std::string& name, const std::string& expected, size_t actual);
Status TypeMismatch(const std::string& name, const std::vector<BoundExprPtr>& args,
                    size_t i, const std::string& required);
}  // namespace agg

/// The names MakeExtraAggregate knows.
const std::vector<std::string>& ExtraAggregateNames();
/// Binds an aggregate of ExtraAggregateNames(); nullptr for other names.
Result<AggregateFunctionPtr> MakeExtraAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args);

/// percentile_cont / percentile_disc / listagg / string_agg with WITHIN GROUP (ORDER BY
/// ...): `args` end with one ordering key per `order` entry (see MakeAggregate). DISTINCT
/// is checked here and applied by the caller.
Result<AggregateFunctionPtr> MakeWithinGroupAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args, bool distinct,
    const std::vector<OrderDirection>& order);

/// The statistical and bitwise aggregates of aggregate_stats.cc (skewness, kurtosis,
/// corr, covar_*, regr_*, bit_and/or/xor, mode), which MakeExtraAggregate delegates to.
const std::vector<std::string>& StatsAggregateNames();
Result<AggregateFunctionPtr> MakeStatsAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args);

}  // namespace spate
