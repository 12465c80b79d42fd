// Copyright spate authors.
#include "spate/columnar/column.h"

namespace spate {

Column::Column(DataTypePtr type, int64_t length, int64_t null_count, BufferPtr validity,
               BufferPtr values, BufferPtr data, std::vector<ColumnPtr> children)
    : type_(std::move(type)),
      length_(length),
      null_count_(null_count),
      validity_(std::move(validity)),
      values_(std::move(values)),
      data_(std::move(data)),
      children_(std::move(children)) {
  if (type_->id() == TypeId::kNull) null_count_ = length_;
}

ColumnPtr Column::MakeNull(DataTypePtr type, int64_t length) {
  if (type->id() == TypeId::kNull) {
    return std::make_shared<const Column>(type, length, length, nullptr, nullptr);
  }
  auto validity = Buffer::Allocate(bits::BytesFor(length));  // zero = all null
  BufferPtr values;
  BufferPtr data;
  std::vector<ColumnPtr> children;
  switch (type->id()) {
    case TypeId::kBoolean:
      values = Buffer::Allocate(bits::BytesFor(length));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      values = Buffer::Allocate((length + 1) * 4);
      data = Buffer::Allocate(0);
      break;
    case TypeId::kStruct:
      for (const auto& f : type->fields()) children.push_back(MakeNull(f.type, length));
      break;
    case TypeId::kArray:
      values = Buffer::Allocate((length + 1) * 4);
      children.push_back(MakeNull(type->element_type(), 0));
      break;
    case TypeId::kMap: {
      values = Buffer::Allocate((length + 1) * 4);
      auto entry = DataType::Struct({Field{"key", type->key_type(), false},
                                     Field{"value", type->value_type(), true}});
      children.push_back(std::make_shared<const Column>(
          entry, 0, 0, nullptr, nullptr, nullptr,
          std::vector<ColumnPtr>{MakeNull(type->key_type(), 0),
                                 MakeNull(type->value_type(), 0)}));
      break;
    }
    default:
      values = Buffer::Allocate(length * type->ByteWidth());
      break;
  }
  return std::make_shared<const Column>(type, length, length, validity, values, data,
                                        std::move(children));
}

Value Column::GetValue(int64_t i) const {
  if (IsNull(i)) return Value::Null(type_);
  switch (type_->id()) {
    case TypeId::kNull:
      return Value::Null(type_);
    case TypeId::kBoolean:
      return Value::Boolean(GetBool(i));
    case TypeId::kByte:
      return Value::FromI64(type_, raw_values<int8_t>()[i]);
    case TypeId::kShort:
      return Value::FromI64(type_, raw_values<int16_t>()[i]);
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Value::FromI64(type_, raw_values<int32_t>()[i]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return Value::FromI64(type_, raw_values<int64_t>()[i]);
    case TypeId::kFloat:
      return Value::Float(raw_values<float>()[i]);
    case TypeId::kDouble:
      return Value::Double(raw_values<double>()[i]);
    case TypeId::kDecimal:
      return Value::Decimal(raw_values<__int128>()[i], type_->precision(),
                            type_->scale());
    case TypeId::kString:
      return Value::String(std::string(GetView(i)));
    case TypeId::kBinary:
      return Value::Binary(std::string(GetView(i)));
    case TypeId::kStruct: {
      std::vector<Value> fields;
      for (const auto& c : children_) fields.push_back(c->GetValue(i));
      return Value::Struct(type_, std::move(fields));
    }
    case TypeId::kArray: {
      std::vector<Value> items;
      const int32_t* o = offsets();
      for (int32_t k = o[i]; k < o[i + 1]; ++k)
        items.push_back(children_[0]->GetValue(k));
      return Value::ArrayOf(type_, std::move(items));
    }
    case TypeId::kMap: {
      std::vector<Value> keys, vals;
      const int32_t* o = offsets();
      const Column& entries = *children_[0];
      for (int32_t k = o[i]; k < o[i + 1]; ++k) {
        keys.push_back(entries.child(0)->GetValue(k));
        vals.push_back(entries.child(1)->GetValue(k));
      }
      return Value::Map(type_, std::move(keys), std::move(vals));
    }
  }
  return Value::Null(type_);
}

}  // namespace spate
