// Copyright spate authors.
#include "spate/exec/exec_context.h"

#include <atomic>
#include <mutex>

#include "spate/exec/progress.h"

namespace spate::exec {

ExecContext::ExecContext(ExecOptions options)
    : options_(std::move(options)),
      pool_(options_.pool ? options_.pool : &ThreadPool::Default()) {}

Status ExecContext::ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn) {
  int parallelism = options_.parallelism > 0 ? options_.parallelism : 1;
  const std::shared_ptr<MemoryTracker>& tracker = options_.memory;
  ProgressReporter report = GetProgressReporter();
  if (!report) {
    return pool_->ParallelFor(n, parallelism, [&fn, &tracker](int64_t i) {
      ScopedMemoryTracker scope(tracker);
      return fn(i);
    });
  }
  // A stage for the console progress bar (exec/progress.h): its tasks as they start and
  // end.
  static std::atomic<int64_t> next_stage{0};
  std::mutex mu;
  StageProgress p;
  p.stage_id = next_stage.fetch_add(1);
  p.total = n;
  report(p);
  auto update = [&](int64_t running, int64_t done) {
    StageProgress now;
    {
      std::lock_guard<std::mutex> lock(mu);
      p.running += running;
      p.done += done;
      now = p;
    }
    report(now);
  };
  Status st = pool_->ParallelFor(n, parallelism, [&](int64_t i) {
    ScopedMemoryTracker scope(tracker);
    update(1, 0);
    Status s = fn(i);
    update(-1, 1);
    return s;
  });
  p.finished = true;
  report(p);
  return st;
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
