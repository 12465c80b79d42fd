// Copyright spate authors.
#pragma once

// JSON functions of the `functions` namespace (pyspark.sql.functions names): from_json,
// to_json, schema_of_json, get_json_object, json_tuple, json_array_length,
// json_object_keys. Each builds an unresolved call of the SQL function of the same name;
// `options` become a map('k', 'v', ...) argument. Thread safety: pure builders.

#include <map>
#include <string>
#include <vector>

#include "spate/api/column.h"
#include "spate/types/data_type.h"

namespace spate::api::functions {

using JsonOptionMap = std::map<std::string, std::string>;

/// `schema`: a DDL string ("a INT, b STRING") or a type string ("ARRAY<INT>").
Column from_json(const Column& json, const std::string& schema,
                 const JsonOptionMap& options = {});
Column from_json(const Column& json, const DataTypePtr& schema,
                 const JsonOptionMap& options = {});
/// `schema`: a foldable string column, e.g. schema_of_json(lit("...")).
Column from_json(const Column& json, const Column& schema,
                 const JsonOptionMap& options = {});
Column to_json(const Column& c, const JsonOptionMap& options = {});
Column schema_of_json(const std::string& json, const JsonOptionMap& options = {});
Column schema_of_json(const Column& json, const JsonOptionMap& options = {});
Column get_json_object(const Column& json, const std::string& path);
/// A generator: one column per field, named c0, c1, ...
Column json_tuple(const Column& json, const std::vector<std::string>& fields);
Column json_array_length(const Column& json);
Column json_object_keys(const Column& json);

}  // namespace spate::api::functions
