// Copyright spate authors.
#pragma once

// CSV functions of the `functions` namespace (pyspark.sql.functions names): from_csv,
// to_csv, schema_of_csv. Each builds an unresolved call of the SQL function of the same
// name; `options` become a map('k', 'v', ...) argument. Thread safety: pure builders.

#include <map>
#include <string>

#include "spate/api/column.h"

namespace spate::api::functions {

using CsvOptionMap = std::map<std::string, std::string>;

/// `schema`: a DDL string of a struct ("a INT, b STRING").
Column from_csv(const Column& csv, const std::string& schema,
                const CsvOptionMap& options = {});
Column to_csv(const Column& c, const CsvOptionMap& options = {});
Column schema_of_csv(const std::string& csv, const CsvOptionMap& options = {});
Column schema_of_csv(const Column& csv, const CsvOptionMap& options = {});

}  // namespace spate::api::functions
