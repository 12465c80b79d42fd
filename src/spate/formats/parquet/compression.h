// Copyright spate authors.
#pragma once

// Page compression codecs: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, and LZ4 (Hadoop
// framing, falling back to a raw block as older writers produced) on read.
//
// Thread safety: stateless functions. Failure: kDataCorruption for undecodable input or a
// size other than the expected one; kUnimplemented for codecs spate lacks (LZO, BROTLI).

#include <cstdint>
#include <string>

#include "spate/base/mapped_allocator.h"
#include "spate/base/status.h"
#include "spate/formats/parquet/metadata.h"

namespace spate::formats::parquet {

/// Compresses [in, in+n) with `codec` into *out (replaced). (MappedString: the writer's
/// page buffers, base/mapped_allocator.h.)
Status Compress(Codec codec, const uint8_t* in, int64_t n, std::string* out);
Status Compress(Codec codec, const uint8_t* in, int64_t n, MappedString* out);
/// Compresses [in, in+n) into the front of *buf and returns the compressed length; *buf
/// grows as needed and is not shrunk (a buffer reused page after page is not zero-filled
/// again), its bytes past the length are unspecified.
Result<int64_t> CompressReusing(Codec codec, const uint8_t* in, int64_t n,
                                MappedString* buf);
/// Decompresses exactly `out_size` bytes into `out`.
Status Decompress(Codec codec, const uint8_t* in, int64_t n, uint8_t* out,
                  int64_t out_size);
/// CRC-32 of [data, data + n) as zlib's crc32(0, data, n): a page's CRC (PageHeader.crc).
uint32_t Crc32(const uint8_t* data, int64_t n);
/// Parses a codec name as Spark's `compression` option ("none", "uncompressed", "snappy",
/// "gzip", "zstd", "lz4_raw", "lz4raw"); case-insensitive.
Result<Codec> ParseCodecName(const std::string& name);
/// File-name infix Spark uses: "snappy", "gz", "zstd", "lz4raw", "" for none.
std::string CodecFileExtension(Codec codec);

}  // namespace spate::formats::parquet
