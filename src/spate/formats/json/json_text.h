// Copyright spate authors.
#pragma once

// Small JSON text utilities shared by the parser, the writer and the JSON functions.
// Thread safety: pure functions.

#include <string>
#include <string_view>

#include "spate/formats/json/options.h"

namespace spate::formats::json {

/// Rewrites a record that uses Jackson leniency into strict JSON: single-quoted strings
/// (allowSingleQuotes), NaN / Infinity / -Infinity / +INF tokens as strings
/// (allowNonNumericNumbers), /* */ and // comments (allowComments), unquoted field names
/// (allowUnquotedFieldNames), leading zeros (allowNumericLeadingZeros), backslash before any
/// character (allowBackslashEscapingAnyCharacter). Returns false when no enabled rule
/// applies (the record stays malformed).
bool RewriteLenient(std::string_view text, const JsonOptions& options, std::string* out);

/// Appends `s` as a JSON string literal with Jackson's escaping ("\"", "\\", \b \f \n \r \t,
/// other control characters as \u00XX).
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace spate::formats::json
