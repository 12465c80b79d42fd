// Copyright spate authors.
#pragma once

// Test helpers over glibc malloc's dynamic mmap threshold (base/mapped_allocator.h says
// why a long stream cares): a block of at least the threshold is mmapped by malloc, and
// freeing an mmapped block larger than the threshold raises it to that block's size
// (the trim threshold to twice that). Tests call them in a fresh process (a
// "threadsafe" death test) so that what earlier tests freed does not count. Test-only.

#include <malloc.h>

#include <cstddef>
#include <cstdlib>

namespace spate::malloc_probe {

/// 1 when malloc is glibc's, 0 under sanitizers (their allocator replaces it: there is no
/// mmap threshold to observe). Tests of the threshold are compiled only where it is 1, so
/// a sanitizer build has no such tests rather than tests that skip.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPATE_GLIBC_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SPATE_GLIBC_MALLOC 0
#else
#define SPATE_GLIBC_MALLOC 1
#endif
#else
#define SPATE_GLIBC_MALLOC 1
#endif

/// Whether malloc serves a block of `bytes` by mmap now (glibc's dynamic mmap threshold
/// is still at or below it). The probe is freed, which raises the threshold to its size:
/// call it once, last.
inline bool MallocMaps(size_t bytes) {
  const size_t before = mallinfo2().hblkhd;
  void* p = std::malloc(bytes);
  asm volatile("" : : "r"(p) : "memory");  // kept: not elided with its free
  const bool mapped = mallinfo2().hblkhd >= before + bytes;
  std::free(p);
  return mapped;
}

}  // namespace spate::malloc_probe
