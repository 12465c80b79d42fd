// Copyright spate authors.
#pragma once

// Building blocks for vectorized kernels: validity combination, typed output allocation,
// decimal powers of ten. Internal to compute.

#include <cstdint>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/columnar/builder.h"

namespace spate::kernel {

/// Validity of rows valid in all `cols` (nullptr if all valid); sets *null_count.
BufferPtr AndValidity(const std::vector<const Column*>& cols, int64_t n,
                      int64_t* null_count);

/// True if row i is valid given a combined validity buffer (nullptr = all valid).
inline bool Valid(const BufferPtr& validity, int64_t i) {
  return !validity || bits::Get(validity->data(), i);
}

template <typename T>
struct Out {
  BufferPtr buf;
  T* data;
  explicit Out(int64_t n) : buf(Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)))) {
    data = buf->mutable_data_as<T>();
  }
};

inline ColumnPtr MakeColumn(DataTypePtr type, int64_t n, int64_t nulls,
                            BufferPtr validity, BufferPtr values) {
  return std::make_shared<const Column>(std::move(type), n, nulls, std::move(validity),
                                        std::move(values));
}

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

/// Physical storage class of a type, to share kernels between logical types.
enum class Phys : uint8_t {
  kNone,
  kBool,
  kI8,
  kI16,
  kI32,
  kI64,
  kF32,
  kF64,
  kI128,
  kBytes
};
Phys PhysicalOf(const DataType& t);

/// Dispatches `fn.template operator()<T>()` on the fixed-width C++ type of `t`.
template <typename Fn>
auto DispatchFixed(const DataType& t, Fn&& fn) {
  switch (PhysicalOf(t)) {
    case Phys::kI8:
      return fn.template operator()<int8_t>();
    case Phys::kI16:
      return fn.template operator()<int16_t>();
    case Phys::kI32:
      return fn.template operator()<int32_t>();
    case Phys::kF32:
      return fn.template operator()<float>();
    case Phys::kF64:
      return fn.template operator()<double>();
    case Phys::kI128:
      return fn.template operator()<__int128>();
    default:
      return fn.template operator()<int64_t>();
  }
}

}  // namespace spate::kernel
