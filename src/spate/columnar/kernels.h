// Copyright spate authors.
#pragma once

// Data-movement kernels over columns: gather by index, concatenation, slicing. Each is a
// typed loop per physical layout; nested types recurse into children.
// All functions are pure and thread-safe.

#include <cstdint>
#include <vector>

#include "spate/columnar/batch.h"

namespace spate {

/// out[k] = c[indices[k]]; an index of -1 yields NULL (used for outer-join padding).
ColumnPtr Take(const Column& c, const int32_t* indices, int64_t n);
BatchPtr TakeBatch(const Batch& b, const int32_t* indices, int64_t n);
/// Like Take with 64-bit indices into several source columns: source = idx >> 32,
/// row = idx & 0xffffffff (used to gather from many batches at once); kNullTakeRef
/// yields NULL.
ColumnPtr TakeMulti(const std::vector<ColumnPtr>& sources, const uint64_t* refs,
                    int64_t n);
/// TakeMulti's reference to row `row` of source `source`, and its NULL reference.
inline uint64_t TakeRef(size_t source, int64_t row) {
  return (static_cast<uint64_t>(source) << 32) | static_cast<uint64_t>(row);
}
inline constexpr uint64_t kNullTakeRef = ~uint64_t{0};
/// Concatenates columns of the same type.
ColumnPtr Concat(const std::vector<ColumnPtr>& columns);
/// Concatenates batches of the same schema into one (copying); `schema` names the result.
BatchPtr ConcatBatches(const SchemaPtr& schema, const std::vector<BatchPtr>& batches);
/// Copies rows [offset, offset + length).
ColumnPtr Slice(const Column& c, int64_t offset, int64_t length);
BatchPtr SliceBatch(const Batch& b, int64_t offset, int64_t length);
/// Keeps rows whose bit is set in `selection` bitmap (n bits) and valid (if validity
/// given).
std::vector<int32_t> SelectionFromBits(const uint8_t* bits, const uint8_t* validity,
                                       int64_t n);

}  // namespace spate
