// Copyright spate authors.
#include "spate/base/clock.h"

#include <algorithm>
#include <chrono>

namespace spate {

int64_t SystemClock::NowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t SystemClock::WaitUntil(int64_t target_ms,
                               const std::function<bool()>& cancelled) {
  for (;;) {
    int64_t now = NowMs();
    if (now >= target_ms || (cancelled && cancelled())) return now;
    int64_t slice = std::min<int64_t>(target_ms - now, 10);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(slice));
  }
}

void SystemClock::Wake() { cv_.notify_all(); }

const std::shared_ptr<SystemClock>& SystemClock::Get() {
  static const auto* clock =
      new std::shared_ptr<SystemClock>(std::make_shared<SystemClock>());
  return *clock;
}

int64_t ManualClock::NowMs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

int64_t ManualClock::WaitUntil(int64_t target_ms,
                               const std::function<bool()>& cancelled) {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiters_;
  wait_target_ = target_ms;
  while (now_ < target_ms) {
    lock.unlock();
    bool stop = cancelled && cancelled();
    lock.lock();
    if (stop) break;
    cv_.wait_for(lock, std::chrono::milliseconds(5));
  }
  --waiters_;
  if (waiters_ == 0) wait_target_ = -1;
  return now_;
}

void ManualClock::Wake() { cv_.notify_all(); }

void ManualClock::Advance(int64_t ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += ms;
  }
  cv_.notify_all();
}

void ManualClock::Set(int64_t ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = ms;
  }
  cv_.notify_all();
}

bool ManualClock::IsWaiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiters_ > 0;
}

bool ManualClock::IsWaitingFor(int64_t target_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiters_ > 0 && wait_target_ == target_ms;
}

}  // namespace spate
