// Copyright spate authors.
#pragma once

// RowCodec: lossless binary encoding of rows of a schema (every spate type, nested
// included) for state store keys and values, and decoding of encoded rows back into
// columnar batches.
//
// Encoding of keys is canonical when `normalize_floats` is set: -0.0 is written as 0.0
// and every NaN as one NaN, so equal grouping keys (Spark's semantics) have equal bytes.
// Values are written as they are. The format is spate's own (not Spark's UnsafeRow); it
// starts with no header, so the schema must be known to decode (it is recorded by
// CheckOrWriteStateSchema).
//
// Layout (little-endian): a row is a null bitmap of its fields (bit set = NULL) and then
// the non-null values in field order. boolean 1 byte; byte/short/int/long/date/
// timestamp/timestamp_ntz/intervals their fixed width; float/double their IEEE bits;
// decimal(p<=18) 8 bytes, decimal(p>18) 16 bytes (unscaled two's complement); string/
// binary varint length + bytes; struct like a row; array varint count + element null
// bitmap + non-null elements; map varint count + key and value null bitmaps + the
// non-null key and value of each entry in order. See docs/state.md.
//
// Thread safety: a RowCodec is immutable and shareable; a RowBatchBuilder belongs to one
// thread. Failure: decoding bytes that do not match the schema returns an error (never
// reads out of bounds).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"

namespace spate::state {

class RowCodec {
 public:
  explicit RowCodec(SchemaPtr schema, bool normalize_floats = false);
  const SchemaPtr& schema() const { return schema_; }
  /// Appends the encoding of row `row` of `columns` (one per schema field, in order) to
  /// *out.
  void Encode(const std::vector<const Column*>& columns, int64_t row,
              std::string* out) const;

 private:
  friend class RowBatchBuilder;
  struct Plan;  // per-field encoder functions, precomputed from the schema
  SchemaPtr schema_;
  bool normalize_floats_;
  std::shared_ptr<const Plan> plan_;
};

/// Decodes encoded rows into a Batch of the codec's schema.
class RowBatchBuilder {
 public:
  explicit RowBatchBuilder(const RowCodec& codec);
  ~RowBatchBuilder();
  /// Appends one row.
  Status Append(std::string_view encoded);
  int64_t num_rows() const;
  /// The rows appended so far as one batch; the builder is empty afterwards.
  Result<BatchPtr> Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spate::state
