// Copyright spate authors.
#include "spate/compute/kernel_columns.h"

#include <cstring>

namespace spate::kernel {

BufferPtr AndValidity(const std::vector<const Column*>& cols, int64_t n,
                      int64_t* null_count) {
  BufferPtr out;
  for (const Column* c : cols) {
    if (c->type_id() == TypeId::kNull) {
      *null_count = n;
      return Buffer::Allocate(bits::BytesFor(n));
    }
    if (!c->validity() || c->null_count() == 0) continue;
    if (!out) {
      out = Buffer::Allocate(bits::BytesFor(n));
      std::memcpy(out->mutable_data(), c->validity()->data(),
                  static_cast<size_t>(bits::BytesFor(n)));
    } else {
      bits::And(out->data(), c->validity()->data(), out->mutable_data(), n);
    }
  }
  *null_count = out ? n - bits::CountSet(out->data(), n) : 0;
  if (out && *null_count == 0) out.reset();
  return out;
}

Phys PhysicalOf(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return Phys::kBool;
    case TypeId::kByte:
      return Phys::kI8;
    case TypeId::kShort:
      return Phys::kI16;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Phys::kI32;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return Phys::kI64;
    case TypeId::kFloat:
      return Phys::kF32;
    case TypeId::kDouble:
      return Phys::kF64;
    case TypeId::kDecimal:
      return Phys::kI128;
    case TypeId::kString:
    case TypeId::kBinary:
      return Phys::kBytes;
    default:
      return Phys::kNone;
  }
}

}  // namespace spate::kernel
