// Copyright spate authors.
#pragma once

// The state value schema Spark 4.2 writes for a streaming aggregation
// (state/<id>/0/_metadata/schema): the aggregation buffers of its aggregate functions, in
// the order of the distinct aggregate expressions. spate keeps its own buffers, so a
// checkpoint written by Spark is compared with what Spark would build for the new query
// (`spate checkpoint check`). Each layout below was read from the schema files real Spark
// 4.2 wrote (count -> count bigint not null; sum of an integral -> sum bigint; sum of a
// decimal(p,s) -> sum decimal(min(38,p+10),s) + isEmpty boolean not null, or a bigint sum
// when p+10 <= 18 (Spark's DecimalAggregates); avg -> sum + count, the sum a double
// unless a decimal with p+4 > 15; min/max/first/last -> the input type (+ valueSet); the
// moment aggregates -> n, avg, m2[, m3, m4] doubles not null; collect_*/percentiles/mode
// (and count_min_sketch / histogram_numeric) -> one binary buf; bitmap_*_agg -> bitmap
// binary not null; approx_count_distinct -> ceil(2^p/10) bigint words; ...).
//
// Thread safety: pure function.

#include <vector>

#include "spate/sql/bound_plan.h"

namespace spate::stream {

/// Spark's aggregation buffer schema of `calls` (an Aggregate node's aggregates; equal
/// calls share one buffer, as Spark deduplicates them), or nullptr when a call's layout
/// in Spark is not known here.
SchemaPtr SparkAggregationBufferSchema(const std::vector<sql::AggregateCall>& calls);

}  // namespace spate::stream
