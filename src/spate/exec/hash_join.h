// Copyright spate authors.
#pragma once

// HashJoin (Spark's ShuffledHashJoin, build right): both children are hash-partitioned
// on their keys into the same number of partitions. Per partition the right rows are
// built into a chained hash table, then left batches probe it; candidate pairs are
// checked by the residual condition and join-type semantics (JoinOutput). NULL keys
// never match unless the key is null-safe (<=>). Right/full outer joins emit the
// unmatched build rows at the end of the partition. Output: left ++ right columns
// (semi/anti: left only). A single integer key uses an int64 table; other keys are
// compared as RowEncoder bytes.
//
// Broadcast build (Spark's BroadcastHashJoin): the build child is a broadcast exchange of
// a small side; Prepare() builds its table once per execution and every partition of the
// other child (not exchanged) probes the same table. BuildRight for the join types that
// never emit unmatched right rows (inner, left outer, left semi, left anti); BuildLeft
// (the left child broadcast, right rows probe) for those that never emit unmatched left
// rows (inner, right outer: a right row's matches, or the row padded with NULLs, are
// emitted as it probes). Spark's canBuildBroadcastLeft / canBuildBroadcastRight.
//
// Thread safety: immutable; per-partition tables live in the streams.

#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// Which child a hash join builds its table from (Spark's BuildSide).
enum class BuildSide : uint8_t { kLeft, kRight };

class HashJoin final : public PhysicalOp {
 public:
  /// REQUIRES left and right have the same number of partitions, hash-partitioned on
  /// left_keys / right_keys (build right); or `broadcast_build` and the `build` child a
  /// broadcast exchange (build left: type inner or right outer).
  HashJoin(sql::JoinType type, std::vector<BoundExprPtr> left_keys,
           std::vector<BoundExprPtr> right_keys, std::vector<bool> null_safe,
           BoundExprPtr condition, SchemaPtr schema, PhysicalOpPtr left,
           PhysicalOpPtr right, bool broadcast_build = false,
           BuildSide build = BuildSide::kRight);

  int num_partitions() const override { return child(probe_child()).num_partitions(); }
  Status Prepare(ExecContext* ctx) const override;
  bool broadcast_build() const { return broadcast_build_; }
  BuildSide build_side() const { return build_; }
  /// The child index whose rows probe the table (0 when building right).
  int probe_child() const { return build_ == BuildSide::kLeft ? 1 : 0; }
  const std::vector<BoundExprPtr>& build_keys() const {
    return build_ == BuildSide::kLeft ? left_keys_ : right_keys_;
  }
  const std::vector<BoundExprPtr>& probe_keys() const {
    return build_ == BuildSide::kLeft ? right_keys_ : left_keys_;
  }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  sql::JoinType type() const { return type_; }
  const std::vector<BoundExprPtr>& left_keys() const { return left_keys_; }
  const std::vector<BoundExprPtr>& right_keys() const { return right_keys_; }
  const std::vector<bool>& null_safe() const { return null_safe_; }
  const BoundExprPtr& condition() const { return condition_; }

 private:
  sql::JoinType type_;
  std::vector<BoundExprPtr> left_keys_, right_keys_;
  std::vector<bool> null_safe_;
  BoundExprPtr condition_;
  bool broadcast_build_;
  BuildSide build_;
};

}  // namespace spate::exec
