// Copyright spate authors.
#pragma once

// GroupTable: maps key rows to dense group ids (0, 1, 2, ... in order of first
// appearance) with grouping semantics (NULL equals NULL). Used by hash aggregation and
// set operations.
//
// Two layouts: a single integer-like key column (int, bigint, date, timestamp, ...) is
// kept as int64 values in an open-addressing table with a separate NULL group; any other
// key list is encoded with RowEncoder and stored as (hash, bytes in an arena). Keys are
// materialized once per new group.
//
// Ownership: owns its table and key builders. Thread safety: one thread.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/columnar/row_encoding.h"

namespace spate::exec {

class GroupTable {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  explicit GroupTable(std::vector<DataTypePtr> key_types);
  GroupTable(const GroupTable&) = delete;
  GroupTable& operator=(const GroupTable&) = delete;

  int64_t num_groups() const { return num_groups_; }

  /// group_ids[i] = group of row i of `keys` (n rows), adding new groups.
  void FindOrInsert(const std::vector<ColumnPtr>& keys, int64_t n, uint32_t* group_ids);
  /// Like FindOrInsert without adding: kAbsent for unknown keys.
  void Find(const std::vector<ColumnPtr>& keys, int64_t n, uint32_t* group_ids);

  /// The key columns, one row per group in group-id order. Call once, at the end.
  std::vector<ColumnPtr> FinishKeys();

 private:
  template <bool kInsert>
  void LookupInteger(const Column& c, int64_t n, uint32_t* group_ids);
  template <bool kInsert>
  void LookupEncoded(const std::vector<ColumnPtr>& keys, int64_t n, uint32_t* group_ids);

  std::vector<DataTypePtr> key_types_;
  bool integer_mode_;
  int64_t num_groups_ = 0;
  uint64_t mask_ = 0;
  std::vector<uint32_t> slot_group_;  // group id + 1; 0 = empty
  // Integer mode.
  std::vector<int64_t> slot_key_;
  std::vector<int64_t> group_values_;
  int64_t null_group_ = -1;
  std::vector<int64_t> scratch_;
  // Encoded mode.
  std::vector<uint64_t> slot_hash_;
  std::string arena_;
  std::vector<int64_t> group_offsets_{0};
  std::vector<uint64_t> group_hashes_;
  RowEncoder encoder_;
  std::vector<std::unique_ptr<ColumnBuilder>> builders_;
};

}  // namespace spate::exec
