// Copyright spate authors.
#include "spate/types/data_type.h"

#include <fmt/format.h>

#include <cctype>

namespace spate {

namespace {
DataTypePtr MakePrimitive(TypeId id) { return std::make_shared<const DataType>(id); }

const char* IntervalFieldName(IntervalField f) {
  switch (f) {
    case IntervalField::kYear:
      return "year";
    case IntervalField::kMonth:
      return "month";
    case IntervalField::kDay:
      return "day";
    case IntervalField::kHour:
      return "hour";
    case IntervalField::kMinute:
      return "minute";
    case IntervalField::kSecond:
      return "second";
  }
  return "?";
}

std::string IntervalString(const DataType& t) {
  if (t.start_field() == t.end_field()) {
    return fmt::format("interval {}", IntervalFieldName(t.start_field()));
  }
  return fmt::format("interval {} to {}", IntervalFieldName(t.start_field()),
                     IntervalFieldName(t.end_field()));
}

bool NeedsQuoting(std::string_view name) {
  if (name.empty()) return true;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return true;
  }
  return false;
}

std::string QuoteIfNeeded(std::string_view name) {
  if (!NeedsQuoting(name)) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  out += '`';
  return out;
}

void AppendTree(std::string* out, const DataType& type, const std::string& prefix);

void AppendField(std::string* out, std::string_view name, const DataType& type,
                 const std::string& prefix, const std::string& nullable_label,
                 bool nullable, bool show_nullable) {
  *out += fmt::format("{} |-- {}: {}", prefix, name, type.TypeName());
  if (show_nullable)
    *out += fmt::format(" ({} = {})", nullable_label, nullable ? "true" : "false");
  *out += "\n";
  AppendTree(out, type, prefix + " |   ");
}

void AppendTree(std::string* out, const DataType& type, const std::string& prefix) {
  switch (type.id()) {
    case TypeId::kStruct:
      for (const auto& f : type.fields()) {
        AppendField(out, f.name, *f.type, prefix, "nullable", f.nullable, true);
      }
      break;
    case TypeId::kArray:
      AppendField(out, "element", *type.element_type(), prefix, "containsNull",
                  type.contains_null(), true);
      break;
    case TypeId::kMap:
      AppendField(out, "key", *type.key_type(), prefix, "", false, false);
      AppendField(out, "value", *type.value_type(), prefix, "valueContainsNull",
                  type.value_contains_null(), true);
      break;
    default:
      break;
  }
}
}  // namespace

bool Field::Equals(const Field& other) const {
  return name == other.name && nullable == other.nullable && type->Equals(*other.type);
}

#define SPATE_PRIMITIVE(fn, id)                             \
  const DataTypePtr& DataType::fn() {                       \
    static const DataTypePtr t = MakePrimitive(TypeId::id); \
    return t;                                               \
  }
SPATE_PRIMITIVE(Null, kNull)
SPATE_PRIMITIVE(Boolean, kBoolean)
SPATE_PRIMITIVE(Byte, kByte)
SPATE_PRIMITIVE(Short, kShort)
SPATE_PRIMITIVE(Int, kInt)
SPATE_PRIMITIVE(Long, kLong)
SPATE_PRIMITIVE(Float, kFloat)
SPATE_PRIMITIVE(Double, kDouble)
SPATE_PRIMITIVE(String, kString)
SPATE_PRIMITIVE(Binary, kBinary)
SPATE_PRIMITIVE(Date, kDate)
SPATE_PRIMITIVE(Timestamp, kTimestamp)
SPATE_PRIMITIVE(TimestampNtz, kTimestampNtz)
#undef SPATE_PRIMITIVE

DataTypePtr DataType::Decimal(int precision, int scale) {
  auto t = std::make_shared<DataType>(TypeId::kDecimal);
  t->precision_ = precision;
  t->scale_ = scale;
  return t;
}

DataTypePtr DataType::DayTimeInterval(IntervalField start, IntervalField end) {
  auto t = std::make_shared<DataType>(TypeId::kDayTimeInterval);
  t->precision_ = static_cast<int>(start);
  t->scale_ = static_cast<int>(end);
  return t;
}

DataTypePtr DataType::YearMonthInterval(IntervalField start, IntervalField end) {
  auto t = std::make_shared<DataType>(TypeId::kYearMonthInterval);
  t->precision_ = static_cast<int>(start);
  t->scale_ = static_cast<int>(end);
  return t;
}

DataTypePtr DataType::Struct(std::vector<Field> fields) {
  auto t = std::make_shared<DataType>(TypeId::kStruct);
  t->fields_ = std::move(fields);
  return t;
}

DataTypePtr DataType::Array(DataTypePtr element, bool contains_null) {
  auto t = std::make_shared<DataType>(TypeId::kArray);
  t->child_ = std::move(element);
  t->contains_null_ = contains_null;
  return t;
}

DataTypePtr DataType::Map(DataTypePtr key, DataTypePtr value, bool value_contains_null) {
  auto t = std::make_shared<DataType>(TypeId::kMap);
  t->child_ = std::move(key);
  t->value_ = std::move(value);
  t->contains_null_ = value_contains_null;
  return t;
}

int DataType::FieldIndex(std::string_view name, bool case_sensitive) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (case_sensitive ? fields_[i].name == name
                       : EqualsIgnoreCase(fields_[i].name, name)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

namespace {

// What Equals and SameType share: the same id and parameters, struct fields alike by
// `fields_alike` and element, key and value types by `types_alike`; the containsNull
// flags of arrays and maps count when `with_nulls`.
template <typename TypesAlike, typename FieldsAlike>
bool TypesMatch(const DataType& a, const DataType& b, bool with_nulls,
                TypesAlike types_alike, FieldsAlike fields_alike) {
  if (&a == &b) return true;
  if (a.id() != b.id()) return false;
  switch (a.id()) {
    case TypeId::kDecimal:
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return a.precision() == b.precision() && a.scale() == b.scale();
    case TypeId::kStruct:
      if (a.fields().size() != b.fields().size()) return false;
      for (size_t i = 0; i < a.fields().size(); ++i) {
        if (!fields_alike(a.fields()[i], b.fields()[i])) return false;
      }
      return true;
    case TypeId::kArray:
      return (!with_nulls || a.contains_null() == b.contains_null()) &&
             types_alike(*a.element_type(), *b.element_type());
    case TypeId::kMap:
      return (!with_nulls || a.value_contains_null() == b.value_contains_null()) &&
             types_alike(*a.key_type(), *b.key_type()) &&
             types_alike(*a.value_type(), *b.value_type());
    default:
      return true;
  }
}

}  // namespace

bool DataType::Equals(const DataType& other) const {
  return TypesMatch(
      *this, other, /*with_nulls=*/true,
      [](const DataType& x, const DataType& y) { return x.Equals(y); },
      [](const Field& x, const Field& y) { return x.Equals(y); });
}

bool DataType::SameType(const DataType& other) const {
  return TypesMatch(
      *this, other, /*with_nulls=*/false,
      [](const DataType& x, const DataType& y) { return x.SameType(y); },
      [](const Field& x, const Field& y) {
        return EqualsIgnoreCase(x.name, y.name) && x.type->SameType(*y.type);
      });
}

std::string DataType::SimpleString() const {
  switch (id_) {
    case TypeId::kNull:
      return "void";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kByte:
      return "tinyint";
    case TypeId::kShort:
      return "smallint";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "bigint";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return fmt::format("decimal({},{})", precision_, scale_);
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return IntervalString(*this);
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) s += ",";
        s += fields_[i].name + ":" + fields_[i].type->SimpleString();
      }
      return s + ">";
    }
    case TypeId::kArray:
      return "array<" + child_->SimpleString() + ">";
    case TypeId::kMap:
      return "map<" + child_->SimpleString() + "," + value_->SimpleString() + ">";
  }
  return "?";
}

std::string DataType::TypeName() const {
  switch (id_) {
    case TypeId::kByte:
      return "byte";
    case TypeId::kShort:
      return "short";
    case TypeId::kInt:
      return "integer";
    case TypeId::kLong:
      return "long";
    case TypeId::kStruct:
      return "struct";
    case TypeId::kArray:
      return "array";
    case TypeId::kMap:
      return "map";
    default:
      return SimpleString();
  }
}

std::string DataType::Sql() const {
  switch (id_) {
    case TypeId::kStruct: {
      std::string s = "STRUCT<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) s += ", ";
        s += QuoteIfNeeded(fields_[i].name) + ": " + fields_[i].type->Sql();
        if (!fields_[i].nullable) s += " NOT NULL";
      }
      return s + ">";
    }
    case TypeId::kArray:
      return "ARRAY<" + child_->Sql() + ">";
    case TypeId::kMap:
      return "MAP<" + child_->Sql() + ", " + value_->Sql() + ">";
    default:
      return ToUpper(SimpleString());
  }
}

int DataType::ByteWidth() const {
  switch (id_) {
    case TypeId::kByte:
      return 1;
    case TypeId::kShort:
      return 2;
    case TypeId::kInt:
    case TypeId::kFloat:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return 4;
    case TypeId::kLong:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return 8;
    case TypeId::kDecimal:
      return 16;
    default:
      return 0;
  }
}

int Schema::FieldIndex(std::string_view name, bool case_sensitive) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (case_sensitive ? fields_[i].name == name
                       : EqualsIgnoreCase(fields_[i].name, name)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<std::string> Schema::names() const {
  std::vector<std::string> out;
  out.reserve(fields_.size());
  for (const auto& f : fields_) out.push_back(f.name);
  return out;
}

bool Schema::Equals(const Schema& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return true;
}

std::string Schema::ToString() const { return AsStruct()->SimpleString(); }

std::string Schema::TreeString() const {
  std::string out = "root\n";
  for (const auto& f : fields_)
    AppendField(&out, f.name, *f.type, "", "nullable", f.nullable, true);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace spate
