// Copyright spate authors.
#include "spate/columnar/builder.h"

#include <algorithm>

namespace spate {

void ValidityBuilder::Reserve(int64_t n) { reserved_ = length_ + n; }

void ValidityBuilder::Materialize() {
  int64_t cap = std::max<int64_t>(bits::BytesFor(std::max(length_ + 1, reserved_)), 16);
  bits_ = Buffer::Allocate(cap);
  // All earlier rows are valid.
  std::memset(bits_->mutable_data(), 0xff, static_cast<size_t>(length_ / 8));
  for (int64_t i = (length_ / 8) * 8; i < length_; ++i)
    bits::Set(bits_->mutable_data(), i);
}

BufferPtr ValidityBuilder::Finish() {
  BufferPtr out;
  if (bits_ && null_count_ > 0) {
    bits_->set_size(bits::BytesFor(length_));
    out = std::move(bits_);
  }
  bits_.reset();
  length_ = 0;
  null_count_ = 0;
  return out;
}

ColumnPtr BooleanBuilder::Finish() {
  values_->set_size(bits::BytesFor(length_));
  int64_t nulls = validity_.null_count();
  auto col = std::make_shared<const Column>(DataType::Boolean(), length_, nulls,
                                            validity_.Finish(), values_);
  values_ = Buffer::Allocate(128);
  length_ = 0;
  return col;
}

StringBuilder::StringBuilder(DataTypePtr type, int64_t capacity, int64_t byte_capacity)
    : type_(std::move(type)) {
  offsets_ = Buffer::Allocate((capacity + 1) * 4);
  data_ = Buffer::Allocate(byte_capacity);
}

ColumnPtr StringBuilder::Finish() {
  offsets_->set_size((length_ + 1) * 4);
  data_->set_size(bytes_used_);
  int64_t nulls = validity_.null_count();
  auto col = std::make_shared<const Column>(type_, length_, nulls, validity_.Finish(),
                                            offsets_, data_);
  offsets_ = Buffer::Allocate(1024 * 4);
  data_ = Buffer::Allocate(8192);
  length_ = 0;
  bytes_used_ = 0;
  return col;
}

namespace {

template <typename T>
class FixedColumnBuilder final : public ColumnBuilder {
 public:
  explicit FixedColumnBuilder(DataTypePtr type) : ColumnBuilder(type), b_(type) {}
  int64_t length() const override { return b_.length(); }
  void AppendNull() override { b_.AppendNull(); }
  void AppendValue(const Value& v) override {
    if (v.is_null()) {
      b_.AppendNull();
    } else if constexpr (std::is_floating_point_v<T>) {
      b_.Append(static_cast<T>(v.f64()));
    } else if constexpr (sizeof(T) == 16) {
      b_.Append(v.i128());
    } else {
      b_.Append(static_cast<T>(v.i64()));
    }
  }
  void AppendFrom(const Column& c, int64_t i) override {
    if (c.IsNull(i)) {
      b_.AppendNull();
    } else {
      b_.Append(c.raw_values<T>()[i]);
    }
  }
  ColumnPtr Finish() override { return b_.Finish(); }

 private:
  FixedWidthBuilder<T> b_;
};

class BoolColumnBuilder final : public ColumnBuilder {
 public:
  BoolColumnBuilder() : ColumnBuilder(DataType::Boolean()) {}
  int64_t length() const override { return b_.length(); }
  void AppendNull() override { b_.AppendNull(); }
  void AppendValue(const Value& v) override {
    v.is_null() ? b_.AppendNull() : b_.Append(v.i64() != 0);
  }
  void AppendFrom(const Column& c, int64_t i) override {
    c.IsNull(i) ? b_.AppendNull() : b_.Append(c.GetBool(i));
  }
  ColumnPtr Finish() override { return b_.Finish(); }

 private:
  BooleanBuilder b_;
};

class StringColumnBuilder final : public ColumnBuilder {
 public:
  explicit StringColumnBuilder(DataTypePtr type) : ColumnBuilder(type), b_(type) {}
  int64_t length() const override { return b_.length(); }
  void AppendNull() override { b_.AppendNull(); }
  void AppendValue(const Value& v) override {
    v.is_null() ? b_.AppendNull() : b_.Append(v.str());
  }
  void AppendFrom(const Column& c, int64_t i) override {
    c.IsNull(i) ? b_.AppendNull() : b_.Append(c.GetView(i));
  }
  ColumnPtr Finish() override { return b_.Finish(); }

 private:
  StringBuilder b_;
};

class NullColumnBuilder final : public ColumnBuilder {
 public:
  NullColumnBuilder() : ColumnBuilder(DataType::Null()) {}
  int64_t length() const override { return n_; }
  void AppendNull() override { ++n_; }
  void AppendValue(const Value&) override { ++n_; }
  void AppendFrom(const Column&, int64_t) override { ++n_; }
  ColumnPtr Finish() override {
    auto c = Column::MakeNull(DataType::Null(), n_);
    n_ = 0;
    return c;
  }

 private:
  int64_t n_ = 0;
};

class StructColumnBuilder final : public ColumnBuilder {
 public:
  explicit StructColumnBuilder(DataTypePtr type) : ColumnBuilder(type) {
    for (const auto& f : type_->fields())
      children_.push_back(ColumnBuilder::Make(f.type));
  }
  int64_t length() const override { return validity_.length(); }
  void AppendNull() override {
    validity_.AppendNull();
    for (auto& c : children_) c->AppendNull();
  }
  void AppendValue(const Value& v) override {
    if (v.is_null()) return AppendNull();
    validity_.AppendValid();
    for (size_t i = 0; i < children_.size(); ++i) children_[i]->AppendValue(v.items()[i]);
  }
  void AppendFrom(const Column& c, int64_t i) override {
    if (c.IsNull(i)) return AppendNull();
    validity_.AppendValid();
    for (size_t k = 0; k < children_.size(); ++k)
      children_[k]->AppendFrom(*c.child(k), i);
  }
  ColumnPtr Finish() override {
    std::vector<ColumnPtr> kids;
    for (auto& c : children_) kids.push_back(c->Finish());
    int64_t n = validity_.length();
    int64_t nulls = validity_.null_count();
    return std::make_shared<const Column>(type_, n, nulls, validity_.Finish(), nullptr,
                                          nullptr, std::move(kids));
  }

 private:
  std::vector<std::unique_ptr<ColumnBuilder>> children_;
  ValidityBuilder validity_;
};

// Array and map: int32 offsets + child column(s).
class ListColumnBuilder final : public ColumnBuilder {
 public:
  explicit ListColumnBuilder(DataTypePtr type) : ColumnBuilder(type) {
    if (type_->id() == TypeId::kArray) {
      elements_ = ColumnBuilder::Make(type_->element_type());
    } else {
      elements_ = ColumnBuilder::Make(type_->key_type());
      values_ = ColumnBuilder::Make(type_->value_type());
    }
    offsets_.push_back(0);
  }
  int64_t length() const override { return validity_.length(); }
  void AppendNull() override {
    validity_.AppendNull();
    offsets_.push_back(offsets_.back());
  }
  void AppendValue(const Value& v) override {
    if (v.is_null()) return AppendNull();
    validity_.AppendValid();
    for (const auto& item : v.items()) elements_->AppendValue(item);
    if (values_) {
      for (const auto& item : v.values()) values_->AppendValue(item);
    }
    offsets_.push_back(offsets_.back() + static_cast<int32_t>(v.items().size()));
  }
  void AppendFrom(const Column& c, int64_t i) override {
    if (c.IsNull(i)) return AppendNull();
    validity_.AppendValid();
    const int32_t* o = c.offsets();
    const Column& child = *c.child(0);
    for (int32_t k = o[i]; k < o[i + 1]; ++k) {
      if (values_) {
        elements_->AppendFrom(*child.child(0), k);
        values_->AppendFrom(*child.child(1), k);
      } else {
        elements_->AppendFrom(child, k);
      }
    }
    offsets_.push_back(offsets_.back() + (o[i + 1] - o[i]));
  }
  ColumnPtr Finish() override {
    auto off = Buffer::Allocate(static_cast<int64_t>(offsets_.size()) * 4);
    std::memcpy(off->mutable_data(), offsets_.data(), offsets_.size() * 4);
    ColumnPtr child;
    if (values_) {
      auto keys = elements_->Finish();
      auto vals = values_->Finish();
      auto entry_type = DataType::Struct({Field{"key", type_->key_type(), false},
                                          Field{"value", type_->value_type(), true}});
      child =
          std::make_shared<const Column>(entry_type, keys->length(), 0, nullptr, nullptr,
                                         nullptr, std::vector<ColumnPtr>{keys, vals});
    } else {
      child = elements_->Finish();
    }
    int64_t n = validity_.length();
    int64_t nulls = validity_.null_count();
    offsets_.assign(1, 0);
    return std::make_shared<const Column>(type_, n, nulls, validity_.Finish(), off,
                                          nullptr, std::vector<ColumnPtr>{child});
  }

 private:
  std::unique_ptr<ColumnBuilder> elements_;
  std::unique_ptr<ColumnBuilder> values_;
  std::vector<int32_t> offsets_;
  ValidityBuilder validity_;
};

}  // namespace

std::unique_ptr<ColumnBuilder> ColumnBuilder::Make(DataTypePtr type) {
  switch (type->id()) {
    case TypeId::kNull:
      return std::make_unique<NullColumnBuilder>();
    case TypeId::kBoolean:
      return std::make_unique<BoolColumnBuilder>();
    case TypeId::kByte:
      return std::make_unique<FixedColumnBuilder<int8_t>>(type);
    case TypeId::kShort:
      return std::make_unique<FixedColumnBuilder<int16_t>>(type);
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return std::make_unique<FixedColumnBuilder<int32_t>>(type);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return std::make_unique<FixedColumnBuilder<int64_t>>(type);
    case TypeId::kFloat:
      return std::make_unique<FixedColumnBuilder<float>>(type);
    case TypeId::kDouble:
      return std::make_unique<FixedColumnBuilder<double>>(type);
    case TypeId::kDecimal:
      return std::make_unique<FixedColumnBuilder<__int128>>(type);
    case TypeId::kString:
    case TypeId::kBinary:
      return std::make_unique<StringColumnBuilder>(type);
    case TypeId::kStruct:
      return std::make_unique<StructColumnBuilder>(type);
    case TypeId::kArray:
    case TypeId::kMap:
      return std::make_unique<ListColumnBuilder>(type);
  }
  return std::make_unique<NullColumnBuilder>();
}

ColumnPtr ColumnFromValues(const DataTypePtr& type, const std::vector<Value>& values) {
  auto b = ColumnBuilder::Make(type);
  for (const auto& v : values) b->AppendValue(v);
  return b->Finish();
}

ColumnPtr MakeConstantColumn(const Value& v, int64_t n) {
  if (v.is_null()) return Column::MakeNull(v.type(), n);
  const DataType& t = *v.type();
  int width = t.ByteWidth();
  if (width > 0) {
    auto buf = Buffer::Allocate(n * width);
    switch (width) {
      case 1:
        std::fill_n(buf->mutable_data_as<int8_t>(), n, static_cast<int8_t>(v.i64()));
        break;
      case 2:
        std::fill_n(buf->mutable_data_as<int16_t>(), n, static_cast<int16_t>(v.i64()));
        break;
      case 4:
        if (t.id() == TypeId::kFloat) {
          std::fill_n(buf->mutable_data_as<float>(), n, static_cast<float>(v.f64()));
        } else {
          std::fill_n(buf->mutable_data_as<int32_t>(), n, static_cast<int32_t>(v.i64()));
        }
        break;
      case 8:
        if (t.id() == TypeId::kDouble) {
          std::fill_n(buf->mutable_data_as<double>(), n, v.f64());
        } else {
          std::fill_n(buf->mutable_data_as<int64_t>(), n, v.i64());
        }
        break;
      case 16:
        std::fill_n(buf->mutable_data_as<__int128>(), n, v.i128());
        break;
    }
    return std::make_shared<const Column>(v.type(), n, 0, nullptr, buf);
  }
  if (t.id() == TypeId::kBoolean) {
    auto buf = Buffer::Allocate(bits::BytesFor(n));
    if (v.i64())
      std::memset(buf->mutable_data(), 0xff, static_cast<size_t>(bits::BytesFor(n)));
    return std::make_shared<const Column>(v.type(), n, 0, nullptr, buf);
  }
  if (t.IsBinaryLike()) {
    const std::string& s = v.str();
    auto off = Buffer::Allocate((n + 1) * 4);
    auto data = Buffer::Allocate(static_cast<int64_t>(s.size()) * n);
    int32_t* o = off->mutable_data_as<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      o[i] = static_cast<int32_t>(i * static_cast<int64_t>(s.size()));
      if (!s.empty()) std::memcpy(data->mutable_data() + o[i], s.data(), s.size());
    }
    o[n] = static_cast<int32_t>(n * static_cast<int64_t>(s.size()));
    return std::make_shared<const Column>(v.type(), n, 0, nullptr, off, data);
  }
  auto b = ColumnBuilder::Make(v.type());
  for (int64_t i = 0; i < n; ++i) b->AppendValue(v);
  return b->Finish();
}

}  // namespace spate
