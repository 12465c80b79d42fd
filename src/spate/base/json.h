// Copyright spate authors.
#pragma once

// Json: a small ordered JSON document for metadata files — the Delta transaction log,
// Spark's JSON schema strings, table statistics, the streaming checkpoint logs (offsets,
// commits, metadata), progress reports and the monitoring API (never a per-row path).
// Objects keep insertion order so serialised text has the field order the writer chose
// (Spark's). Numbers keep their text exactly (a decimal(38,10) statistic or a 64-bit
// version survives a round trip); int_value()/double_value() convert on demand. A double
// that must print as Spark prints it (Java's Double.toString) is built as
// NumberText(FormatDouble(v)) (spate/types/format.h).
//
// Ownership: plain values. Thread safety: none needed (values; const methods are safe to
// share). Failure: Parse returns kDataCorruption with the byte offset for malformed text
// (depth is limited to 512 so hostile input cannot exhaust the stack).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/base/status.h"

namespace spate {

class Json {
 public:
  enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  Json() = default;
  static Json Null() { return Json(); }
  static Json Bool(bool b);
  static Json Int(int64_t v);
  /// Finite doubles print in the shortest round-trip form; NaN/Infinity print as the
  /// strings "NaN"/"Infinity"/"-Infinity" (Jackson writes non-finite numbers as strings
  /// when asked to quote them).
  static Json Double(double v);
  /// A number from its literal text (e.g. a decimal "123.4500"); REQUIRES valid JSON
  /// number syntax.
  static Json NumberText(std::string text);
  static Json String(std::string s);
  static Json Array();
  static Json Object();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }
  bool bool_value() const { return b_; }
  /// The number as int64: a fraction is truncated and a value beyond the int64 range
  /// saturates (a corrupt log's huge number is never an undefined conversion); 0 when not
  /// a number or NaN.
  int64_t int_value() const;
  double double_value() const;
  /// The number's literal text, or the string's value.
  const std::string& text() const { return s_; }
  const std::string& string_value() const { return s_; }

  // Arrays.
  Json& Append(Json v);
  const std::vector<Json>& items() const { return items_; }
  // Objects: Set replaces an existing key in place.
  Json& Set(const std::string& key, Json v);
  const Json* Find(std::string_view key) const;
  const std::vector<std::pair<std::string, Json>>& fields() const { return fields_; }

  // Typed lookups of object members (nullopt when missing, null or of another type).
  std::optional<std::string> GetString(std::string_view key) const;
  std::optional<int64_t> GetInt(std::string_view key) const;
  std::optional<bool> GetBool(std::string_view key) const;

  /// Compact text: {"a":1,"b":[1,2]}.
  std::string ToString() const;
  void AppendTo(std::string* out) const;
  /// Jackson's default pretty printer as json4s' pretty() (Spark's prettyJson) uses it:
  /// {\n  "a" : 1,\n  "b" : [ 1, 2 ]\n}; empty containers "{ }" and "[ ]".
  std::string ToPrettyString() const;

  static Result<Json> Parse(std::string_view text);

  bool operator==(const Json& o) const;
  bool operator!=(const Json& o) const { return !(*this == o); }

 private:
  void AppendPretty(std::string* out, size_t indent) const;
  Type type_ = Type::kNull;
  bool b_ = false;
  std::string s_;  // string value or number text
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> fields_;
};

/// Appends `s` as a JSON string literal with Jackson's escaping, the one escaper of every
/// JSON spate writes (Delta log, checkpoint files, progress, to_json, the JSON writer):
/// `"` and `\` backslashed, \b \f \n \r \t, other characters below 0x20 as \u00XX
/// (upper-case hex, as Jackson writes); everything else, UTF-8 included, passes through.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace spate
