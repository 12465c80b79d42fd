// Copyright spate authors.
#pragma once

// glibc malloc's thresholds for a long-running engine, set once at start-up
// (api::SparkSession::Builder::getOrCreate). By default glibc raises its mmap threshold
// to the size of the largest mmapped block freed so far (up to 32 MiB) and its trim
// threshold to twice that, and a thread arena gives back the free memory at its top only
// above the trim threshold (malloc_trim does not trim thread arenas' tops). A long stream
// frees a few blocks of some MiB now and then (an auto-compaction's column buffers,
// snappy's working memory, a VACUUM's snapshot load), after which every thread arena may
// keep that much free memory resident for good: the RSS creeps up while the live heap
// stays flat (docs/streaming.md "Memory"). The policy fixes the mmap threshold at 32 MiB
// (the dynamic threshold's ceiling: blocks below it come from the arenas, as once the
// dynamic threshold has risen, without a fresh mapping each) and the trim threshold at
// 1 MiB (an arena's top above it goes back to the system when a large block is freed).
// Setting either in glibc turns its dynamic adjustment off.
//
// Not applied when the environment already sets glibc's malloc tunables
// (GLIBC_TUNABLES, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_,
// MALLOC_MMAP_MAX_) or SPATE_MALLOC_POLICY=default, nor where malloc is not glibc's
// (sanitizers).
//
// Thread safety: any thread; applied at most once per process.

#include <cstddef>

namespace spate {

inline constexpr size_t kMallocMmapThreshold = size_t{32} << 20;
inline constexpr size_t kMallocTrimThreshold = size_t{1} << 20;

/// Sets the thresholds on the first call; true when this call set them.
bool ApplyMallocPolicy();

}  // namespace spate
