// Copyright spate authors.
#include "spate/connectors/seen_files.h"

#include <algorithm>
#include <functional>

namespace spate::connectors {

uint32_t SeenFiles::Hash(uint32_t dir, std::string_view name) {
  const uint64_t h = std::hash<std::string_view>{}(name) ^
                     (static_cast<uint64_t>(dir) * 0x9E3779B97F4A7C15ull);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

std::pair<std::string_view, std::string_view> SeenFiles::Split(std::string_view key) {
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return {key.substr(0, 0), key};
  return {key.substr(0, slash + 1), key.substr(slash + 1)};
}

uint32_t SeenFiles::Find(std::string_view key) const {
  if (slots_.empty()) return kNone;
  const auto [dir_text, name] = Split(key);
  auto d = dir_index_.find(dir_text);
  if (d == dir_index_.end()) return kNone;
  const uint32_t dir = d->second;
  const uint32_t h = Hash(dir, name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t s = slots_[i];
    if (s == kEmptySlot) return kNone;
    if (s == kDeletedSlot) continue;
    const Entry& e = entries_[s - 1];
    if (e.hash == h && e.dir == dir && Name(e) == name) return s - 1;
  }
}

std::optional<int64_t> SeenFiles::Get(std::string_view key) const {
  const uint32_t i = Find(key);
  if (i == kNone) return std::nullopt;
  return entries_[i].ts;
}

void SeenFiles::Insert(uint32_t entry) {
  const size_t mask = slots_.size() - 1;
  for (size_t i = entries_[entry].hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == kEmptySlot || slots_[i] == kDeletedSlot) {
      if (slots_[i] == kDeletedSlot) --deleted_slots_;
      slots_[i] = entry + 1;
      return;
    }
  }
}

void SeenFiles::Rehash(size_t capacity) {
  slots_.assign(capacity, kEmptySlot);
  deleted_slots_ = 0;
  for (uint32_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].dir != kNone) Insert(i);
}

void SeenFiles::Add(std::string_view key, int64_t ts) {
  if (const uint32_t i = Find(key); i != kNone) {
    entries_[i].ts = ts;
  } else {
    const auto [dir_text, name] = Split(key);
    auto d = dir_index_.find(dir_text);
    if (d == dir_index_.end()) {
      dirs_.emplace_back(dir_text);
      d = dir_index_.emplace(dirs_.back(), static_cast<uint32_t>(dirs_.size() - 1)).first;
    }
    uint32_t entry;
    if (!free_.empty()) {
      entry = free_.back();
      free_.pop_back();
    } else {
      entry = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back();
    }
    Entry& e = entries_[entry];
    e.ts = ts;
    e.name_offset = names_.size();
    e.name_length = static_cast<uint32_t>(name.size());
    e.dir = d->second;
    e.hash = Hash(e.dir, name);
    names_.append(name);
    ++live_;
    // At most 3/4 of the slots used (live or deleted); at most 1/2 live after a rehash.
    if ((live_ + deleted_slots_) * 4 > slots_.size() * 3) {
      size_t capacity = 16;
      while (capacity < live_ * 2) capacity *= 2;
      Rehash(capacity);  // inserts the new entry too
    } else {
      Insert(entry);
    }
    ts = e.ts;
    by_ts_.emplace_back(ts, entry);
    std::push_heap(by_ts_.begin(), by_ts_.end(), std::greater<>());
    return;
  }
  by_ts_.emplace_back(ts, Find(key));
  std::push_heap(by_ts_.begin(), by_ts_.end(), std::greater<>());
}

void SeenFiles::Erase(uint32_t entry) {
  Entry& e = entries_[entry];
  const size_t mask = slots_.size() - 1;
  for (size_t i = e.hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == entry + 1) {
      slots_[i] = kDeletedSlot;
      ++deleted_slots_;
      break;
    }
  }
  dead_name_bytes_ += e.name_length;
  e.dir = kNone;
  free_.push_back(entry);
  --live_;
}

void SeenFiles::PurgeOlderThan(int64_t threshold) {
  bool erased = false;
  while (!by_ts_.empty() && by_ts_.front().first < threshold) {
    const uint32_t entry = by_ts_.front().second;
    std::pop_heap(by_ts_.begin(), by_ts_.end(), std::greater<>());
    by_ts_.pop_back();
    // An entry seen again later (or reused by another file) may be newer: it has a heap
    // item of its own.
    if (entries_[entry].dir != kNone && entries_[entry].ts < threshold) {
      Erase(entry);
      erased = true;
    }
  }
  if (!erased) return;
  if (live_ == 0) {
    // Everything forgotten: release the buffers.
    *this = SeenFiles();
    return;
  }
  if (dead_name_bytes_ > names_.size() / 2) CompactNames();
  if (live_ * 8 < slots_.size() && slots_.size() > 64) {
    size_t capacity = 16;
    while (capacity < live_ * 2) capacity *= 2;
    Rehash(capacity);
  }
}

void SeenFiles::CompactNames() {
  decltype(names_) names;
  names.reserve(names_.size() - dead_name_bytes_);
  for (Entry& e : entries_) {
    if (e.dir == kNone) continue;
    const uint64_t offset = names.size();
    names.append(Name(e));
    e.name_offset = offset;
  }
  names_ = std::move(names);
  dead_name_bytes_ = 0;
}

size_t SeenFiles::MemoryBytes() const {
  size_t bytes = entries_.capacity() * sizeof(Entry) +
                 free_.capacity() * sizeof(uint32_t) +
                 slots_.capacity() * sizeof(uint32_t) + names_.capacity() +
                 by_ts_.capacity() * sizeof(by_ts_[0]);
  bytes += dirs_.capacity() * sizeof(std::string);
  for (const auto& d : dirs_) bytes += d.capacity();
  return bytes;
}

}  // namespace spate::connectors
