// Copyright spate authors.
#pragma once

// Text -> number parsers for option values, conf values, checkpoint and log file fields
// (never a per-row path: the CSV/JSON readers and casts have their own). Locale-free, on
// std::from_chars.
//
// Each parses the WHOLE text: an optional sign ('+' or '-', as Java's Long.parseLong and
// Double.parseDouble take) then the number; no whitespace, no trailing characters, no
// out-of-range value (nullopt). Call sites that must accept more (a unit suffix, Spark's
// trimming of conf values) say so: ParseDoublePrefix, or Trim before parsing.
//
// Ownership: none (pure functions). Thread safety: safe. Failure: nullopt, or for
// ParseLong a kInvalidArgument Status naming the text.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "spate/base/status.h"

namespace spate {

/// A 64-bit integer in `base` (2..36; base 16 takes no "0x").
std::optional<int64_t> ParseInt64(std::string_view text, int base = 10);
/// A 32-bit integer in `base` (2..36).
std::optional<int32_t> ParseInt32(std::string_view text, int base = 10);
/// A finite or non-finite double: decimal or scientific ("1.5", "-2e10", ".5"), "inf",
/// "infinity" or "nan" (any case); no hex floats.
std::optional<double> ParseDouble(std::string_view text);
/// As ParseDouble, in long double precision (a decimal's text compared with int64
/// limits).
std::optional<long double> ParseLongDouble(std::string_view text);
/// The longest leading number of `text` (as ParseDouble takes it) and in *used the
/// characters it spans: "1.5 GB" -> 1.5, *used = 3. nullopt when text starts with none.
std::optional<double> ParseDoublePrefix(std::string_view text, size_t* used);
/// ParseInt64 as a Result: the error is Java's NumberFormatException text,
/// `For input string: "<text>"` (what Spark shows for a malformed long option).
Result<int64_t> ParseLong(std::string_view text);
/// Spark's time confs and options (JavaUtils.timeStringAsMs): "250ms", "10s", "15m" /
/// "15min", "1h", "2d", "500us" (truncated to ms), case and surrounding spaces ignored; a
/// bare number is milliseconds. The error is Java's text naming the string or suffix.
Result<int64_t> TimeStringAsMs(std::string_view text);

}  // namespace spate
