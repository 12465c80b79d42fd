// Copyright spate authors.
#include "spate/table/tombstone_list.h"

namespace spate::table {

void TombstoneList::Reserve(size_t entries) { entries_.reserve(entries); }

uint32_t TombstoneList::Intern(const PartitionValues& pv) {
  auto [it, added] =
      partition_index_.emplace(pv, static_cast<uint32_t>(partitions_.size()));
  if (added) partitions_.push_back(pv);
  return it->second;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The position of the last canonical lowercase UUID (8-4-4-4-12 hex digits) in `path`,
// or npos.
size_t FindUuid(std::string_view path) {
  constexpr size_t kLen = 36;
  if (path.size() < kLen) return std::string_view::npos;
  for (size_t start = path.size() - kLen + 1; start-- > 0;) {
    bool ok = true;
    for (size_t k = 0; k < kLen && ok; ++k) {
      const char c = path[start + k];
      ok = k == 8 || k == 13 || k == 18 || k == 23 ? c == '-' : HexValue(c) >= 0;
    }
    if (ok) return start;
  }
  return std::string_view::npos;
}

}  // namespace

uint32_t TombstoneList::InternText(std::string_view text, std::vector<std::string>* texts,
                                   std::map<std::string, uint32_t, std::less<>>* index) {
  if (auto it = index->find(text); it != index->end()) return it->second;
  const auto id = static_cast<uint32_t>(texts->size());
  texts->emplace_back(text);
  index->emplace(std::string(text), id);
  return id;
}

void TombstoneList::SetPath(Entry* e, std::string_view path) {
  const size_t at = FindUuid(path);
  if (at != std::string_view::npos) {
    e->flags |= kUuidPath;
    for (size_t k = 0, byte = 0; k < 36; ++k) {
      if (k == 8 || k == 13 || k == 18 || k == 23) continue;
      const int v = HexValue(path[at + k]);
      if (byte % 2 == 0)
        e->path.uuid[byte / 2] = static_cast<uint8_t>(v << 4);
      else
        e->path.uuid[byte / 2] |= static_cast<uint8_t>(v);
      ++byte;
    }
    e->a = InternText(path.substr(0, at), &affixes_, &affix_index_);
    e->b = InternText(path.substr(at + 36), &affixes_, &affix_index_);
    return;
  }
  e->path.raw.offset = paths_.size();
  e->path.raw.length = path.size();
  paths_ += path;
}

std::string TombstoneList::path(size_t i) const {
  const Entry& e = entries_[i];
  if (!(e.flags & kUuidPath)) return paths_.substr(e.path.raw.offset, e.path.raw.length);
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string& prefix = affixes_[e.a];
  const std::string& suffix = affixes_[e.b];
  std::string out;
  out.reserve(prefix.size() + 36 + suffix.size());
  out += prefix;
  for (size_t byte = 0; byte < 16; ++byte) {
    if (byte == 4 || byte == 6 || byte == 8 || byte == 10) out += '-';
    out += kHex[e.path.uuid[byte] >> 4];
    out += kHex[e.path.uuid[byte] & 15];
  }
  out += suffix;
  return out;
}

void TombstoneList::Add(const RemoveFile& r) {
  Entry e;
  SetPath(&e, r.path);
  if (r.deletion_timestamp) {
    e.flags |= kHasTimestamp;
    e.deletion_timestamp = *r.deletion_timestamp;
  }
  if (r.data_change) e.flags |= kDataChange;
  if (r.extended_file_metadata) {
    e.flags |= kHasExtended;
    if (*r.extended_file_metadata) e.flags |= kExtended;
  }
  if (r.size) {
    e.flags |= kHasSize;
    e.size = *r.size;
  }
  if (r.partition_values) e.partition = Intern(*r.partition_values);
  if (r.deletion_vector) {
    e.dv = static_cast<uint32_t>(dvs_.size());
    dvs_.push_back(*r.deletion_vector);
  }
  entries_.push_back(e);
}

void TombstoneList::AddFrom(const TombstoneList& other, size_t i) {
  Entry e = other.entries_[i];
  if (e.flags & kUuidPath) {
    e.a = InternText(other.affixes_[e.a], &affixes_, &affix_index_);
    e.b = InternText(other.affixes_[e.b], &affixes_, &affix_index_);
  } else {
    e.path.raw.offset = paths_.size();
    paths_.append(other.paths_, other.entries_[i].path.raw.offset, e.path.raw.length);
  }
  if (e.partition != kNone) e.partition = Intern(other.partitions_[e.partition]);
  if (e.dv != kNone) {
    dvs_.push_back(other.dvs_[e.dv]);
    e.dv = static_cast<uint32_t>(dvs_.size() - 1);
  }
  entries_.push_back(e);
}

RemoveFile TombstoneList::Get(size_t i) const {
  const Entry& e = entries_[i];
  RemoveFile r;
  r.path = path(i);
  if (e.flags & kHasTimestamp) r.deletion_timestamp = e.deletion_timestamp;
  r.data_change = (e.flags & kDataChange) != 0;
  if (e.flags & kHasExtended) r.extended_file_metadata = (e.flags & kExtended) != 0;
  if (e.flags & kHasSize) r.size = e.size;
  if (e.partition != kNone) r.partition_values = partitions_[e.partition];
  if (e.dv != kNone) r.deletion_vector = dvs_[e.dv];
  return r;
}

std::string TombstoneList::Key(size_t i) const {
  const Entry& e = entries_[i];
  std::string k = path(i);
  if (e.dv != kNone) k += "\n" + dvs_[e.dv].UniqueId();
  return k;
}

bool TombstoneList::Less(const TombstoneList& a, size_t i, const TombstoneList& b,
                         size_t j) {
  const std::string pa = a.path(i), pb = b.path(j);
  if (pa != pb) return pa < pb;
  if (!a.has_deletion_vector(i) && !b.has_deletion_vector(j)) return false;
  return a.Key(i) < b.Key(j);
}

size_t TombstoneList::MemoryBytes() const {
  size_t bytes = entries_.capacity() * sizeof(Entry) + paths_.capacity() +
                 affixes_.capacity() * sizeof(std::string) +
                 partitions_.capacity() * sizeof(PartitionValues) +
                 dvs_.capacity() * sizeof(DeletionVectorDescriptor);
  // Interned values: each held twice (the vector and the index), a map node per value.
  for (const auto& pv : partitions_) {
    size_t one = pv.capacity() * sizeof(pv[0]);
    for (const auto& [k, v] : pv) one += k.capacity() + (v ? v->capacity() : 0);
    bytes += 2 * one + sizeof(PartitionValues) + 4 * sizeof(void*) + sizeof(uint32_t);
  }
  for (const auto& t : affixes_)  // held twice too (the vector and the index)
    bytes +=
        2 * t.capacity() + sizeof(std::string) + 4 * sizeof(void*) + sizeof(uint32_t);
  for (const auto& dv : dvs_)
    bytes += dv.storage_type.capacity() + dv.path_or_inline_dv.capacity();
  return bytes;
}

}  // namespace spate::table
