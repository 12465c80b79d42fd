// Copyright spate authors.
#include "spate/state/compact_map.h"

#include <cstring>

#include "spate/columnar/row_encoding.h"
#include "spate/state/bytes.h"

namespace spate::state {

namespace {
constexpr size_t kMaxChunk = size_t{1} << 20;
}  // namespace

CompactMap::CompactMap() { slots_.assign(16, 0); }

size_t CompactMap::EntrySize(Entry e) {
  Entry start = e;
  uint64_t k = ReadTrustedVarint(e) >> 1;
  uint64_t v = ReadTrustedVarint(e);
  return static_cast<size_t>(e - start) + k + v;
}

int64_t CompactMap::Find(std::string_view key, uint64_t hash) const {
  uint64_t tag = Tag(hash);
  last_.valid = true;
  last_.hash = hash;
  for (size_t i = Home(hash);; i = Next(i)) {
    uint64_t s = slots_[i];
    if (s == 0) {
      last_.slot = -1;
      last_.key.assign(key.data(), key.size());
      return -1;
    }
    if ((s >> 48) == tag && KeyOf(EntryOf(s)) == key) {
      last_.slot = static_cast<int64_t>(i);
      return last_.slot;
    }
  }
}

int64_t CompactMap::FindAgain(std::string_view key, uint64_t* hash) const {
  if (last_.valid) {
    if (last_.slot >= 0 ? KeyOf(EntryOf(slots_[static_cast<size_t>(last_.slot)])) == key
                        : last_.key == key) {
      *hash = last_.hash;
      return last_.slot;
    }
  }
  *hash = HashBytes(key);
  return Find(key, *hash);
}

CompactMap::Entry CompactMap::Find(std::string_view key) const {
  int64_t i = Find(key, HashBytes(key));
  return i < 0 ? nullptr : EntryOf(slots_[i]);
}

void CompactMap::Prefetch(std::string_view key, bool near) const {
  Prefetch(key, HashBytes(key), near);
}

void CompactMap::Prefetch(std::string_view /*key*/, uint64_t hash, bool near) const {
  const uint64_t* slot = &slots_[Home(hash)];
  if (!near) {
    __builtin_prefetch(slot);
    return;
  }
  if (const uint64_t s = *slot; s != 0 && (s >> 48) == Tag(hash))
    __builtin_prefetch(EntryOf(s));
}

std::optional<std::string_view> CompactMap::Get(std::string_view key) const {
  return Get(key, HashBytes(key));
}

std::optional<std::string_view> CompactMap::Get(std::string_view key,
                                                uint64_t hash) const {
  int64_t i = Find(key, hash);
  if (i < 0) return std::nullopt;
  return ValueOf(EntryOf(slots_[i]));
}

CompactMap::Entry CompactMap::Append(std::string_view key, std::string_view value) {
  size_t size = VarintLength(key.size() << 1) + VarintLength(value.size()) + key.size() +
                value.size();
  if (size > cur_left_) {
    size_t chunk = std::max(next_chunk_, size);
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(chunk));
    cur_ = chunks_.back().get();
    cur_left_ = chunk;
    arena_bytes_ += static_cast<int64_t>(chunk);
    next_chunk_ = std::min(next_chunk_ * 2, kMaxChunk);
  }
  char* p = cur_;
  char buf[20];
  int n = 0;
  // The first varint holds the dead bit (clear: a new entry is its key's current one).
  for (uint64_t v :
       {static_cast<uint64_t>(key.size()) << 1, static_cast<uint64_t>(value.size())}) {
    while (v >= 0x80) {
      buf[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
  }
  std::memcpy(p, buf, n);
  if (!key.empty()) std::memcpy(p + n, key.data(), key.size());
  if (!value.empty()) std::memcpy(p + n + key.size(), value.data(), value.size());
  cur_ += size;
  cur_left_ -= size;
  live_bytes_ += static_cast<int64_t>(size);
  return p;
}

void CompactMap::InsertNew(uint64_t slot_value, uint64_t hash) {
  last_.valid = false;
  size_t i = Home(hash);
  while (slots_[i] != 0) i = Next(i);
  slots_[i] = slot_value;
}

void CompactMap::Grow() {
  last_.valid = false;
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(old.size() + old.size() / 2, 0);
  for (uint64_t s : old) {
    if (s != 0) InsertNew(s, HashBytes(KeyOf(EntryOf(s))));
  }
}

void CompactMap::EraseSlot(size_t i) {
  // Backward-shift deletion: move later members of the probe run into the hole.
  last_.valid = false;
  size_t hole = i;
  for (size_t j = Next(i); slots_[j] != 0; j = Next(j)) {
    size_t home = Home(HashBytes(KeyOf(EntryOf(slots_[j]))));
    // j may move to the hole when its home is not in (hole, j] cyclically.
    bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = 0;
  --count_;
}

void CompactMap::OverwriteValue(Entry entry, std::string_view value) {
  if (value.empty()) return;  // data() may be null
  std::memcpy(const_cast<char*>(ValueOf(entry).data()), value.data(), value.size());
}

CompactMap::Entry CompactMap::Put(std::string_view key, std::string_view value,
                                  Entry* new_entry, std::string* saved_old) {
  uint64_t hash = 0;
  int64_t i = FindAgain(key, &hash);
  if (i >= 0 && saved_old) {
    Entry cur = EntryOf(slots_[i]);
    std::string_view old_value = ValueOf(cur);
    if (old_value.size() == value.size()) {
      saved_old->append(old_value);
      OverwriteValue(cur, value);
      if (new_entry) *new_entry = cur;
      return cur;
    }
  }
  Entry e = Append(key, value);
  if (new_entry) *new_entry = e;
  if (i >= 0) {
    Entry old = EntryOf(slots_[i]);
    SetDead(old, true);
    slots_[i] = MakeSlot(e, hash);
    size_t old_size = EntrySize(old);
    live_bytes_ -= static_cast<int64_t>(old_size);
    dead_bytes_ += static_cast<int64_t>(old_size);
    return old;
  }
  if (static_cast<size_t>(count_ + 1) * 5 > slots_.size() * 4) Grow();
  InsertNew(MakeSlot(e, hash), hash);
  ++count_;
  return nullptr;
}

CompactMap::Entry CompactMap::Remove(std::string_view key) {
  uint64_t hash = 0;
  int64_t i = FindAgain(key, &hash);
  if (i < 0) return nullptr;
  Entry old = EntryOf(slots_[i]);
  SetDead(old, true);
  size_t old_size = EntrySize(old);
  live_bytes_ -= static_cast<int64_t>(old_size);
  dead_bytes_ += static_cast<int64_t>(old_size);
  EraseSlot(static_cast<size_t>(i));
  return old;
}

void CompactMap::Restore(std::string_view key, Entry entry) {
  if (entry == nullptr) {
    Remove(key);
    return;
  }
  std::string_view k = KeyOf(entry);
  uint64_t hash = 0;
  int64_t i = FindAgain(k, &hash);
  auto size = static_cast<int64_t>(EntrySize(entry));
  live_bytes_ += size;
  dead_bytes_ -= size;
  SetDead(entry, false);
  if (i >= 0) {
    Entry cur = EntryOf(slots_[i]);
    SetDead(cur, true);
    live_bytes_ -= static_cast<int64_t>(EntrySize(cur));
    dead_bytes_ += static_cast<int64_t>(EntrySize(cur));
    slots_[i] = MakeSlot(entry, hash);
    return;
  }
  if (static_cast<size_t>(count_ + 1) * 5 > slots_.size() * 4) Grow();
  InsertNew(MakeSlot(entry, hash), hash);
  ++count_;
}

void CompactMap::RewriteEach(
    const std::function<Rewrite(std::string_view, std::string_view, std::string*)>& fn,
    const std::function<void(Entry now, Entry old)>& changed) {
  last_.valid = false;
  const size_t n = slots_.size();
  // Start after an empty slot (the table is at most 80% full), so that no probe run
  // wraps around the start of the pass.
  size_t start = 0;
  while (slots_[start] != 0) ++start;
  std::string replacement;
  std::vector<uint64_t> kept;  // the slots of the current run that stay
  constexpr size_t kAhead = 8;
  size_t i = Next(start);
  for (size_t visited = 0; visited < n;) {
    if (slots_[i] == 0) {
      i = Next(i);
      ++visited;
      continue;
    }
    const size_t run = i;
    size_t run_length = 0;
    bool removed = false;
    kept.clear();
    for (; slots_[i] != 0; i = Next(i), ++visited, ++run_length) {
      const size_t a = i + kAhead < n ? i + kAhead : i + kAhead - n;
      if (const uint64_t ahead = slots_[a]; ahead != 0)
        __builtin_prefetch(EntryOf(ahead));
      uint64_t& s = slots_[i];
      const Entry e = EntryOf(s);
      const std::string_view key = KeyOf(e);
      const Rewrite what = fn(key, ValueOf(e), &replacement);
      if (what == Rewrite::kKeep) {
        kept.push_back(s);
        continue;
      }
      const auto old_size = static_cast<int64_t>(EntrySize(e));
      live_bytes_ -= old_size;
      dead_bytes_ += old_size;
      SetDead(e, true);
      if (what == Rewrite::kReplace) {
        const Entry now = Append(key, replacement);
        s = (s & ~kPtrMask) | reinterpret_cast<uint64_t>(now);
        kept.push_back(s);
        changed(now, e);
      } else {
        removed = true;
        --count_;
        changed(e, e);
      }
    }
    if (!removed) continue;
    // Every member's home lies in the run, so the members that stay fit back into it.
    for (size_t j = run, left = run_length; left > 0; j = Next(j), --left) slots_[j] = 0;
    for (const uint64_t s : kept) InsertNew(s, HashBytes(KeyOf(EntryOf(s))));
  }
}

void CompactMap::Compact() {
  last_.valid = false;
  auto live = static_cast<size_t>(live_bytes_);
  std::vector<std::unique_ptr<char[]>> old_chunks;
  old_chunks.swap(chunks_);
  cur_ = nullptr;
  cur_left_ = 0;
  arena_bytes_ = 0;
  live_bytes_ = 0;
  dead_bytes_ = 0;
  // One chunk for everything live (plus the usual growth afterwards).
  next_chunk_ = std::max<size_t>(4096, live);
  // Entries sit in the old chunks in another order than their slots: fetch a few ahead.
  constexpr size_t kAhead = 8;
  const size_t n = slots_.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n && slots_[i + kAhead] != 0)
      __builtin_prefetch(EntryOf(slots_[i + kAhead]));
    uint64_t& s = slots_[i];
    if (s == 0) continue;
    Entry e = EntryOf(s);
    Entry moved = Append(KeyOf(e), ValueOf(e));
    s = (s & ~kPtrMask) | reinterpret_cast<uint64_t>(moved);
  }
}

void CompactMap::Clear() {
  last_.valid = false;
  slots_.assign(16, 0);
  slots_.shrink_to_fit();
  count_ = 0;
  chunks_.clear();
  cur_ = nullptr;
  cur_left_ = 0;
  next_chunk_ = 4096;
  arena_bytes_ = 0;
  live_bytes_ = 0;
  dead_bytes_ = 0;
}

}  // namespace spate::state
