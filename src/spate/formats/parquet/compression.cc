// Copyright spate authors.
#include "spate/formats/parquet/compression.h"

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace spate::formats::parquet {

namespace {

// zlib's crc32 in zlib-sized pieces.
uint32_t ZlibCrc32(uint32_t crc, const uint8_t* p, int64_t n) {
  while (n > 0) {
    const auto piece = static_cast<uInt>(std::min<int64_t>(n, int64_t{1} << 30));
    crc = static_cast<uint32_t>(crc32(crc, p, piece));
    p += piece;
    n -= piece;
  }
  return crc;
}

#if defined(__x86_64__)
// CRC-32 (zlib's: reflected 0xEDB88320) by carry-less multiplication, n >= 64: the data
// (zlib's state ~crc XORed into its first 4 bytes) is folded 64 bytes at a time into
// four 128-bit lanes, then 16 at a time into one (the folding constants are x^(k*8) mod
// P for the reflected polynomial, from Intel's "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ"); those 16 bytes have the CRC of all that was folded,
// taken with zlib, which also takes the last n % 16 bytes.
#define SPATE_CLMUL __attribute__((target("pclmul,sse4.1")))
SPATE_CLMUL inline __m128i Fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)),
      next);
}
SPATE_CLMUL inline __m128i Load(const uint8_t* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}
SPATE_CLMUL uint32_t ClmulCrc32(uint32_t crc, const uint8_t* p, int64_t n) {
  __m128i x0 = _mm_xor_si128(Load(p), _mm_cvtsi32_si128(static_cast<int>(~crc)));
  __m128i x1 = Load(p + 16), x2 = Load(p + 32), x3 = Load(p + 48);
  p += 64;
  n -= 64;
  const __m128i k4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // 512 and 576 bits
  for (; n >= 64; p += 64, n -= 64) {
    x0 = Fold(x0, k4, Load(p));
    x1 = Fold(x1, k4, Load(p + 16));
    x2 = Fold(x2, k4, Load(p + 32));
    x3 = Fold(x3, k4, Load(p + 48));
  }
  const __m128i k1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // 128 and 192 bits
  x0 = Fold(x0, k1, x1);
  x0 = Fold(x0, k1, x2);
  x0 = Fold(x0, k1, x3);
  for (; n >= 16; p += 16, n -= 16) x0 = Fold(x0, k1, Load(p));
  alignas(16) uint8_t rest[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(rest), x0);
  return ZlibCrc32(ZlibCrc32(0xFFFFFFFFu, rest, 16), p, n);
}
#undef SPATE_CLMUL
#endif

Status Corrupt(Codec c, const std::string& what) {
  return Status(StatusCode::kDataCorruption,
                std::string(CodecName(c)) + " decompression failed: " + what);
}

Status GzipDecompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("inflateInit2 failed");
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = out;
  zs.avail_out = static_cast<uInt>(out_size);
  Status st;
  while (true) {
    int rc = inflate(&zs, Z_FINISH);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members: continue with the next one.
      if (zs.avail_in > 0 && zs.avail_out > 0) {
        if (inflateReset(&zs) != Z_OK) {
          st = Corrupt(Codec::kGzip, "inflateReset failed");
          break;
        }
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) {
      st = Corrupt(Codec::kGzip, "data larger than the page size");
      break;
    }
    if (rc != Z_OK) {
      st = Corrupt(Codec::kGzip, zs.msg ? zs.msg : "inflate error " + std::to_string(rc));
      break;
    }
  }
  int64_t produced = out_size - zs.avail_out;
  inflateEnd(&zs);
  SPATE_RETURN_IF_ERROR(st);
  if (produced != out_size) {
    return Corrupt(Codec::kGzip, "got " + std::to_string(produced) + " bytes, expected " +
                                     std::to_string(out_size));
  }
  return Status::OK();
}

template <typename Out>
Status GzipCompress(const uint8_t* in, int64_t n, Out* out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  out->resize(deflateBound(&zs, static_cast<uLong>(n)) + 32);
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = out->size() - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal("gzip compression failed");
  out->resize(produced);
  return Status::OK();
}

uint32_t ReadBE32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

bool Lz4HadoopDecompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) {
  int64_t ip = 0, op = 0;
  while (ip < n) {
    if (n - ip < 8) return false;
    uint32_t raw = ReadBE32(in + ip), comp = ReadBE32(in + ip + 4);
    ip += 8;
    if (comp > static_cast<uint64_t>(n - ip) ||
        raw > static_cast<uint64_t>(out_size - op))
      return false;
    int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + ip),
                                  reinterpret_cast<char*>(out + op),
                                  static_cast<int>(comp), static_cast<int>(raw));
    if (got < 0 || static_cast<uint32_t>(got) != raw) return false;
    ip += comp;
    op += raw;
  }
  return op == out_size;
}

template <typename Out>
Status CompressInto(Codec codec, const uint8_t* in, int64_t n, Out* out) {
  switch (codec) {
    case Codec::kUncompressed:
      out->assign(reinterpret_cast<const char*>(in), static_cast<size_t>(n));
      return Status::OK();
    case Codec::kSnappy: {
      size_t cap = snappy_max_compressed_length(static_cast<size_t>(n));
      out->resize(cap);
      if (snappy_compress(reinterpret_cast<const char*>(in), static_cast<size_t>(n),
                          out->data(), &cap) != SNAPPY_OK) {
        return Status::Internal("snappy compression failed");
      }
      out->resize(cap);
      return Status::OK();
    }
    case Codec::kGzip:
      return GzipCompress(in, n, out);
    case Codec::kZstd: {
      size_t cap = ZSTD_compressBound(static_cast<size_t>(n));
      out->resize(cap);
      size_t got = ZSTD_compress(out->data(), cap, in, static_cast<size_t>(n), 3);
      if (ZSTD_isError(got))
        return Status::Internal(std::string("zstd compression failed: ") +
                                ZSTD_getErrorName(got));
      out->resize(got);
      return Status::OK();
    }
    case Codec::kLz4Raw: {
      int cap = LZ4_compressBound(static_cast<int>(n));
      out->resize(static_cast<size_t>(cap));
      int got = LZ4_compress_default(reinterpret_cast<const char*>(in), out->data(),
                                     static_cast<int>(n), cap);
      if (got <= 0 && n > 0) return Status::Internal("lz4 compression failed");
      out->resize(static_cast<size_t>(got));
      return Status::OK();
    }
    default:
      return Status::Unimplemented(std::string("writing Parquet with codec ") +
                                   CodecName(codec) + " is not supported");
  }
}

}  // namespace

uint32_t Crc32(const uint8_t* data, int64_t n) {
#if defined(__x86_64__)
  static const bool kClmul =
      __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  if (kClmul && n >= 64) return ClmulCrc32(0, data, n);
#endif
  return ZlibCrc32(0, data, n);
}

Status Compress(Codec codec, const uint8_t* in, int64_t n, std::string* out) {
  return CompressInto(codec, in, n, out);
}
Status Compress(Codec codec, const uint8_t* in, int64_t n, MappedString* out) {
  return CompressInto(codec, in, n, out);
}

Result<int64_t> CompressReusing(Codec codec, const uint8_t* in, int64_t n,
                                MappedString* buf) {
  auto grow = [buf](size_t cap) {
    if (buf->size() < cap) buf->resize(cap);
  };
  switch (codec) {
    case Codec::kSnappy: {
      size_t cap = snappy_max_compressed_length(static_cast<size_t>(n));
      grow(cap);
      if (snappy_compress(reinterpret_cast<const char*>(in), static_cast<size_t>(n),
                          buf->data(), &cap) != SNAPPY_OK) {
        return Status::Internal("snappy compression failed");
      }
      return static_cast<int64_t>(cap);
    }
    case Codec::kZstd: {
      const size_t cap = ZSTD_compressBound(static_cast<size_t>(n));
      grow(cap);
      const size_t got = ZSTD_compress(buf->data(), cap, in, static_cast<size_t>(n), 3);
      if (ZSTD_isError(got))
        return Status::Internal(std::string("zstd compression failed: ") +
                                ZSTD_getErrorName(got));
      return static_cast<int64_t>(got);
    }
    default:
      SPATE_RETURN_IF_ERROR(CompressInto(codec, in, n, buf));
      return static_cast<int64_t>(buf->size());
  }
}

Status Decompress(Codec codec, const uint8_t* in, int64_t n, uint8_t* out,
                  int64_t out_size) {
  switch (codec) {
    case Codec::kUncompressed:
      if (n != out_size) return Corrupt(codec, "uncompressed page size mismatch");
      std::memcpy(out, in, static_cast<size_t>(n));
      return Status::OK();
    case Codec::kSnappy: {
      size_t len = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(in),
                                     static_cast<size_t>(n), &len) != SNAPPY_OK ||
          static_cast<int64_t>(len) != out_size) {
        return Corrupt(codec, "bad uncompressed length");
      }
      if (snappy_uncompress(reinterpret_cast<const char*>(in), static_cast<size_t>(n),
                            reinterpret_cast<char*>(out), &len) != SNAPPY_OK) {
        return Corrupt(codec, "invalid data");
      }
      return Status::OK();
    }
    case Codec::kGzip:
      return GzipDecompress(in, n, out, out_size);
    case Codec::kZstd: {
      size_t got =
          ZSTD_decompress(out, static_cast<size_t>(out_size), in, static_cast<size_t>(n));
      if (ZSTD_isError(got)) return Corrupt(codec, ZSTD_getErrorName(got));
      if (static_cast<int64_t>(got) != out_size) return Corrupt(codec, "size mismatch");
      return Status::OK();
    }
    case Codec::kLz4Raw: {
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in),
                                    reinterpret_cast<char*>(out), static_cast<int>(n),
                                    static_cast<int>(out_size));
      if (got != out_size) return Corrupt(codec, "invalid data");
      return Status::OK();
    }
    case Codec::kLz4: {
      if (Lz4HadoopDecompress(in, n, out, out_size)) return Status::OK();
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in),
                                    reinterpret_cast<char*>(out), static_cast<int>(n),
                                    static_cast<int>(out_size));
      if (got != out_size)
        return Corrupt(codec, "invalid data (neither Hadoop-framed nor raw LZ4)");
      return Status::OK();
    }
    default:
      return Status::Unimplemented(std::string("Parquet codec ") + CodecName(codec) +
                                   " is not supported");
  }
}

Result<Codec> ParseCodecName(const std::string& name) {
  std::string s;
  for (char c : name)
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (s == "none" || s == "uncompressed") return Codec::kUncompressed;
  if (s == "snappy") return Codec::kSnappy;
  if (s == "gzip") return Codec::kGzip;
  if (s == "zstd") return Codec::kZstd;
  if (s == "lz4_raw" || s == "lz4raw") return Codec::kLz4Raw;
  return Status::Error(
      "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION",
      {{"codecName", s},
       {"availableCodecs",
        "brotli, uncompressed, lz4, lz4_raw, gzip, lzo, snappy, none, zstd"}});
}

std::string CodecFileExtension(Codec codec) {
  switch (codec) {
    case Codec::kSnappy:
      return "snappy";
    case Codec::kGzip:
      return "gz";
    case Codec::kZstd:
      return "zstd";
    case Codec::kLz4Raw:
      return "lz4raw";
    default:
      return "";
  }
}

}  // namespace spate::formats::parquet
