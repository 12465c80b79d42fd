// Copyright spate authors.
#pragma once

// LocalScan: in-memory batches (Spark's LocalTableScan), spread over up to `partitions`
// partitions of consecutive batches, in order. Also serves OneRowRelation (one batch of
// one row and no columns).
//
// Thread safety: immutable; the batches are shared, never copied.

#include <vector>

#include "spate/exec/physical_op.h"

namespace spate::exec {

class LocalScan final : public PhysicalOp {
 public:
  /// `partitions` is clamped to [1, number of batches]. `label` is the EXPLAIN line.
  LocalScan(SchemaPtr schema, std::vector<BatchPtr> batches, int partitions,
            std::string label);

  int num_partitions() const override { return partitions_; }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override { return label_; }

 private:
  std::vector<BatchPtr> batches_;
  int partitions_;
  std::string label_;
};

}  // namespace spate::exec
