// Copyright spate authors.
#pragma once

// Renders query results for the `spate sql` shell: Spark's show() grid ("table"),
// spark-sql's tab-separated output ("tsv", HiveResult text with NULL for nulls) and
// JSON lines ("json"). Thread safety: pure functions.

#include <string>
#include <vector>

#include "spate/columnar/batch.h"

namespace spate::cli {

enum class OutputFormat { kTable, kTsv, kJson };

/// One JSON value (Spark's to_json style): numbers bare, strings quoted and escaped.
std::string JsonValue(const Value& v);
std::string JsonEscape(const std::string& s);

/// Renders all rows of `batches` in `format`. `header` adds a column-name line to tsv.
std::string FormatResult(const Schema& schema, const std::vector<BatchPtr>& batches,
                         OutputFormat format, bool header, const std::string& time_zone);

}  // namespace spate::cli
