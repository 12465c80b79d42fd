// Copyright spate authors.
#pragma once

// The aggregate function families beside aggregate.cc's count / sum / avg / min / max /
// first / last (and count_if, bool_and / bool_or, min_by / max_by): each family lists its
// names and binds them. MakeAggregate (aggregate.cc) dispatches here.
//   aggregate_collect.cc     collect_list / array_agg, collect_set, listagg / string_agg
//   aggregate_percentile.cc  median, percentile, percentile_approx, percentile_cont/_disc
//   aggregate_stats.cc       stddev / variance, skewness, kurtosis, corr, covar_*,
//                            regr_*, bit_and / bit_or / bit_xor, mode
//   aggregate_sketch.cc      bitmap_construct_agg / bitmap_or_agg / bitmap_and_agg,
//                            count_min_sketch, histogram_numeric (Spark's byte formats)
//   aggregate_vector.cc      vector_sum, vector_avg (ARRAY<FLOAT> vectors)
// Thread safety: as aggregate.h.

#include <string>
#include <vector>

#include "spate/compute/aggregate.h"

namespace spate {

// Helpers of the aggregate families (defined in aggregate.cc).
namespace agg {
/// An ANSI interval type (ranked and summed as its months / microseconds).
inline bool IsInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
}
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

/// Each Make* binds a name of its family's list (nullptr for other names). The
/// WITHIN GROUP (ORDER BY ...) forms get the arguments and the ordering keys apart
/// (see MakeAggregate); DISTINCT is checked there and applied by the caller.
const std::vector<std::string>& CollectAggregateNames();
Result<AggregateFunctionPtr> MakeCollectAggregate(const std::string& name,
                                                  const std::vector<BoundExprPtr>& args);
Result<AggregateFunctionPtr> MakeListAggWithinGroup(
    const std::string& name, const std::vector<BoundExprPtr>& values,
    const std::vector<BoundExprPtr>& keys, bool distinct,
    const std::vector<OrderDirection>& order);

const std::vector<std::string>& PercentileAggregateNames();
Result<AggregateFunctionPtr> MakePercentileAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args);
Result<AggregateFunctionPtr> MakePercentileWithinGroup(
    const std::string& name, const std::vector<BoundExprPtr>& values,
    const std::vector<BoundExprPtr>& keys, bool distinct,
    const std::vector<OrderDirection>& order);

const std::vector<std::string>& StatsAggregateNames();
Result<AggregateFunctionPtr> MakeStatsAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args);

const std::vector<std::string>& SketchAggregateNames();
Result<AggregateFunctionPtr> MakeSketchAggregate(const std::string& name,
                                                 const std::vector<BoundExprPtr>& args);

const std::vector<std::string>& VectorAggregateNames();
Result<AggregateFunctionPtr> MakeVectorAggregate(const std::string& name,
                                                 const std::vector<BoundExprPtr>& args);

}  // namespace spate
