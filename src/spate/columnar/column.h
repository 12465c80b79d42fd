// Copyright spate authors.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "spate/columnar/buffer.h"
#include "spate/types/data_type.h"
#include "spate/types/value.h"

namespace spate {

class Column;
using ColumnPtr = std::shared_ptr<const Column>;

/// One column of values of one DataType in the Arrow memory layout (see data_type.h for
/// the buffers of each type). Columns never carry an offset: slices are copies, so every
/// kernel reads buffers from index 0.
///
/// Buffers:
///   validity  bit i set = row i valid; nullptr = all valid (null type: always null)
///   values    fixed-width values, boolean bits, or int32 offsets (length + 1 entries)
///             for string/binary/array/map
///   data      string/binary bytes
///   children  struct fields; array element column; map entries (struct<key,value>)
///
/// Ownership: immutable once built; shared via ColumnPtr without copies.
/// Thread safety: all methods are const and safe from any thread.
class Column {
 public:
  Column(DataTypePtr type, int64_t length, int64_t null_count, BufferPtr validity,
         BufferPtr values, BufferPtr data = nullptr,
         std::vector<ColumnPtr> children = {});

  const DataTypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  bool may_have_nulls() const { return null_count_ > 0; }

  bool IsNull(int64_t i) const {
    return validity_ ? !bits::Get(validity_->data(), i) : type_->id() == TypeId::kNull;
  }
  bool IsValid(int64_t i) const { return !IsNull(i); }

  const BufferPtr& validity() const { return validity_; }
  const BufferPtr& values() const { return values_; }
  const BufferPtr& data() const { return data_; }
  const std::vector<ColumnPtr>& children() const { return children_; }
  const ColumnPtr& child(int i) const { return children_[i]; }

  /// Validity bits or nullptr when all rows are valid.
  const uint8_t* validity_bits() const { return validity_ ? validity_->data() : nullptr; }
  template <typename T>
  const T* raw_values() const {
    return values_->data_as<T>();
  }
  const int32_t* offsets() const { return values_->data_as<int32_t>(); }
  bool GetBool(int64_t i) const { return bits::Get(values_->data(), i); }
  std::string_view GetView(int64_t i) const {
    const int32_t* o = offsets();
    return {reinterpret_cast<const char*>(data_ ? data_->data() : nullptr) + o[i],
            static_cast<size_t>(o[i + 1] - o[i])};
  }

  /// The value at row i as a Value (slow path: tests, collect, literals).
  Value GetValue(int64_t i) const;

  /// A column of `length` nulls of `type`.
  static ColumnPtr MakeNull(DataTypePtr type, int64_t length);

 private:
  DataTypePtr type_;
  int64_t length_;
  int64_t null_count_;
  BufferPtr validity_;
  BufferPtr values_;
  BufferPtr data_;
  std::vector<ColumnPtr> children_;
};

}  // namespace spate
