// Copyright spate authors.
#pragma once

// Coalesce: coalesce(n) without a shuffle: output partition i reads the child's adjacent
// partitions [i*m/n, (i+1)*m/n) in order (m = child partitions; n is capped at m).
//
// Thread safety: immutable; partitions may be opened concurrently.

#include "spate/exec/physical_op.h"

namespace spate::exec {

class Coalesce final : public PhysicalOp {
 public:
  Coalesce(int num_partitions, PhysicalOpPtr child);

  int num_partitions() const override { return num_partitions_; }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override {
    return "Coalesce " + std::to_string(num_partitions_);
  }

 private:
  int num_partitions_;
};

}  // namespace spate::exec
