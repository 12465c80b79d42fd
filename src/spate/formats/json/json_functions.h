// Copyright spate authors.
#pragma once

// Spark's JSON SQL functions over the formats/json converter: from_json, to_json,
// schema_of_json, get_json_object, json_tuple (the struct the json_tuple generator
// expands), json_array_length, json_object_keys.
//
// Layering: compute owns the FunctionRegistry but cannot see formats (simdjson) or sql
// (the DDL grammar). The api module therefore calls RegisterJsonFunctions once, before
// the first session runs a query, handing over sql::ParseDdlSchema-based parsing of
// schema strings; from_json's resolver folds its schema argument (a string literal or any
// foldable expression such as schema_of_json('...')) and parses it at analysis time.
//
// Thread safety: registration must happen before concurrent lookups (std::call_once in
// the caller); the registered resolvers and kernels are pure.

#include <string_view>

#include "spate/base/status.h"
#include "spate/types/data_type.h"

namespace spate {
class FunctionRegistry;
}

namespace spate::formats::json {

/// Parses a schema string: a DDL column list ("a INT, b STRING"), "STRUCT<...>", or a
/// type
/// ("ARRAY<INT>", "MAP<STRING, INT>").
using SchemaStringParser = Result<DataTypePtr> (*)(std::string_view text);

void RegisterJsonFunctions(FunctionRegistry& registry, SchemaStringParser parse_schema);

}  // namespace spate::formats::json
