// Copyright spate authors.
#pragma once

// Builders create columns. Typed builders (FixedWidthBuilder<T>, BooleanBuilder,
// StringBuilder) are for kernels: inline appends, no virtual calls. ColumnBuilder is the
// generic, type-erased builder for slow paths (rows -> columns, nested values, tests).
//
// Ownership: a builder owns its buffers until Finish(), which hands them to an immutable
// Column and resets the builder. Thread safety: a builder is used by one thread.

#include <cstring>
#include <memory>
#include <string_view>

#include "spate/columnar/column.h"

namespace spate {

/// Validity bitmap allocated on the first null.
class ValidityBuilder {
 public:
  void Reserve(int64_t n);
  void AppendValid() {
    if (bits_) EnsureAndSet(length_, true);
    ++length_;
  }
  void AppendNull() {
    if (!bits_) Materialize();
    EnsureAndSet(length_, false);
    ++length_;
    ++null_count_;
  }
  void Append(bool valid) { valid ? AppendValid() : AppendNull(); }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  /// Returns the bitmap (nullptr when no nulls) and resets.
  BufferPtr Finish();

 private:
  void Materialize();
  void EnsureAndSet(int64_t i, bool v) {
    if (bits::BytesFor(i + 1) > bits_->size()) bits_->Resize(bits::BytesFor(i + 1) * 2);
    bits::SetTo(bits_->mutable_data(), i, v);
  }
  BufferPtr bits_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  int64_t reserved_ = 0;
};

template <typename T>
class FixedWidthBuilder {
 public:
  explicit FixedWidthBuilder(DataTypePtr type, int64_t capacity = 1024)
      : type_(std::move(type)) {
    values_ = Buffer::Allocate(capacity * static_cast<int64_t>(sizeof(T)));
  }
  void Reserve(int64_t n) {
    int64_t need = (length_ + n) * static_cast<int64_t>(sizeof(T));
    if (need > values_->capacity()) values_->Resize(need);
  }
  void Append(T v) {
    Reserve(1);
    values_->mutable_data_as<T>()[length_++] = v;
    validity_.AppendValid();
  }
  void AppendNull() {
    Reserve(1);
    values_->mutable_data_as<T>()[length_++] = T{};
    validity_.AppendNull();
  }
  int64_t length() const { return length_; }
  ColumnPtr Finish() {
    values_->set_size(length_ * static_cast<int64_t>(sizeof(T)));
    int64_t nulls = validity_.null_count();
    auto col = std::make_shared<const Column>(type_, length_, nulls, validity_.Finish(),
                                              values_);
    values_ = Buffer::Allocate(64);
    length_ = 0;
    return col;
  }

 private:
  DataTypePtr type_;
  BufferPtr values_;
  int64_t length_ = 0;
  ValidityBuilder validity_;
};

class BooleanBuilder {
 public:
  BooleanBuilder() { values_ = Buffer::Allocate(128); }
  void Append(bool v) {
    if (bits::BytesFor(length_ + 1) > values_->size())
      values_->Resize(bits::BytesFor(length_ + 1) * 2);
    bits::SetTo(values_->mutable_data(), length_++, v);
    validity_.AppendValid();
  }
  void AppendNull() {
    if (bits::BytesFor(length_ + 1) > values_->size())
      values_->Resize(bits::BytesFor(length_ + 1) * 2);
    bits::Clear(values_->mutable_data(), length_++);
    validity_.AppendNull();
  }
  int64_t length() const { return length_; }
  ColumnPtr Finish();

 private:
  BufferPtr values_;
  int64_t length_ = 0;
  ValidityBuilder validity_;
};

/// Builds string or binary columns.
class StringBuilder {
 public:
  explicit StringBuilder(DataTypePtr type = DataType::String(), int64_t capacity = 1024,
                         int64_t byte_capacity = 8192);
  void Append(std::string_view v) {
    AppendBytes(v);
    validity_.AppendValid();
  }
  void AppendNull() {
    AppendBytes({});
    validity_.AppendNull();
  }
  int64_t length() const { return length_; }
  ColumnPtr Finish();

 private:
  void AppendBytes(std::string_view v) {
    if ((length_ + 2) * 4 > offsets_->size()) offsets_->Resize((length_ + 2) * 8);
    int64_t need = bytes_used_ + static_cast<int64_t>(v.size());
    if (need > data_->size()) data_->Resize(std::max<int64_t>(need, data_->size() * 2));
    if (!v.empty()) std::memcpy(data_->mutable_data() + bytes_used_, v.data(), v.size());
    bytes_used_ = need;
    offsets_->mutable_data_as<int32_t>()[++length_] = static_cast<int32_t>(bytes_used_);
  }
  DataTypePtr type_;
  BufferPtr offsets_;
  BufferPtr data_;
  int64_t length_ = 0;
  int64_t bytes_used_ = 0;
  ValidityBuilder validity_;
};

/// Type-erased builder for any type, including nested ones.
class ColumnBuilder {
 public:
  static std::unique_ptr<ColumnBuilder> Make(DataTypePtr type);
  virtual ~ColumnBuilder() = default;

  const DataTypePtr& type() const { return type_; }
  virtual int64_t length() const = 0;
  virtual void AppendNull() = 0;
  /// Appends `v`, which must be NULL or of a type with this builder's physical layout.
  virtual void AppendValue(const Value& v) = 0;
  /// Appends row i of `c` (same type).
  virtual void AppendFrom(const Column& c, int64_t i) = 0;
  virtual ColumnPtr Finish() = 0;

 protected:
  explicit ColumnBuilder(DataTypePtr type) : type_(std::move(type)) {}
  DataTypePtr type_;
};

/// Builds a column of `type` from values.
ColumnPtr ColumnFromValues(const DataTypePtr& type, const std::vector<Value>& values);
/// A column repeating `v` n times.
ColumnPtr MakeConstantColumn(const Value& v, int64_t n);

}  // namespace spate
