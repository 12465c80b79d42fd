// Copyright spate authors.
#pragma once

// SetOperation: INTERSECT / EXCEPT, ALL or DISTINCT, comparing whole rows with NULLs
// equal. Both children are hash-partitioned on all columns into the same partitions;
// per partition the rows of each side are counted per distinct row (GroupTable), then
// INTERSECT ALL emits min(l, r) copies, EXCEPT ALL max(l - r, 0), and the DISTINCT forms
// one row per key with l > 0 and r > 0 (INTERSECT) or l > 0 and r = 0 (EXCEPT). Output
// rows are taken from the left side, in order of first appearance.
//
// Thread safety: immutable; per-partition state lives in the streams.

#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

class SetOperation final : public PhysicalOp {
 public:
  /// REQUIRES kind is kIntersect or kExcept; both children hash-partitioned on all
  /// columns into the same number of partitions.
  SetOperation(sql::SetOpKind kind, bool all, SchemaPtr schema, PhysicalOpPtr left,
               PhysicalOpPtr right);

  int num_partitions() const override { return child(0).num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

 private:
  sql::SetOpKind kind_;
  bool all_;
};

}  // namespace spate::exec
