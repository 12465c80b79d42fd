// Copyright spate authors.
#pragma once

// JsonValue: a small ordered JSON document for the checkpoint logs, offsets and progress
// reports (a few hundred bytes each, never a hot path). Objects keep insertion order, so
// serialised text has the field order Spark writes. Numbers are kept as int64 when they
// are integral in the text, else as double (printed as Java's Double.toString, as
// json4s does).
//
// Ownership: values. Thread safety: none needed (plain values). Failure: Parse returns
// kDataCorruption with the byte offset for malformed text.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/base/status.h"

namespace spate::stream {

class JsonValue {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  JsonValue() = default;
  static JsonValue Null() { return JsonValue(); }
  static JsonValue Bool(bool b);
  static JsonValue Int(int64_t v);
  static JsonValue Double(double v);
  static JsonValue String(std::string s);
  static JsonValue Array();
  static JsonValue Object();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kDouble; }
  bool bool_value() const { return b_; }
  /// A double is truncated, saturating at the int64 range (NaN: 0): a corrupt log's
  /// huge number must not be an undefined conversion.
  int64_t int_value() const {
    if (type_ != Type::kDouble) return i_;
    if (!(d_ == d_)) return 0;
    if (d_ >= 9223372036854775807.0) return INT64_MAX;
    if (d_ <= -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(d_);
  }
  double double_value() const {
    return type_ == Type::kInt ? static_cast<double>(i_) : d_;
  }
  const std::string& string_value() const { return s_; }

  // Arrays.
  JsonValue& Append(JsonValue v);
  const std::vector<JsonValue>& items() const { return items_; }
  // Objects (insertion ordered; Set replaces an existing key in place).
  JsonValue& Set(const std::string& key, JsonValue v);
  const JsonValue* Find(std::string_view key) const;
  const std::vector<std::pair<std::string, JsonValue>>& fields() const { return fields_; }

  /// Compact text: {"a":1,"b":[1,2]}.
  std::string ToString() const;
  /// Jackson's default pretty printer as json4s' pretty() uses it:
  /// {\n  "a" : 1,\n  "b" : [ 1, 2 ]\n}; empty containers "{ }" and "[ ]".
  std::string ToPrettyString() const;

  static Result<JsonValue> Parse(std::string_view text);

  bool operator==(const JsonValue& o) const;
  bool operator!=(const JsonValue& o) const { return !(*this == o); }

 private:
  void Write(std::string* out) const;
  void WritePretty(std::string* out, int indent) const;
  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> fields_;
};

}  // namespace spate::stream
