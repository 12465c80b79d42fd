// Copyright spate authors.
#include "spate/types/value.h"

#include <cmath>

#include "spate/types/format.h"

namespace spate {

#define SPATE_I64_VALUE(fn, ctype, factory) \
  Value Value::fn(ctype v) {                \
    Value out(DataType::factory());         \
    out.is_null_ = false;                   \
    out.i64_ = static_cast<int64_t>(v);     \
    return out;                             \
  }
SPATE_I64_VALUE(Boolean, bool, Boolean)
SPATE_I64_VALUE(Byte, int8_t, Byte)
SPATE_I64_VALUE(Short, int16_t, Short)
SPATE_I64_VALUE(Int, int32_t, Int)
SPATE_I64_VALUE(Long, int64_t, Long)
SPATE_I64_VALUE(Date, int32_t, Date)
SPATE_I64_VALUE(Timestamp, int64_t, Timestamp)
SPATE_I64_VALUE(TimestampNtz, int64_t, TimestampNtz)
#undef SPATE_I64_VALUE

Value Value::FromI64(DataTypePtr type, int64_t v) {
  Value out(std::move(type));
  out.is_null_ = false;
  out.i64_ = v;
  return out;
}

Value Value::Float(float v) {
  Value out(DataType::Float());
  out.is_null_ = false;
  out.f64_ = v;
  return out;
}

Value Value::Double(double v) {
  Value out(DataType::Double());
  out.is_null_ = false;
  out.f64_ = v;
  return out;
}

Value Value::Decimal(int128_t unscaled, int precision, int scale) {
  Value out(DataType::Decimal(precision, scale));
  out.is_null_ = false;
  out.i128_ = unscaled;
  return out;
}

Value Value::String(std::string v) {
  Value out(DataType::String());
  out.is_null_ = false;
  out.str_ = std::move(v);
  return out;
}

Value Value::Binary(std::string v) {
  Value out(DataType::Binary());
  out.is_null_ = false;
  out.str_ = std::move(v);
  return out;
}

Value Value::Array(DataTypePtr element_type, std::vector<Value> items) {
  Value out(DataType::Array(std::move(element_type)));
  out.is_null_ = false;
  out.items_ = std::move(items);
  return out;
}

Value Value::ArrayOf(DataTypePtr array_type, std::vector<Value> items) {
  Value out(std::move(array_type));
  out.is_null_ = false;
  out.items_ = std::move(items);
  return out;
}

Value Value::Struct(DataTypePtr struct_type, std::vector<Value> fields) {
  Value out(std::move(struct_type));
  out.is_null_ = false;
  out.items_ = std::move(fields);
  return out;
}

Value Value::Map(DataTypePtr map_type, std::vector<Value> keys,
                 std::vector<Value> values) {
  Value out(std::move(map_type));
  out.is_null_ = false;
  out.items_ = std::move(keys);
  out.values_ = std::move(values);
  return out;
}

bool Value::operator==(const Value& o) const {
  if (is_null_ != o.is_null_) return false;
  if (is_null_) return true;
  switch (type_->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (std::isnan(f64_) && std::isnan(o.f64_)) return true;
      return f64_ == o.f64_;
    case TypeId::kDecimal:
      return i128_ == o.i128_ && type_->scale() == o.type_->scale();
    case TypeId::kString:
    case TypeId::kBinary:
      return str_ == o.str_;
    case TypeId::kArray:
    case TypeId::kStruct:
      return items_ == o.items_;
    case TypeId::kMap:
      return items_ == o.items_ && values_ == o.values_;
    case TypeId::kNull:
      return true;
    default:
      return i64_ == o.i64_;
  }
}

std::string Value::ToString() const {
  if (is_null_) return "NULL";
  const DataType& t = *type_;
  switch (t.id()) {
    case TypeId::kNull:
      return "NULL";
    case TypeId::kBoolean:
      return i64_ ? "true" : "false";
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return std::to_string(i64_);
    case TypeId::kFloat:
      return FormatFloat(static_cast<float>(f64_));
    case TypeId::kDouble:
      return FormatDouble(f64_);
    case TypeId::kDecimal:
      return FormatDecimal(i128_, t.scale());
    case TypeId::kString:
      return str_;
    case TypeId::kBinary:
      return FormatBinaryHex(str_);
    case TypeId::kDate:
      return FormatDate(static_cast<int32_t>(i64_));
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return FormatTimestampMicros(i64_);
    case TypeId::kDayTimeInterval:
      return FormatDayTimeInterval(i64_, t.start_field(), t.end_field());
    case TypeId::kYearMonthInterval:
      return FormatYearMonthInterval(static_cast<int32_t>(i64_), t.start_field(),
                                     t.end_field());
    case TypeId::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) s += ", ";
        s += items_[i].ToString();
      }
      return s + "]";
    }
    case TypeId::kStruct: {
      std::string s = "{";
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) s += ", ";
        s += items_[i].ToString();
      }
      return s + "}";
    }
    case TypeId::kMap: {
      std::string s = "{";
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) s += ", ";
        s += items_[i].ToString() + " -> " + values_[i].ToString();
      }
      return s + "}";
    }
  }
  return "?";
}

std::string Value::ToSql() const {
  if (is_null_) return "NULL";
  switch (type_->id()) {
    case TypeId::kString: {
      std::string s = "'";
      for (char c : str_) {
        if (c == '\'' || c == '\\') s += '\\';
        s += c;
      }
      return s + "'";
    }
    case TypeId::kByte:
      return ToString() + "Y";
    case TypeId::kShort:
      return ToString() + "S";
    case TypeId::kLong:
      return ToString() + "L";
    case TypeId::kDouble:
      return ToString() + "D";
    case TypeId::kFloat:
      return ToString() + "F";
    case TypeId::kBoolean:
      return ToUpper(ToString());
    case TypeId::kDecimal:
      return ToString() + "BD";
    case TypeId::kDate:
      return "DATE '" + ToString() + "'";
    case TypeId::kTimestamp:
      return "TIMESTAMP '" + ToString() + "'";
    case TypeId::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + ToString() + "'";
    case TypeId::kBinary: {
      std::string s = "X'";
      for (unsigned char c : str_) {
        static const char* kHex = "0123456789ABCDEF";
        s += kHex[c >> 4];
        s += kHex[c & 15];
      }
      return s + "'";
    }
    default:
      return ToString();
  }
}

}  // namespace spate
