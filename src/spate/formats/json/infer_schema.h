// Copyright spate authors.
#pragma once

// Schema inference over JSON texts, as Spark's JsonInferSchema: integers -> BIGINT (beyond
// 64 bits: DECIMAL(p,0) up to 38 digits, else DOUBLE), other numbers -> DOUBLE (with
// prefersDecimal: DECIMAL when exact), strings -> STRING, true/false -> BOOLEAN, objects ->
// STRUCT with fields sorted by name, arrays -> ARRAY of the merged element type;
// primitivesAsString turns numbers and booleans into STRING. Types of the same field merge
// as Spark's compatibleType (numeric widening, DOUBLE over DECIMAL, field-wise struct and
// element-wise array merge, otherwise STRING); NULL-only fields become STRING at the end.
//
// Thread safety: pure functions. Failure: InferType returns Spark's parse error for
// malformed text; InferSchema adds the corrupt-record column in PERMISSIVE mode, skips the
// record in DROPMALFORMED and fails in FAILFAST.

#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/formats/json/options.h"
#include "spate/types/data_type.h"

namespace spate::formats::json {

/// The type of one JSON text (schema_of_json): any root value.
Result<DataTypePtr> InferType(std::string_view text, const JsonOptions& options);

/// The STRUCT schema of many records (the JSON reader): root objects are rows, root arrays
/// contribute their elements; other roots and malformed text are corrupt records.
Result<DataTypePtr> InferSchema(const std::vector<std::string_view>& texts,
                                const JsonOptions& options);

/// Spark's JsonInferSchema.compatibleType, without the final NULL -> STRING step.
DataTypePtr MergeTypes(const DataTypePtr& a, const DataTypePtr& b);

}  // namespace spate::formats::json
