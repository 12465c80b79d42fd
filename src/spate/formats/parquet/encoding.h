// Copyright spate authors.
#pragma once

// Parquet value and level encodings (Encodings.md of apache/parquet-format):
// the RLE / bit-packed hybrid (levels, dictionary indices, RLE booleans), bit packing,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//
// Decoders read from a byte range they do not own and bounds-check every length in it:
// malformed input gives kDataCorruption, never an out-of-bounds read or an allocation
// larger than the caller's stated maximum. Thread safety: one object per thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/mapped_allocator.h"
#include "spate/base/status.h"

namespace spate::formats::parquet {

/// Bits needed for values in [0, max_value].
int BitWidth(uint64_t max_value);

/// Appends the RLE/bit-packed hybrid encoding of `values` (each < 2^bit_width), without
/// a length prefix. (MappedString: the writer's page buffers, base/mapped_allocator.h.)
void RleEncode(const uint32_t* values, int64_t n, int bit_width, std::string* out);
void RleEncode(const int16_t* values, int64_t n, int bit_width, std::string* out);
void RleEncode(const uint32_t* values, int64_t n, int bit_width, MappedString* out);
void RleEncode(const int16_t* values, int64_t n, int bit_width, MappedString* out);
/// RleEncode's bytes for `n` copies of `value`, without the values in memory.
void RleEncodeRepeated(uint32_t value, int64_t n, int bit_width, MappedString* out);

/// Decoder of the RLE/bit-packed hybrid.
class RleDecoder {
 public:
  RleDecoder() = default;
  RleDecoder(const uint8_t* data, int64_t size, int bit_width)
      : p_(data), end_(data + size), bit_width_(bit_width) {}
  /// Decodes exactly n values into out; kDataCorruption if the data ends first.
  Status Get(uint32_t* out, int64_t n);
  Status Get(int16_t* out, int64_t n);
  /// Bytes consumed so far.
  const uint8_t* position() const { return p_; }

 private:
  template <typename T>
  Status GetImpl(T* out, int64_t n);
  Status NextRun();
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;
  // Bit reader over the current bit-packed run.
  uint64_t acc_ = 0;
  int acc_bits_ = 0;
};

/// Unpacks n LSB-first bit-packed values of `bit_width` bits (<= 32). REQUIRES the input
/// to hold n * bit_width bits.
void UnpackBits(const uint8_t* in, int bit_width, int64_t n, uint32_t* out);

/// Decodes a DELTA_BINARY_PACKED stream of at most `max_values` values into `out`
/// (replaced); `consumed` = bytes used (where the next section starts).
Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t max_values,
                               std::vector<int64_t>* out, int64_t* consumed);

/// Decodes DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY of `n` values: `offsets` gets n+1
/// entries (starting at 0) into `bytes`.
Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t n,
                                  std::vector<int32_t>* offsets, std::string* bytes);
Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t n,
                            std::vector<int32_t>* offsets, std::string* bytes);

/// BYTE_STREAM_SPLIT: gathers n values of `width` bytes from `width` streams.
void UnsplitByteStreams(const uint8_t* in, int64_t n, int width, uint8_t* out);

}  // namespace spate::formats::parquet
