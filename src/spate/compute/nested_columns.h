// Copyright spate authors.
#pragma once

// Building blocks shared by the array/map kernels (collections.cc) and the higher-order
// functions (higher_order.cc): list columns from offsets, ListRefs, validity from per-row
// flags, map entry types and key checks. Internal to compute.

#include <cstdint>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/column.h"
#include "spate/columnar/kernels.h"

namespace spate {

/// Validity buffer of per-row flags (nullptr when all are set); sets *nulls.
BufferPtr ValidityFromFlags(const std::vector<uint8_t>& valid, int64_t* nulls);
/// An int32 offsets buffer holding `offsets`.
BufferPtr OffsetsBuffer(const std::vector<int32_t>& offsets);
/// An array (or map) column of `valid.size()` rows over `child`.
ColumnPtr MakeListColumn(DataTypePtr type, const std::vector<int32_t>& offsets,
                         const std::vector<uint8_t>& valid, ColumnPtr child);
ColumnPtr MakeStructColumn(DataTypePtr type, int64_t n, std::vector<ColumnPtr> children,
                           BufferPtr validity = nullptr, int64_t nulls = 0);
/// struct<key, value> of a map type (the layout of a map column's child).
DataTypePtr MapEntryType(const DataTypePtr& map_type);
/// Checks each map row's keys: NULL_MAP_KEY, DUPLICATED_MAP_KEY (EXCEPTION dedup policy).
Status ValidateMapKeys(const Column& keys, const std::vector<int32_t>& offsets);

/// Output of a kernel over lists: per-row offsets, validity and element references into
/// the element columns of its sources (kNullTakeRef = a NULL element).
struct ListRefs {
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> valid;
  std::vector<uint64_t> refs;
  void EndRow(bool ok) {
    offsets.push_back(static_cast<int32_t>(refs.size()));
    valid.push_back(ok ? 1 : 0);
  }
  ColumnPtr Finish(const DataTypePtr& type,
                   const std::vector<ColumnPtr>& elements) const {
    ColumnPtr child = TakeMulti(elements, refs.data(), static_cast<int64_t>(refs.size()));
    return MakeListColumn(type, offsets, valid, std::move(child));
  }
};

/// Row i of each of `lists` (list or map columns of `n` rows) concatenated: NULL when any
/// of them is NULL at i (concat / map_concat).
ListRefs ConcatListRows(const std::vector<ColumnPtr>& lists, int64_t n);

}  // namespace spate
