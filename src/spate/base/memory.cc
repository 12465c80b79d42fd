// Copyright spate authors.
#include "spate/base/memory.h"

namespace spate {

namespace {
thread_local std::shared_ptr<MemoryTracker> tls_tracker;
}

void MemoryTracker::Consume(int64_t bytes) {
  int64_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t prev = peak_.load(std::memory_order_relaxed);
  while (now > prev &&
         !peak_.compare_exchange_weak(prev, now, std::memory_order_relaxed)) {
  }
  if (parent_) parent_->Consume(bytes);
}

void MemoryTracker::Release(int64_t bytes) {
  current_.fetch_sub(bytes, std::memory_order_relaxed);
  if (parent_) parent_->Release(bytes);
}

const std::shared_ptr<MemoryTracker>& MemoryTracker::Current() { return tls_tracker; }

ScopedMemoryTracker::ScopedMemoryTracker(std::shared_ptr<MemoryTracker> tracker)
    : previous_(std::move(tls_tracker)) {
  tls_tracker = std::move(tracker);
}

ScopedMemoryTracker::~ScopedMemoryTracker() { tls_tracker = std::move(previous_); }

}  // namespace spate
