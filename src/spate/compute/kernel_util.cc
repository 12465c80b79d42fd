// Copyright spate authors.
#include "spate/compute/kernel_util.h"

#include <cstring>

namespace spate::kernel {

BufferPtr AndValidity(const std::vector<const Column*>& cols, int64_t n, int64_t* null_count) {
  BufferPtr out;
  for (const Column* c : cols) {
    if (c->type_id() == TypeId::kNull) {
      *null_count = n;
      return Buffer::Allocate(bits::BytesFor(n));
    }
    if (!c->validity() || c->null_count() == 0) continue;
    if (!out) {
      out = Buffer::Allocate(bits::BytesFor(n));
      std::memcpy(out->mutable_data(), c->validity()->data(), static_cast<size_t>(bits::BytesFor(n)));
    } else {
      bits::And(out->data(), c->validity()->data(), out->mutable_data(), n);
    }
  }
  *null_count = out ? n - bits::CountSet(out->data(), n) : 0;
  if (out && *null_count == 0) out.reset();
  return out;
}

__int128 Pow10(int k) {
  static const auto* table = [] {
    auto* t = new __int128[39];
    t[0] = 1;
    for (int i = 1; i < 39; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table[k < 0 ? 0 : (k > 38 ? 38 : k)];
}

__int128 DivRoundHalfUp(__int128 v, __int128 divisor) {
  __int128 q = v / divisor;
  __int128 r = v % divisor;
  __int128 abs_r = r < 0 ? -r : r;
  __int128 abs_d = divisor < 0 ? -divisor : divisor;
  if (abs_r * 2 >= abs_d) q += ((v < 0) != (divisor < 0)) ? -1 : 1;
  return q;
}

Phys PhysicalOf(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean: return Phys::kBool;
    case TypeId::kByte: return Phys::kI8;
    case TypeId::kShort: return Phys::kI16;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return Phys::kI32;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return Phys::kI64;
    case TypeId::kFloat: return Phys::kF32;
    case TypeId::kDouble: return Phys::kF64;
    case TypeId::kDecimal: return Phys::kI128;
    case TypeId::kString:
    case TypeId::kBinary: return Phys::kBytes;
    default: return Phys::kNone;
  }
}

}  // namespace spate::kernel
