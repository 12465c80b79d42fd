// Copyright spate authors.
#pragma once

// Clock: the time source of everything that waits or stamps (stream triggers, progress
// timestamps, the rate source). Runtime code takes a Clock& so tests drive time by hand.
//
//  - SystemClock: wall-clock milliseconds since the epoch; WaitUntil sleeps in short
//    slices so a cancelled wait returns within a few milliseconds.
//  - ManualClock: time moves only when Advance()/Set() is called. A waiter blocks until
//    the clock reaches its target (or it is cancelled); IsWaiting() lets a test see that
//    the stream thread is parked on the clock before it advances time (Spark's
//    StreamManualClock.isStreamWaitingAt).
//
// Ownership: clocks are shared (ClockPtr). Thread safety: all methods are safe from any
// thread. Failure: none (pure time arithmetic).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace spate {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds since the Unix epoch.
  virtual int64_t NowMs() const = 0;
  /// Blocks until NowMs() >= target_ms or `cancelled()` returns true (checked at least
  /// every few milliseconds and after every Wake()). Returns NowMs().
  virtual int64_t WaitUntil(int64_t target_ms,
                            const std::function<bool()>& cancelled) = 0;
  /// Wakes every waiter so it re-checks its cancel condition.
  virtual void Wake() = 0;
};
using ClockPtr = std::shared_ptr<Clock>;

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;
  int64_t WaitUntil(int64_t target_ms, const std::function<bool()>& cancelled) override;
  void Wake() override;
  /// The process-wide instance.
  static const std::shared_ptr<SystemClock>& Get();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_(start_ms) {}
  int64_t NowMs() const override;
  int64_t WaitUntil(int64_t target_ms, const std::function<bool()>& cancelled) override;
  void Wake() override;
  void Advance(int64_t ms);
  void Set(int64_t ms);
  /// True while some thread is blocked in WaitUntil (optionally: for exactly `target`).
  bool IsWaiting() const;
  bool IsWaitingFor(int64_t target_ms) const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t now_;
  int waiters_ = 0;
  int64_t wait_target_ = -1;
};

}  // namespace spate
