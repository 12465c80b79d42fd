// Copyright spate authors.
#pragma once

// Physical planning and execution of resolved plans.
//
// CreatePhysicalPlan turns a BoundPlan into a tree of physical operators over partitions
// (scan, filter, project, hash aggregate (partial/final), exchange (hash repartitioning),
// hash join, sort, top-N, limit, union, window, set operations). Execute runs it on the
// thread pool: exchanges and other stage boundaries are materialized from the calling
// thread, each stage's partitions run in parallel, and the result batches come back in
// partition order (for a sorted plan: the global order).
//
// Thread safety: a PhysicalPlan is immutable and may be executed concurrently; all
// per-execution state lives in the execution call. Memory used by one execution is
// charged to ExecOptions::memory.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spate/base/memory.h"
#include "spate/base/thread_pool.h"
#include "spate/compute/bound_expr.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

struct ExecOptions {
  /// spark.sql.shuffle.partitions: partitions after an exchange.
  int shuffle_partitions = 2;
  /// Threads used to run partitions (the pool's size by default).
  int parallelism = 2;
  /// Rows per batch produced by scans.
  int64_t batch_size = 8192;
  /// spark.sql.autoBroadcastJoinThreshold: an equi-join whose right side is estimated
  /// below this many bytes broadcasts it (BroadcastHashJoin); -1 never.
  int64_t auto_broadcast_threshold = -1;  // the session sets Spark's default, 10 MB
  EvalContext eval;
  std::shared_ptr<MemoryTracker> memory;
  ThreadPool* pool = nullptr;  // nullptr = ThreadPool::Default()
};

class PhysicalPlan;
using PhysicalPlanPtr = std::shared_ptr<const PhysicalPlan>;

Result<PhysicalPlanPtr> CreatePhysicalPlan(const sql::BoundPlanPtr& plan,
                                           const ExecOptions& options);

/// Spark-style physical plan text, e.g.
///   HashAggregate(keys=[k#2L], functions=[count(1), sum(id#0L)])
///   +- Exchange hashpartitioning(k#2L, 2)
///      +- HashAggregate(keys=[k#2L], functions=[partial_count(1), partial_sum(id#0L)])
///         +- Project [(id#0L % 10) AS k#2L, id#0L]
///            +- Range (0, 10000000, step=1, splits=2)
std::string ExplainString(const PhysicalPlan& plan);

/// Runs the plan to completion and returns all result batches in order.
Result<std::vector<BatchPtr>> Execute(const PhysicalPlan& plan,
                                      const ExecOptions& options);

/// Runs the plan and hands every result batch to `sink(partition, batch)` as it is
/// produced, from the thread running that partition (partitions run in parallel; calls
/// for one partition are sequential and in order). Stops at the first error (of a
/// partition or of the sink). For writers that stream each partition to its own file.
Status ExecuteToSink(
    const PhysicalPlan& plan, const ExecOptions& options,
    const std::function<Status(int partition, const BatchPtr& batch)>& sink);

/// CreatePhysicalPlan + Execute.
Result<std::vector<BatchPtr>> Collect(const sql::BoundPlanPtr& plan,
                                      const ExecOptions& options);

}  // namespace spate::exec
