// Copyright spate authors.
#pragma once

// RowCodec: lossless binary encoding of rows of a schema (every spate type, nested
// included) for state store keys and values, and decoding of encoded rows back into
// columnar batches.
//
// Encoding of keys is canonical when `normalize_floats` is set: -0.0 is written as 0.0 and
// every NaN as one NaN, so equal grouping keys (Spark's semantics) have equal bytes. Values
// are written as they are. The format is spate's own (not Spark's UnsafeRow); it starts
// with no header, so the schema must be known to decode (it is recorded by
// CheckOrWriteStateSchema).
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
  void Encode(const std::vector<const Column*>& columns, int64_t row, std::string* out) const;

 private:
  friend class RowBatchBuilder;
  SchemaPtr schema_;
  bool normalize_floats_;
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
