// Copyright spate authors.
#include "spate/compute/decimal_math.h"

namespace spate::kernel {

__int128 DivRoundHalfUp(__int128 v, __int128 divisor) {
  __int128 q = v / divisor;
  __int128 r = v % divisor;
  __int128 abs_r = r < 0 ? -r : r;
  __int128 abs_d = divisor < 0 ? -divisor : divisor;
  if (abs_r * 2 >= abs_d) q += ((v < 0) != (divisor < 0)) ? -1 : 1;
  return q;
}

bool MulRescale(__int128 a, __int128 b, int drop_digits, __int128* out) {
  using u128 = unsigned __int128;
  bool neg = (a < 0) != (b < 0);
  u128 ua = a < 0 ? -static_cast<u128>(a) : static_cast<u128>(a);
  u128 ub = b < 0 ? -static_cast<u128>(b) : static_cast<u128>(b);
  uint64_t a0 = static_cast<uint64_t>(ua), a1 = static_cast<uint64_t>(ua >> 64);
  uint64_t b0 = static_cast<uint64_t>(ub), b1 = static_cast<uint64_t>(ub >> 64);
  // 256-bit product in four 64-bit limbs (little endian).
  uint64_t limb[4] = {0, 0, 0, 0};
  auto add_at = [&limb](int pos, u128 v) {
    for (int i = pos; i < 4 && v != 0; ++i) {
      u128 sum = static_cast<u128>(limb[i]) + static_cast<uint64_t>(v);
      limb[i] = static_cast<uint64_t>(sum);
      v = (v >> 64) + (sum >> 64);
    }
  };
  add_at(0, static_cast<u128>(a0) * b0);
  add_at(1, static_cast<u128>(a0) * b1);
  add_at(1, static_cast<u128>(a1) * b0);
  add_at(2, static_cast<u128>(a1) * b1);
  int last_digit = 0;
  for (int d = 0; d < drop_digits; ++d) {
    u128 rem = 0;
    for (int i = 3; i >= 0; --i) {
      u128 cur = (rem << 64) | limb[i];
      limb[i] = static_cast<uint64_t>(cur / 10);
      rem = cur % 10;
    }
    last_digit = static_cast<int>(rem);
  }
  if (drop_digits > 0 && last_digit >= 5) add_at(0, 1);
  if (limb[2] != 0 || limb[3] != 0 || (limb[1] >> 63) != 0) return false;
  u128 r = (static_cast<u128>(limb[1]) << 64) | limb[0];
  *out = neg ? -static_cast<__int128>(r) : static_cast<__int128>(r);
  return true;
}

}  // namespace spate::kernel
