// Copyright spate authors.
#pragma once

// CompactMap: the in-memory key-value map of the memory state store provider, built for
// few bytes per key (the target is <= 1.5x the raw key + value bytes).
//
// Entries ("varint (key length << 1 | dead), varint value length, key, value") are
// appended to arena chunks; an open-addressing table (linear probing, backward-shift
// deletion, any size: a hash maps to a slot by multiply-shift, so the table grows by 1.5x
// and stays 53-80% full at most 80%) holds one 8-byte slot per entry: the entry's address
// in the low 48 bits and 16 bits of its hash above. A Put or Remove never moves an entry,
// it only makes the old one dead; Compact() copies the live entries into fresh chunks
// when the dead bytes grow. So views returned by Get stay valid until the next Compact or
// Clear, and an undo log can point at old entries; an entry's dead bit tells whether it
// is still its key's current one (IsLive), so a log of changes needs no lookup to find
// the final ones. The last lookup is remembered: a Put or Remove of the key just looked
// up (Get, Find) does not probe again.
//
// Ownership: owns its chunks. Thread safety: none (one thread at a time). Failure:
// allocation failure throws std::bad_alloc like the standard containers.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spate::state {

class CompactMap {
 public:
  /// An entry's address (stable until Compact/Clear).
  using Entry = const char*;

  CompactMap();
  CompactMap(const CompactMap&) = delete;
  CompactMap& operator=(const CompactMap&) = delete;

  int64_t size() const { return count_; }
  std::optional<std::string_view> Get(std::string_view key) const;
  /// Get(key) for `hash` == HashBytes(key) (no hashing of its own).
  std::optional<std::string_view> Get(std::string_view key, uint64_t hash) const;
  /// The entry holding key, or nullptr.
  Entry Find(std::string_view key) const;
  /// Starts fetching what a lookup of key reads: its home slot (`near` false) or the
  /// entry that slot points at when its hash bits match (`near` true; the slot should be
  /// cached by then).
  void Prefetch(std::string_view key, bool near) const;
  /// Prefetch(key, near) for `hash` == HashBytes(key).
  void Prefetch(std::string_view key, uint64_t hash, bool near) const;
  /// Sets key to value; returns the replaced entry (nullptr when the key was new).
  /// *new_entry gets the entry now holding the key. With `saved_old`, a value of the same
  /// length as the current one is overwritten in place: the old value is appended to
  /// *saved_old and the entry itself is returned (== *new_entry).
  Entry Put(std::string_view key, std::string_view value, Entry* new_entry = nullptr,
            std::string* saved_old = nullptr);
  /// Overwrites the value of `entry` with `value` of the same length (undoes an in-place
  /// Put).
  static void OverwriteValue(Entry entry, std::string_view value);
  /// Removes key; returns the removed entry or nullptr.
  Entry Remove(std::string_view key);
  /// Whether `entry` is its key's current entry: false once a Put replaced it or a Remove
  /// removed it (until a Restore brings it back). Reads only the entry.
  static bool IsLive(Entry e) { return (static_cast<uint8_t>(*e) & 1) == 0; }
  /// Makes `entry` (an entry of this map for its key) the current one again, or removes
  /// the key when `entry` is nullptr and `key` is given: undoes a Put or Remove.
  void Restore(std::string_view key, Entry entry);

  /// What RewriteEach's function decides for an entry.
  enum class Rewrite { kKeep, kRemove, kReplace };
  /// Calls fn(key, value, &replacement) for every entry, in slot order: kRemove removes
  /// the key, kReplace gives it *replacement (in a new entry), kKeep leaves it; each
  /// change is reported as changed(now, old): the key's new entry and the replaced one,
  /// or the removed entry twice. One pass over the table: a probe run that lost entries
  /// is re-packed from the entries just read, and no key is looked up. `fn` must not use
  /// the map.
  void RewriteEach(
      const std::function<Rewrite(std::string_view, std::string_view, std::string*)>& fn,
      const std::function<void(Entry now, Entry old)>& changed);

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    // Entries sit in the arena in another order than their slots: fetch a few ahead.
    constexpr size_t kAhead = 8;
    const size_t n = slots_.size();
    for (size_t i = 0; i < n; ++i) {
      if (i + kAhead < n && slots_[i + kAhead] != 0)
        __builtin_prefetch(EntryOf(slots_[i + kAhead]));
      if (const uint64_t s = slots_[i]; s != 0) {
        Entry e = EntryOf(s);
        fn(KeyOf(e), ValueOf(e));
      }
    }
  }

  static std::string_view KeyOf(Entry e) {
    const uint64_t k = ReadTrustedVarint(e) >> 1;
    ReadTrustedVarint(e);
    return {e, static_cast<size_t>(k)};
  }
  static std::string_view ValueOf(Entry e) {
    const uint64_t k = ReadTrustedVarint(e) >> 1;
    const uint64_t v = ReadTrustedVarint(e);
    return {e + k, static_cast<size_t>(v)};
  }

  /// Bytes held: arena chunks and the slot table.
  int64_t memory_bytes() const {
    return arena_bytes_ + static_cast<int64_t>(slots_.capacity() * sizeof(uint64_t));
  }
  /// Bytes of live entries (key + value + length prefixes).
  int64_t live_bytes() const { return live_bytes_; }
  int64_t dead_bytes() const { return dead_bytes_; }
  /// Copies the live entries into new chunks (invalidates every Entry and view).
  void Compact();
  /// Compacts when dead bytes exceed an eighth of the arena; true if it did.
  bool MaybeCompact() {
    if (dead_bytes_ <= 4096 || dead_bytes_ * 8 <= live_bytes_ + dead_bytes_) return false;
    Compact();
    return true;
  }
  void Clear();

 private:
  static constexpr uint64_t kPtrMask = (uint64_t{1} << 48) - 1;
  static Entry EntryOf(uint64_t slot) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): slots pack an address with hash bits
    return reinterpret_cast<Entry>(slot & kPtrMask);
  }
  /// Decodes a varint written by the map itself (trusted memory), advancing p.
  static uint64_t ReadTrustedVarint(const char*& p) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<uint8_t>(*p++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }
  // The slot index comes from the hash's high bits, the tag from its low ones.
  static uint64_t Tag(uint64_t hash) { return hash & 0xffff; }
  size_t Home(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * slots_.size()) >>
                               64);
  }
  size_t Next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
  static uint64_t MakeSlot(Entry e, uint64_t hash) {
    return reinterpret_cast<uint64_t>(e) | (Tag(hash) << 48);
  }
  static size_t EntrySize(Entry e);
  /// Sets the dead bit of `e` (the low bit of its first varint).
  static void SetDead(Entry e, bool dead) {
    auto* p = const_cast<char*>(e);
    *p = static_cast<char>((static_cast<uint8_t>(*p) & ~1u) | (dead ? 1u : 0u));
  }

  /// Slot index of key, or -1; `hash` is HashBytes(key). Remembers the lookup (last_).
  int64_t Find(std::string_view key, uint64_t hash) const;
  /// Find(key, HashBytes(key)), answered from the last lookup when it was of key; *hash
  /// gets the key's hash.
  int64_t FindAgain(std::string_view key, uint64_t* hash) const;
  Entry Append(std::string_view key, std::string_view value);
  void Grow();
  void EraseSlot(size_t i);
  void InsertNew(uint64_t slot_value, uint64_t hash);

  std::vector<uint64_t> slots_;
  int64_t count_ = 0;
  // The last lookup: its key's hash and slot (-1: absent; the key is then in `key`),
  // valid until the slots change.
  struct LastFind {
    bool valid = false;
    uint64_t hash = 0;
    int64_t slot = -1;
    std::string key;
  };
  mutable LastFind last_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cur_ = nullptr;
  size_t cur_left_ = 0;
  size_t next_chunk_ = 4096;
  int64_t arena_bytes_ = 0;
  int64_t live_bytes_ = 0;
  int64_t dead_bytes_ = 0;
};

}  // namespace spate::state
