// Copyright spate authors.
#pragma once

// HashAggregate: grouped aggregation with a GroupTable and one GroupedAccumulator per
// aggregate call, in one of three modes:
//   kPartial   input rows -> group keys ++ State() columns of every call
//   kFinal     partial rows (keys ++ states) -> Merge -> keys ++ Finalize()
//   kComplete  input rows -> Update -> keys ++ Finalize() (single phase, after the rows
//              were exchanged by group key; used for non-decomposable calls)
// With no group keys there is exactly one group, so the output is one row even for an
// empty input (count = 0, sum = NULL); with keys, an empty input gives no rows.
// FILTER (WHERE ...) of a call: only rows where it is true reach that accumulator.
//
// Each partition is aggregated by its own stream (per-execution state); the operator is
// immutable. Thread safety: partitions may be opened concurrently.

#include <string>
#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

enum class AggregateMode : uint8_t { kPartial, kFinal, kComplete };

class HashAggregate final : public PhysicalOp {
 public:
  /// `group_exprs` and the calls' args/filters are over the child's rows (kPartial,
  /// kComplete); in kFinal mode the child is the partial output and only the number of
  /// keys and the calls' functions are used. `key_labels` name the keys in EXPLAIN.
  HashAggregate(AggregateMode mode, SchemaPtr schema,
                std::vector<BoundExprPtr> group_exprs,
                std::vector<std::string> key_labels,
                std::vector<sql::AggregateCall> calls, PhysicalOpPtr child);

  /// Schema of the partial output: keys ++ state fields of every call.
  static SchemaPtr PartialSchema(const std::vector<Field>& key_fields,
                                 const std::vector<sql::AggregateCall>& calls);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  AggregateMode mode() const { return mode_; }
  const std::vector<BoundExprPtr>& group_exprs() const { return group_exprs_; }
  const std::vector<sql::AggregateCall>& calls() const { return calls_; }

 private:
  AggregateMode mode_;
  std::vector<BoundExprPtr> group_exprs_;
  std::vector<std::string> key_labels_;
  std::vector<sql::AggregateCall> calls_;
};

}  // namespace spate::exec
