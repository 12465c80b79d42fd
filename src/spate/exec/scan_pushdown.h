// Copyright spate authors.
#pragma once

// Column pruning and predicate pushdown into file scans, applied by the planner (there is
// no optimizer yet): for Project / Aggregate over [Filter over] FileScan, the scan reads
// only the columns the consumers reference, and the filter's conjuncts of the form
// `column <op> literal` / IS [NOT] NULL are handed to the source for skipping row groups.
// The Filter stays in the plan, so pushed predicates are hints only.
//
// Thread safety: a pure function of immutable plans (returns new nodes, shares the rest).

#include <set>

#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// The rewritten plan, or nullptr when nothing applies to `plan`'s top.
sql::BoundPlanPtr PushDownIntoFileScan(const sql::BoundPlanPtr& plan);

/// Column pruning over the whole plan, before planning: from the root down, each Project
/// computes only the expressions its consumer reads (the others become NULL literals of
/// the same type, so every column keeps its index), and a file scan below nodes that pass
/// columns through (Project, Filter, Generate, withWatermark, and extensions that say
/// which child columns they read, such as the streaming watermark and aggregate) reads
/// only the columns used above it. Scans directly under a Project, Aggregate or Filter
/// are left to PushDownIntoFileScan (which also pushes predicates). Other nodes read all
/// of their children's columns. Returns `plan` itself when nothing changes.
sql::BoundPlanPtr PruneColumns(const sql::BoundPlanPtr& plan);

/// Inserts into `out` the input columns `e` reads.
void CollectColumnRefs(const BoundExprPtr& e, std::set<int>* out);

}  // namespace spate::exec
