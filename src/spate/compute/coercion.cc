// Copyright spate authors.
#include "spate/compute/coercion.h"

#include <algorithm>

#include "spate/compute/cast.h"

namespace spate {

namespace {
int NumericRank(TypeId id) {
  switch (id) {
    case TypeId::kByte:
      return 1;
    case TypeId::kShort:
      return 2;
    case TypeId::kInt:
      return 3;
    case TypeId::kLong:
      return 4;
    case TypeId::kDecimal:
      return 5;
    case TypeId::kFloat:
      return 6;
    case TypeId::kDouble:
      return 7;
    default:
      return 0;
  }
}

DataTypePtr PrimitiveFor(TypeId id) {
  switch (id) {
    case TypeId::kByte:
      return DataType::Byte();
    case TypeId::kShort:
      return DataType::Short();
    case TypeId::kInt:
      return DataType::Int();
    case TypeId::kLong:
      return DataType::Long();
    case TypeId::kFloat:
      return DataType::Float();
    case TypeId::kDouble:
      return DataType::Double();
    default:
      return nullptr;
  }
}

// Wider numeric type of two numeric types.
DataTypePtr WiderNumeric(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->id() == TypeId::kDecimal || b->id() == TypeId::kDecimal) {
    if (a->IsFloating() || b->IsFloating()) return DataType::Double();
    return WiderDecimal(*DecimalForIntegral(*a), *DecimalForIntegral(*b));
  }
  return NumericRank(a->id()) >= NumericRank(b->id()) ? PrimitiveFor(a->id())
                                                      : PrimitiveFor(b->id());
}

// The type a string operand is promoted to when the other side has type `other`
// (Spark ANSI: String -> Long -> Double, Date -> Timestamp, Boolean, Interval, Binary).
DataTypePtr StringPromotion(const DataTypePtr& other) {
  if (other->IsIntegral()) return DataType::Long();
  if (other->IsFloating() || other->id() == TypeId::kDecimal) return DataType::Double();
  switch (other->id()) {
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kBoolean:
    case TypeId::kBinary:
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return other;
    default:
      return nullptr;
  }
}
}  // namespace

DataTypePtr DecimalForIntegral(const DataType& t) {
  switch (t.id()) {
    case TypeId::kByte:
      return DataType::Decimal(3, 0);
    case TypeId::kShort:
      return DataType::Decimal(5, 0);
    case TypeId::kInt:
      return DataType::Decimal(10, 0);
    case TypeId::kLong:
      return DataType::Decimal(20, 0);
    case TypeId::kDecimal:
      return DataType::Decimal(t.precision(), t.scale());
    default:
      return nullptr;
  }
}

DataTypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= 38) return DataType::Decimal(precision, scale);
  int int_digits = precision - scale;
  int min_scale = std::min(scale, 6);
  int adjusted = std::max(38 - int_digits, min_scale);
  return DataType::Decimal(38, adjusted);
}

DataTypePtr WiderDecimal(const DataType& a, const DataType& b) {
  int scale = std::max(a.scale(), b.scale());
  int range = std::max(a.precision() - a.scale(), b.precision() - b.scale());
  if (range + scale > 38) {
    // Spark's bounded: keep integral digits, reduce scale.
    return DataType::Decimal(38, std::max(0, 38 - range));
  }
  return DataType::Decimal(range + scale, scale);
}

namespace {

// Two types equal but for the nullability of their elements, values and fields: the type
// whose every such flag allows NULL where either does (Spark's tightest common type).
DataTypePtr WithEitherNulls(const DataTypePtr& a, const DataTypePtr& b) {
  switch (a->id()) {
    case TypeId::kArray:
      return DataType::Array(WithEitherNulls(a->element_type(), b->element_type()),
                             a->contains_null() || b->contains_null());
    case TypeId::kMap:
      return DataType::Map(WithEitherNulls(a->key_type(), b->key_type()),
                           WithEitherNulls(a->value_type(), b->value_type()),
                           a->value_contains_null() || b->value_contains_null());
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (size_t i = 0; i < a->fields().size(); ++i) {
        const Field& fa = a->fields()[i];
        const Field& fb = b->fields()[i];
        fields.push_back(Field{fa.name, WithEitherNulls(fa.type, fb.type),
                               fa.nullable || fb.nullable});
      }
      return DataType::Struct(std::move(fields));
    }
    default:
      return a;
  }
}

}  // namespace

DataTypePtr IntegralLiteralDecimal(const BoundExprPtr& e) {
  const Value* v = e->literal_value();
  if (!v || v->is_null() || !e->type()->IsIntegral()) return nullptr;
  uint64_t m = v->i64() < 0 ? 0 - static_cast<uint64_t>(v->i64())
                            : static_cast<uint64_t>(v->i64());
  int digits = 1;
  while (m >= 10) {
    m /= 10;
    ++digits;
  }
  return DataType::Decimal(digits, 0);
}

DataTypePtr CommonType(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->SameType(*b)) return WithEitherNulls(a, b);
  if (a->id() == TypeId::kNull) return b;
  if (b->id() == TypeId::kNull) return a;
  if (a->IsNumeric() && b->IsNumeric()) return WiderNumeric(a, b);
  if (a->id() == TypeId::kString) {
    auto p = StringPromotion(b);
    return p ? CommonType(p, b) : nullptr;
  }
  if (b->id() == TypeId::kString) {
    auto p = StringPromotion(a);
    return p ? CommonType(a, p) : nullptr;
  }
  if (a->IsDatetime() && b->IsDatetime()) {
    if (a->id() == TypeId::kTimestamp || b->id() == TypeId::kTimestamp)
      return DataType::Timestamp();
    return DataType::TimestampNtz();
  }
  if (a->id() == TypeId::kDayTimeInterval && b->id() == TypeId::kDayTimeInterval) {
    return DataType::DayTimeInterval(std::min(a->start_field(), b->start_field()),
                                     std::max(a->end_field(), b->end_field()));
  }
  if (a->id() == TypeId::kYearMonthInterval && b->id() == TypeId::kYearMonthInterval) {
    return DataType::YearMonthInterval(std::min(a->start_field(), b->start_field()),
                                       std::max(a->end_field(), b->end_field()));
  }
  if (a->id() == TypeId::kArray && b->id() == TypeId::kArray) {
    auto e = CommonType(a->element_type(), b->element_type());
    return e ? DataType::Array(e, a->contains_null() || b->contains_null()) : nullptr;
  }
  if (a->id() == TypeId::kMap && b->id() == TypeId::kMap) {
    auto k = CommonType(a->key_type(), b->key_type());
    auto v = CommonType(a->value_type(), b->value_type());
    return k && v
               ? DataType::Map(k, v, a->value_contains_null() || b->value_contains_null())
               : nullptr;
  }
  if (a->id() == TypeId::kStruct && b->id() == TypeId::kStruct &&
      a->fields().size() == b->fields().size()) {
    std::vector<Field> fields;
    for (size_t i = 0; i < a->fields().size(); ++i) {
      const Field& fa = a->fields()[i];
      const Field& fb = b->fields()[i];
      if (!EqualsIgnoreCase(fa.name, fb.name)) return nullptr;
      auto t = CommonType(fa.type, fb.type);
      if (!t) return nullptr;
      fields.push_back(Field{fa.name, t, fa.nullable || fb.nullable});
    }
    return DataType::Struct(std::move(fields));
  }
  return nullptr;
}

DataTypePtr CommonType(const std::vector<DataTypePtr>& types) {
  if (types.empty()) return DataType::Null();
  DataTypePtr t = types[0];
  for (size_t i = 1; i < types.size() && t; ++i) {
    // Spark's findWiderCommonType: strings do not promote others here (e.g. CASE/COALESCE
    // of int and string is string in legacy; in ANSI it is the promoted type).
    t = CommonType(t, types[i]);
  }
  return t;
}

Result<BoundExprPtr> ImplicitCast(BoundExprPtr e, const DataTypePtr& to) {
  if (e->type()->Equals(*to)) return e;
  return MakeCast(std::move(e), to);
}

Result<std::vector<BoundExprPtr>> CoerceToCommon(std::vector<BoundExprPtr> exprs,
                                                 const std::string& function_name) {
  std::vector<DataTypePtr> types;
  for (const auto& e : exprs) types.push_back(e->type());
  DataTypePtr common = CommonType(types);
  if (!common) {
    std::string list = "[";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i) list += ", ";
      list += QuoteType(*types[i]);
    }
    list += "]";
    std::vector<std::string> args;
    for (const auto& e : exprs) args.push_back(e->ToString());
    return Status::Error("DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                         {{"sqlExpr", "\"" + CallText(function_name, args) + "\""},
                          {"functionName", "`" + function_name + "`"},
                          {"dataType", list}});
  }
  for (auto& e : exprs) {
    SPATE_ASSIGN_OR_RETURN(e, ImplicitCast(std::move(e), common));
  }
  return exprs;
}

std::string QuoteType(const DataType& t) { return "\"" + t.Sql() + "\""; }

}  // namespace spate
