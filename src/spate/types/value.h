// Copyright spate authors.
#pragma once

// Value: one scalar of any Spark type, used for literals, Row objects returned by
// collect(), createDataFrame input and tests. Not used in columnar hot paths.
//
// Representation by type:
//   boolean, byte, short, int, long, date (days), timestamp(_ntz) (µs),
//   interval day-time (µs), interval year-month (months)      -> i64()
//   float, double                                             -> f64()
//   decimal                                                   -> unscaled i128()
//   string, binary                                            -> str()
//   array: elements in items(); map: keys in items(), values in values();
//   struct: field values in items().
//
// Thread safety: a value type; const access is thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "spate/types/data_type.h"

namespace spate {

using int128_t = __int128;

class Value {
 public:
  /// A NULL of type void.
  Value() : type_(DataType::Null()) {}
  static Value Null(DataTypePtr type) { return Value(std::move(type)); }
  static Value Boolean(bool v);
  static Value Byte(int8_t v);
  static Value Short(int16_t v);
  static Value Int(int32_t v);
  static Value Long(int64_t v);
  static Value Float(float v);
  static Value Double(double v);
  static Value Decimal(int128_t unscaled, int precision, int scale);
  static Value String(std::string v);
  static Value Binary(std::string v);
  static Value Date(int32_t days);
  static Value Timestamp(int64_t micros);
  static Value TimestampNtz(int64_t micros);
  /// A value of `type` held in the i64 slot (intervals, dates, ...).
  static Value FromI64(DataTypePtr type, int64_t v);
  static Value Array(DataTypePtr element_type, std::vector<Value> items);
  /// An array value of exactly `array_type` (keeps its containsNull flag).
  static Value ArrayOf(DataTypePtr array_type, std::vector<Value> items);
  static Value Struct(DataTypePtr struct_type, std::vector<Value> fields);
  static Value Map(DataTypePtr map_type, std::vector<Value> keys,
                   std::vector<Value> values);

  const DataTypePtr& type() const { return type_; }
  bool is_null() const { return is_null_; }
  int64_t i64() const { return i64_; }
  double f64() const { return f64_; }
  int128_t i128() const { return i128_; }
  const std::string& str() const { return str_; }
  const std::vector<Value>& items() const { return items_; }
  const std::vector<Value>& values() const { return values_; }

  /// Structural equality (NULL == NULL here; this is not SQL equality). Doubles compare
  /// by value with NaN == NaN.
  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }

  /// The text Spark's show() prints for this value ("NULL", "[1, 2]", "{a -> 1}").
  std::string ToString() const;
  /// The SQL literal form (used in EXPLAIN and error messages): 1, 'a', 1.5D, NULL, ...
  std::string ToSql() const;

 private:
  explicit Value(DataTypePtr type) : type_(std::move(type)) {}

  DataTypePtr type_;
  bool is_null_ = true;
  int64_t i64_ = 0;
  double f64_ = 0;
  int128_t i128_ = 0;
  std::string str_;
  std::vector<Value> items_;
  std::vector<Value> values_;
};

}  // namespace spate
