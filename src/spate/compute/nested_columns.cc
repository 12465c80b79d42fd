// Copyright spate authors.
#include "spate/compute/nested_columns.h"

#include <cstring>

#include "spate/compute/predicates.h"

namespace spate {

BufferPtr ValidityFromFlags(const std::vector<uint8_t>& valid, int64_t* nulls) {
  int64_t n = static_cast<int64_t>(valid.size());
  *nulls = 0;
  for (uint8_t v : valid) *nulls += v ? 0 : 1;
  if (*nulls == 0) return nullptr;
  auto buf = Buffer::Allocate(bits::BytesFor(n));
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) bits::Set(buf->mutable_data(), i);
  }
  return buf;
}

BufferPtr OffsetsBuffer(const std::vector<int32_t>& offsets) {
  auto buf = Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 4);
  std::memcpy(buf->mutable_data(), offsets.data(), offsets.size() * 4);
  return buf;
}

ColumnPtr MakeListColumn(DataTypePtr type, const std::vector<int32_t>& offsets,
                         const std::vector<uint8_t>& valid, ColumnPtr child) {
  int64_t nulls = 0;
  BufferPtr validity = ValidityFromFlags(valid, &nulls);
  return std::make_shared<const Column>(
      std::move(type), static_cast<int64_t>(valid.size()), nulls, std::move(validity),
      OffsetsBuffer(offsets), nullptr, std::vector<ColumnPtr>{std::move(child)});
}

ColumnPtr MakeListColumn(DataTypePtr type, const std::vector<int32_t>& offsets,
                         ColumnPtr child) {
  return std::make_shared<const Column>(
      std::move(type), static_cast<int64_t>(offsets.size()) - 1, 0, nullptr,
      OffsetsBuffer(offsets), nullptr, std::vector<ColumnPtr>{std::move(child)});
}

std::vector<uint32_t> ElementGroups(const int32_t* offsets, const uint32_t* gid,
                                    int64_t n) {
  std::vector<uint32_t> groups;
  groups.reserve(static_cast<size_t>(offsets[n] - offsets[0]));
  for (int64_t i = 0; i < n; ++i)
    groups.insert(groups.end(), offsets[i + 1] - offsets[i], gid[i]);
  return groups;
}

ColumnPtr MakeStructColumn(DataTypePtr type, int64_t n, std::vector<ColumnPtr> children,
                           BufferPtr validity, int64_t nulls) {
  return std::make_shared<const Column>(std::move(type), n, nulls, std::move(validity),
                                        nullptr, nullptr, std::move(children));
}

DataTypePtr MapEntryType(const DataTypePtr& map_type) {
  return DataType::Struct({Field{"key", map_type->key_type(), false},
                           Field{"value", map_type->value_type(), true}});
}

Status ValidateMapKeys(const Column& keys, const std::vector<int32_t>& offsets) {
  for (size_t r = 0; r + 1 < offsets.size(); ++r) {
    for (int32_t k = offsets[r]; k < offsets[r + 1]; ++k) {
      if (keys.IsNull(k)) return Status::Error("NULL_MAP_KEY", {});
      for (int32_t j = offsets[r]; j < k; ++j) {
        if (CompareValuesAt(keys, j, keys, k) == 0) {
          return Status::Error(
              "DUPLICATED_MAP_KEY",
              {{"key", keys.GetValue(k).ToString()},
               {"mapKeyDedupPolicy", "\"spark.sql.mapKeyDedupPolicy\""}});
        }
      }
    }
  }
  return Status::OK();
}

ListRefs ConcatListRows(const std::vector<ColumnPtr>& lists, int64_t n) {
  ListRefs out;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = true;
    for (const auto& l : lists) ok &= l->IsValid(i);
    if (ok) {
      for (size_t k = 0; k < lists.size(); ++k) {
        const int32_t* off = lists[k]->offsets();
        for (int32_t j = off[i]; j < off[i + 1]; ++j) out.refs.push_back(TakeRef(k, j));
      }
    }
    out.EndRow(ok);
  }
  return out;
}

}  // namespace spate
