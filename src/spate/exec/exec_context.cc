// Copyright spate authors.
#include "spate/exec/exec_context.h"

namespace spate::exec {

ExecContext::ExecContext(ExecOptions options)
    : options_(std::move(options)),
      pool_(options_.pool ? options_.pool : &ThreadPool::Default()) {}

Status ExecContext::ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn) {
  int parallelism = options_.parallelism > 0 ? options_.parallelism : 1;
  const std::shared_ptr<MemoryTracker>& tracker = options_.memory;
  return pool_->ParallelFor(n, parallelism, [&fn, &tracker](int64_t i) {
    ScopedMemoryTracker scope(tracker);
    return fn(i);
  });
}

Status ExecContext::PrepareTree(const PhysicalOp& op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!prepared_.insert(&op).second) return Status::OK();
  }
  for (const auto& child : op.children()) SPATE_RETURN_IF_ERROR(PrepareTree(*child));
  ScopedMemoryTracker scope(options_.memory);
  return op.Prepare(this);
}

void ExecContext::SetState(const PhysicalOp* op, std::shared_ptr<const void> state) {
  std::lock_guard<std::mutex> lock(mu_);
  states_[op] = std::move(state);
}

std::shared_ptr<const void> ExecContext::GetStateRaw(const PhysicalOp* op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = states_.find(op);
  return it == states_.end() ? nullptr : it->second;
}

}  // namespace spate::exec
