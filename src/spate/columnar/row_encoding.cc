// Copyright spate authors.
#include "spate/columnar/row_encoding.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

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
    case TypeId::kNull:
      break;
    case TypeId::kBoolean:
      out->push_back(c.GetBool(i) ? '\1' : '\0');
      break;
    case TypeId::kByte:
      AppendRaw(out, c.raw_values<int8_t>()[i]);
      break;
    case TypeId::kShort:
      AppendRaw(out, c.raw_values<int16_t>()[i]);
      break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      AppendRaw(out, c.raw_values<int32_t>()[i]);
      break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      AppendRaw(out, c.raw_values<int64_t>()[i]);
      break;
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
    case TypeId::kDecimal:
      AppendRaw(out, c.raw_values<__int128>()[i]);
      break;
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

namespace {

// Column-at-a-time encoding: the bytes are the same as EncodeValue's, row by row, but
// each column is sized and then written in one typed loop. `active` (nullable) limits the
// rows a struct's children are encoded for (rows where the struct itself is present).

bool HasNested(const Column& c) {
  if (c.type_id() == TypeId::kArray || c.type_id() == TypeId::kMap) return true;
  for (const auto& ch : c.children()) {
    if (HasNested(*ch)) return true;
  }
  return false;
}

int FixedWidth(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
    case TypeId::kByte:
      return 1;
    case TypeId::kShort:
      return 2;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat:
      return 4;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kDouble:
      return 8;
    case TypeId::kDecimal:
      return 16;
    default:
      return -1;
  }
}

// Rows of c that are present: active (or all) and not null; nullptr when that is all
// rows.
const uint8_t* PresentRows(const Column& c, int64_t n, const uint8_t* active,
                           std::vector<uint8_t>* storage) {
  if (c.null_count() == 0 && c.type_id() != TypeId::kNull) return active;
  storage->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*storage)[i] = (!active || active[i]) && !c.IsNull(i);
  return storage->data();
}

void AddSizes(const Column& c, int64_t n, const uint8_t* active, int64_t* size) {
  std::vector<uint8_t> present_storage;
  const uint8_t* present = PresentRows(c, n, active, &present_storage);
  const bool all_null = c.type_id() == TypeId::kNull;
  for (int64_t i = 0; i < n; ++i) size[i] += (!active || active[i]);  // the marker
  if (all_null) return;
  int w = FixedWidth(c.type_id());
  if (w > 0) {
    for (int64_t i = 0; i < n; ++i) size[i] += (!present || present[i]) ? w : 0;
    return;
  }
  if (c.type_id() == TypeId::kString || c.type_id() == TypeId::kBinary) {
    const int32_t* o = c.offsets();
    for (int64_t i = 0; i < n; ++i) {
      if (!present || present[i]) size[i] += 4 + (o[i + 1] - o[i]);
    }
    return;
  }
  // struct
  for (const auto& ch : c.children()) AddSizes(*ch, n, present, size);
}

// Writes each active row's marker ('\0' absent, '\1' present) and, for present rows, the
// bytes `body(i, out)` writes (it returns how many).
template <typename Body>
void WriteRows(int64_t n, const uint8_t* active, const uint8_t* present, char* buf,
               int64_t* pos, Body body) {
  for (int64_t i = 0; i < n; ++i) {
    if (active && !active[i]) continue;
    char* p = buf + pos[i];
    if (present && !present[i]) {
      *p = '\0';
      pos[i] += 1;
      continue;
    }
    *p = '\1';
    pos[i] += 1 + body(i, p + 1);
  }
}

template <typename T>
void WriteFixed(const Column& c, int64_t n, const uint8_t* active, const uint8_t* present,
                char* buf, int64_t* pos) {
  const T* v = c.raw_values<T>();
  WriteRows(n, active, present, buf, pos, [v](int64_t i, char* out) {
    T x = v[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (x == 0) x = 0;
      if (std::isnan(x)) x = std::numeric_limits<T>::quiet_NaN();
    }
    std::memcpy(out, &x, sizeof(T));
    return static_cast<int64_t>(sizeof(T));
  });
}

void WriteColumn(const Column& c, int64_t n, const uint8_t* active, char* buf,
                 int64_t* pos) {
  std::vector<uint8_t> present_storage;
  const uint8_t* present = PresentRows(c, n, active, &present_storage);
  switch (c.type_id()) {
    case TypeId::kNull:
      for (int64_t i = 0; i < n; ++i) {
        if (!active || active[i]) buf[pos[i]++] = '\0';
      }
      return;
    case TypeId::kBoolean:
      return WriteRows(n, active, present, buf, pos, [&c](int64_t i, char* out) {
        *out = c.GetBool(i) ? '\1' : '\0';
        return int64_t{1};
      });
    case TypeId::kByte:
      return WriteFixed<int8_t>(c, n, active, present, buf, pos);
    case TypeId::kShort:
      return WriteFixed<int16_t>(c, n, active, present, buf, pos);
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return WriteFixed<int32_t>(c, n, active, present, buf, pos);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return WriteFixed<int64_t>(c, n, active, present, buf, pos);
    case TypeId::kFloat:
      return WriteFixed<float>(c, n, active, present, buf, pos);
    case TypeId::kDouble:
      return WriteFixed<double>(c, n, active, present, buf, pos);
    case TypeId::kDecimal:
      return WriteFixed<__int128>(c, n, active, present, buf, pos);
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* o = c.offsets();
      const char* data =
          c.data() ? reinterpret_cast<const char*>(c.data()->data()) : nullptr;
      return WriteRows(n, active, present, buf, pos, [o, data](int64_t i, char* out) {
        uint32_t len = static_cast<uint32_t>(o[i + 1] - o[i]);
        std::memcpy(out, &len, 4);
        if (len) std::memcpy(out + 4, data + o[i], len);
        return int64_t{4} + len;
      });
    }
    case TypeId::kStruct:
      for (int64_t i = 0; i < n; ++i) {
        if (!active || active[i]) buf[pos[i]++] = (present && !present[i]) ? '\0' : '\1';
      }
      for (const auto& ch : c.children()) WriteColumn(*ch, n, present, buf, pos);
      return;
    case TypeId::kArray:
    case TypeId::kMap:
      break;  // callers take the row-wise path for these
  }
}

}  // namespace

void RowEncoder::Encode(const std::vector<const Column*>& columns, int64_t n) {
  any_null_.assign(static_cast<size_t>(n), 0);
  for (const Column* c : columns) {
    if (c->null_count() == 0) continue;
    for (int64_t i = 0; i < n; ++i) any_null_[i] |= c->IsNull(i);
  }
  bool nested = false;
  for (const Column* c : columns) nested = nested || HasNested(*c);
  if (nested) {
    data_.clear();
    offsets_.assign(1, 0);
    offsets_.reserve(static_cast<size_t>(n + 1));
    for (int64_t i = 0; i < n; ++i) {
      for (const Column* c : columns) EncodeValue(*c, i, &data_);
      offsets_.push_back(static_cast<int64_t>(data_.size()));
    }
    return;
  }
  // Sizes into offsets_[1..n], prefix sums, then each column written at each row's
  // cursor.
  offsets_.assign(static_cast<size_t>(n + 1), 0);
  for (const Column* c : columns) AddSizes(*c, n, nullptr, offsets_.data() + 1);
  for (int64_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
  data_.resize(static_cast<size_t>(offsets_[n]));
  cursor_.assign(offsets_.begin(), offsets_.end() - 1);
  for (const Column* c : columns)
    WriteColumn(*c, n, nullptr, data_.data(), cursor_.data());
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
  if (i < b.size()) std::memcpy(&tail, b.data() + i, b.size() - i);  // data() may be null
  return HashInt(h ^ tail ^ (static_cast<uint64_t>(b.size() - i) << 56));
}

}  // namespace spate
