// Copyright spate authors.
#pragma once

// Internal to the stream module: the StatefulRuntime's hook for transformWithState nodes
// (stateful_processor.h has the public API and the node).

#include "spate/sql/bound_plan.h"
#include "spate/stream/stateful.h"

namespace spate::stream {

/// The batch plan node for the transformWithState node `node` (its payload a
/// TransformWithStateNode), as stateful operator `op` reading `child`.
Result<sql::BoundPlanPtr> PlanTransformWithState(const sql::BoundPlan& node,
                                                 StatefulRuntime::Operator* op,
                                                 const StatefulBatch* batch,
                                                 sql::BoundPlanPtr child);

}  // namespace spate::stream
