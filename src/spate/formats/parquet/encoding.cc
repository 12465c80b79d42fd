// Copyright spate authors.
#include "spate/formats/parquet/encoding.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace spate::formats::parquet {

namespace {

Status Corrupt(std::string what) {
  return Status(StatusCode::kDataCorruption, std::move(what));
}

template <typename Out>
void PutVarint(uint64_t v, Out* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return false;
    uint8_t b = *p++;
    r |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

// Packs `groups` groups of 8 values (LSB first, BW bits each; a group fills BW bytes)
// into p. BW is a constant so the 64-bit accumulator's flushes are resolved at compile
// time (8 * BW <= 256 bits: whole 32-bit words, then the tail bytes).
template <int BW, typename T>
void PackGroups(const T* values, int64_t groups, uint8_t* p) {
  for (int64_t g = 0; g < groups; ++g, values += 8) {
    uint64_t acc = 0;
    int bits = 0;
    for (int k = 0; k < 8; ++k) {
      acc |= static_cast<uint64_t>(static_cast<uint32_t>(values[k])) << bits;
      bits += BW;
      if (bits >= 32) {
        std::memcpy(p, &acc, 4);
        p += 4;
        acc >>= 32;
        bits -= 32;
      }
    }
    while (bits > 0) {
      *p++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
}

template <typename T, size_t... W>
void PackGroupsOfWidth(int bw, const T* values, int64_t groups, uint8_t* p,
                       std::index_sequence<W...>) {
  using Fn = void (*)(const T*, int64_t, uint8_t*);
  static constexpr Fn kPack[] = {&PackGroups<static_cast<int>(W) + 1, T>...};
  kPack[bw - 1](values, groups, p);
}

// Appends values [b, b + count) bit-packed (LSB first, `bw` bits each, 1 <= bw <= 32)
// and padded with zeros to a multiple of 8 values, as one bit-packed run.
template <typename T, typename Out>
void PutBitPacked(const T* values, int64_t b, int64_t count, int bw, Out* out) {
  const int64_t groups = (count + 7) / 8;
  PutVarint((static_cast<uint64_t>(groups) << 1) | 1, out);  // bit-packed run: LSB 1
  const size_t at = out->size();
  out->resize(at + static_cast<size_t>(groups * bw));
  uint8_t* p = reinterpret_cast<uint8_t*>(out->data() + at);
  if (bw == 0) return;
  const int64_t full = count / 8;
  PackGroupsOfWidth(bw, values + b, full, p, std::make_index_sequence<32>{});
  if (full < groups) {
    T last[8] = {};
    std::copy(values + b + full * 8, values + b + count, last);
    PackGroupsOfWidth(bw, last, 1, p + full * bw, std::make_index_sequence<32>{});
  }
}

// The first s >= i where 8 equal values start (values[s..s+7]), or n. A run of 8 holds
// [q, q + 4] for the first q = i + 4k >= s (q <= s + 3), so only the positions q whose
// five values are equal are looked at closer, from s = q - 3 on: the first s found is
// the first there is, since every earlier q only admits earlier starts.
template <typename T>
int64_t NextRunOf8(const T* values, int64_t i, int64_t n) {
  for (int64_t q = i; q + 4 < n; q += 4) {
    const auto v = static_cast<uint32_t>(values[q]);
    if (((v ^ static_cast<uint32_t>(values[q + 1])) |
         (v ^ static_cast<uint32_t>(values[q + 2])) |
         (v ^ static_cast<uint32_t>(values[q + 3])) |
         (v ^ static_cast<uint32_t>(values[q + 4]))) != 0) {
      continue;
    }
    for (int64_t s = std::max(i, q - 3); s <= q && s + 8 <= n; ++s) {
      int k = 1;
      while (k < 8 && values[s + k] == values[s]) ++k;
      if (k == 8) return s;
    }
  }
  return n;
}

// Maximal runs of >= 8 equal values are RLE runs; the values between them are
// bit-packed, the packed stretch first extended into the next run to a multiple of 8
// values.
template <typename T, typename Out>
void RleEncodeImpl(const T* values, int64_t n, int bw, Out* out) {
  const int value_bytes = (bw + 7) / 8;
  int64_t packed_from = 0;  // the pending bit-packed values are [packed_from, i)
  int64_t i = 0;
  while (i < n) {
    // Runs shorter than 8 are skipped: i lands on a run's start (the start of the
    // sequence or of a value other than the one before).
    i = NextRunOf8(values, i, n);
    if (i == n) break;
    const T v = values[i];
    int64_t r = 8;
    while (i + r < n && values[i + r] == v) ++r;
    if (packed_from < i) {
      const int64_t k = (8 - (i - packed_from) % 8) % 8;
      i += k;
      r -= k;
      PutBitPacked(values, packed_from, i - packed_from, bw, out);
    }
    PutVarint(static_cast<uint64_t>(r) << 1, out);  // RLE run: LSB 0
    const uint32_t u = static_cast<uint32_t>(v);
    for (int b = 0; b < value_bytes; ++b)
      out->push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
    i += r;
    packed_from = i;
  }
  if (packed_from < n) PutBitPacked(values, packed_from, n - packed_from, bw, out);
}

}  // namespace

int BitWidth(uint64_t max_value) {
  int w = 0;
  while (max_value) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

void RleEncode(const uint32_t* values, int64_t n, int bit_width, std::string* out) {
  RleEncodeImpl(values, n, bit_width, out);
}
void RleEncode(const int16_t* values, int64_t n, int bit_width, std::string* out) {
  RleEncodeImpl(values, n, bit_width, out);
}
void RleEncode(const uint32_t* values, int64_t n, int bit_width, MappedString* out) {
  RleEncodeImpl(values, n, bit_width, out);
}
void RleEncode(const int16_t* values, int64_t n, int bit_width, MappedString* out) {
  RleEncodeImpl(values, n, bit_width, out);
}

void RleEncodeRepeated(uint32_t value, int64_t n, int bit_width, MappedString* out) {
  if (n < 8) {
    // RleEncode's bytes for fewer than 8 values: one bit-packed group.
    uint32_t values[8];
    std::fill(values, values + 8, value);
    RleEncodeImpl(values, n, bit_width, out);
    return;
  }
  PutVarint(static_cast<uint64_t>(n) << 1, out);  // RLE run: LSB 0
  for (int b = 0; b < (bit_width + 7) / 8; ++b)
    out->push_back(static_cast<char>((value >> (8 * b)) & 0xFF));
}

Status RleDecoder::NextRun() {
  uint64_t header;
  if (!GetVarint(p_, end_, &header))
    return Corrupt("truncated RLE/bit-packed run header");
  if (!(header & 1)) {
    rle_left_ = static_cast<int64_t>(header >> 1);
    if (rle_left_ <= 0 || (header >> 1) > (1ull << 40))
      return Corrupt("bad RLE run length");
    int nbytes = (bit_width_ + 7) / 8;
    if (end_ - p_ < nbytes) return Corrupt("truncated RLE run value");
    uint32_t v = 0;
    for (int b = 0; b < nbytes; ++b) v |= static_cast<uint32_t>(p_[b]) << (8 * b);
    p_ += nbytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0)
      return Corrupt("RLE run value wider than the bit width");
    rle_value_ = v;
  } else {
    uint64_t groups = header >> 1;
    if (groups == 0 || groups > (1ull << 40)) return Corrupt("bad bit-packed run length");
    uint64_t values = groups * 8;
    uint64_t avail_bits = static_cast<uint64_t>(end_ - p_) * 8;
    if (bit_width_ > 0 && values * static_cast<uint64_t>(bit_width_) > avail_bits) {
      // A truncated last run: keep the values that are present.
      values = avail_bits / static_cast<uint64_t>(bit_width_);
      if (values == 0) return Corrupt("truncated bit-packed run");
    }
    packed_left_ = static_cast<int64_t>(values);
    acc_ = 0;
    acc_bits_ = 0;
  }
  return Status::OK();
}

template <typename T>
Status RleDecoder::GetImpl(T* out, int64_t n) {
  const uint64_t mask = bit_width_ >= 32 ? 0xFFFFFFFFull : ((1ull << bit_width_) - 1);
  int64_t i = 0;
  while (i < n) {
    if (rle_left_ == 0 && packed_left_ == 0) {
      if (p_ >= end_)
        return Corrupt("RLE/bit-packed data ends after " + std::to_string(i) + " of " +
                       std::to_string(n) + " values");
      SPATE_RETURN_IF_ERROR(NextRun());
    }
    if (rle_left_ > 0) {
      int64_t k = std::min(rle_left_, n - i);
      T v = static_cast<T>(rle_value_);
      for (int64_t j = 0; j < k; ++j) out[i + j] = v;
      i += k;
      rle_left_ -= k;
    } else {
      int64_t k = std::min(packed_left_, n - i);
      for (int64_t j = 0; j < k; ++j) {
        while (acc_bits_ < bit_width_) {
          acc_ |= static_cast<uint64_t>(*p_++) << acc_bits_;
          acc_bits_ += 8;
        }
        out[i + j] = static_cast<T>(acc_ & mask);
        acc_ >>= bit_width_;
        acc_bits_ -= bit_width_;
      }
      i += k;
      packed_left_ -= k;
      if (packed_left_ == 0) {
        // Skip the rest of the run's bytes (padding of the last group).
        acc_ = 0;
        acc_bits_ = 0;
      }
    }
  }
  return Status::OK();
}

Status RleDecoder::Get(uint32_t* out, int64_t n) { return GetImpl(out, n); }
Status RleDecoder::Get(int16_t* out, int64_t n) { return GetImpl(out, n); }

void UnpackBits(const uint8_t* in, int bit_width, int64_t n, uint32_t* out) {
  const uint64_t mask = bit_width >= 32 ? 0xFFFFFFFFull : ((1ull << bit_width) - 1);
  uint64_t acc = 0;
  int bits = 0;
  for (int64_t i = 0; i < n; ++i) {
    while (bits < bit_width) {
      acc |= static_cast<uint64_t>(*in++) << bits;
      bits += 8;
    }
    out[i] = static_cast<uint32_t>(acc & mask);
    acc >>= bit_width;
    bits -= bit_width;
  }
}

Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t max_values,
                               std::vector<int64_t>* out, int64_t* consumed) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  uint64_t block_size, miniblocks, total, first_zz;
  if (!GetVarint(p, end, &block_size) || !GetVarint(p, end, &miniblocks) ||
      !GetVarint(p, end, &total) || !GetVarint(p, end, &first_zz)) {
    return Corrupt("truncated DELTA_BINARY_PACKED header");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20) ||
      miniblocks == 0 || block_size % miniblocks != 0 ||
      (block_size / miniblocks) % 32 != 0) {
    return Corrupt("bad DELTA_BINARY_PACKED block size " + std::to_string(block_size) +
                   " / " + std::to_string(miniblocks) + " miniblocks");
  }
  if (total > static_cast<uint64_t>(max_values)) {
    return Corrupt("DELTA_BINARY_PACKED holds " + std::to_string(total) +
                   " values, more than the page's " + std::to_string(max_values));
  }
  out->clear();
  out->reserve(total);
  if (total == 0) {
    *consumed = p - data;
    return Status::OK();
  }
  int64_t prev =
      static_cast<int64_t>(first_zz >> 1) ^ -static_cast<int64_t>(first_zz & 1);
  out->push_back(prev);
  const uint64_t per_mini = block_size / miniblocks;
  std::vector<uint8_t> widths(miniblocks);
  while (out->size() < total) {
    uint64_t md_zz;
    if (!GetVarint(p, end, &md_zz)) return Corrupt("truncated DELTA_BINARY_PACKED block");
    int64_t min_delta =
        static_cast<int64_t>(md_zz >> 1) ^ -static_cast<int64_t>(md_zz & 1);
    if (end - p < static_cast<int64_t>(miniblocks))
      return Corrupt("truncated DELTA_BINARY_PACKED bit widths");
    std::memcpy(widths.data(), p, miniblocks);
    p += miniblocks;
    for (uint64_t m = 0; m < miniblocks && out->size() < total; ++m) {
      int bw = widths[m];
      if (bw > 64)
        return Corrupt("DELTA_BINARY_PACKED bit width " + std::to_string(bw) + " > 64");
      uint64_t bytes = per_mini * static_cast<uint64_t>(bw) / 8;
      uint64_t take = std::min<uint64_t>(per_mini, total - out->size());
      // The last miniblock may be cut short by writers that stop at the last value.
      uint64_t need = (take * static_cast<uint64_t>(bw) + 7) / 8;
      if (static_cast<uint64_t>(end - p) < need)
        return Corrupt("truncated DELTA_BINARY_PACKED miniblock");
      const uint8_t* q = p;
      unsigned __int128 acc = 0;
      int bits = 0;
      const uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1);
      for (uint64_t j = 0; j < take; ++j) {
        while (bits < bw) {
          acc |= static_cast<unsigned __int128>(*q++) << bits;
          bits += 8;
        }
        uint64_t d = static_cast<uint64_t>(acc) & mask;
        acc >>= bw;
        bits -= bw;
        prev = static_cast<int64_t>(static_cast<uint64_t>(prev) +
                                    static_cast<uint64_t>(min_delta) + d);
        out->push_back(prev);
      }
      p += std::min<uint64_t>(bytes, static_cast<uint64_t>(end - p));
    }
  }
  *consumed = p - data;
  return Status::OK();
}

Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t n,
                                  std::vector<int32_t>* offsets, std::string* bytes) {
  std::vector<int64_t> lengths;
  int64_t used;
  SPATE_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, size, n, &lengths, &used));
  if (static_cast<int64_t>(lengths.size()) != n) {
    return Corrupt("DELTA_LENGTH_BYTE_ARRAY has " + std::to_string(lengths.size()) +
                   " lengths, expected " + std::to_string(n));
  }
  offsets->assign(1, 0);
  offsets->reserve(n + 1);
  int64_t total = 0;
  for (int64_t len : lengths) {
    if (len < 0) return Corrupt("negative DELTA_LENGTH_BYTE_ARRAY length");
    total += len;
    if (total > size - used || total > std::numeric_limits<int32_t>::max()) {
      return Corrupt("DELTA_LENGTH_BYTE_ARRAY lengths exceed the page");
    }
    offsets->push_back(static_cast<int32_t>(total));
  }
  bytes->assign(reinterpret_cast<const char*>(data + used), static_cast<size_t>(total));
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t n,
                            std::vector<int32_t>* offsets, std::string* bytes) {
  std::vector<int64_t> prefixes;
  int64_t used;
  SPATE_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, size, n, &prefixes, &used));
  if (static_cast<int64_t>(prefixes.size()) != n)
    return Corrupt("DELTA_BYTE_ARRAY prefix count mismatch");
  std::vector<int32_t> soff;
  std::string sbytes;
  SPATE_RETURN_IF_ERROR(
      DecodeDeltaLengthByteArray(data + used, size - used, n, &soff, &sbytes));
  offsets->assign(1, 0);
  offsets->reserve(n + 1);
  bytes->clear();
  int64_t prev_start = 0, prev_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t pre = prefixes[i];
    if (pre < 0 || pre > prev_len)
      return Corrupt("DELTA_BYTE_ARRAY prefix longer than the previous value");
    int64_t start = static_cast<int64_t>(bytes->size());
    if (start + pre + (soff[i + 1] - soff[i]) > std::numeric_limits<int32_t>::max()) {
      return Corrupt("DELTA_BYTE_ARRAY values too large");
    }
    size_t old = bytes->size();
    bytes->resize(old + static_cast<size_t>(pre));
    if (pre > 0)
      std::memcpy(bytes->data() + old, bytes->data() + prev_start,
                  static_cast<size_t>(pre));
    bytes->append(sbytes, static_cast<size_t>(soff[i]),
                  static_cast<size_t>(soff[i + 1] - soff[i]));
    prev_start = start;
    prev_len = static_cast<int64_t>(bytes->size()) - start;
    offsets->push_back(static_cast<int32_t>(bytes->size()));
  }
  return Status::OK();
}

void UnsplitByteStreams(const uint8_t* in, int64_t n, int width, uint8_t* out) {
  for (int b = 0; b < width; ++b) {
    const uint8_t* s = in + static_cast<int64_t>(b) * n;
    for (int64_t i = 0; i < n; ++i) out[i * width + b] = s[i];
  }
}

}  // namespace spate::formats::parquet
