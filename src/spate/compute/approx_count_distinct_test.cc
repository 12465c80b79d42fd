// Copyright spate authors.
#include "spate/compute/approx_count_distinct.h"

#include <gtest/gtest.h>

#include <vector>

namespace spate {
namespace {

TEST(HllTest, PrecisionFromRelativeSd) {
  EXPECT_EQ(HllPrecision(0.05), 9);
  EXPECT_EQ(HllPrecision(0.01), 14);
  EXPECT_EQ(HllPrecision(0.2), 5);
  EXPECT_EQ(HllPrecision(0.39), 4);
  EXPECT_LT(HllPrecision(0.5), 4);
}

TEST(HllTest, LinearCountingForFewValues) {
  std::vector<uint8_t> regs(512, 0);
  EXPECT_EQ(HllEstimate(regs.data(), 9), 0);
  regs[3] = 1;
  regs[100] = 2;
  regs[200] = 1;
  // m * ln(m / V) = 512 * ln(512 / 509) = 3.008...
  EXPECT_EQ(HllEstimate(regs.data(), 9), 3);
}

TEST(HllTest, RawEstimateAboveFiveM) {
  // Every register at 8: E = alpha * m^2 / (m * 2^-8) = alpha * m * 256.
  std::vector<uint8_t> regs(512, 8);
  double alpha = 0.7213 / (1.0 + 1.079 / 512);
  EXPECT_EQ(HllEstimate(regs.data(), 9), static_cast<int64_t>(alpha * 512 * 256 + 0.5));
}

TEST(HllTest, BiasCorrectedBetweenTwoAndAHalfAndFiveM) {
  // Every register at 2: E = alpha * m * 4 = 1473.6 (2.5m = 1280 < E < 5m); V = 0, so the
  // estimate is E minus the mean bias of the 6 nearest tabulated raw estimates (1440.9228
  // .. 1500.6128 at indices 111..116, biases 19.9228 .. 15.6128).
  std::vector<uint8_t> regs(512, 2);
  double e = 0.7213 / (1.0 + 1.079 / 512) * 512 * 512 / 128.0;
  double bias = (19.9228000000001 + 19.9292 + 16.617 + 17.05 + 18.2996000000001 +
                 15.6128000000001) /
                6;
  EXPECT_EQ(HllEstimate(regs.data(), 9), static_cast<int64_t>(e - bias + 0.5));
}

}  // namespace
}  // namespace spate
