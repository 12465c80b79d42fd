// Copyright spate authors.
#pragma once

// Spark's hash functions, bit-exact: `hash` (Murmur3_x86_32 with Spark's legacy byte-tail
// handling, seed 42, 32-bit) and `xxhash64` (XXH64, seed 42, 64-bit). Columns combine
// left to right: the hash of each value seeds the next; a NULL value leaves the running
// hash unchanged. Types are hashed as Spark's HashExpression does:
// booleans/bytes/shorts/ints/ dates/year-month intervals as ints,
// longs/timestamps/day-time intervals as longs, floats and doubles by their bit patterns
// with -0.0 as 0 and canonical NaN, decimals of precision
// <= 18 as their unscaled long and wider ones as the unscaled two's-complement big-endian
// bytes, strings/binary by their bytes, arrays/maps/structs element by element.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string_view>

#include "spate/columnar/column.h"

namespace spate {

// Murmur3_x86_32 as Spark's org.apache.spark.unsafe.hash.Murmur3_x86_32.
int32_t Murmur3HashInt(int32_t v, int32_t seed);
int32_t Murmur3HashLong(int64_t v, int32_t seed);
int32_t Murmur3HashBytes(std::string_view bytes, int32_t seed);  // hashUnsafeBytes

// XXH64 as Spark's org.apache.spark.sql.catalyst.expressions.XXH64.
int64_t XxHash64Int(int32_t v, int64_t seed);
int64_t XxHash64Long(int64_t v, int64_t seed);
int64_t XxHash64Bytes(std::string_view bytes, int64_t seed);

/// hashes[i] = hash of row i of `col` seeded with hashes[i] (unchanged where NULL).
void Murmur3HashColumn(const Column& col, int32_t* hashes, int64_t n);
void XxHash64Column(const Column& col, int64_t* hashes, int64_t n);

}  // namespace spate
