// Copyright spate authors.
#pragma once

// Project: evaluates expressions over each input batch (one Evaluate per expression per
// batch); partitions map one to one onto the child's.
//
// Thread safety: immutable; partitions may be opened concurrently.

#include <string>
#include <vector>

#include "spate/compute/bound_expr.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

class Project final : public PhysicalOp {
 public:
  /// `labels[i]` names output column i in EXPLAIN ("k#2L").
  Project(SchemaPtr schema, std::vector<BoundExprPtr> exprs,
          std::vector<std::string> labels, PhysicalOpPtr child);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  /// Evaluates the projection over one batch.
  Result<BatchPtr> Apply(const Batch& input, const EvalContext& eval) const;

 private:
  std::vector<BoundExprPtr> exprs_;
  std::vector<std::string> labels_;
};

}  // namespace spate::exec
