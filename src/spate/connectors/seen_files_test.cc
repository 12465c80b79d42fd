// Copyright spate authors.
// SeenFiles (the file source's compact seen-files map) against a std::map model: the
// same answers after every add, re-add and purge, and its bytes per file.

#include "spate/connectors/seen_files.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace spate::connectors {
namespace {

std::string FileName(int dir, int i) {
  char name[96];
  std::snprintf(name, sizeof(name), "/data/in/date=2026-01-%02d/part-%05d-c000.json", dir,
                i);
  return name;
}

TEST(SeenFiles, AddFindAndPurgeMatchAMap) {
  SeenFiles seen;
  std::map<std::string, int64_t> model;
  std::mt19937 rng(7);
  int64_t threshold = 0;
  for (int step = 0; step < 20000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 7) {
      // New files mostly, sometimes one seen again (with a later time).
      const std::string key =
          FileName(static_cast<int>(rng() % 5), static_cast<int>(rng() % 3000));
      const int64_t ts = threshold + static_cast<int64_t>(rng() % 1000);
      seen.Add(key, ts);
      model[key] = ts;
    } else if (op < 9) {
      const std::string key =
          FileName(static_cast<int>(rng() % 6), static_cast<int>(rng() % 3000));
      auto it = model.find(key);
      ASSERT_EQ(seen.Contains(key), it != model.end()) << key;
      if (it != model.end()) {
        ASSERT_EQ(seen.Get(key), it->second);
      }
    } else {
      threshold += static_cast<int64_t>(rng() % 20);
      seen.PurgeOlderThan(threshold);
      for (auto it = model.begin(); it != model.end();)
        it = it->second < threshold ? model.erase(it) : std::next(it);
      ASSERT_EQ(seen.size(), model.size());
    }
  }
  for (const auto& [key, ts] : model) ASSERT_EQ(seen.Get(key), ts) << key;
  EXPECT_GT(model.size(), 100u);
}

TEST(SeenFiles, KeysWithoutDirectoryAndEmptyKeys) {
  SeenFiles seen;
  seen.Add("a.json", 5);
  seen.Add("", 6);
  seen.Add("/a.json", 7);
  EXPECT_EQ(seen.Get("a.json"), 5);
  EXPECT_EQ(seen.Get(""), 6);
  EXPECT_EQ(seen.Get("/a.json"), 7);
  EXPECT_FALSE(seen.Contains("b/a.json"));
  EXPECT_EQ(seen.size(), 3u);
  seen.Add("a.json", 9);  // seen again: the later time
  seen.PurgeOlderThan(7);
  EXPECT_EQ(seen.Get("a.json"), 9);
  EXPECT_FALSE(seen.Contains(""));
  EXPECT_TRUE(seen.Contains("/a.json"));
  seen.PurgeOlderThan(100);
  EXPECT_EQ(seen.size(), 0u);
  EXPECT_FALSE(seen.Contains("a.json"));
  seen.Add("a.json", 1);  // usable after everything was purged
  EXPECT_EQ(seen.Get("a.json"), 1);
}

// A stream's life: files arrive in time order and the oldest are purged, so the buffers
// are reused (names compacted, entries recycled) and stay bounded by the retained files.
TEST(SeenFiles, MemoryStaysBoundedByTheRetainedFiles) {
  SeenFiles seen;
  constexpr int kRetained = 10000;
  size_t peak = 0;
  for (int i = 0; i < 200000; ++i) {
    seen.Add(FileName(1, i % 100000) + std::to_string(i), i);
    if (i % 1000 == 0) seen.PurgeOlderThan(i - kRetained);
    if (i > 3 * kRetained) peak = std::max(peak, seen.MemoryBytes());
  }
  EXPECT_LE(seen.size(), static_cast<size_t>(kRetained + 1000));
  // Spark data-file-like names of ~30 bytes: well under 200 bytes a file at the peak,
  // capacities included (std::unordered_map<std::string, int64_t> plus a timestamp
  // queue of the same strings held ~300).
  EXPECT_LT(peak, static_cast<size_t>(kRetained + 1000) * 200);
  EXPECT_TRUE(seen.Contains(FileName(1, 199999 % 100000) + "199999"));
  EXPECT_FALSE(seen.Contains(FileName(1, 100 % 100000) + "100"));
}

// The buffers are mapped apart from the malloc heap once large (MappedAllocator): many
// files add nothing to what malloc hands out, so they neither sit among a batch's
// garbage nor move glibc's mmap threshold when they grow.
TEST(SeenFiles, LargeBuffersAreNotMallocs) {
  auto allocated = [] {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.uordblks + m.hblkhd);
  };
  SeenFiles seen;
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back(FileName(i % 3, i));
  const int64_t before = allocated();
  for (int i = 0; i < 20000; ++i) seen.Add(keys[static_cast<size_t>(i)], i);
  const int64_t growth = allocated() - before;
  EXPECT_GT(seen.MemoryBytes(), size_t{1} << 20);
  EXPECT_LT(growth, int64_t{64} << 10);
}

}  // namespace
}  // namespace spate::connectors
