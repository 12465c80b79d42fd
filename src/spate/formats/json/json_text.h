// Copyright spate authors.
#pragma once

// Small JSON text utilities shared by the parser, the writer and the JSON functions.
// Thread safety: pure functions.

#include <string>
#include <string_view>

#include "spate/base/json.h"  // AppendJsonString, Jackson's string escaping
#include "spate/formats/json/options.h"

namespace spate::formats::json {

/// Rewrites a record that uses Jackson leniency into strict JSON: single-quoted strings
/// (allowSingleQuotes), NaN / Infinity / -Infinity / +INF tokens as strings
/// (allowNonNumericNumbers), /* */ and // comments (allowComments), unquoted field names
/// (allowUnquotedFieldNames), leading zeros (allowNumericLeadingZeros), backslash before
/// any character (allowBackslashEscapingAnyCharacter). Returns false when no enabled rule
/// applies (the record stays malformed).
bool RewriteLenient(std::string_view text, const JsonOptions& options, std::string* out);

}  // namespace spate::formats::json
