// Copyright spate authors.
#pragma once

// Spark's DataFrame.show() text over columnar batches.
//
// FormatCell renders one value exactly as Spark 4's ToPrettyString (the CAST-to-string
// that show() applies to every column): NULL as "NULL" (also inside arrays, maps and
// structs), binary as hex "[41 42 43]", decimals in plain notation, floating point as
// Java's Float/Double.toString, timestamps in the session time zone, arrays
// "[1, 2, NULL]", maps "{a -> 1, b -> NULL}", structs "{1, x}".
//
// ShowString builds the whole table as Dataset.showString does (reference/ecosystem.md
// section 3.3): meta characters escaped, cells truncated, columns at least 3 wide
// measured in half widths (East Asian wide characters count 2), right-aligned when
// truncating and left-aligned otherwise, the "only showing top N rows" footer, and the
// vertical layout. Lengths, truncation and widths count UTF-16 code units as
// java.lang.String does, so text outside the Basic Multilingual Plane counts 2 per
// character (and a cut through such a character prints '?' where Java would print half a
// surrogate pair).
//
// Thread safety: pure functions; safe to call concurrently on shared columns.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/types/timezone.h"

namespace spate {

/// How values turn into text.
struct CellFormatOptions {
  /// Session time zone for TIMESTAMP values; nullptr = UTC. Not owned.
  const TimeZone* time_zone = nullptr;
};

/// The text of row `row` of `c` (Spark's ToPrettyString). Flat types read the buffers
/// directly, without materializing a Value.
std::string FormatCell(const Column& c, int64_t row, const CellFormatOptions& opts);
/// Appends FormatCell(c, row, opts) to `*out`.
void AppendCell(const Column& c, int64_t row, const CellFormatOptions& opts,
                std::string* out);
/// Appends the text of rows [0, num_rows) of `c` to `*out`, one string per row; the type
/// dispatch happens once per column. REQUIRES: num_rows <= c.length().
void FormatColumn(const Column& c, int64_t num_rows, const CellFormatOptions& opts,
                  std::vector<std::string>* out);

/// The exact string Spark's Dataset.showString(num_rows, truncate, vertical) returns for
/// the rows of `batches` (the first num_rows of them are shown; columns named by
/// `schema`). `has_more` says whether the query had more than num_rows rows (the caller
/// fetched num_rows + 1 to know). truncate > 0 truncates cells to that many characters
/// and right-aligns; 0 shows full cells left-aligned. The result ends with "\n"; print it
/// with one more newline (println), as Spark does.
std::string ShowString(const std::vector<BatchPtr>& batches, const Schema& schema,
                       int num_rows, int truncate, bool vertical, bool has_more,
                       const CellFormatOptions& opts);

/// Spark's SchemaUtils.escapeMetaCharacters: \n \r \t \f \b \v \a become "\n", "\r", ...
std::string EscapeMetaCharacters(std::string_view text);
/// Spark's Utils.stringHalfWidth of UTF-8 text: UTF-16 length plus one per East Asian
/// wide or full-width character.
int64_t StringHalfWidth(std::string_view utf8);

}  // namespace spate
