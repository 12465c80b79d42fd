// Copyright spate authors.
#pragma once

// MappedAllocator: a standard allocator that takes blocks of at least kMappedMinBytes
// straight from the kernel (mmap) and gives them back on deallocation (munmap); smaller
// ones come from operator new. For the big buffers a long stream keeps for long, or
// rebuilds again and again at a growing size (a Delta snapshot's tombstones, a file
// source's seen files and listings): served by malloc, each free of such a block raises
// glibc's dynamic mmap threshold to its size (and the trim threshold to twice that),
// after which every block below it — a batch's buffers included — is carved from the
// malloc arenas, and up to twice that much free memory at the top of each thread's arena
// stays resident (malloc_trim does not trim the top of a thread's arena). Mapped here,
// these buffers neither move the thresholds nor share pages with the batches' garbage.
//
// Stateless: all instances are equal. Thread safe.

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace spate {

inline constexpr size_t kMappedMinBytes = size_t{64} << 10;

template <typename T>
class MappedAllocator {
 public:
  using value_type = T;
  MappedAllocator() = default;
  template <typename U>
  // NOLINTNEXTLINE(google-explicit-constructor): rebinding converts implicitly.
  MappedAllocator(const MappedAllocator<U>& /*other*/) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMappedMinBytes) return static_cast<T*>(::operator new(bytes));
    void* p =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMappedMinBytes) {
      ::operator delete(p);
      return;
    }
    munmap(p, bytes);
  }
  template <typename U>
  bool operator==(const MappedAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace spate
