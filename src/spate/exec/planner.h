// Copyright spate authors.
#pragma once

// Planner: turns a resolved BoundPlan into physical operators.
//
//   Range/Local/OneRow -> RangeScan / LocalScan
//   Project, Filter    -> Project, Filter (streamed, so Filter -> Project fuses per
//   batch) Aggregate          -> HashAggregate(partial) -> Exchange hash(keys) ->
//   HashAggregate(final)
//                         when every call is decomposable; otherwise Exchange hash(keys)
//                         -> HashAggregate(complete). No keys: SinglePartition instead of
//                         hash.
//   Join               -> Exchange hash(keys) on both sides -> ShuffledHashJoin (build
//   right), or BroadcastHashJoin (a hinted or small side broadcast: BuildRight for
//   inner / left outer / semi / anti, BuildLeft for inner / right outer; Spark's
//   JoinSelection, docs/architecture.md "Execution model");
//                         without equi-keys: BroadcastNestedLoopJoin (right broadcast; a
//                         single left partition for right/full outer joins)
//   Sort               -> Sort (parallel run sort + merge); Limit over Sort -> TopN
//   Limit              -> LocalLimit -> Exchange SinglePartition -> GlobalLimit
//   Union              -> Union;  SetOp -> Exchange hash(all columns) both sides ->
//   SetOperation Window             -> per distinct (partition, order) spec: Exchange
//   hash(partition keys) ->
//                         Window; a final Project restores the call order when needed
//   Repartition        -> Exchange hash / round robin, or Coalesce (shuffle = false)
//   Watermark          -> its child (withWatermark does nothing in a batch plan)
//   Extension          -> whatever its exec::PhysicalExtension plans
//
// Thread safety: a Planner is immutable; Plan() may be called concurrently.

#include <optional>
#include <set>

#include "spate/exec/executor.h"
#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// The payload of a kExtension plan node that plans itself: the hook through which the
/// streaming engine puts its stateful operators into an otherwise ordinary batch plan.
/// PlanPhysical gets the node's children already planned. Immutable; may be planned
/// concurrently.
class PhysicalExtension : public sql::BoundExtension {
 public:
  virtual Result<PhysicalOpPtr> PlanPhysical(std::vector<PhysicalOpPtr> children,
                                             const ExecOptions& options) const = 0;
  /// Column pruning (scan_pushdown.h PruneColumns): the columns of the node's only child
  /// it reads when its consumer reads `needed` of its output (nullptr: all of it), or
  /// nullopt (the default) when it may read any child column.
  virtual std::optional<std::set<int>> ChildColumnsRead(
      const std::set<int>* needed) const {
    (void)needed;
    return std::nullopt;
  }
};

struct PlannerOptions {
  /// Plan every aggregate single-phase (exchange raw rows, then one complete
  /// aggregation), even when all calls are decomposable. For tests and comparisons.
  bool force_single_phase_aggregate = false;
};

class Planner {
 public:
  explicit Planner(const ExecOptions& options, PlannerOptions planner_options = {});

  Result<PhysicalOpPtr> Plan(const sql::BoundPlanPtr& plan) const;

 private:
  Result<PhysicalOpPtr> PlanAggregate(const sql::BoundPlan& node,
                                      const PhysicalOpPtr& child) const;
  Result<PhysicalOpPtr> PlanJoin(const sql::BoundPlan& node, PhysicalOpPtr left,
                                 PhysicalOpPtr right) const;
  Result<PhysicalOpPtr> PlanLimit(const sql::BoundPlan& node) const;
  Result<PhysicalOpPtr> PlanFileScan(const sql::BoundPlan& node) const;
  Result<PhysicalOpPtr> PlanSetOp(const sql::BoundPlan& node, const PhysicalOpPtr& left,
                                  const PhysicalOpPtr& right) const;
  Result<PhysicalOpPtr> PlanWindow(const sql::BoundPlan& node,
                                   const PhysicalOpPtr& child) const;

  int shuffle_partitions() const;

  ExecOptions options_;
  PlannerOptions planner_options_;
};

}  // namespace spate::exec
