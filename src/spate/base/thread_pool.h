// Copyright spate authors.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "spate/base/mutex.h"
#include "spate/base/status.h"

namespace spate {

/// A fixed-size pool of worker threads running submitted tasks.
///
/// Ownership: owned by the process (see Default()) or by a test; destroying it joins all
/// workers after the queued tasks have run.
/// Thread safety: all methods may be called from any thread, including from tasks.
/// ParallelFor called from inside a worker runs the excess work inline, so nested use
/// cannot deadlock.
class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The process-wide pool, sized to the number of hardware threads.
  static ThreadPool& Default();

  int num_threads() const { return static_cast<int>(workers_.size()); }

  void Submit(std::function<void()> task);

  /// Runs fn(i) for i in [0, n) on up to `parallelism` threads (the caller's included)
  /// and waits. Returns the first non-OK status (by index order); others are dropped.
  Status ParallelFor(int64_t n, int parallelism,
                     const std::function<Status(int64_t)>& fn);

  /// True when called from one of this pool's worker threads.
  bool InWorker() const;

 private:
  void WorkerLoop();

  Mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_ SPATE_GUARDED_BY(mu_);
  bool stop_ SPATE_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace spate
