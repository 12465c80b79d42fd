// Copyright spate authors.
#pragma once

// A mutex that clang's thread-safety analysis understands, and the annotations to declare
// which members it guards. Under clang (the fuzz build in CI compiles the libraries with
// it, with -Werror=thread-safety-analysis) a read or write of a SPATE_GUARDED_BY member
// without its mutex held is a compile error; under gcc the annotations are empty.
//
//   class Queue {
//     Mutex mu_;
//     std::condition_variable cv_;
//     std::deque<int> items_ SPATE_GUARDED_BY(mu_);
//    public:
//     void Push(int v) { MutexLock lock(mu_); items_.push_back(v); cv_.notify_one(); }
//     int Pop() {
//       MutexLock lock(mu_);
//       lock.Wait(cv_, [&]() SPATE_REQUIRES(mu_) { return !items_.empty(); });
//       ...
//
// A predicate run under the lock (Wait's) is a lambda of its own for the analysis: it
// declares SPATE_REQUIRES(mu_).

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define SPATE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SPATE_THREAD_ANNOTATION(x)
#endif

#define SPATE_CAPABILITY(x) SPATE_THREAD_ANNOTATION(capability(x))
#define SPATE_SCOPED_CAPABILITY SPATE_THREAD_ANNOTATION(scoped_lockable)
#define SPATE_GUARDED_BY(x) SPATE_THREAD_ANNOTATION(guarded_by(x))
#define SPATE_REQUIRES(...) SPATE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define SPATE_ACQUIRE(...) SPATE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define SPATE_RELEASE(...) SPATE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define SPATE_EXCLUDES(...) SPATE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define SPATE_NO_THREAD_SAFETY_ANALYSIS SPATE_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace spate {

/// std::mutex as a capability. Ownership: a member of the object whose state it guards;
/// not copyable or movable. Thread safety: Lock/Unlock from any thread; not recursive (a
/// second Lock on the same thread deadlocks, and clang's analysis reports it where it can
/// see it). Failure: none reported (std::mutex::lock's system errors terminate).
class SPATE_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() SPATE_ACQUIRE() { mu_.lock(); }
  void Unlock() SPATE_RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

/// Holds a Mutex for its scope (or until Unlock), and waits on condition variables with
/// it: the mutex is released while waiting and held again when a wait returns.
/// Ownership: borrows the Mutex, which must outlive it. Thread safety: used by the one
/// thread that created it. Failure: none (the waits return on their predicate or time).
class SPATE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) SPATE_ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() SPATE_RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() SPATE_RELEASE() { lock_.unlock(); }
  void Lock() SPATE_ACQUIRE() { lock_.lock(); }

  template <class Pred>
  void Wait(std::condition_variable& cv, Pred pred) {
    cv.wait(lock_, pred);
  }
  /// pred() once the wait ended (it holds, or the time ran out).
  template <class Rep, class Period, class Pred>
  bool WaitFor(std::condition_variable& cv, std::chrono::duration<Rep, Period> d,
               Pred pred) {
    return cv.wait_for(lock_, d, pred);
  }
  template <class Clock, class Duration>
  std::cv_status WaitUntil(std::condition_variable& cv,
                           std::chrono::time_point<Clock, Duration> t) {
    return cv.wait_until(lock_, t);
  }
  template <class Clock, class Duration, class Pred>
  bool WaitUntil(std::condition_variable& cv, std::chrono::time_point<Clock, Duration> t,
                 Pred pred) {
    return cv.wait_until(lock_, t, pred);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace spate
