// Copyright spate authors.
#pragma once

// Building blocks shared by the array/map kernels (collections.cc) and the higher-order
// functions (higher_order.cc): list columns from offsets, ListTake / ListRefs, validity
// from per-row flags, map entry types and key checks. Internal to compute.

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
/// An array (or map) column of `offsets.size() - 1` rows, none NULL, over `child`.
ColumnPtr MakeListColumn(DataTypePtr type, const std::vector<int32_t>& offsets,
                         ColumnPtr child);
ColumnPtr MakeStructColumn(DataTypePtr type, int64_t n, std::vector<ColumnPtr> children,
                           BufferPtr validity = nullptr, int64_t nulls = 0);
/// struct<key, value> of a map type (the layout of a map column's child).
DataTypePtr MapEntryType(const DataTypePtr& map_type);
/// Checks each map row's keys: NULL_MAP_KEY, DUPLICATED_MAP_KEY (EXCEPTION dedup policy).
Status ValidateMapKeys(const Column& keys, const std::vector<int32_t>& offsets);

/// Output of a kernel over lists: per-row offsets and validity, and for each element a
/// reference of type `Ref` to the element row it is taken from.
template <typename Ref>
struct ListRows {
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> valid;
  std::vector<Ref> refs;
  /// Room for `rows` more rows (not their elements).
  void ReserveRows(size_t rows) {
    offsets.reserve(offsets.size() + rows);
    valid.reserve(valid.size() + rows);
  }
  void EndRow(bool ok) {
    offsets.push_back(static_cast<int32_t>(refs.size()));
    valid.push_back(ok ? 1 : 0);
  }
};

/// Elements taken from one column: its rows (-1 = a NULL element), gathered with Take.
/// Kernels with one source use this rather than ListRefs: TakeMulti over one source takes
/// about 1.2x Take's time (8-byte references and a source lookup per element).
struct ListTake : ListRows<int32_t> {
  ColumnPtr Finish(const DataTypePtr& type, const Column& elements) const {
    ColumnPtr child = Take(elements, refs.data(), static_cast<int64_t>(refs.size()));
    return MakeListColumn(type, offsets, valid, std::move(child));
  }
};

/// Elements taken from the element columns of several sources: TakeRef references
/// (kNullTakeRef = a NULL element), gathered with TakeMulti.
struct ListRefs : ListRows<uint64_t> {
  ColumnPtr Finish(const DataTypePtr& type,
                   const std::vector<ColumnPtr>& elements) const {
    ColumnPtr child = TakeMulti(elements, refs.data(), static_cast<int64_t>(refs.size()));
    return MakeListColumn(type, offsets, valid, std::move(child));
  }
};

/// The vectors of `groups` appended to `*all`, in order; returns the offsets of a list
/// column with one row per group over `*all` (aggregate states).
template <typename T>
std::vector<int32_t> ConcatGroups(const std::vector<std::vector<T>>& groups,
                                  std::vector<T>* all) {
  std::vector<int32_t> offsets{0};
  offsets.reserve(groups.size() + 1);
  for (const auto& g : groups) {
    all->insert(all->end(), g.begin(), g.end());
    offsets.push_back(static_cast<int32_t>(all->size()));
  }
  return offsets;
}

/// The group of each element of list rows [0, n) with `offsets`, the elements of row i
/// being in group gid[i] (merging list states): element offsets[0] + j is in group [j].
std::vector<uint32_t> ElementGroups(const int32_t* offsets, const uint32_t* gid,
                                    int64_t n);

/// Row i of each of `lists` (list or map columns of `n` rows) concatenated: NULL when any
/// of them is NULL at i (concat / map_concat).
ListRefs ConcatListRows(const std::vector<ColumnPtr>& lists, int64_t n);

}  // namespace spate
