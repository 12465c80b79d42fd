// Copyright spate authors.
#pragma once

// Sort: global ORDER BY. Prepare() sorts every input partition in parallel into a sorted
// run (stable: a row-index permutation from RowComparator, then one gather); the single
// output partition is a k-way merge of the runs (ties broken by run order, so the whole
// sort is stable with respect to the input's partition order).
//
// Thread safety: immutable; state lives in the ExecContext.

#include <mutex>
#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/exec/row_comparator.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// A sorted batch and a comparator over its (sorted) key columns.
struct SortedRun {
  BatchPtr batch;
  RowComparator comparator;
};

/// Evaluates `keys` over `batch` and sorts it (stable); keeps only the first `limit`
/// rows when limit >= 0.
Result<SortedRun> SortBatch(const BatchPtr& batch, const std::vector<sql::SortKey>& keys,
                            const EvalContext& eval, int64_t limit = -1);

/// Merges sorted runs into batches of about `batch_size` rows in global order.
BatchStreamPtr MakeMergeStream(std::vector<SortedRun> runs, SchemaPtr schema,
                               int64_t batch_size);

/// The sorted runs of an operator's input partitions: its Prepare() keeps them in the
/// ExecContext, its one output partition takes them once and merges them (freeing each
/// as the merge goes; MergePreparedRuns).
struct PreparedRuns {
  mutable std::mutex mu;
  mutable std::vector<SortedRun> runs;
  mutable bool taken = false;
};

/// The merge of the runs that `op` (named `name` in errors) prepared in `ctx`; they are
/// read once per execution.
Result<BatchStreamPtr> MergePreparedRuns(const PhysicalOp& op, const char* name,
                                         ExecContext* ctx);

class Sort final : public PhysicalOp {
 public:
  Sort(std::vector<sql::SortKey> keys, const PhysicalOpPtr& child);

  int num_partitions() const override { return 1; }
  Status Prepare(ExecContext* ctx) const override;
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

 private:
  std::vector<sql::SortKey> keys_;
};

}  // namespace spate::exec
