// Copyright spate authors.
#include "spate/table/tombstone_list.h"

namespace spate::table {

void TombstoneList::Reserve(size_t entries, size_t path_bytes) {
  entries_.reserve(entries);
  paths_.reserve(path_bytes);
}

uint32_t TombstoneList::Intern(const PartitionValues& pv) {
  auto [it, added] = partition_index_.emplace(pv, static_cast<uint32_t>(partitions_.size()));
  if (added) partitions_.push_back(pv);
  return it->second;
}

void TombstoneList::Add(const RemoveFile& r) {
  Entry e;
  e.path_offset = paths_.size();
  e.path_length = static_cast<uint32_t>(r.path.size());
  paths_ += r.path;
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
  e.path_offset = paths_.size();
  paths_ += other.path(i);
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
  r.path = std::string(path(i));
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
  std::string k(path(i));
  if (e.dv != kNone) k += "\n" + dvs_[e.dv].UniqueId();
  return k;
}

bool TombstoneList::Less(const TombstoneList& a, size_t i, const TombstoneList& b, size_t j) {
  const std::string_view pa = a.path(i), pb = b.path(j);
  if (pa != pb) return pa < pb;
  if (!a.has_deletion_vector(i) && !b.has_deletion_vector(j)) return false;
  return a.Key(i) < b.Key(j);
}

size_t TombstoneList::MemoryBytes() const {
  size_t bytes = entries_.capacity() * sizeof(Entry) + paths_.capacity() +
                 partitions_.capacity() * sizeof(PartitionValues) +
                 dvs_.capacity() * sizeof(DeletionVectorDescriptor);
  // Interned values: each held twice (the vector and the index), a map node per value.
  for (const auto& pv : partitions_) {
    size_t one = pv.capacity() * sizeof(pv[0]);
    for (const auto& [k, v] : pv) one += k.capacity() + (v ? v->capacity() : 0);
    bytes += 2 * one + sizeof(PartitionValues) + 4 * sizeof(void*) + sizeof(uint32_t);
  }
  for (const auto& dv : dvs_) bytes += dv.storage_type.capacity() + dv.path_or_inline_dv.capacity();
  return bytes;
}

}  // namespace spate::table
