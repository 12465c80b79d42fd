// Copyright spate authors.
#include "spate/base/mapped_allocator.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "spate/base/malloc_policy.h"
#include "spate/base/malloc_probe.h"

namespace spate {
namespace {

#if SPATE_GLIBC_MALLOC  // (malloc_probe.h: no threshold to observe under sanitizers)
int64_t MallocBytes() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

TEST(MappedAllocator, SmallBlocksFromMallocLargeOnesMappedApart) {
  ReleaseMappedCache();  // the cache's own small allocation made before measuring
  MappedAllocator<char> a;
  const int64_t before = MallocBytes();
  char* small = a.allocate(4000);  // above glibc's tcache sizes: its free shows
  EXPECT_GE(MallocBytes() - before, 4000);
  const int64_t mid = MallocBytes();
  char* large = a.allocate(kMappedMinBytes);
  char* larger = a.allocate(size_t{3} << 20);
  EXPECT_EQ(MallocBytes(), mid);  // not malloc's
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % page, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(larger) % page, 0u);
  std::memset(small, 1, 4000);
  std::memset(large, 2, kMappedMinBytes);
  std::memset(larger, 3, size_t{3} << 20);
  EXPECT_EQ(large[kMappedMinBytes - 1], 2);
  EXPECT_EQ(larger[(size_t{3} << 20) - 1], 3);
  a.deallocate(larger, size_t{3} << 20);
  a.deallocate(large, kMappedMinBytes);
  a.deallocate(small, 4000);
  EXPECT_EQ(MallocBytes(), before);
}
#endif

TEST(MappedAllocator, ContainersKeepTheirContentsAcrossTheThreshold) {
  MappedVector<int64_t> v;
  for (int64_t i = 0; i < 100000; ++i) v.push_back(i * 3);  // small blocks, then mapped
  ASSERT_EQ(v.size(), 100000u);
  for (int64_t i = 0; i < 100000; ++i) ASSERT_EQ(v[static_cast<size_t>(i)], i * 3);
  MappedVector<int64_t> copy = v;
  EXPECT_EQ(copy, v);
  v.resize(10);
  v.shrink_to_fit();  // back below the threshold: from operator new again
  EXPECT_EQ(v.back(), 27);
  MappedString s;
  for (int i = 0; i < 20000; ++i) s += "0123456789";
  ASSERT_EQ(s.size(), 200000u);
  EXPECT_EQ(s.substr(199990), "0123456789");
  MappedVector<bool> bits(1 << 20, false);  // rebound to the word type
  bits[12345] = true;
  EXPECT_TRUE(bits[12345]);
  EXPECT_FALSE(bits[12346]);
  EXPECT_TRUE(MappedAllocator<int>() == MappedAllocator<char>());
}

// Freed blocks wait in the cache and serve the next allocation of their size (warm
// pages, no fresh mapping), not one of another size; blocks over
// kMappedCacheMaxBlock are unmapped at once; the cache holds at most
// kMappedCacheMaxBytes; ReleaseMappedCache empties it.
TEST(MappedAllocator, FreedBlocksAreReusedBoundedAndReleased) {
  ReleaseMappedCache();
  ASSERT_EQ(MappedCacheBytes(), 0u);
  MappedAllocator<char> a;
  constexpr size_t kMiB = size_t{1} << 20;
  char* p = a.allocate(kMiB);
  std::memset(p, 7, kMiB);
  a.deallocate(p, kMiB);
  EXPECT_EQ(MappedCacheBytes(), kMiB);
  char* q = a.allocate(kMiB);
  EXPECT_EQ(q, p);  // the same mapping back
  EXPECT_EQ(MappedCacheBytes(), 0u);
  a.deallocate(q, kMiB);
  char* other = a.allocate(3 * kMiB / 2);  // another size: a fresh mapping
  EXPECT_EQ(MappedCacheBytes(), kMiB);
  std::memset(other, 1, 3 * kMiB / 2);
  a.deallocate(other, 3 * kMiB / 2);
  EXPECT_EQ(MappedCacheBytes(), 5 * kMiB / 2);
  ReleaseMappedCache();
  EXPECT_EQ(MappedCacheBytes(), 0u);

  char* huge = a.allocate(kMappedCacheMaxBlock + kMiB);
  a.deallocate(huge, kMappedCacheMaxBlock + kMiB);
  EXPECT_EQ(MappedCacheBytes(), 0u);  // too large to keep
  std::vector<char*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(a.allocate(30 * kMiB));
  for (char* b : blocks) a.deallocate(b, 30 * kMiB);
  EXPECT_EQ(MappedCacheBytes(), 60 * kMiB);  // the oldest went: at most 64 MiB kept
  EXPECT_LE(MappedCacheBytes(), kMappedCacheMaxBytes);
  ReleaseMappedCache();
  EXPECT_EQ(MappedCacheBytes(), 0u);
}

// A block that waited kMappedCacheMaxAgeMs is unmapped at the next large allocation.
TEST(MappedAllocator, CachedBlocksExpire) {
  ReleaseMappedCache();
  MappedAllocator<char> a;
  char* p = a.allocate(size_t{1} << 20);
  a.deallocate(p, size_t{1} << 20);
  EXPECT_EQ(MappedCacheBytes(), size_t{1} << 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(kMappedCacheMaxAgeMs + 200));
  char* q = a.allocate(kMappedMinBytes);  // no fit: the expired block goes, a fresh one
  EXPECT_EQ(MappedCacheBytes(), 0u);
  a.deallocate(q, kMappedMinBytes);
  ReleaseMappedCache();
}

#if SPATE_GLIBC_MALLOC
// What the allocator is for: freeing a large mapped block leaves glibc's dynamic mmap
// threshold where it was, where freeing the same block from malloc raises it (the
// control). Each in a fresh process.
TEST(MappedAllocator, FreeingALargeBlockLeavesGlibcsMmapThresholdAlone) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        {
          MappedVector<char> big(size_t{4} << 20, 'x');
          asm volatile("" : : "r"(big.data()) : "memory");
        }
        std::_Exit(malloc_probe::MallocMaps(size_t{1} << 20) ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        {
          std::vector<char> big(size_t{4} << 20, 'x');
          asm volatile("" : : "r"(big.data()) : "memory");
        }
        std::_Exit(malloc_probe::MallocMaps(size_t{1} << 20) ? 0 : 1);
      },
      ::testing::ExitedWithCode(1), "");
}

// The engine's malloc policy (base/malloc_policy.h), each in a fresh process: a large
// block freed by a thread leaves no more than the trim threshold free at the top of its
// arena, where glibc's default (the control) keeps it all once its dynamic thresholds
// have risen — the RSS a long stream kept. The environment's own tunables win.
int FreeArenaBytesAfterLargeBlocksMiB() {
  size_t grown = 0;
  std::thread([&] {
    const size_t before = mallinfo2().fordblks;
    for (int i = 0; i < 2; ++i) {  // the second after the first raised the thresholds
      std::vector<char> big(size_t{6} << 20, 'x');
      asm volatile("" : : "r"(big.data()) : "memory");
    }
    const size_t after = mallinfo2().fordblks;
    grown = after > before ? after - before : 0;
  }).join();
  return static_cast<int>(grown >> 20);
}

TEST(MallocPolicy, FreedLargeBlocksLeaveNoArenaTopBehind) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        unsetenv("GLIBC_TUNABLES");
        if (!ApplyMallocPolicy()) std::_Exit(100);
        std::_Exit(FreeArenaBytesAfterLargeBlocksMiB() < 2 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::_Exit(FreeArenaBytesAfterLargeBlocksMiB() < 2 ? 0 : 1),
              ::testing::ExitedWithCode(1), "");
  EXPECT_EXIT(
      {
        setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=8", 1);
        std::_Exit(ApplyMallocPolicy() ? 0 : 1);
      },
      ::testing::ExitedWithCode(1), "");
}
#endif

}  // namespace
}  // namespace spate
