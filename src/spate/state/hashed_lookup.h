// Copyright spate authors.
#pragma once

// HashedLookup: lookups of a state store whose key hash the caller already has, so a key
// looked up several times (prefetch hints, then the lookup) is hashed once. A store may
// implement it beside StateStore (the stores of CreateStateStoreProvider do; RocksDB
// ignores the hash); callers find it with dynamic_cast and fall back to StateStore's
// Get / Prefetch when it is absent.
//
// Contract: `hash` is HashBytes(key) (columnar/row_encoding.h); anything else is a
// lookup of the wrong slot. Thread safety and view lifetimes as StateStore's Get /
// Prefetch.

#include <cstdint>
#include <optional>
#include <string_view>

namespace spate::state {

class HashedLookup {
 public:
  /// StateStore::Get(key) for `hash` == HashBytes(key).
  virtual std::optional<std::string_view> GetHashed(std::string_view key,
                                                    uint64_t hash) = 0;
  /// StateStore::Prefetch(key, near) for `hash` == HashBytes(key).
  virtual void PrefetchHashed(std::string_view key, uint64_t hash, bool near) = 0;

 protected:
  ~HashedLookup() = default;
};

}  // namespace spate::state
