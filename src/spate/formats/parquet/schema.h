// Copyright spate authors.
#pragma once

// Mapping between spate schemas and Parquet schemas, and the level structure (Dremel
// definition/repetition levels) both the writer and the reader work from.
//
// Writer: a spate Schema becomes SchemaElements the way Spark writes them (3-level LIST
// and MAP, decimals as INT32/INT64/FIXED_LEN_BYTE_ARRAY by precision, timestamps as INT64
// TIMESTAMP(MICROS)). Reader: SchemaElements (incl. legacy 2-level lists, bare repeated
// fields, INT96, unsigned and millisecond/nanosecond types) become a spate Schema.
//
// Thread safety: immutable results. Failure: kUnimplemented for types spate cannot read
// or write, kDataCorruption for malformed schemas.

#include <cstdint>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/formats/parquet/metadata.h"
#include "spate/types/data_type.h"

namespace spate::formats::parquet {

/// How a leaf's physical values become the spate column's values.
enum class Conversion : uint8_t {
  kNone,  // same representation (INT32->int/date, INT64->long/timestamp, FLOAT, DOUBLE,
          // BOOLEAN, bytes)
  kInt32ToInt8,
  kInt32ToInt16,
  kUInt32ToInt64,  // UINT_32 -> bigint
  kUInt8ToInt16,
  kUInt16ToInt32,
  kInt32ToDecimal,
  kInt64ToDecimal,
  kUInt64ToDecimal,
  kBytesToDecimal,  // FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY big-endian two's complement
  kMillisToMicros,
  kNanosToMicros,
  kInt96ToMicros,
};

struct LeafInfo {
  std::vector<std::string> path;
  PhysicalType physical = PhysicalType::kBoolean;
  int32_t type_length = 0;
  DataTypePtr type;  // spate type of the leaf values
  Conversion conversion = Conversion::kNone;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  // Writer only: the schema element (for logical/converted type).
  SchemaElement element;
};

/// One node of the level tree.
struct LevelNode {
  enum Kind : uint8_t { kPrimitive, kStruct, kList, kMap } kind = kPrimitive;
  std::string name;
  DataTypePtr type;
  int16_t parent_def = 0;  // def level at which this node has a slot
  int16_t def = 0;  // def level at which it is non-null (== parent_def when required)
  int16_t rep = 0;  // repetition level of its context
  int16_t elem_def = 0;  // lists/maps: def level at which an element exists
  int16_t elem_rep = 0;  // lists/maps: repetition level of the elements
  int leaf = -1;         // primitives: leaf index
  int first_leaf = 0;
  int num_leaves = 0;
  std::vector<LevelNode> children;  // struct fields; list: [element]; map: [key, value]
};

struct ParquetSchema {
  std::vector<SchemaElement> elements;  // writer output / reader input (root first)
  std::vector<LevelNode> fields;        // one per top-level column
  std::vector<LeafInfo> leaves;         // in schema (column chunk) order
  SchemaPtr schema;                     // spate schema
};

/// Builds the Parquet schema for writing `schema` (Spark's non-legacy layout).
Result<ParquetSchema> SchemaForWrite(const Schema& schema);
/// Converts a file's schema elements for reading.
Result<ParquetSchema> SchemaForRead(const std::vector<SchemaElement>& elements);

/// Bytes of the FIXED_LEN_BYTE_ARRAY Spark uses for decimals of `precision` digits.
int DecimalBytes(int precision);

}  // namespace spate::formats::parquet
