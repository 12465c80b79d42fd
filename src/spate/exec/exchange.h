// Copyright spate authors.
#pragma once

// Exchange: a stage boundary that redistributes the child's rows into new partitions.
//   kHash        hashpartitioning(keys, n): rows with equal keys land in one partition
//   kRoundRobin  RoundRobinPartitioning(n): row k of input partition p goes to (p + k) %
//   n kSingle      SinglePartition: all batches, in child partition order kBroadcast one
//   partition that every consumer task reads (nested-loop join build);
//                also available as one concatenated batch (BroadcastBatch)
// The child is run once per execution by Prepare() (input partitions in parallel) and
// the result kept in the ExecContext; Open(p) streams partition p. Output batches of the
// hash and round-robin modes are gathered (TakeMulti) to about batch_size rows.
//
// Thread safety: immutable; after Prepare, partitions may be opened concurrently.

#include <vector>

#include "spate/compute/bound_expr.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

enum class Partitioning : uint8_t { kHash, kRoundRobin, kSingle, kBroadcast };

class Exchange final : public PhysicalOp {
 public:
  /// `keys` (kHash only) are over the child's rows; `num_partitions` >= 1 (1 for
  /// kSingle and kBroadcast).
  Exchange(Partitioning partitioning, std::vector<BoundExprPtr> keys, int num_partitions,
           PhysicalOpPtr child);

  int num_partitions() const override { return num_partitions_; }
  Status Prepare(ExecContext* ctx) const override;
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  Partitioning partitioning() const { return partitioning_; }
  const std::vector<BoundExprPtr>& keys() const { return keys_; }
  /// kBroadcast: all rows as one batch of the child's schema (after Prepare).
  Result<BatchPtr> BroadcastBatch(ExecContext* ctx) const;

 private:
  Partitioning partitioning_;
  std::vector<BoundExprPtr> keys_;
  int num_partitions_;
};

}  // namespace spate::exec
