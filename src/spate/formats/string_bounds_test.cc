// Copyright spate authors.
#include "spate/formats/string_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace spate::formats {
namespace {

// Unsigned byte order, as Parquet and Delta compare STRING / BINARY statistics.
bool ByteLess(const std::string& a, const std::string& b) {
  return std::lexicographical_compare(
      a.begin(), a.end(), b.begin(), b.end(),
      [](char x, char y) { return static_cast<uint8_t>(x) < static_cast<uint8_t>(y); });
}

TEST(StringBoundsTest, EqualsABruteForceMinAndMaxInUnsignedByteOrder) {
  // Short alphabets and lengths around the 8-byte prefix make ties of the prefix (a
  // string and its zero-padded extension, equal first 8 bytes) and bytes >= 0x80 common.
  std::mt19937 rng(7);
  const char alphabet[] = {'\0', 'a', 'b', '\x7f', '\x80', '\xff'};
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> values(1 + rng() % 12);
    for (auto& v : values) {
      v.resize(rng() % 12);
      for (auto& c : v) c = alphabet[rng() % sizeof(alphabet)];
    }
    StringBounds b;
    EXPECT_FALSE(b.any());
    for (const auto& v : values) b.Add(v);
    ASSERT_TRUE(b.any());
    const std::string lo = *std::min_element(values.begin(), values.end(), ByteLess);
    const std::string hi = *std::max_element(values.begin(), values.end(), ByteLess);
    ASSERT_EQ(std::string(b.min()), lo) << "round " << round;
    ASSERT_EQ(std::string(b.max()), hi) << "round " << round;
  }
}

}  // namespace
}  // namespace spate::formats
