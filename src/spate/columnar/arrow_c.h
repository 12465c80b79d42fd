// Copyright spate authors.
#pragma once

// The Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html)
// and C Stream Interface (.../CStreamInterface.html), written from the specification:
// columns, batches and types cross to and from any Arrow implementation (pyarrow, DuckDB,
// polars) without copies and without linking Arrow.
//
// Type mapping (Spark's ArrowUtils, with TIMESTAMP always exported in UTC):
//   null n | boolean b | byte c | short s | int i | long l | float f | double g
//   decimal(p,s) d:p,s (decimal128) | string u | binary z | date tdD
//   timestamp tsu:UTC (any zone imports as timestamp) | timestamp_ntz tsu:
//   interval day to second tDu (duration µs) | interval year to month tiM
//   struct +s | array +l (child "element") | map +m (child "entries": struct of a
//   non-nullable "key" and a "value"; ARROW_FLAG_MAP_KEYS_SORTED is not set)
//
// Ownership:
//   Export is zero-copy: each exported ArrowArray (and each child) holds shared
//   references to the column's buffers in its private_data; its release callback drops
//   them (and releases the children that were not moved out). Exported
//   ArrowSchema/ArrowArrayStream own their strings and children the same way. The
//   consumer must call release exactly once. Import moves the ArrowArray: the caller's
//   struct is marked released at once, even when the import fails. Imported buffers are
//   wrapped without copying (Buffer::Wrap); the producer's release callback runs exactly
//   once, when the last spate buffer referencing the array dies. Bitmaps that start at a
//   bit offset and offset buffers that do not start at zero (Arrow `offset` != 0) are
//   copied into normalized buffers, since spate columns never carry offsets; fixed-width
//   values and string bytes are still shared.
// Thread safety: the functions are thread-safe; an exported struct must be released by
// one thread; imported columns are immutable and may be shared, and the producer's
// release callback may run on whichever thread drops the last reference.

#include <cstdint>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"

extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

}  // extern "C"

namespace spate {

/// Describes `field` (name, type, nullability) in `*out`.
Status ExportType(const Field& field, ArrowSchema* out);
/// Describes a schema as a non-nullable struct "+s" with one child per field.
Status ExportSchema(const Schema& schema, ArrowSchema* out);
/// Exports the column's buffers (zero-copy) into `*out`.
Status ExportColumn(const ColumnPtr& column, ArrowArray* out);
/// Exports a batch as a struct array "+s" of its columns and, unless `out_schema` is
/// nullptr, its schema.
Status ExportBatch(const BatchPtr& batch, ArrowArray* out_array, ArrowSchema* out_schema);
/// A stream over `batches` (each must have the types of `schema`): get_schema describes
/// `schema`, get_next yields the batches in order, then a released array (end of stream).
Status ExportBatchStream(SchemaPtr schema, std::vector<BatchPtr> batches,
                         ArrowArrayStream* out);

/// The spate type of an Arrow schema node. Does not release `schema`.
Result<DataTypePtr> ImportType(const ArrowSchema* schema);
/// The field (name, type, ARROW_FLAG_NULLABLE) of an Arrow schema node. Does not release
/// it.
Result<Field> ImportField(const ArrowSchema* schema);
/// Imports an array of the type `schema` describes. Moves `*array` (see Ownership); does
/// not release `schema`.
Result<ColumnPtr> ImportColumn(ArrowArray* array, const ArrowSchema* schema);
/// Imports a struct array "+s" without nulls as a batch whose schema is the struct's
/// fields. Moves `*array` and releases `*schema`, whether or not the import succeeds.
Result<BatchPtr> ImportBatch(ArrowArray* array, ArrowSchema* schema);

}  // namespace spate
