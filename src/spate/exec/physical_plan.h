// Copyright spate authors.
#pragma once

// PhysicalPlan: the root of a physical operator tree, as CreatePhysicalPlan returns it.
//
// Ownership: owns the operator tree (shared, immutable). Thread safety: immutable; may
// be executed by several threads at once.

#include "spate/exec/physical_op.h"

namespace spate::exec {

class PhysicalPlan {
 public:
  explicit PhysicalPlan(PhysicalOpPtr root) : root_(std::move(root)) {}
  PhysicalPlan(const PhysicalPlan&) = delete;
  PhysicalPlan& operator=(const PhysicalPlan&) = delete;

  const PhysicalOpPtr& root() const { return root_; }
  const SchemaPtr& schema() const { return root_->schema(); }

 private:
  PhysicalOpPtr root_;
};

}  // namespace spate::exec
