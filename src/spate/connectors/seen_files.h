// Copyright spate authors.
#pragma once

// SeenFiles: the file source's seen-files map (Spark's SeenFilesMap: every file the
// source took, with its modification time, until a purge forgets those older than the
// newest seen minus maxFileAge) held compactly. A stream of one small file per trigger
// keeps a week of files in it (hundreds of thousands); as an
// unordered_map<std::string, int64_t> plus a timestamp queue of the same strings each
// file cost two heap strings and a node (~300 bytes in many small blocks, allocated
// among the batch's garbage). Here a key is split at its last '/': the directory is
// interned (a source reads few), the name goes to one string buffer, and an entry is a
// fixed record in one vector, indexed by an open-addressing table of entry numbers and
// ordered for the purge by a heap of (time, entry): five contiguous buffers whatever the
// number of files (mapped apart from the malloc heap once large), ~80 bytes a file for
// Spark's data file names.
//
// Ownership: owns its data; movable.
// Thread safety: none (the source's thread only).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spate/base/mapped_allocator.h"

namespace spate::connectors {

class SeenFiles {
 public:
  /// Records `key` as seen at `ts` (a file seen again takes the later call's time).
  void Add(std::string_view key, int64_t ts);
  bool Contains(std::string_view key) const { return Find(key) != kNone; }
  /// The time `key` was last seen at, or nullopt.
  std::optional<int64_t> Get(std::string_view key) const;
  /// Forgets every entry seen at a time before `threshold`: O(entries purged).
  void PurgeOlderThan(int64_t threshold);
  size_t size() const { return live_; }
  /// Bytes held (capacities of every buffer and the interned directories).
  size_t MemoryBytes() const;

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  static constexpr uint32_t kEmptySlot = 0, kDeletedSlot = 0xffffffffu;
  struct Entry {
    int64_t ts = 0;
    uint64_t name_offset = 0;  // in names_
    uint32_t name_length = 0;
    uint32_t dir = 0;  // index in dirs_; kNone: a free entry
    uint32_t hash = 0;
  };
  static uint32_t Hash(uint32_t dir, std::string_view name);
  static std::pair<std::string_view, std::string_view> Split(std::string_view key);
  std::string_view Name(const Entry& e) const {
    return std::string_view(names_).substr(e.name_offset, e.name_length);
  }
  uint32_t Find(std::string_view key) const;  // entry index or kNone
  void Insert(uint32_t entry);                // into slots_ (no duplicate check)
  void Erase(uint32_t entry);
  void Rehash(size_t capacity);
  void CompactNames();

  // Buffers of their own (MappedAllocator): neither among the batches' garbage nor, when
  // they grow, moving glibc's mmap threshold.
  template <typename T>
  using Vector = std::vector<T, MappedAllocator<T>>;
  Vector<Entry> entries_;
  Vector<uint32_t> free_;   // entries to reuse
  Vector<uint32_t> slots_;  // entry + 1, kEmptySlot or kDeletedSlot
  size_t live_ = 0, deleted_slots_ = 0;
  std::basic_string<char, std::char_traits<char>, MappedAllocator<char>> names_;
  size_t dead_name_bytes_ = 0;
  struct DirHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::vector<std::string> dirs_;
  std::unordered_map<std::string, uint32_t, DirHash, std::equal_to<>> dir_index_;
  Vector<std::pair<int64_t, uint32_t>> by_ts_;  // min-heap of (ts, entry) per Add
};

}  // namespace spate::connectors
