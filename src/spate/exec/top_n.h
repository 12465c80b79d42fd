// Copyright spate authors.
#pragma once

// TopN: ORDER BY ... LIMIT n [OFFSET m] (Spark's TakeOrderedAndProject). Prepare() keeps
// the first n + m rows of every input partition in parallel (sorting and truncating as
// rows accumulate), then the single output partition merges those runs, skips m rows
// and yields n.
//
// Thread safety: immutable; state lives in the ExecContext.

#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

class TopN final : public PhysicalOp {
 public:
  /// `labels` name the output columns in EXPLAIN.
  TopN(std::vector<sql::SortKey> keys, int64_t limit, int64_t offset,
       std::vector<std::string> labels, const PhysicalOpPtr& child);

  int num_partitions() const override { return 1; }
  Status Prepare(ExecContext* ctx) const override;
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

 private:
  std::vector<sql::SortKey> keys_;
  int64_t limit_;
  int64_t offset_;
  std::vector<std::string> labels_;
};

}  // namespace spate::exec
