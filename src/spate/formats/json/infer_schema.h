// Copyright spate authors.
#pragma once

// Schema inference over JSON texts, as Spark's JsonInferSchema: integers -> BIGINT
// (beyond 64 bits: DECIMAL(p,0) up to 38 digits, else DOUBLE), other numbers -> DOUBLE
// (with prefersDecimal: the DECIMAL of the number's BigDecimal, DECIMAL(max(precision,
// scale), scale), when that fits 38 digits; a negative scale, from an exponent, fails
// with NEGATIVE_SCALE_DISALLOWED as in Spark 4), strings -> STRING, true/false ->
// BOOLEAN, objects -> STRUCT with fields sorted by name (Java's String order: UTF-16 code
// units), arrays -> ARRAY of the merged element type; primitivesAsString turns numbers
// and booleans into STRING. Types of the same field merge as Spark's compatibleType
// (numeric widening, DOUBLE over DECIMAL, field-wise struct and element-wise array merge,
// otherwise STRING); NULL-only fields become STRING at the end.
//
// The merge is associative and commutative, so records can be inferred in any grouping:
// one JsonSchemaInferrer per split, on many threads, Merge()d at the end, gives the
// schema one inferrer gives over all records in order (docs/schema-inference.md).
//
// Thread safety: the free functions are pure; a JsonSchemaInferrer is used by one thread
// at a time. Failure: InferType returns Spark's parse error for malformed text; the
// reader's inference adds the corrupt-record column in PERMISSIVE mode, skips the record
// in DROPMALFORMED and fails in FAILFAST.

#include <memory>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/formats/json/options.h"
#include "spate/types/data_type.h"

namespace spate::formats::json {

/// The reader's inference, one record at a time (a line, or a whole multiLine file):
/// root objects are rows, root arrays of objects contribute their elements, blank and
/// `null` records are skipped (Spark discards NULL roots); other roots and malformed text
/// are corrupt records. Each record is parsed once with a reused simdjson parser and
/// folded into a mutable type tree (no DataType is built per record); a record found
/// malformed half-way is rolled back.
class JsonSchemaInferrer {
 public:
  explicit JsonSchemaInferrer(JsonOptions options);
  ~JsonSchemaInferrer();
  JsonSchemaInferrer(const JsonSchemaInferrer&) = delete;
  JsonSchemaInferrer& operator=(const JsonSchemaInferrer&) = delete;

  /// Adds one record. FAILFAST: a malformed record is MALFORMED_RECORD_IN_PARSING.*; the
  /// inferrer must not be used after an error.
  Status Add(std::string_view text);
  /// Folds in what `other` inferred (its records as if added here).
  void Merge(const JsonSchemaInferrer& other);
  /// The STRUCT of all records: the corrupt-record column added when a record was corrupt
  /// (PERMISSIVE), NULL-only types STRING (or dropped with dropFieldIfAllNull), empty
  /// structs dropped (SPARK-8093).
  DataTypePtr Finish() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The type of one JSON text (schema_of_json): any root value.
Result<DataTypePtr> InferType(std::string_view text, const JsonOptions& options);

/// The STRUCT schema of many records (one JsonSchemaInferrer over all of them, in order).
Result<DataTypePtr> InferSchema(const std::vector<std::string_view>& texts,
                                const JsonOptions& options);

/// Spark's JsonInferSchema.compatibleType, without the final NULL -> STRING step.
DataTypePtr MergeTypes(const DataTypePtr& a, const DataTypePtr& b);

/// Java's String.compareTo order on UTF-8 names (UTF-16 code units: a character beyond
/// U+FFFF sorts before U+E000..U+FFFF), the order of Spark's inferred struct fields.
bool JavaStringLess(std::string_view a, std::string_view b);

}  // namespace spate::formats::json
