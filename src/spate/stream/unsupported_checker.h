// Copyright spate authors.
#pragma once

// Incremental planning checks (Spark's UnsupportedOperationChecker.checkForStreaming, for
// the operators spate runs on streams today) and the list of stateful operators.
//
// Stateless operators (project, filter, union, stream-static joins, repartition, ...) run
// per micro-batch unchanged. Stateful operators (aggregation, distinct, dropDuplicates,
// limit, stream-stream joins) need the state store and watermarks of a later issue: a
// query with one is refused for now with a clear error. Output modes are checked as
// Spark does (complete mode needs a streaming aggregation). Errors carry Spark's error
// class (_LEGACY_ERROR_TEMP_3102 with Spark's message) where Spark has one.
// Thread safety: pure functions.

#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/sql/logical_plan.h"
#include "spate/stream/source.h"

namespace spate::stream {

/// The stateful operators of a streaming plan, by Spark's names ("Aggregate",
/// "Deduplicate", "Limit", "Join"), outermost first.
std::vector<std::string> StatefulOperators(const sql::PlanPtr& plan);

/// Whether `plan` can run as a streaming query in `mode`.
Status CheckStreamingPlan(const sql::PlanPtr& plan, OutputMode mode);

/// The error of a batch action on a streaming DataFrame (show(), collect(), ...).
Status BatchActionOnStreamError();

}  // namespace spate::stream
