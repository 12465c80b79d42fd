// Copyright spate authors.
#pragma once

// Window: evaluates window calls that share one (PARTITION BY, ORDER BY) spec. The child
// is already hash-partitioned by the partition keys (or a single partition); each
// partition is sorted by (partition keys ASC NULLS FIRST, order keys), split into window
// partitions and peer groups, and every call computes one column: row_number, rank,
// dense_rank, percent_rank, cume_dist, ntile, lag/lead (with default), nth_value (the
// frame's n-th row, or n-th non-NULL row with IGNORE NULLS), or an aggregate over its
// frame (window_aggregate.h). Output: the child's columns ++ one column per call, rows in
// the sorted order.
//
// Thread safety: immutable; per-partition work happens in the streams.

#include <string>
#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

class Window final : public PhysicalOp {
 public:
  /// REQUIRES all calls have the same partition_by and order_by; `labels` name the
  /// calls' output columns in EXPLAIN; schema = child's fields ++ one per call.
  Window(std::vector<sql::WindowCall> calls, std::vector<std::string> labels,
         SchemaPtr schema, PhysicalOpPtr child);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  /// Computes the window columns over all rows of `input` (one partition's rows).
  Result<BatchPtr> Apply(const BatchPtr& input, const EvalContext& eval) const;

 private:
  std::vector<sql::WindowCall> calls_;
  std::vector<std::string> labels_;
};

}  // namespace spate::exec
