// Copyright spate authors.
#pragma once

// Java regular expressions (Spark's pattern syntax) run by RE2, for callers outside the
// regexp functions (DataFrame.colRegex's column names). Thread safety: the matcher is
// immutable and may be called concurrently.

#include <functional>
#include <string>
#include <string_view>

#include "spate/base/status.h"

namespace spate {

/// A predicate: does the whole text match the Java regex `pattern` (case-insensitively
/// unless `case_sensitive`)? Errors with INVALID_PARAMETER_VALUE.PATTERN naming
/// `function` for a pattern RE2 cannot run (backreferences, lookaround, atomic groups,
/// possessive quantifiers) or an invalid one.
Result<std::function<bool(std::string_view)>> JavaRegexFullMatcher(
    const std::string& function, std::string_view pattern, bool case_sensitive);

}  // namespace spate
