// Copyright spate authors.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>

#include "spate/base/memory.h"

namespace spate {

/// A contiguous, 64-byte aligned memory region holding one Arrow buffer (validity bits,
/// values, offsets or bytes).
///
/// Ownership: shared through BufferPtr. A buffer is written only by the builder that
/// allocated it; once a Column holds it, it is immutable and may be shared by any number
/// of columns and threads. Allocation is charged to the thread's MemoryTracker (if any)
/// and released when the last reference goes. Wrap() adopts foreign memory (Arrow C
/// import) and runs the given release function at destruction.
class Buffer {
 public:
  /// Allocates `size` bytes (capacity rounded up to 64), zero-filled.
  static std::shared_ptr<Buffer> Allocate(int64_t size);
  /// Like Allocate, but the contents are undefined: for kernels that overwrite every byte
  /// they read back (values under NULL slots may be left unset, as Arrow allows).
  static std::shared_ptr<Buffer> AllocateUninitialized(int64_t size);
  /// Adopts memory owned elsewhere; `release` runs when the buffer dies.
  static std::shared_ptr<Buffer> Wrap(const void* data, int64_t size,
                                      std::function<void()> release);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return data_; }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(data_);
  }
  /// Grows (reallocating, keeping contents, zero-filling the tail) to at least
  /// `new_size` bytes. REQUIRES: owned buffer.
  void Resize(int64_t new_size);
  /// Shrinks the logical size without reallocating.
  void set_size(int64_t size) { size_ = size; }

  Buffer() = default;

 private:
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  bool owned_ = true;
  std::function<void()> release_;
  std::shared_ptr<MemoryTracker> tracker_;
};
using BufferPtr = std::shared_ptr<Buffer>;

namespace bits {
inline bool Get(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void Set(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void Clear(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) |
                                      (static_cast<unsigned>(v) << (i & 7)));
}
inline int64_t BytesFor(int64_t n) { return (n + 7) / 8; }
/// Number of set bits among the first n.
int64_t CountSet(const uint8_t* bits, int64_t n);
/// out[i] = a[i] & b[i] for the first n bits (byte-wise).
void And(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);
}  // namespace bits

}  // namespace spate
