// Copyright spate authors.
#pragma once

// NestedLoopJoin (Spark's BroadcastNestedLoopJoin, build right): joins without equi-keys
// (cross joins, non-equi conditions). The right side is a broadcast Exchange,
// materialized once per execution; every left partition pairs each of its rows with all
// right rows in chunks of batch_size pairs and applies the condition and join-type
// semantics (JoinOutput). Right/full outer joins need a single left partition (the
// planner adds a SinglePartition exchange) so unmatched right rows are known at its end.
//
// Thread safety: immutable; per-partition state lives in the streams.

#include "spate/exec/exchange.h"
#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

class NestedLoopJoin final : public PhysicalOp {
 public:
  /// REQUIRES `right` is a kBroadcast Exchange; for right/full outer joins `left` has
  /// one partition.
  NestedLoopJoin(sql::JoinType type, BoundExprPtr condition, SchemaPtr schema,
                 PhysicalOpPtr left, std::shared_ptr<const Exchange> right);

  int num_partitions() const override { return child(0).num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  sql::JoinType type() const { return type_; }
  const BoundExprPtr& condition() const { return condition_; }
  const Exchange& broadcast() const { return *broadcast_; }

 private:
  sql::JoinType type_;
  BoundExprPtr condition_;
  std::shared_ptr<const Exchange> broadcast_;
};

}  // namespace spate::exec
