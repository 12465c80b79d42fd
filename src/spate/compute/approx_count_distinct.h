// Copyright spate authors.
#pragma once

// approx_count_distinct(expr[, relativeSD]) with Spark's HyperLogLog++
// (HyperLogLogPlusPlusHelper): p = ceil(2 * log2(1.106 / relativeSD)) index bits (default
// relativeSD 0.05 -> p = 9, 512 registers), values hashed with XXH64 seed 42 as Spark's
// XxHash64Function (floats normalized), linear counting below Spark's thresholds, and
// k-nearest-neighbour bias correction from Spark's empirical tables for estimates below
// 5m. Decomposable: the partial state is the register array (one byte per register) as a
// binary column; merging takes the register-wise maximum.
//
// Thread safety: as aggregate.h. Failure: a non-literal relativeSD or one needing fewer
// than 4 index bits is rejected when the call is bound.

#include <cstdint>
#include <vector>

#include "spate/compute/aggregate.h"

namespace spate {

Result<AggregateFunctionPtr> MakeApproxCountDistinct(
    const std::vector<BoundExprPtr>& args);

/// The HLL++ estimate of `registers` (2^p of them) as Spark's query(); exposed for tests.
int64_t HllEstimate(const uint8_t* registers, int p);
/// Index bits Spark uses for `relative_sd`.
int HllPrecision(double relative_sd);

}  // namespace spate
