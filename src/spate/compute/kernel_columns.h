// Copyright spate authors.
#pragma once

// Building blocks for vectorized kernels: validity combination, typed output buffers and
// columns, dispatch on a type's physical storage. Internal to compute.

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
