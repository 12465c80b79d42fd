// Copyright spate authors.
#include "spate/exec/executor.h"

#include "spate/exec/exec_context.h"
#include "spate/exec/physical_plan.h"
#include "spate/exec/planner.h"
#include "spate/exec/scan_pushdown.h"

namespace spate::exec {

Result<PhysicalPlanPtr> CreatePhysicalPlan(const sql::BoundPlanPtr& plan,
                                           const ExecOptions& options) {
  if (!plan) return Status::Invalid("CreatePhysicalPlan: null plan");
  SPATE_ASSIGN_OR_RETURN(PhysicalOpPtr root, Planner(options).Plan(PruneColumns(plan)));
  return PhysicalPlanPtr(std::make_shared<const PhysicalPlan>(std::move(root)));
}

std::string ExplainString(const PhysicalPlan& plan) { return RenderTree(*plan.root()); }

Result<std::vector<BatchPtr>> Execute(const PhysicalPlan& plan,
                                      const ExecOptions& options) {
  ScopedMemoryTracker scope(options.memory);
  std::vector<BatchPtr> out;
  {
    ExecContext ctx(options);
    const PhysicalOp& root = *plan.root();
    SPATE_RETURN_IF_ERROR(ctx.PrepareTree(root));
    const int64_t n = root.num_partitions();
    std::vector<std::vector<BatchPtr>> parts(static_cast<size_t>(n));
    SPATE_RETURN_IF_ERROR(ctx.ParallelFor(n, [&](int64_t p) {
      return DrainPartition(root, static_cast<int>(p), &ctx, &parts[p]);
    }));
    for (auto& part : parts) {
      for (auto& b : part) {
        out.push_back(b->schema() == root.schema() ? std::move(b)
                                                   : b->WithSchema(root.schema()));
      }
    }
  }
  return out;
}

Status ExecuteToSink(
    const PhysicalPlan& plan, const ExecOptions& options,
    const std::function<Status(int partition, const BatchPtr& batch)>& sink) {
  ScopedMemoryTracker scope(options.memory);
  ExecContext ctx(options);
  const PhysicalOp& root = *plan.root();
  SPATE_RETURN_IF_ERROR(ctx.PrepareTree(root));
  const int64_t n = root.num_partitions();
  return ctx.ParallelFor(n, [&](int64_t p) -> Status {
    SPATE_ASSIGN_OR_RETURN(BatchStreamPtr stream, root.Open(static_cast<int>(p), &ctx));
    while (true) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, stream->Next());
      if (!b) return Status::OK();
      if (b->num_rows() == 0) continue;
      SPATE_RETURN_IF_ERROR(
          sink(static_cast<int>(p),
               b->schema() == root.schema() ? b : b->WithSchema(root.schema())));
    }
  });
}

Result<std::vector<BatchPtr>> Collect(const sql::BoundPlanPtr& plan,
                                      const ExecOptions& options) {
  SPATE_ASSIGN_OR_RETURN(PhysicalPlanPtr physical, CreatePhysicalPlan(plan, options));
  return Execute(*physical, options);
}

}  // namespace spate::exec
