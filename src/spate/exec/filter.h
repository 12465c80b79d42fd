// Copyright spate authors.
#pragma once

// Filter: keeps the rows where the condition is true (not false, not NULL). Batches
// where every row passes go through untouched; empty results are dropped.
//
// Thread safety: immutable; partitions may be opened concurrently.

#include "spate/compute/bound_expr.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

class Filter final : public PhysicalOp {
 public:
  Filter(BoundExprPtr condition, const PhysicalOpPtr& child);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override { return "Filter " + condition_->ToString(); }

 private:
  BoundExprPtr condition_;
};

/// Row indices of `input` where `condition` is true; sets *all when every row passes
/// (then the vector is left empty).
Result<std::vector<int32_t>> SelectRows(const BoundExpr& condition, const Batch& input,
                                        const EvalContext& eval, bool* all);

/// Indices of the rows of a boolean column that are true; *all as in SelectRows.
std::vector<int32_t> TrueRows(const Column& mask, bool* all);

}  // namespace spate::exec
