// Copyright spate authors.
#pragma once

// 128-bit decimal arithmetic of the kernels (unscaled values of DECIMAL(p, s)): powers of
// ten, half-up rounding division, rescaled multiplication with a 256-bit intermediate,
// precision checks. Internal to compute. Thread safety: pure functions.

#include <array>
#include <cstddef>
#include <cstdint>

namespace spate::kernel {

/// 10^0 .. 10^38, computed at compile time.
inline constexpr std::array<__int128, 39> kPow10 = [] {
  std::array<__int128, 39> t{};
  t[0] = 1;
  for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
  return t;
}();

/// 10^k for k in [0, 38] (k clamped to that range). Inline: the decimal kernels and casts
/// call it per row.
inline __int128 Pow10(int k) { return kPow10[k < 0 ? 0 : (k > 38 ? 38 : k)]; }
/// Rounds unscaled/10^k half-up (away from zero at .5).
__int128 DivRoundHalfUp(__int128 v, __int128 divisor);
/// round_half_up(a * b / 10^drop_digits) computed with a 256-bit intermediate (decimal
/// multiplication whose exact product exceeds 128 bits). False if the result overflows.
bool MulRescale(__int128 a, __int128 b, int drop_digits, __int128* out);

/// True if |v| < 10^precision.
inline bool FitsPrecision(__int128 v, int precision) {
  __int128 lim = Pow10(precision);
  return v < lim && v > -lim;
}

}  // namespace spate::kernel
