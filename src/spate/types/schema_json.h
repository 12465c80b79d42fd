// Copyright spate authors.
#pragma once

// Spark's JSON schema format (StructType.json / DataType.fromJson), used by Delta's
// metaData.schemaString, Parquet's org.apache.spark.sql.parquet.row.metadata and
// from_json's schema argument:
//
//   {"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,
//     "metadata":{}}, {"name":"m","type":{"type":"map","keyType":"string",
//     "valueType":{"type":"array","elementType":"long","containsNull":true},
//     "valueContainsNull":true},"nullable":false,"metadata":{"comment":"x"}}]}
//
// Primitive type names are Spark's typeName: boolean, byte, short, integer, long, float,
// double, decimal(p,s), string, binary, date, timestamp, timestamp_ntz, void,
// "interval day to second", "interval year to month" (and char(n)/varchar(n), read as
// string). A field's comment lives in its metadata under "comment"; other metadata keys
// are kept only as far as Field can hold them (they are dropped on read).
//
// Thread safety: pure functions. Failure: malformed JSON or unknown type names return
// kInvalidArgument naming the offending text.

#include <string>

#include "spate/base/json.h"
#include "spate/base/status.h"
#include "spate/types/data_type.h"

namespace spate {

/// StructType.json of a schema (compact, Spark's field order).
std::string SchemaToSparkJson(const Schema& schema);
Json DataTypeToSparkJson(const DataType& type);

Result<SchemaPtr> SchemaFromSparkJson(std::string_view text);
Result<DataTypePtr> DataTypeFromSparkJson(const Json& json);

/// The metadata object of a field ({"comment": ...} when it has one, else {}).
Json FieldMetadataJson(const Field& field);

}  // namespace spate
