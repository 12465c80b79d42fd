// Copyright spate authors.
#pragma once

// JsonColumnParser: JSON texts -> spate columns of a target schema, parsed with
// simdjson's On-Demand API straight into typed builders (no per-value Value or variant).
// It follows Spark's JacksonParser + FailureSafeParser (Spark 4,
// spark.sql.json.enablePartialResults = true, enableExactStringParsing = true):
//  - fields match by exact (case-sensitive) name; missing fields are NULL; other fields
//  are
//    skipped; a repeated field keeps its last value;
//  - conversions: integers into byte/short/int/long (out of range -> bad field), any
//  number
//    into float/double/decimal (decimal from the exact text, rounded half-up to the
//    scale, too many digits -> bad field), "NaN"/"Infinity"/"-Infinity"/"+INF"... strings
//    into float/double when allowNonNumericNumbers, strings into date/timestamp with the
//    dateFormat / timestampFormat patterns (else CAST's parsing) in the session zone,
//    integers into timestamp as seconds, base64 strings into binary, true/false into
//    boolean, any value into string (non-strings keep their exact JSON text), objects
//    into structs and maps, arrays into arrays; an empty string for a non-string type and
//    every other combination is a bad field;
//  - a bad field is NULL and marks the record bad, keeping the other fields (partial
//    results); a bad array element makes the whole array bad (NULL); a syntax error makes
//    the whole record bad with no partial results;
//  - a bad record: PERMISSIVE keeps the partial row (all NULL after a syntax error) and
//    puts the raw text into the corrupt-record column (`columnNameOfCorruptRecord`, a
//    STRING field of the root struct, if present); DROPMALFORMED drops it; FAILFAST fails
//    with MALFORMED_RECORD_IN_PARSING.*;
//  - blank text gives no row; a root JSON array gives one row per element when
//    `allow_array_as_structs` (the file reader), else it is a bad record.
// Jackson leniency Spark enables by default (single quotes, NaN/Infinity tokens) and the
// allowComments / allowUnquotedFieldNames / allowNumericLeadingZeros options are handled
// by rewriting a record into strict JSON when simdjson rejects it.
//
// Ownership: owns its builders until Finish(). Thread safety: one parser per thread.
// Failure: Make() rejects unsupported schemas and bad datetime patterns; Append() returns
// an error only in FAILFAST mode (or for a bad pattern detected late).

#include <memory>
#include <string>
#include <string_view>

#include "spate/base/status.h"
#include "spate/columnar/column.h"
#include "spate/formats/json/options.h"

namespace spate::formats::json {

class JsonColumnParser {
 public:
  /// `schema`: a STRUCT (one row per record), or an ARRAY / MAP (from_json's other root
  /// types). Map keys must be STRING.
  static Result<std::unique_ptr<JsonColumnParser>> Make(
      DataTypePtr schema, JsonOptions options, bool allow_array_as_structs = false);
  ~JsonColumnParser();

  /// Parses one record and appends its rows: 0 (blank text; DROPMALFORMED bad record),
  /// 1, or one per element of a root array when allowed. Sets *rows_appended if given,
  /// and *unmatched: whether the record has a top-level field the schema does not name
  /// (or one named like the corrupt-record column) or a value that did not convert — what
  /// a rescued data column would hold.
  /// `readable_after`: how many bytes after `text` the caller's buffer holds (they are
  /// only read, never changed); with enough for simdjson's padding and a whitespace byte
  /// right after the text, the record is parsed where it lies instead of being copied.
  Status Append(std::string_view text, int64_t* rows_appended = nullptr,
                bool* unmatched = nullptr, size_t readable_after = 0);
  /// Appends a NULL row (a NULL input of from_json).
  void AppendNull();
  int64_t num_rows() const;
  /// A column of the schema's type with all appended rows; resets the parser.
  ColumnPtr Finish();

  /// from_json over a string column: one row per input row, NULL for NULL or blank input.
  Result<ColumnPtr> ParseStrings(const Column& strings);

  struct Impl;

 private:
  explicit JsonColumnParser(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace spate::formats::json
