// Copyright spate authors.
#pragma once

// Encodes the values of several columns at one row into a byte string that is equal for
// equal keys (Spark grouping semantics: NULL equals NULL, -0.0 equals 0.0, all NaNs
// equal). Used for hash aggregation keys, DISTINCT and join keys. Also a 64-bit hash of
// keys.
//
// Thread safety: a RowEncoder is used by one thread; it owns a reusable buffer.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/columnar/column.h"

namespace spate {

class RowEncoder {
 public:
  /// Encodes rows [0, n) of `columns`; afterwards key(i) views row i's bytes (valid until
  /// the next call).
  void Encode(const std::vector<const Column*>& columns, int64_t n);
  std::string_view key(int64_t i) const {
    return {data_.data() + offsets_[i],
            static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }
  /// True if row i has a NULL in any key column (joins drop such rows).
  bool any_null(int64_t i) const { return any_null_[i] != 0; }

 private:
  std::string data_;
  std::vector<int64_t> offsets_;
  std::vector<uint8_t> any_null_;
  std::vector<int64_t> cursor_;  // scratch: each row's write position
};

/// Appends the encoding of c[i] to out.
void EncodeValue(const Column& c, int64_t i, std::string* out);

/// A fast 64-bit hash of a byte string.
uint64_t HashBytes(std::string_view bytes);
inline uint64_t HashInt(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace spate
