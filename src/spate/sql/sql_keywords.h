#pragma once
// Spark's SQL keywords, as `SELECT * FROM sql_keywords()` lists them (Spark 4.2: 423
// keywords in its order). Immutable static data; thread-safe.
#include <span>
#include <string_view>

namespace spate::sql {

struct SqlKeyword {
  std::string_view name;
  /// Reserved when the parser enforces reserved keywords (spark.sql.ansi.enabled and
  /// spark.sql.ansi.enforceReservedKeywords both true); otherwise no keyword is reserved.
  bool reserved_in_ansi;
};

/// Every keyword, in the order Spark 4.2's sql_keywords() returns them.
std::span<const SqlKeyword> SqlKeywords();

}  // namespace spate::sql
