// Copyright spate authors.
#include "spate/exec/group_table.h"

#include <cstring>

#include "spate/compute/kernel_columns.h"
#include "spate/exec/row_hash.h"

namespace spate::exec {

namespace {

constexpr uint64_t kInitialSlots = 256;

// Doubles an open-addressing table of `*mask` + 1 slots: each filled slot's group and key
// (an integer key, or an encoded key's hash) move to where `hash(key)` probes first.
template <typename K, typename Hash>
void GrowSlots(std::vector<uint32_t>* slot_group, std::vector<K>* slot_key,
               uint64_t* mask, Hash hash) {
  const uint64_t cap = (*mask + 1) * 2;
  const uint64_t new_mask = cap - 1;
  std::vector<uint32_t> groups(cap, 0);
  std::vector<K> keys(cap, 0);
  for (uint64_t s = 0; s <= *mask; ++s) {
    if (!(*slot_group)[s]) continue;
    uint64_t pos = hash((*slot_key)[s]) & new_mask;
    while (groups[pos]) pos = (pos + 1) & new_mask;
    groups[pos] = (*slot_group)[s];
    keys[pos] = (*slot_key)[s];
  }
  slot_group->swap(groups);
  slot_key->swap(keys);
  *mask = new_mask;
}

uint64_t HashIntKey(int64_t k) { return HashInt(static_cast<uint64_t>(k)); }
uint64_t KeyHash(uint64_t h) { return h; }

}  // namespace

GroupTable::GroupTable(std::vector<DataTypePtr> key_types)
    : key_types_(std::move(key_types)),
      integer_mode_(key_types_.size() == 1 && IsIntegerKeyType(*key_types_[0])) {
  mask_ = kInitialSlots - 1;
  slot_group_.assign(kInitialSlots, 0);
  if (integer_mode_) {
    slot_key_.assign(kInitialSlots, 0);
  } else {
    slot_hash_.assign(kInitialSlots, 0);
    for (const auto& t : key_types_) builders_.push_back(ColumnBuilder::Make(t));
  }
}

void GroupTable::FindOrInsert(const std::vector<ColumnPtr>& keys, int64_t n,
                              uint32_t* group_ids) {
  if (integer_mode_) {
    LookupInteger<true>(*keys[0], n, group_ids);
  } else {
    LookupEncoded<true>(keys, n, group_ids);
  }
}

void GroupTable::Find(const std::vector<ColumnPtr>& keys, int64_t n,
                      uint32_t* group_ids) {
  if (integer_mode_) {
    LookupInteger<false>(*keys[0], n, group_ids);
  } else {
    LookupEncoded<false>(keys, n, group_ids);
  }
}

template <bool kInsert>
void GroupTable::LookupInteger(const Column& c, int64_t n, uint32_t* group_ids) {
  if (static_cast<int64_t>(scratch_.size()) < n) scratch_.resize(static_cast<size_t>(n));
  int64_t* values = scratch_.data();
  IntegerKeys(c, values);
  const bool has_nulls = c.null_count() > 0;
  for (int64_t i = 0; i < n; ++i) {
    if (has_nulls && c.IsNull(i)) {
      if (null_group_ < 0) {
        if (!kInsert) {
          group_ids[i] = kAbsent;
          continue;
        }
        null_group_ = num_groups_++;
        group_values_.push_back(0);
      }
      group_ids[i] = static_cast<uint32_t>(null_group_);
      continue;
    }
    int64_t v = values[i];
    uint64_t pos = HashIntKey(v) & mask_;
    for (;;) {
      uint32_t g = slot_group_[pos];
      if (g == 0) {
        if (!kInsert) {
          group_ids[i] = kAbsent;
          break;
        }
        uint32_t id = static_cast<uint32_t>(num_groups_++);
        slot_group_[pos] = id + 1;
        slot_key_[pos] = v;
        group_values_.push_back(v);
        group_ids[i] = id;
        if (static_cast<uint64_t>(num_groups_) * 2 > mask_ + 1) {
          GrowSlots(&slot_group_, &slot_key_, &mask_, HashIntKey);
        }
        break;
      }
      if (slot_key_[pos] == v) {
        group_ids[i] = g - 1;
        break;
      }
      pos = (pos + 1) & mask_;
    }
  }
}

template <bool kInsert>
void GroupTable::LookupEncoded(const std::vector<ColumnPtr>& keys, int64_t n,
                               uint32_t* group_ids) {
  std::vector<const Column*> cols;
  cols.reserve(keys.size());
  for (const auto& k : keys) cols.push_back(k.get());
  encoder_.Encode(cols, n);
  for (int64_t i = 0; i < n; ++i) {
    std::string_view key = encoder_.key(i);
    uint64_t h = HashBytes(key);
    uint64_t pos = h & mask_;
    for (;;) {
      uint32_t g = slot_group_[pos];
      if (g == 0) {
        if (!kInsert) {
          group_ids[i] = kAbsent;
          break;
        }
        uint32_t id = static_cast<uint32_t>(num_groups_++);
        slot_group_[pos] = id + 1;
        slot_hash_[pos] = h;
        arena_.append(key.data(), key.size());
        group_offsets_.push_back(static_cast<int64_t>(arena_.size()));
        for (size_t k = 0; k < cols.size(); ++k) builders_[k]->AppendFrom(*cols[k], i);
        group_ids[i] = id;
        if (static_cast<uint64_t>(num_groups_) * 2 > mask_ + 1) {
          GrowSlots(&slot_group_, &slot_hash_, &mask_, KeyHash);
        }
        break;
      }
      if (slot_hash_[pos] == h) {
        int64_t lo = group_offsets_[g - 1], hi = group_offsets_[g];
        if (static_cast<size_t>(hi - lo) == key.size() &&
            std::memcmp(arena_.data() + lo, key.data(), key.size()) == 0) {
          group_ids[i] = g - 1;
          break;
        }
      }
      pos = (pos + 1) & mask_;
    }
  }
}

std::vector<ColumnPtr> GroupTable::FinishKeys() {
  std::vector<ColumnPtr> out;
  if (!integer_mode_) {
    for (auto& b : builders_) out.push_back(b->Finish());
    return out;
  }
  const DataTypePtr& type = key_types_[0];
  int64_t n = num_groups_;
  BufferPtr validity;
  int64_t nulls = 0;
  if (null_group_ >= 0) {
    validity = Buffer::Allocate(bits::BytesFor(n));
    std::memset(validity->mutable_data(), 0xff, static_cast<size_t>(bits::BytesFor(n)));
    bits::Clear(validity->mutable_data(), null_group_);
    nulls = 1;
  }
  BufferPtr values = kernel::DispatchFixed(*type, [&]<typename T>() -> BufferPtr {
    auto buf = Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)));
    T* d = buf->mutable_data_as<T>();
    for (int64_t g = 0; g < n; ++g) d[g] = static_cast<T>(group_values_[g]);
    return buf;
  });
  out.push_back(std::make_shared<const Column>(type, n, nulls, validity, values));
  return out;
}

}  // namespace spate::exec
