// Copyright spate authors.
#pragma once

// Literal construction for the SQL parser, following Spark's AstBuilder: numeric
// literals with their Spark types, hex binary,
// and ANSI interval literals (year-month and day-time). Errors carry Spark's error
// classes but no position; the parser adds it.
//
// Thread safety: pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/types/value.h"

namespace spate::sql {

/// A numeric token ("1", "1.5", "1e3", "10L", "2.5BD", ...) as a typed literal:
/// INT, else BIGINT, else DECIMAL(p,0) for plain integers; DECIMAL(p,s) for 1.5;
/// DOUBLE for exponents and D; FLOAT for F; TINYINT/SMALLINT/BIGINT for Y/S/L; DECIMAL
/// for BD. `negative` applies a folded unary minus.
Result<Value> MakeNumericLiteral(std::string_view raw, bool negative);

/// Bytes of a hex literal X'...' (odd length is left-padded with 0, as Spark's unhex);
/// nullopt when a character is not hex.
std::optional<std::string> DecodeHex(std::string_view hex);

/// One `value unit` pair of a multi-unit interval literal; `value` is the number text
/// with an optional leading sign ("10", "-1.5").
struct IntervalUnitValue {
  std::string value;
  std::string unit;  // as written: "MINUTES", "day", ...
};

/// INTERVAL 1 DAY 2 HOURS / INTERVAL '10' MINUTE: a YearMonthInterval (months) when all
/// units are YEAR/MONTH, else a DayTimeInterval (micros) with start/end fields from the
/// units; mixing both families is an error. `literal_text` is used in error messages.
Result<Value> MakeMultiUnitInterval(const std::vector<IntervalUnitValue>& parts,
                                    std::string_view literal_text);

/// INTERVAL '1 02:03:04' DAY TO SECOND / INTERVAL '2-3' YEAR TO MONTH.
Result<Value> MakeUnitToUnitInterval(std::string_view value, std::string_view from_unit,
                                     std::string_view to_unit,
                                     std::string_view literal_text);

/// INTERVAL '1 day 2 hours' (a typed interval string, units inside the string).
Result<Value> MakeIntervalFromString(std::string_view text,
                                     std::string_view literal_text);

/// True for an interval unit word accepted in literals (YEAR[S] ... MICROSECOND[S]).
bool IsIntervalUnit(std::string_view upper_word);

}  // namespace spate::sql
