// Copyright spate authors.
#include "spate/state/row_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "spate/columnar/buffer.h"
#include "spate/state/bytes.h"

namespace spate::state {

// ---------------------------------------------------------------------------------------
// Encoding: a tree of nodes mirroring the type, each with the function that appends one
// non-null value of its type. Functions are chosen once per schema (no switch per value).

namespace {

struct EncNode;
using EncodeFn = void (*)(const EncNode& node, const Column& c, int64_t i,
                          std::string* out);

struct EncNode {
  EncodeFn fn = nullptr;
  std::vector<EncNode> children;  // struct fields; array element; map key and value
};

/// Appends a bitmap of `n` bits (bit set = NULL) of rows [begin, begin + n) of `c`.
void PutNullBits(const Column& c, int64_t begin, int64_t n, std::string* out) {
  size_t at = out->size();
  out->append(static_cast<size_t>(bits::BytesFor(n)), '\0');
  if (c.null_count() == 0 && c.type_id() != TypeId::kNull) return;
  auto* b = reinterpret_cast<uint8_t*>(out->data() + at);
  for (int64_t k = 0; k < n; ++k) {
    if (c.IsNull(begin + k)) bits::Set(b, k);
  }
}

void EncodeNothing(const EncNode&, const Column&, int64_t, std::string*) {}

void EncodeBool(const EncNode&, const Column& c, int64_t i, std::string* out) {
  out->push_back(c.GetBool(i) ? '\1' : '\0');
}

template <typename T>
void EncodeFixed(const EncNode&, const Column& c, int64_t i, std::string* out) {
  PutFixed(out, c.raw_values<T>()[i]);
}

template <typename T>
void EncodeFloatNormalized(const EncNode&, const Column& c, int64_t i, std::string* out) {
  T v = c.raw_values<T>()[i];
  if (v == 0) v = 0;  // -0.0 -> 0.0
  if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
  PutFixed(out, v);
}

void EncodeDecimal64(const EncNode&, const Column& c, int64_t i, std::string* out) {
  PutFixed(out, static_cast<int64_t>(c.raw_values<__int128>()[i]));
}

void EncodeString(const EncNode&, const Column& c, int64_t i, std::string* out) {
  std::string_view v = c.GetView(i);
  PutVarint(out, v.size());
  out->append(v.data(), v.size());
}

/// The non-null children of row i, after their null bitmap.
void EncodeStruct(const EncNode& node, const Column& c, int64_t i, std::string* out) {
  const auto& ch = c.children();
  size_t at = out->size();
  out->append(static_cast<size_t>(bits::BytesFor(static_cast<int64_t>(ch.size()))), '\0');
  for (size_t f = 0; f < ch.size(); ++f) {
    if (ch[f]->IsNull(i)) bits::Set(reinterpret_cast<uint8_t*>(out->data() + at), f);
  }
  for (size_t f = 0; f < ch.size(); ++f) {
    if (!ch[f]->IsNull(i)) node.children[f].fn(node.children[f], *ch[f], i, out);
  }
}

void EncodeArray(const EncNode& node, const Column& c, int64_t i, std::string* out) {
  const int32_t* o = c.offsets();
  const Column& e = *c.child(0);
  PutVarint(out, static_cast<uint64_t>(o[i + 1] - o[i]));
  PutNullBits(e, o[i], o[i + 1] - o[i], out);
  const EncNode& en = node.children[0];
  for (int32_t k = o[i]; k < o[i + 1]; ++k) {
    if (!e.IsNull(k)) en.fn(en, e, k, out);
  }
}

void EncodeMap(const EncNode& node, const Column& c, int64_t i, std::string* out) {
  const int32_t* o = c.offsets();
  const Column& keys = *c.child(0)->child(0);
  const Column& values = *c.child(0)->child(1);
  PutVarint(out, static_cast<uint64_t>(o[i + 1] - o[i]));
  PutNullBits(keys, o[i], o[i + 1] - o[i], out);
  PutNullBits(values, o[i], o[i + 1] - o[i], out);
  const EncNode& kn = node.children[0];
  const EncNode& vn = node.children[1];
  for (int32_t k = o[i]; k < o[i + 1]; ++k) {
    if (!keys.IsNull(k)) kn.fn(kn, keys, k, out);
    if (!values.IsNull(k)) vn.fn(vn, values, k, out);
  }
}

EncNode MakeEncNode(const DataType& t, bool normalize) {
  EncNode n;
  switch (t.id()) {
    case TypeId::kNull:
      n.fn = EncodeNothing;
      break;
    case TypeId::kBoolean:
      n.fn = EncodeBool;
      break;
    case TypeId::kByte:
      n.fn = EncodeFixed<int8_t>;
      break;
    case TypeId::kShort:
      n.fn = EncodeFixed<int16_t>;
      break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      n.fn = EncodeFixed<int32_t>;
      break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      n.fn = EncodeFixed<int64_t>;
      break;
    case TypeId::kFloat:
      n.fn = normalize ? EncodeFloatNormalized<float> : EncodeFixed<float>;
      break;
    case TypeId::kDouble:
      n.fn = normalize ? EncodeFloatNormalized<double> : EncodeFixed<double>;
      break;
    case TypeId::kDecimal:
      n.fn = t.precision() <= 18 ? EncodeDecimal64 : EncodeFixed<__int128>;
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      n.fn = EncodeString;
      break;
    case TypeId::kStruct:
      n.fn = EncodeStruct;
      for (const Field& f : t.fields())
        n.children.push_back(MakeEncNode(*f.type, normalize));
      break;
    case TypeId::kArray:
      n.fn = EncodeArray;
      n.children.push_back(MakeEncNode(*t.element_type(), normalize));
      break;
    case TypeId::kMap:
      n.fn = EncodeMap;
      n.children.push_back(MakeEncNode(*t.key_type(), normalize));
      n.children.push_back(MakeEncNode(*t.value_type(), normalize));
      break;
  }
  return n;
}

}  // namespace

struct RowCodec::Plan {
  std::vector<EncNode> fields;
};

RowCodec::RowCodec(SchemaPtr schema, bool normalize_floats)
    : schema_(std::move(schema)), normalize_floats_(normalize_floats) {
  auto plan = std::make_shared<Plan>();
  for (const Field& f : schema_->fields()) {
    plan->fields.push_back(MakeEncNode(*f.type, normalize_floats_));
  }
  plan_ = std::move(plan);
}

void RowCodec::Encode(const std::vector<const Column*>& columns, int64_t row,
                      std::string* out) const {
  const auto& fields = plan_->fields;
  size_t n = fields.size();
  size_t at = out->size();
  out->append(static_cast<size_t>(bits::BytesFor(static_cast<int64_t>(n))), '\0');
  for (size_t f = 0; f < n; ++f) {
    if (columns[f]->IsNull(row))
      bits::Set(reinterpret_cast<uint8_t*>(out->data() + at), f);
  }
  for (size_t f = 0; f < n; ++f) {
    if (!columns[f]->IsNull(row)) fields[f].fn(fields[f], *columns[f], row, out);
  }
}

// ---------------------------------------------------------------------------------------
// Decoding: a tree of column accumulators, each with the function that reads one non-null
// value of its type. A row that fails to decode is rolled back (Truncate) so the builder
// stays consistent.

namespace {

struct DecNode;
using DecodeFn = bool (*)(DecNode& node, ByteReader& r);

struct DecNode {
  DecodeFn fn = nullptr;
  DataTypePtr type;
  DataTypePtr entry_type;  // map: struct<key, value>
  int width = 0;           // bytes per value in `values` (fixed-width types)
  int64_t length = 0;
  int64_t null_count = 0;
  std::vector<uint8_t> validity;  // one byte per row (0 = NULL)
  std::string values;             // fixed-width values, booleans (1 byte each), bytes
  std::vector<int32_t> offsets;   // string/binary/array/map: length + 1 entries
  std::vector<DecNode> children;
};

constexpr int64_t kMaxOffset = std::numeric_limits<int32_t>::max();

void AppendNull(DecNode& n) {
  n.validity.push_back(0);
  ++n.length;
  ++n.null_count;
  if (n.width > 0) n.values.append(static_cast<size_t>(n.width), '\0');
  if (!n.offsets.empty()) n.offsets.push_back(n.offsets.back());
  if (n.type->id() == TypeId::kStruct) {
    for (auto& c : n.children) AppendNull(c);
  }
}

void MarkValid(DecNode& n) {
  n.validity.push_back(1);
  ++n.length;
}

/// Drops rows [len, length).
void Truncate(DecNode& n, int64_t len) {
  if (n.length == len) return;
  for (int64_t i = len; i < n.length; ++i) n.null_count -= n.validity[i] == 0;
  n.validity.resize(static_cast<size_t>(len));
  n.length = len;
  switch (n.type->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      n.offsets.resize(static_cast<size_t>(len + 1));
      n.values.resize(static_cast<size_t>(n.offsets.back()));
      break;
    case TypeId::kArray:
    case TypeId::kMap:
      n.offsets.resize(static_cast<size_t>(len + 1));
      for (auto& c : n.children) Truncate(c, n.offsets.back());
      break;
    case TypeId::kStruct:
      for (auto& c : n.children) Truncate(c, len);
      break;
    default:
      n.values.resize(static_cast<size_t>(len * n.width));
      break;
  }
}

bool DecodeNothing(DecNode& n, ByteReader&) {
  MarkValid(n);
  return true;
}

bool DecodeBool(DecNode& n, ByteReader& r) {
  uint8_t b;
  if (!r.ReadFixed(&b) || b > 1) return false;
  n.values.push_back(static_cast<char>(b));
  MarkValid(n);
  return true;
}

template <int W>
bool DecodeFixed(DecNode& n, ByteReader& r) {
  std::string_view v;
  if (!r.ReadBytes(W, &v)) return false;
  n.values.append(v.data(), W);
  MarkValid(n);
  return true;
}

bool DecodeDecimal64(DecNode& n, ByteReader& r) {
  int64_t v;
  if (!r.ReadFixed(&v)) return false;
  PutFixed(&n.values, static_cast<__int128>(v));
  MarkValid(n);
  return true;
}

bool DecodeString(DecNode& n, ByteReader& r) {
  std::string_view v;
  if (!r.ReadLengthPrefixed(&v)) return false;
  if (static_cast<int64_t>(n.values.size() + v.size()) > kMaxOffset) return false;
  n.values.append(v.data(), v.size());
  n.offsets.push_back(static_cast<int32_t>(n.values.size()));
  MarkValid(n);
  return true;
}

/// Reads a null bitmap of `count` bits and returns a view of it.
bool ReadNullBits(ByteReader& r, uint64_t count, const uint8_t** bitmap) {
  std::string_view v;
  if (!r.ReadBytes(static_cast<size_t>((count + 7) / 8), &v)) return false;
  *bitmap = reinterpret_cast<const uint8_t*>(v.data());
  return true;
}

bool DecodeChildren(std::vector<DecNode>& children, ByteReader& r) {
  const uint8_t* nulls;
  if (!ReadNullBits(r, children.size(), &nulls)) return false;
  for (size_t f = 0; f < children.size(); ++f) {
    if (bits::Get(nulls, static_cast<int64_t>(f))) {
      AppendNull(children[f]);
    } else if (!children[f].fn(children[f], r)) {
      return false;
    }
  }
  return true;
}

bool DecodeStruct(DecNode& n, ByteReader& r) {
  if (!DecodeChildren(n.children, r)) return false;
  MarkValid(n);
  return true;
}

/// Reads an element count that the remaining bytes can hold (a bitmap bit each at least).
bool ReadCount(DecNode& n, ByteReader& r, uint64_t* count) {
  if (!r.ReadVarint(count) || *count > r.remaining() * 8) return false;
  return static_cast<int64_t>(n.offsets.back() + *count) <= kMaxOffset;
}

bool DecodeArray(DecNode& n, ByteReader& r) {
  uint64_t count;
  const uint8_t* nulls;
  if (!ReadCount(n, r, &count) || !ReadNullBits(r, count, &nulls)) return false;
  DecNode& e = n.children[0];
  for (uint64_t k = 0; k < count; ++k) {
    if (bits::Get(nulls, static_cast<int64_t>(k))) {
      AppendNull(e);
    } else if (!e.fn(e, r)) {
      return false;
    }
  }
  n.offsets.push_back(static_cast<int32_t>(n.offsets.back() + count));
  MarkValid(n);
  return true;
}

bool DecodeMap(DecNode& n, ByteReader& r) {
  uint64_t count;
  const uint8_t* key_nulls;
  const uint8_t* value_nulls;
  if (!ReadCount(n, r, &count) || !ReadNullBits(r, count, &key_nulls) ||
      !ReadNullBits(r, count, &value_nulls)) {
    return false;
  }
  DecNode& kn = n.children[0];
  DecNode& vn = n.children[1];
  for (uint64_t k = 0; k < count; ++k) {
    if (bits::Get(key_nulls, static_cast<int64_t>(k))) {
      AppendNull(kn);
    } else if (!kn.fn(kn, r)) {
      return false;
    }
    if (bits::Get(value_nulls, static_cast<int64_t>(k))) {
      AppendNull(vn);
    } else if (!vn.fn(vn, r)) {
      return false;
    }
  }
  n.offsets.push_back(static_cast<int32_t>(n.offsets.back() + count));
  MarkValid(n);
  return true;
}

DecNode MakeDecNode(const DataTypePtr& t) {
  DecNode n;
  n.type = t;
  switch (t->id()) {
    case TypeId::kNull:
      n.fn = DecodeNothing;
      break;
    case TypeId::kBoolean:
      n.fn = DecodeBool;
      break;
    case TypeId::kByte:
      n.fn = DecodeFixed<1>;
      break;
    case TypeId::kShort:
      n.fn = DecodeFixed<2>;
      break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat:
      n.fn = DecodeFixed<4>;
      break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kDouble:
      n.fn = DecodeFixed<8>;
      break;
    case TypeId::kDecimal:
      n.fn = t->precision() <= 18 ? DecodeDecimal64 : DecodeFixed<16>;
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      n.fn = DecodeString;
      break;
    case TypeId::kStruct:
      n.fn = DecodeStruct;
      for (const Field& f : t->fields()) n.children.push_back(MakeDecNode(f.type));
      break;
    case TypeId::kArray:
      n.fn = DecodeArray;
      n.children.push_back(MakeDecNode(t->element_type()));
      break;
    case TypeId::kMap:
      n.fn = DecodeMap;
      n.children.push_back(MakeDecNode(t->key_type()));
      n.children.push_back(MakeDecNode(t->value_type()));
      n.entry_type = DataType::Struct(
          {Field{"key", t->key_type(), false}, Field{"value", t->value_type(), true}});
      break;
  }
  n.width = t->id() == TypeId::kBoolean ? 1 : t->ByteWidth();
  if (t->IsBinaryLike() || t->id() == TypeId::kArray || t->id() == TypeId::kMap) {
    n.offsets.push_back(0);
  }
  return n;
}

BufferPtr CopyToBuffer(const void* data, size_t size) {
  BufferPtr b = Buffer::AllocateUninitialized(static_cast<int64_t>(size));
  if (size > 0) std::memcpy(b->mutable_data(), data, size);
  return b;
}

/// Packs one byte per row (nonzero = set) into a bitmap.
BufferPtr PackBits(const uint8_t* bytes, int64_t n) {
  BufferPtr b = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* out = b->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[i]) bits::Set(out, i);
  }
  return b;
}

/// Builds the column of `n` and resets it.
ColumnPtr FinishNode(DecNode& n) {
  BufferPtr validity;
  if (n.null_count > 0 && n.type->id() != TypeId::kNull) {
    validity = PackBits(n.validity.data(), n.length);
  }
  BufferPtr values;
  BufferPtr data;
  std::vector<ColumnPtr> children;
  switch (n.type->id()) {
    case TypeId::kNull:
      break;
    case TypeId::kBoolean:
      values = PackBits(reinterpret_cast<const uint8_t*>(n.values.data()), n.length);
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      values = CopyToBuffer(n.offsets.data(), n.offsets.size() * 4);
      data = CopyToBuffer(n.values.data(), n.values.size());
      break;
    case TypeId::kStruct:
      for (auto& c : n.children) children.push_back(FinishNode(c));
      break;
    case TypeId::kArray:
      values = CopyToBuffer(n.offsets.data(), n.offsets.size() * 4);
      children.push_back(FinishNode(n.children[0]));
      break;
    case TypeId::kMap: {
      values = CopyToBuffer(n.offsets.data(), n.offsets.size() * 4);
      ColumnPtr keys = FinishNode(n.children[0]);
      ColumnPtr vals = FinishNode(n.children[1]);
      int64_t entries = keys->length();
      children.push_back(std::make_shared<const Column>(
          n.entry_type, entries, 0, nullptr, nullptr, nullptr,
          std::vector<ColumnPtr>{std::move(keys), std::move(vals)}));
      break;
    }
    default:
      values = CopyToBuffer(n.values.data(), n.values.size());
      break;
  }
  int64_t length = n.length;
  int64_t nulls = n.type->id() == TypeId::kNull ? length : n.null_count;
  auto col = std::make_shared<const Column>(n.type, length, nulls, std::move(validity),
                                            std::move(values), std::move(data),
                                            std::move(children));
  n.length = 0;
  n.null_count = 0;
  n.validity.clear();
  n.values.clear();
  if (!n.offsets.empty()) n.offsets.assign(1, 0);
  return col;
}

}  // namespace

struct RowBatchBuilder::Impl {
  SchemaPtr schema;
  std::vector<DecNode> fields;
  int64_t rows = 0;
};

RowBatchBuilder::RowBatchBuilder(const RowCodec& codec)
    : impl_(std::make_unique<Impl>()) {
  impl_->schema = codec.schema();
  for (const Field& f : impl_->schema->fields())
    impl_->fields.push_back(MakeDecNode(f.type));
}

RowBatchBuilder::~RowBatchBuilder() = default;

Status RowBatchBuilder::Append(std::string_view encoded) {
  ByteReader r(encoded);
  if (DecodeChildren(impl_->fields, r) && r.at_end()) {
    ++impl_->rows;
    return Status::OK();
  }
  for (auto& f : impl_->fields) Truncate(f, impl_->rows);
  return Status(StatusCode::kDataCorruption,
                "malformed encoded state row (" + std::to_string(encoded.size()) +
                    " bytes) for schema " + impl_->schema->ToString());
}

int64_t RowBatchBuilder::num_rows() const { return impl_->rows; }

Result<BatchPtr> RowBatchBuilder::Finish() {
  std::vector<ColumnPtr> columns;
  columns.reserve(impl_->fields.size());
  for (auto& f : impl_->fields) columns.push_back(FinishNode(f));
  int64_t rows = impl_->rows;
  impl_->rows = 0;
  return Batch::Make(impl_->schema, std::move(columns), rows);
}

}  // namespace spate::state
