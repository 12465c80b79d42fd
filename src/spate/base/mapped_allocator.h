// Copyright spate authors.
#pragma once

// MappedAllocator: a standard allocator that takes blocks of at least kMappedMinBytes
// straight from the kernel (mmap) and gives them back on deallocation (munmap); smaller
// ones come from operator new. For the big buffers a long stream keeps for long, or
// rebuilds again and again at a growing size (a Delta snapshot's tombstones, a file
// source's seen files and listings, the Parquet writer's column and page buffers):
// served by malloc, each free of such a block raises glibc's dynamic mmap threshold to
// its size (and the trim threshold to twice that), after which every block below it — a
// batch's buffers included — is carved from the malloc arenas, and up to twice that much
// free memory at the top of each thread's arena stays resident (malloc_trim does not
// trim the top of a thread's arena). Mapped here, these buffers neither move the
// thresholds nor share pages with the batches' garbage.
//
// Freed blocks up to kMappedCacheMaxBlock are kept a moment for reuse (a process-wide
// cache of at most kMappedCacheMaxBytes, each block unmapped once it has waited
// kMappedCacheMaxAgeMs, checked at every large allocation or free): a fresh mapping
// costs a page fault and a zeroed page for every 4 KiB touched, which made writing a
// large Parquet row group 1.7x slower than from malloc's warm heap. A block serves the
// next allocation of its own size (page-rounded; a writer's buffers repeat from file to
// file). ReleaseMappedCache() unmaps them all at once (benches and tests measuring the
// resident set).
//
// MappedVector / MappedString: the standard containers over it.
//
// Stateless: all instances are equal. Thread safe. Failure: a mapping the kernel refuses
// throws std::bad_alloc, as operator new does.

#include <sys/mman.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace spate {

inline constexpr size_t kMappedMinBytes = size_t{64} << 10;
/// Freed mapped blocks kept for reuse: at most this many bytes in all...
inline constexpr size_t kMappedCacheMaxBytes = size_t{64} << 20;
/// ...none larger than this (glibc's own cap on its dynamic mmap threshold)...
inline constexpr size_t kMappedCacheMaxBlock = size_t{32} << 20;
/// ...each for at most this long.
inline constexpr int64_t kMappedCacheMaxAgeMs = 1000;

namespace mapped_internal {

inline size_t PageRound(size_t bytes) {
  constexpr size_t kPage = 4096;
  return (bytes + kPage - 1) & ~(kPage - 1);
}

// The freed blocks kept for reuse (see the header comment). Sizes are whole pages.
class BlockCache {
 public:
  static BlockCache& Get() {
    static auto* cache = new BlockCache;  // never destroyed: usable from any destructor
    return *cache;
  }

  // A block of `bytes` (page-rounded) from the cache, or nullptr.
  void* Take(size_t bytes) {
    std::lock_guard<std::mutex> l(mu_);
    Expire(NowMs());
    // The same size only: a writer's buffers repeat from file to file, and a block cut
    // down or grown for another size leaves the next one of its own size to fault afresh.
    for (int i = 0; i < n_; ++i) {
      if (blocks_[i].bytes == bytes) {
        void* p = blocks_[i].p;
        blocks_[i] = blocks_[--n_];
        bytes_ -= bytes;
        return p;
      }
    }
    return nullptr;
  }

  // Keeps the freed block `p` of `bytes` (page-rounded) or unmaps it.
  void Put(void* p, size_t bytes) {
    if (bytes > kMappedCacheMaxBlock) {
      munmap(p, bytes);
      return;
    }
    std::lock_guard<std::mutex> l(mu_);
    const int64_t now = NowMs();
    Expire(now);
    while (n_ > 0 && (n_ == kSlots || bytes_ + bytes > kMappedCacheMaxBytes)) {
      int oldest = 0;
      for (int i = 1; i < n_; ++i) {
        if (blocks_[i].at_ms < blocks_[oldest].at_ms) oldest = i;
      }
      Drop(oldest);
    }
    blocks_[n_++] = Block{p, bytes, now};
    bytes_ += bytes;
  }

  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    while (n_ > 0) Drop(n_ - 1);
  }

  size_t bytes() {
    std::lock_guard<std::mutex> l(mu_);
    return bytes_;
  }

 private:
  struct Block {
    void* p;
    size_t bytes;
    int64_t at_ms;
  };
  static constexpr int kSlots = 64;

  static int64_t NowMs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
  }
  void Expire(int64_t now) {
    for (int i = n_ - 1; i >= 0; --i) {
      if (now - blocks_[i].at_ms > kMappedCacheMaxAgeMs) Drop(i);
    }
  }
  void Drop(int i) {
    munmap(blocks_[i].p, blocks_[i].bytes);
    bytes_ -= blocks_[i].bytes;
    blocks_[i] = blocks_[--n_];
  }

  std::mutex mu_;
  Block blocks_[kSlots] = {};
  int n_ = 0;
  size_t bytes_ = 0;
};

}  // namespace mapped_internal

/// Unmaps the freed blocks kept for reuse.
inline void ReleaseMappedCache() { mapped_internal::BlockCache::Get().Release(); }
/// Bytes of freed blocks kept for reuse (mapped, resident where touched).
inline size_t MappedCacheBytes() { return mapped_internal::BlockCache::Get().bytes(); }

template <typename T>
class MappedAllocator {
 public:
  using value_type = T;
  MappedAllocator() = default;
  template <typename U>
  // NOLINTNEXTLINE(google-explicit-constructor): rebinding converts implicitly.
  MappedAllocator(const MappedAllocator<U>& /*other*/) {}

  T* allocate(size_t n) {
    // NOLINTNEXTLINE(bugprone-sizeof-expression): T may be a pointer (hash buckets).
    const size_t bytes = n * sizeof(T);
    if (bytes < kMappedMinBytes) return static_cast<T*>(::operator new(bytes));
    const size_t mapped = mapped_internal::PageRound(bytes);
    if (void* p = mapped_internal::BlockCache::Get().Take(mapped))
      return static_cast<T*>(p);
    void* p =
        mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    // NOLINTNEXTLINE(bugprone-sizeof-expression): T may be a pointer (hash buckets).
    const size_t bytes = n * sizeof(T);
    if (bytes < kMappedMinBytes) {
      ::operator delete(p);
      return;
    }
    mapped_internal::BlockCache::Get().Put(p, mapped_internal::PageRound(bytes));
  }
  template <typename U>
  bool operator==(const MappedAllocator<U>& /*other*/) const {
    return true;
  }
};

template <typename T>
using MappedVector = std::vector<T, MappedAllocator<T>>;
using MappedString =
    std::basic_string<char, std::char_traits<char>, MappedAllocator<char>>;

}  // namespace spate
