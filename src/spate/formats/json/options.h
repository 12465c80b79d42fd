// Copyright spate authors.
#pragma once

// Options of Spark's JSON data source and JSON functions (JSONOptions): parse mode, the
// corrupt-record column, datetime patterns, Jackson leniency flags, inference and writer
// settings. Keys are matched case-insensitively, as Spark's CaseInsensitiveMap does.
//
// Ownership: a plain value. Thread safety: immutable after FromMap.
// Failure: FromMap rejects an unknown mode or a bad boolean with Spark's error classes.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/base/status.h"

namespace spate::formats::json {

enum class ParseMode : uint8_t { kPermissive, kDropMalformed, kFailFast };

struct JsonOptions {
  ParseMode mode = ParseMode::kPermissive;
  std::string column_name_of_corrupt_record = "_corrupt_record";
  /// Empty = Spark's defaults (reading: CAST-like parsing; writing: yyyy-MM-dd and
  /// yyyy-MM-dd'T'HH:mm:ss.SSSXXX / yyyy-MM-dd'T'HH:mm:ss[.SSS]).
  std::string date_format;
  std::string timestamp_format;
  std::string timestamp_ntz_format;
  /// Session time zone id (spark.sql.session.timeZone) unless the `timeZone` option is
  /// set.
  std::string time_zone_id = "UTC";
  bool allow_comments = false;
  bool allow_unquoted_field_names = false;
  bool allow_single_quotes = true;
  bool allow_non_numeric_numbers = true;
  bool allow_numeric_leading_zeros = false;
  bool allow_backslash_escaping_any_character = false;
  bool primitives_as_string = false;
  bool prefers_decimal = false;
  bool ignore_null_fields = true;
  /// Inference: fields (and arrays) seen only as NULL / empty are dropped instead of
  /// becoming STRING (dropFieldIfAllNull).
  bool drop_field_if_all_null = false;
  /// Reading with a rescued data column (Databricks): a record whose only faults are
  /// values that do not convert is a good record (no corrupt-record text, kept by
  /// DROPMALFORMED, no FAILFAST error); the bad values are NULL. Set by the reader.
  bool bad_values_are_rescued = false;

  /// Applies `options` (key/value pairs, keys case-insensitive) over the defaults.
  static Result<JsonOptions> FromPairs(
      const std::vector<std::pair<std::string, std::string>>& options,
      std::string session_time_zone = "UTC");
};

/// "PERMISSIVE", "DROPMALFORMED", "FAILFAST".
const char* ParseModeName(ParseMode mode);

}  // namespace spate::formats::json
