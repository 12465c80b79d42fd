// Copyright spate authors.
#include "spate/columnar/kernels.h"

#include <cstring>

#include "spate/columnar/builder.h"

namespace spate {

namespace {

// A row locator: for row k of the output, which source column and which row (-1 = null).
struct SingleSource {
  const Column* src;
  const int32_t* idx;
  const Column& source(int64_t) const { return *src; }
  int64_t row(int64_t k) const { return idx[k]; }
  SingleSource Child(int f) const { return {src->child(f).get(), idx}; }
};

struct MultiSource {
  std::vector<const Column*> srcs;
  const uint64_t* refs;
  const Column& source(int64_t k) const { return *srcs[refs[k] >> 32]; }
  int64_t row(int64_t k) const {
    return refs[k] == ~uint64_t{0} ? -1 : static_cast<int64_t>(refs[k] & 0xffffffffu);
  }
  MultiSource Child(int f) const {
    MultiSource out{{}, refs};
    for (const Column* c : srcs) out.srcs.push_back(c->child(f).get());
    return out;
  }
};

template <typename Loc>
ColumnPtr Gather(const DataTypePtr& type, const Loc& loc, int64_t n, bool any_nulls);

template <typename Loc>
BufferPtr GatherValidity(const Loc& loc, int64_t n, int64_t* null_count) {
  auto bits_buf = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* out = bits_buf->mutable_data();
  int64_t nulls = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t r = loc.row(k);
    bool valid = r >= 0 && loc.source(k).IsValid(r);
    if (valid) {
      bits::Set(out, k);
    } else {
      ++nulls;
    }
  }
  *null_count = nulls;
  if (nulls == 0) return nullptr;
  return bits_buf;
}

template <typename T, typename Loc>
BufferPtr GatherFixed(const Loc& loc, int64_t n) {
  auto buf = Buffer::AllocateUninitialized(n * static_cast<int64_t>(sizeof(T)));
  T* out = buf->mutable_data_as<T>();
  for (int64_t k = 0; k < n; ++k) {
    int64_t r = loc.row(k);
    out[k] = r >= 0 ? loc.source(k).template raw_values<T>()[r] : T{};
  }
  return buf;
}

template <typename Loc>
ColumnPtr Gather(const DataTypePtr& type, const Loc& loc, int64_t n, bool any_nulls) {
  int64_t null_count = 0;
  BufferPtr validity;
  if (type->id() == TypeId::kNull) return Column::MakeNull(type, n);
  if (any_nulls) validity = GatherValidity(loc, n, &null_count);
  switch (type->id()) {
    case TypeId::kBoolean: {
      auto buf = Buffer::Allocate(bits::BytesFor(n));
      uint8_t* out = buf->mutable_data();
      for (int64_t k = 0; k < n; ++k) {
        int64_t r = loc.row(k);
        if (r >= 0 && loc.source(k).GetBool(r)) bits::Set(out, k);
      }
      return std::make_shared<const Column>(type, n, null_count, validity, buf);
    }
    case TypeId::kByte:
      return std::make_shared<const Column>(type, n, null_count, validity,
                                            GatherFixed<int8_t>(loc, n));
    case TypeId::kShort:
      return std::make_shared<const Column>(type, n, null_count, validity,
                                            GatherFixed<int16_t>(loc, n));
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kFloat:
    case TypeId::kYearMonthInterval:
      return std::make_shared<const Column>(type, n, null_count, validity,
                                            GatherFixed<int32_t>(loc, n));
    case TypeId::kLong:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return std::make_shared<const Column>(type, n, null_count, validity,
                                            GatherFixed<int64_t>(loc, n));
    case TypeId::kDecimal:
      return std::make_shared<const Column>(type, n, null_count, validity,
                                            GatherFixed<__int128>(loc, n));
    case TypeId::kString:
    case TypeId::kBinary: {
      auto off = Buffer::Allocate((n + 1) * 4);
      int32_t* o = off->mutable_data_as<int32_t>();
      int64_t total = 0;
      for (int64_t k = 0; k < n; ++k) {
        o[k] = static_cast<int32_t>(total);
        int64_t r = loc.row(k);
        if (r >= 0) total += static_cast<int64_t>(loc.source(k).GetView(r).size());
      }
      o[n] = static_cast<int32_t>(total);
      auto data = Buffer::AllocateUninitialized(total);
      uint8_t* d = data->mutable_data();
      for (int64_t k = 0; k < n; ++k) {
        int64_t r = loc.row(k);
        if (r < 0) continue;
        std::string_view v = loc.source(k).GetView(r);
        if (!v.empty()) std::memcpy(d + o[k], v.data(), v.size());
      }
      return std::make_shared<const Column>(type, n, null_count, validity, off, data);
    }
    case TypeId::kStruct: {
      std::vector<ColumnPtr> kids;
      for (size_t f = 0; f < type->fields().size(); ++f) {
        // Children of all sources at field f, located by the same rows.
        kids.push_back(
            Gather(type->fields()[f].type, loc.Child(static_cast<int>(f)), n, true));
      }
      return std::make_shared<const Column>(type, n, null_count, validity, nullptr,
                                            nullptr, std::move(kids));
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      // Offsets, then gather the child rows with a multi-source reference list.
      auto off = Buffer::Allocate((n + 1) * 4);
      int32_t* o = off->mutable_data_as<int32_t>();
      std::vector<ColumnPtr> child_sources;
      std::vector<const Column*> seen;
      std::vector<uint64_t> refs;
      int64_t total = 0;
      for (int64_t k = 0; k < n; ++k) {
        o[k] = static_cast<int32_t>(total);
        int64_t r = loc.row(k);
        if (r < 0 || loc.source(k).IsNull(r)) continue;
        const Column& src = loc.source(k);
        size_t si = 0;
        while (si < seen.size() && seen[si] != &src) ++si;
        if (si == seen.size()) {
          seen.push_back(&src);
          child_sources.push_back(src.child(0));
        }
        const int32_t* so = src.offsets();
        for (int32_t e = so[r]; e < so[r + 1]; ++e) {
          refs.push_back((static_cast<uint64_t>(si) << 32) | static_cast<uint32_t>(e));
        }
        total += so[r + 1] - so[r];
      }
      o[n] = static_cast<int32_t>(total);
      const DataTypePtr& child_type =
          child_sources.empty()
              ? (type->id() == TypeId::kArray
                     ? type->element_type()
                     : DataType::Struct({Field{"key", type->key_type(), false},
                                         Field{"value", type->value_type(), true}}))
              : child_sources[0]->type();
      ColumnPtr child =
          child_sources.empty()
              ? Column::MakeNull(child_type, 0)
              : TakeMulti(child_sources, refs.data(), static_cast<int64_t>(refs.size()));
      if (child_sources.empty() && type->id() == TypeId::kMap) {
        child = std::make_shared<const Column>(
            child_type, 0, 0, nullptr, nullptr, nullptr,
            std::vector<ColumnPtr>{Column::MakeNull(type->key_type(), 0),
                                   Column::MakeNull(type->value_type(), 0)});
      }
      return std::make_shared<const Column>(type, n, null_count, validity, off, nullptr,
                                            std::vector<ColumnPtr>{child});
    }
    default:
      break;
  }
  return Column::MakeNull(type, n);
}

}  // namespace

ColumnPtr Take(const Column& c, const int32_t* indices, int64_t n) {
  bool any_nulls = c.null_count() > 0;
  if (!any_nulls) {
    for (int64_t k = 0; k < n; ++k) {
      if (indices[k] < 0) {
        any_nulls = true;
        break;
      }
    }
  }
  return Gather(c.type(), SingleSource{&c, indices}, n, any_nulls);
}

BatchPtr TakeBatch(const Batch& b, const int32_t* indices, int64_t n) {
  std::vector<ColumnPtr> cols;
  cols.reserve(b.num_columns());
  for (const auto& c : b.columns()) cols.push_back(Take(*c, indices, n));
  return Batch::Make(b.schema(), std::move(cols), n);
}

ColumnPtr TakeMulti(const std::vector<ColumnPtr>& sources, const uint64_t* refs,
                    int64_t n) {
  bool any_nulls = false;
  for (const auto& s : sources) any_nulls |= s->null_count() > 0;
  if (!any_nulls) {
    for (int64_t k = 0; k < n; ++k) {
      if (refs[k] == kNullTakeRef) {
        any_nulls = true;
        break;
      }
    }
  }
  MultiSource loc{{}, refs};
  for (const auto& s : sources) loc.srcs.push_back(s.get());
  return Gather(sources[0]->type(), loc, n, any_nulls);
}

ColumnPtr Concat(const std::vector<ColumnPtr>& columns) {
  if (columns.size() == 1) return columns[0];
  std::vector<uint64_t> refs;
  int64_t total = 0;
  for (const auto& c : columns) total += c->length();
  refs.reserve(static_cast<size_t>(total));
  for (size_t s = 0; s < columns.size(); ++s) {
    for (int64_t r = 0; r < columns[s]->length(); ++r) {
      refs.push_back((static_cast<uint64_t>(s) << 32) | static_cast<uint64_t>(r));
    }
  }
  return TakeMulti(columns, refs.data(), total);
}

BatchPtr ConcatBatches(const SchemaPtr& schema, const std::vector<BatchPtr>& batches) {
  if (batches.empty()) return Batch::Empty(schema);
  if (batches.size() == 1) return batches[0]->WithSchema(schema);
  std::vector<ColumnPtr> cols;
  int64_t rows = 0;
  for (const auto& b : batches) rows += b->num_rows();
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<ColumnPtr> parts;
    for (const auto& b : batches) parts.push_back(b->column(c));
    cols.push_back(Concat(parts));
  }
  return Batch::Make(schema, std::move(cols), rows);
}

ColumnPtr Slice(const Column& c, int64_t offset, int64_t length) {
  std::vector<int32_t> idx(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) idx[i] = static_cast<int32_t>(offset + i);
  return Take(c, idx.data(), length);
}

BatchPtr SliceBatch(const Batch& b, int64_t offset, int64_t length) {
  if (offset == 0 && length == b.num_rows()) return std::make_shared<const Batch>(b);
  std::vector<int32_t> idx(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) idx[i] = static_cast<int32_t>(offset + i);
  return TakeBatch(b, idx.data(), length);
}

std::vector<int32_t> SelectionFromBits(const uint8_t* sel, const uint8_t* validity,
                                       int64_t n) {
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (bits::Get(sel, i) && (!validity || bits::Get(validity, i))) {
      out.push_back(static_cast<int32_t>(i));
    }
  }
  return out;
}

}  // namespace spate
