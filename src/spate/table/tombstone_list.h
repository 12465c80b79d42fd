// Copyright spate authors.
#pragma once

// TombstoneList: a Delta snapshot's tombstones (remove actions kept for
// delta.deletedFileRetentionDuration, a week by default) held compactly. A stream of
// tiny batches with auto-compaction leaves one tombstone per file it ever wrote, so a
// week of one-file batches keeps ~600,000 of them in memory; as RemoveFile values (a
// path string, a partition-values vector, optionals, a deletion-vector descriptor) each
// cost ~320 bytes, here a fixed 56-byte record. A path holding a UUID (Spark's data file
// names: `[<partition dirs>/]part-<n>-<uuid>-c<n>.<codec>.parquet`) is kept as its UUID's
// 16 bytes between an interned prefix and suffix (a table has few distinct ones); other
// paths go to one shared buffer. Partition values are interned; deletion-vector
// descriptors are kept apart (rare on removes). An entry reads back as the RemoveFile it
// was added from, field for field, except `stats`, which is not kept (checkpoints write
// remove rows without stats, and nothing else reads them), so checkpoints written from a
// TombstoneList are the ones written from the RemoveFiles.
//
// Ownership: owns its data; move-only (interned values are referenced by index).
// Thread safety: const methods may be called concurrently; mutation is single-threaded.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/table/actions.h"

namespace spate::table {

class TombstoneList {
 public:
  TombstoneList() = default;
  TombstoneList(TombstoneList&&) = default;
  TombstoneList& operator=(TombstoneList&&) = default;
  TombstoneList(const TombstoneList&) = delete;
  TombstoneList& operator=(const TombstoneList&) = delete;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void Reserve(size_t entries);
  /// Appends `r` (without its stats).
  void Add(const RemoveFile& r);
  /// Appends entry `i` of `other`.
  void AddFrom(const TombstoneList& other, size_t i);

  /// Entry `i` as the RemoveFile it was added from (stats unset).
  RemoveFile Get(size_t i) const;
  /// Entry `i`'s path (rebuilt from its UUID form when it has one).
  std::string path(size_t i) const;
  std::optional<int64_t> deletion_timestamp(size_t i) const {
    const Entry& e = entries_[i];
    return e.flags & kHasTimestamp ? std::optional<int64_t>(e.deletion_timestamp)
                                   : std::nullopt;
  }
  bool has_deletion_vector(size_t i) const { return entries_[i].dv != kNone; }
  /// RemoveFile::Key() of entry `i` (the path alone unless it has a deletion vector).
  std::string Key(size_t i) const;
  /// The order of a snapshot's tombstones: by path, then by Key.
  static bool Less(const TombstoneList& a, size_t i, const TombstoneList& b, size_t j);

  /// Bytes this list holds (entries, path buffer, interned values; capacities).
  size_t MemoryBytes() const;

  /// Iteration yields each entry as a RemoveFile (by value: `for (const auto& r :
  /// list)`).
  // The standard container's name, which range-for and generic code expect.
  // NOLINTNEXTLINE(readability-identifier-naming)
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = RemoveFile;
    using difference_type = std::ptrdiff_t;
    using reference = RemoveFile;
    using pointer = void;
    const_iterator(const TombstoneList* list, size_t i) : list_(list), i_(i) {}
    RemoveFile operator*() const { return list_->Get(i_); }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const TombstoneList* list_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, entries_.size()}; }

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  enum Flags : uint8_t {
    kHasTimestamp = 1,
    kDataChange = 2,
    kHasExtended = 4,
    kExtended = 8,
    kHasSize = 16,
  };
  struct Entry {
    int64_t deletion_timestamp = 0;
    int64_t size = 0;
    // kUuidPath: the UUID's bytes, and prefix_/suffix_ indexes in `a`/`b`. Else
    // `offset` and `length` of the path in paths_.
    union {
      uint8_t uuid[16];
      struct {
        uint64_t offset;
        uint64_t length;
      } raw;
    } path{};
    uint32_t a = 0, b = 0;
    uint32_t partition = kNone;  // index into partitions_; kNone: no partitionValues
    uint32_t dv = kNone;         // index into dvs_
    uint8_t flags = 0;
  };
  static constexpr uint8_t kUuidPath = 32;
  uint32_t Intern(const PartitionValues& pv);
  static uint32_t InternText(std::string_view text, std::vector<std::string>* texts,
                             std::map<std::string, uint32_t, std::less<>>* index);
  void SetPath(Entry* e, std::string_view path);

  std::vector<Entry> entries_;
  std::string paths_;
  std::vector<std::string> affixes_;  // interned prefixes and suffixes of UUID paths
  std::map<std::string, uint32_t, std::less<>> affix_index_;
  std::vector<PartitionValues> partitions_;
  std::map<PartitionValues, uint32_t> partition_index_;
  std::vector<DeletionVectorDescriptor> dvs_;
};

}  // namespace spate::table
