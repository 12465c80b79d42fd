// Copyright spate authors.
#pragma once

// JSON text of column values as Spark's JacksonGenerator writes them (to_json and the
// JSON file writer): structs as objects (NULL fields omitted when ignoreNullFields, the
// default), maps as objects keyed by the key's text, arrays with nulls kept, strings
// escaped as Jackson does, float/double as Java prints them with NaN / Infinity quoted,
// decimals in plain notation, dates and timestamps as strings in the dateFormat /
// timestampFormat patterns (defaults yyyy-MM-dd and yyyy-MM-dd'T'HH:mm:ss.SSSXXX) in the
// session time zone, binary as base64.
//
// Ownership: JsonWriter keeps compiled patterns. Thread safety: const methods are safe
// from many threads. Failure: Make() rejects bad datetime patterns.

#include <memory>
#include <optional>
#include <string>

#include "spate/base/status.h"
#include "spate/columnar/column.h"
#include "spate/compute/datetime_format.h"
#include "spate/formats/json/options.h"

namespace spate {
class TimeZone;
}

namespace spate::formats::json {

class JsonWriter {
 public:
  static Result<JsonWriter> Make(const JsonOptions& options);

  /// Appends the JSON text of row `i` of `column` (which must not be NULL there).
  void Write(const Column& column, int64_t i, std::string* out) const;
  /// to_json over a column: one string per row, NULL where the input is NULL.
  ColumnPtr WriteColumn(const Column& column) const;

 private:
  JsonWriter() = default;
  JsonOptions options_;
  const TimeZone* zone_ = nullptr;
  std::optional<DateTimePattern> date_pattern_, timestamp_pattern_,
      timestamp_ntz_pattern_;
};

}  // namespace spate::formats::json
