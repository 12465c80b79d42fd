// Copyright spate authors.
#pragma once

// Memory accounting. A MemoryTracker counts the bytes of columnar buffers allocated while
// it is installed on the current thread (ScopedMemoryTracker), e.g. all buffers of one
// query. Trackers may have a parent (query -> session) and an optional limit.
//
// Thread safety: MemoryTracker is updated with atomics and may be shared by all threads
// running one query. The installed tracker is thread-local.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "spate/base/status.h"

namespace spate {

class MemoryTracker {
 public:
  explicit MemoryTracker(std::string label,
                         std::shared_ptr<MemoryTracker> parent = nullptr,
                         int64_t limit = 0)
      : label_(std::move(label)), parent_(std::move(parent)), limit_(limit) {}
  MemoryTracker(const MemoryTracker&) = delete;
  MemoryTracker& operator=(const MemoryTracker&) = delete;

  void Consume(int64_t bytes);
  void Release(int64_t bytes);
  int64_t current() const { return current_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  /// True if a limit is set and the current usage exceeds it.
  bool OverLimit() const { return limit_ > 0 && current() > limit_; }
  const std::string& label() const { return label_; }

  /// The tracker installed on this thread, or nullptr.
  static const std::shared_ptr<MemoryTracker>& Current();

 private:
  friend class ScopedMemoryTracker;
  std::string label_;
  std::shared_ptr<MemoryTracker> parent_;
  int64_t limit_;
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
};

/// Installs a tracker (buffers keep a reference to the tracker they were charged to) on
/// the current thread for the scope's lifetime.
class ScopedMemoryTracker {
 public:
  explicit ScopedMemoryTracker(std::shared_ptr<MemoryTracker> tracker);
  ~ScopedMemoryTracker();
  ScopedMemoryTracker(const ScopedMemoryTracker&) = delete;
  ScopedMemoryTracker& operator=(const ScopedMemoryTracker&) = delete;

 private:
  std::shared_ptr<MemoryTracker> previous_;
};

}  // namespace spate
