// Copyright spate authors.
#pragma once

// RowComparator: multi-key ordering of rows of evaluated sort-key columns with Spark's
// semantics (ASC/DESC, NULLS FIRST/LAST, NaN largest, strings by bytes, nested types via
// CompareValuesAt). Typed comparisons per key (a switch per key, no virtual call).
//
// Ownership: holds the key columns. Thread safety: immutable after construction.

#include <cstdint>
#include <vector>

#include "spate/columnar/column.h"

namespace spate::exec {

class RowComparator {
 public:
  struct Key {
    ColumnPtr column;
    bool ascending = true;
    bool nulls_first = true;
  };

  RowComparator() = default;
  explicit RowComparator(std::vector<Key> keys);

  /// <0, 0, >0 as row i orders before, with, after row j.
  int Compare(int64_t i, int64_t j) const { return CompareWith(i, *this, j); }
  /// Compares row i of this with row j of `other` (same key types and directions).
  int CompareWith(int64_t i, const RowComparator& other, int64_t j) const;

  /// The stable sorting permutation of rows [0, n).
  std::vector<int32_t> SortedOrder(int64_t n) const;

  const std::vector<Key>& keys() const { return keys_; }

 private:
  enum class Kind : uint8_t {
    kI8,
    kI16,
    kI32,
    kI64,
    kF32,
    kF64,
    kI128,
    kBool,
    kBytes,
    kOther
  };
  std::vector<Key> keys_;
  std::vector<Kind> kinds_;
};

}  // namespace spate::exec
