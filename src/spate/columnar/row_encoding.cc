// Copyright spate authors.
#include "spate/columnar/row_encoding.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace spate {

namespace {
template <typename T>
void AppendRaw(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}
}  // namespace

void EncodeValue(const Column& c, int64_t i, std::string* out) {
  if (c.IsNull(i)) {
    out->push_back('\0');
    return;
  }
  out->push_back('\1');
  switch (c.type_id()) {
    case TypeId::kNull: break;
    case TypeId::kBoolean: out->push_back(c.GetBool(i) ? '\1' : '\0'); break;
    case TypeId::kByte: AppendRaw(out, c.raw_values<int8_t>()[i]); break;
    case TypeId::kShort: AppendRaw(out, c.raw_values<int16_t>()[i]); break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: AppendRaw(out, c.raw_values<int32_t>()[i]); break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: AppendRaw(out, c.raw_values<int64_t>()[i]); break;
    case TypeId::kFloat: {
      float f = c.raw_values<float>()[i];
      if (f == 0) f = 0;
      if (std::isnan(f)) f = std::numeric_limits<float>::quiet_NaN();
      AppendRaw(out, f);
      break;
    }
    case TypeId::kDouble: {
      double d = c.raw_values<double>()[i];
      if (d == 0) d = 0;
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      AppendRaw(out, d);
      break;
    }
    case TypeId::kDecimal: AppendRaw(out, c.raw_values<__int128>()[i]); break;
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view v = c.GetView(i);
      AppendRaw(out, static_cast<uint32_t>(v.size()));
      out->append(v.data(), v.size());
      break;
    }
    case TypeId::kStruct:
      for (const auto& ch : c.children()) EncodeValue(*ch, i, out);
      break;
    case TypeId::kArray:
    case TypeId::kMap: {
      const int32_t* o = c.offsets();
      AppendRaw(out, static_cast<uint32_t>(o[i + 1] - o[i]));
      for (int32_t k = o[i]; k < o[i + 1]; ++k) EncodeValue(*c.child(0), k, out);
      break;
    }
  }
}

void RowEncoder::Encode(const std::vector<const Column*>& columns, int64_t n) {
  data_.clear();
  offsets_.assign(1, 0);
  offsets_.reserve(static_cast<size_t>(n + 1));
  any_null_.assign(static_cast<size_t>(n), 0);
  for (const Column* c : columns) {
    if (c->null_count() == 0) continue;
    for (int64_t i = 0; i < n; ++i) any_null_[i] |= c->IsNull(i);
  }
  for (int64_t i = 0; i < n; ++i) {
    for (const Column* c : columns) EncodeValue(*c, i, &data_);
    offsets_.push_back(static_cast<int64_t>(data_.size()));
  }
}

uint64_t HashBytes(std::string_view b) {
  // 64-bit multiply-mix over 8-byte words (wyhash-style mixing).
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (b.size() * 0xff51afd7ed558ccdULL);
  size_t i = 0;
  for (; i + 8 <= b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, b.data() + i, 8);
    h = HashInt(h ^ w) + 0x9E3779B97F4A7C15ULL;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, b.data() + i, b.size() - i);
  return HashInt(h ^ tail ^ (static_cast<uint64_t>(b.size() - i) << 56));
}

}  // namespace spate
