// Copyright spate authors.
#pragma once

// Hashing of key rows for exchanges and hash tables. Equal keys (grouping semantics:
// NULL equals NULL, -0.0 equals 0.0, NaNs equal) hash equally; a single integral key
// column (byte..long, date, timestamp, intervals) is hashed from its value widened to
// int64, so int and bigint keys of the same value agree. Not Spark's Murmur3.
//
// Thread safety: pure functions; the RowEncoder scratch belongs to the caller.

#include <cstdint>
#include <vector>

#include "spate/columnar/column.h"
#include "spate/columnar/row_encoding.h"

namespace spate::exec {

/// True if `t` is stored as an integer of at most 8 bytes whose equality is bitwise
/// (so a key of this type can be hashed and compared as an int64).
bool IsIntegerKeyType(const DataType& t);

/// Reads c[i] of an integer key type widened to int64.
int64_t IntegerKeyAt(const Column& c, int64_t i);

/// Widens all values of an integer key column to int64 (nulls as 0).
void IntegerKeys(const Column& c, int64_t* out);

/// hashes[i] = hash of row i of `keys` (n rows). `encoder` is scratch for the general
/// path.
void HashRows(const std::vector<const Column*>& keys, int64_t n, RowEncoder* encoder,
              uint64_t* hashes);

/// Maps a hash to [0, num_partitions) using its high bits (tables use the low bits).
inline uint32_t PartitionOf(uint64_t hash, uint32_t num_partitions) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(hash) * num_partitions) >>
                               64);
}

constexpr uint64_t kNullKeyHash = 0x2545F4914F6CDD1DULL;

}  // namespace spate::exec
