// Copyright spate authors.
#pragma once

// Column pruning and predicate pushdown into file scans, applied by the planner (there is
// no optimizer yet): for Project / Aggregate over [Filter over] FileScan, the scan reads
// only the columns the consumers reference, and the filter's conjuncts of the form
// `column <op> literal` / IS [NOT] NULL are handed to the source for skipping row groups.
// The Filter stays in the plan, so pushed predicates are hints only.
//
// Thread safety: a pure function of immutable plans (returns new nodes, shares the rest).

#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// The rewritten plan, or nullptr when nothing applies to `plan`'s top.
sql::BoundPlanPtr PushDownIntoFileScan(const sql::BoundPlanPtr& plan);

}  // namespace spate::exec
