// Copyright spate authors.
#include "spate/base/thread_pool.h"

#include <atomic>
#include <memory>

namespace spate {

namespace {
thread_local const ThreadPool* tls_pool = nullptr;
}

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads < 1) num_threads = 1;
  for (int i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool* pool = [] {
    unsigned n = std::thread::hardware_concurrency();
    return new ThreadPool(n == 0 ? 2 : static_cast<int>(n));
  }();
  return *pool;
}

bool ThreadPool::InWorker() const { return tls_pool == this; }

void ThreadPool::Submit(std::function<void()> task) {
  {
    MutexLock lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  tls_pool = this;
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(mu_);
      lock.Wait(cv_, [this]() SPATE_REQUIRES(mu_) { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

Status ThreadPool::ParallelFor(int64_t n, int parallelism,
                               const std::function<Status(int64_t)>& fn) {
  if (n <= 0) return Status::OK();
  struct Shared {
    std::atomic<int64_t> next{0};
    Mutex mu;
    std::condition_variable done_cv;
    int running SPATE_GUARDED_BY(mu) = 0;
    std::vector<Status> errors;
  };
  auto shared = std::make_shared<Shared>();
  shared->errors.resize(static_cast<size_t>(n));
  auto drain = [shared, n, &fn] {
    for (;;) {
      int64_t i = shared->next.fetch_add(1);
      if (i >= n) break;
      Status st = fn(i);
      if (!st.ok()) shared->errors[static_cast<size_t>(i)] = std::move(st);
    }
  };
  int helpers = 0;
  if (!InWorker()) {
    helpers = static_cast<int>(std::min<int64_t>(n, parallelism) - 1);
    if (helpers > num_threads()) helpers = num_threads();
  }
  {
    MutexLock lock(shared->mu);
    shared->running = helpers;
  }
  for (int h = 0; h < helpers; ++h) {
    Submit([shared, drain] {
      drain();
      MutexLock lock(shared->mu);
      if (--shared->running == 0) shared->done_cv.notify_all();
    });
  }
  drain();
  {
    MutexLock lock(shared->mu);
    lock.Wait(shared->done_cv,
              [&]() SPATE_REQUIRES(shared->mu) { return shared->running == 0; });
  }
  for (auto& st : shared->errors) {
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace spate
