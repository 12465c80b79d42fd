// Copyright spate authors.
#pragma once

// Union: UNION ALL; its partitions are the children's partitions one after another.
// Batches are re-labelled to the union's schema (same types, possibly other names).
//
// Thread safety: immutable; partitions may be opened concurrently.

#include "spate/exec/physical_op.h"

namespace spate::exec {

class Union final : public PhysicalOp {
 public:
  Union(SchemaPtr schema, std::vector<PhysicalOpPtr> children);

  int num_partitions() const override { return num_partitions_; }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override { return "Union"; }

 private:
  int num_partitions_ = 0;
};

}  // namespace spate::exec
