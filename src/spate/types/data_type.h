// Copyright spate authors.
#pragma once

// Spark SQL data types. A DataType is an immutable value shared through DataTypePtr;
// primitive types are process-wide singletons, so pointer equality is a fast path but
// Equals() is the definition of equality (nested types compare structurally).
//
// Physical layout of each type in a columnar batch (Arrow layout):
//   boolean            bit-packed values
//   byte/short/int/long int8/16/32/64           float/double  float32/64
//   decimal(p,s)       128-bit little-endian two's complement unscaled value
//   string/binary      int32 offsets + bytes     date  int32 days since epoch
//   timestamp          int64 µs since epoch UTC  timestamp_ntz int64 µs (wall clock)
//   interval day-time  int64 µs                  interval year-month int32 months
//   struct             validity + children       array int32 offsets + child
//   map                int32 offsets + child struct<key, value>
//   void (null)        no buffers
//
// Thread safety: immutable after construction; safe to share across threads.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace spate {

enum class TypeId : uint8_t {
  kNull,
  kBoolean,
  kByte,
  kShort,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBinary,
  kDate,
  kTimestamp,
  kTimestampNtz,
  kDayTimeInterval,
  kYearMonthInterval,
  kStruct,
  kArray,
  kMap,
};

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

/// A named, typed member of a struct or a schema (Spark's StructField).
struct Field {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  std::string comment;

  bool Equals(const Field& other) const;
};

/// Fields of interval types (Spark's DayTimeIntervalType / YearMonthIntervalType).
enum class IntervalField : uint8_t { kYear, kMonth, kDay, kHour, kMinute, kSecond };

class DataType {
 public:
  static const DataTypePtr& Null();
  static const DataTypePtr& Boolean();
  static const DataTypePtr& Byte();
  static const DataTypePtr& Short();
  static const DataTypePtr& Int();
  static const DataTypePtr& Long();
  static const DataTypePtr& Float();
  static const DataTypePtr& Double();
  static const DataTypePtr& String();
  static const DataTypePtr& Binary();
  static const DataTypePtr& Date();
  static const DataTypePtr& Timestamp();
  static const DataTypePtr& TimestampNtz();
  /// decimal(precision, scale); REQUIRES 1 <= precision <= 38, 0 <= scale <= precision.
  static DataTypePtr Decimal(int precision, int scale);
  static DataTypePtr DayTimeInterval(IntervalField start = IntervalField::kDay,
                                     IntervalField end = IntervalField::kSecond);
  static DataTypePtr YearMonthInterval(IntervalField start = IntervalField::kYear,
                                       IntervalField end = IntervalField::kMonth);
  static DataTypePtr Struct(std::vector<Field> fields);
  static DataTypePtr Array(DataTypePtr element, bool contains_null = true);
  static DataTypePtr Map(DataTypePtr key, DataTypePtr value,
                         bool value_contains_null = true);

  TypeId id() const { return id_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  IntervalField start_field() const { return static_cast<IntervalField>(precision_); }
  IntervalField end_field() const { return static_cast<IntervalField>(scale_); }
  /// Struct members; empty for other types.
  const std::vector<Field>& fields() const { return fields_; }
  /// Array element type / map key type.
  const DataTypePtr& element_type() const { return child_; }
  const DataTypePtr& key_type() const { return child_; }
  const DataTypePtr& value_type() const { return value_; }
  bool contains_null() const { return contains_null_; }
  bool value_contains_null() const { return contains_null_; }
  /// Index of the struct field named `name` (case-insensitive as Spark by default), or
  /// -1.
  int FieldIndex(std::string_view name, bool case_sensitive = false) const;

  bool Equals(const DataType& other) const;
  /// Equality ignoring nullability flags and field names' case (Spark's sameType-ish).
  bool SameType(const DataType& other) const;

  /// Spark's simpleString: "int", "bigint", "decimal(10,2)", "array<string>",
  /// "struct<a:int,b:string>", "map<string,int>", "interval day to second".
  std::string SimpleString() const;
  /// Spark's catalogString (same as simpleString here, without truncation).
  std::string CatalogString() const { return SimpleString(); }
  /// Spark's typeName as printSchema shows it: "integer", "long", "string", "array", ...
  std::string TypeName() const;
  /// Spark's sql form used in error messages: "INT", "DECIMAL(10,2)", "ARRAY<STRING>",
  /// "STRUCT<a: INT, b: STRING>".
  std::string Sql() const;

  bool IsIntegral() const {
    return id_ == TypeId::kByte || id_ == TypeId::kShort || id_ == TypeId::kInt ||
           id_ == TypeId::kLong;
  }
  bool IsFloating() const { return id_ == TypeId::kFloat || id_ == TypeId::kDouble; }
  bool IsNumeric() const {
    return IsIntegral() || IsFloating() || id_ == TypeId::kDecimal;
  }
  bool IsNested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kArray || id_ == TypeId::kMap;
  }
  bool IsBinaryLike() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }
  bool IsDatetime() const {
    return id_ == TypeId::kDate || id_ == TypeId::kTimestamp ||
           id_ == TypeId::kTimestampNtz;
  }
  /// Bytes per value in the values buffer for fixed-width types; 0 for boolean (bits),
  /// null, variable-width and nested types.
  int ByteWidth() const;

  // Use the factories.
  explicit DataType(TypeId id) : id_(id) {}

 private:
  TypeId id_;
  int precision_ = 0;  // decimal precision, or interval start field
  int scale_ = 0;      // decimal scale, or interval end field
  std::vector<Field> fields_;
  DataTypePtr child_;
  DataTypePtr value_;
  bool contains_null_ = true;
};

/// The columns of a batch or table: an ordered list of fields (Spark's StructType used as
/// a schema).
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}

  const std::vector<Field>& fields() const { return fields_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const Field& field(int i) const { return fields_[i]; }
  /// Index of the first field named `name` (case-insensitive by default), or -1.
  int FieldIndex(std::string_view name, bool case_sensitive = false) const;
  std::vector<std::string> names() const;
  bool Equals(const Schema& other) const;
  DataTypePtr AsStruct() const { return DataType::Struct(fields_); }
  /// Spark's simpleString of the schema as a struct: "struct<a:int,b:string>".
  std::string ToString() const;
  /// The tree printSchema() prints, starting with "root\n".
  std::string TreeString() const;

 private:
  std::vector<Field> fields_;
};
using SchemaPtr = std::shared_ptr<const Schema>;

/// Case-insensitive ASCII equality, as Spark's default name resolution.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);

}  // namespace spate
