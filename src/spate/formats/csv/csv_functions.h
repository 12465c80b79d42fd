// Copyright spate authors.
#pragma once

// Spark's CSV SQL functions over the CSV parser and writer: from_csv(str, schema[,
// options]) (a STRUCT per string, PERMISSIVE or FAILFAST), to_csv(struct[, options]) (one
// CSV record per struct, UnivocityGenerator's quoting) and schema_of_csv(str[, options])
// (the DDL of the inferred struct, columns _c0, _c1, ...).
//
// Layering as json_functions.h: the api registers them once, handing over the DDL parser.
// Thread safety: registration before concurrent lookups; resolvers and kernels are pure.

#include "spate/formats/json/json_functions.h"

namespace spate::formats::csv {

void RegisterCsvFunctions(FunctionRegistry& registry,
                          json::SchemaStringParser parse_schema);

}  // namespace spate::formats::csv
