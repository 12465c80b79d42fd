// Copyright spate authors.
#pragma once

// More aggregate functions (aggregate_extra.cc): collect_list, collect_set, the central
// moment family (stddev, variance, ...), count_if, bool_and/bool_or, min_by/max_by,
// median, percentile and percentile_approx. MakeAggregate (aggregate.cc) delegates to
// MakeExtraAggregate for these names. Thread safety: as aggregate.h.

#include <string>
#include <vector>

#include "spate/compute/aggregate.h"

namespace spate {

/// The names MakeExtraAggregate knows.
const std::vector<std::string>& ExtraAggregateNames();
/// Binds an aggregate of ExtraAggregateNames(); nullptr for other names.
Result<AggregateFunctionPtr> MakeExtraAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args);

}  // namespace spate
