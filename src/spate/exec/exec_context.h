// Copyright spate authors.
#pragma once

// ExecContext: the mutable state of one execution of a physical plan.
//
// Holds the options, the thread pool, the materialized stage boundaries (keyed by the
// operator that owns them) and runs tasks with the query's MemoryTracker installed.
//
// Ownership: created by Execute() for one run and destroyed at its end, which frees all
// materialized exchange data. Thread safety: all methods may be called from any thread;
// states are set from the driver thread (Prepare) before the stages reading them run.

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "spate/exec/executor.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

class ExecContext {
 public:
  explicit ExecContext(ExecOptions options);
  ExecContext(const ExecContext&) = delete;
  ExecContext& operator=(const ExecContext&) = delete;

  const ExecOptions& options() const { return options_; }
  const EvalContext& eval() const { return options_.eval; }
  /// The evaluation context of partition `partition`, rows counted from its first.
  EvalContext eval(int partition) const {
    EvalContext e = options_.eval;
    e.partition_id = partition;
    e.row_offset = 0;
    return e;
  }
  int64_t batch_size() const {
    return options_.batch_size > 0 ? options_.batch_size : 8192;
  }
  ThreadPool& pool() const { return *pool_; }

  /// Runs fn(i) for i in [0, n) on up to options().parallelism threads, each with the
  /// query's memory tracker installed, and waits. Returns the first error by index.
  /// Called from a pool worker it runs inline (serially).
  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn);

  /// Prepares `op`'s subtree post-order (each operator at most once per execution).
  Status PrepareTree(const PhysicalOp& op);

  /// Stores the materialized state of `op`.
  void SetState(const PhysicalOp* op, std::shared_ptr<const void> state);
  /// The state stored for `op`, or nullptr.
  template <typename T>
  std::shared_ptr<const T> GetState(const PhysicalOp* op) const {
    return std::static_pointer_cast<const T>(GetStateRaw(op));
  }

 private:
  std::shared_ptr<const void> GetStateRaw(const PhysicalOp* op) const;

  ExecOptions options_;
  ThreadPool* pool_;
  mutable std::mutex mu_;
  std::unordered_map<const PhysicalOp*, std::shared_ptr<const void>> states_;
  std::unordered_set<const PhysicalOp*> prepared_;
};

}  // namespace spate::exec
