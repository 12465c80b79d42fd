// Copyright spate authors.
#pragma once

// 128-bit decimal arithmetic of the kernels (unscaled values of DECIMAL(p, s)): powers of
// ten, half-up rounding division, rescaled multiplication with a 256-bit intermediate,
// precision checks. Internal to compute. Thread safety: pure functions.

#include <cstdint>

namespace spate::kernel {

/// 10^k for k in [0, 38].
__int128 Pow10(int k);
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
