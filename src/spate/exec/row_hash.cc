// Copyright spate authors.
#include "spate/exec/row_hash.h"

#include "spate/compute/kernel_columns.h"

namespace spate::exec {

bool IsIntegerKeyType(const DataType& t) {
  switch (t.id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return true;
    default:
      return false;
  }
}

int64_t IntegerKeyAt(const Column& c, int64_t i) {
  switch (c.type()->ByteWidth()) {
    case 1:
      return c.raw_values<int8_t>()[i];
    case 2:
      return c.raw_values<int16_t>()[i];
    case 4:
      return c.raw_values<int32_t>()[i];
    default:
      return c.raw_values<int64_t>()[i];
  }
}

void IntegerKeys(const Column& c, int64_t* out) {
  int64_t n = c.length();
  switch (c.type()->ByteWidth()) {
    case 1: {
      const int8_t* v = c.raw_values<int8_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    case 2: {
      const int16_t* v = c.raw_values<int16_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    case 4: {
      const int32_t* v = c.raw_values<int32_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    default: {
      const int64_t* v = c.raw_values<int64_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
  }
}

void HashRows(const std::vector<const Column*>& keys, int64_t n, RowEncoder* encoder,
              uint64_t* hashes) {
  if (keys.size() == 1 && IsIntegerKeyType(*keys[0]->type())) {
    const Column& c = *keys[0];
    auto hash_all = [&]<typename T>(const T* v) {
      if (c.null_count() == 0) {
        for (int64_t i = 0; i < n; ++i)
          hashes[i] = HashInt(static_cast<uint64_t>(static_cast<int64_t>(v[i])));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          hashes[i] = c.IsNull(i)
                          ? kNullKeyHash
                          : HashInt(static_cast<uint64_t>(static_cast<int64_t>(v[i])));
        }
      }
    };
    switch (c.type()->ByteWidth()) {
      case 1:
        hash_all(c.raw_values<int8_t>());
        break;
      case 2:
        hash_all(c.raw_values<int16_t>());
        break;
      case 4:
        hash_all(c.raw_values<int32_t>());
        break;
      default:
        hash_all(c.raw_values<int64_t>());
        break;
    }
    return;
  }
  encoder->Encode(keys, n);
  for (int64_t i = 0; i < n; ++i) hashes[i] = HashBytes(encoder->key(i));
}

}  // namespace spate::exec
