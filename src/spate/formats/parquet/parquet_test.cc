// Copyright spate authors.
// Unit tests of the Parquet building blocks and writer -> reader round trips.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <utility>

#include "spate/base/malloc_probe.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/encoding.h"
#include "spate/formats/parquet/metadata.h"
#include "spate/formats/parquet/reader.h"
#include "spate/formats/parquet/thrift.h"
#include "spate/formats/parquet/writer.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats::parquet {
namespace {

// ---------------------------------------------------------------------------------------
// Thrift compact protocol

TEST(ThriftTest, ScalarsRoundTrip) {
  std::string buf;
  ThriftWriter w(&buf);
  w.StructBegin();
  w.FieldI32(1, -5);
  w.FieldI64(2, int64_t{1} << 40);
  w.FieldBinary(3, "hello");
  w.FieldBool(4, true);
  w.FieldBool(5, false);
  w.FieldI32(40, 7);  // long delta: id written as a varint
  w.FieldListBegin(41, TType::kI32, 20);
  for (int i = 0; i < 20; ++i) w.WriteI32(-i);
  w.StructEnd();
  ThriftReader r(reinterpret_cast<const uint8_t*>(buf.data()),
                 static_cast<int64_t>(buf.size()));
  ASSERT_TRUE(r.StructBegin().ok());
  TType t;
  int16_t id;
  int32_t i32;
  int64_t i64;
  std::string s;
  bool b;
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 1);
  ASSERT_TRUE(r.ReadI32(&i32).ok());
  EXPECT_EQ(i32, -5);
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  ASSERT_TRUE(r.ReadI64(&i64).ok());
  EXPECT_EQ(i64, int64_t{1} << 40);
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  ASSERT_TRUE(r.ReadBinary(&s).ok());
  EXPECT_EQ(s, "hello");
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  ASSERT_TRUE(r.ReadBool(&b).ok());
  EXPECT_TRUE(b);
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  ASSERT_TRUE(r.ReadBool(&b).ok());
  EXPECT_FALSE(b);
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 40);
  ASSERT_TRUE(r.Skip(t).ok());
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 41);
  EXPECT_EQ(t, TType::kList);
  ASSERT_TRUE(r.Skip(t).ok());
  ASSERT_TRUE(r.FieldBegin(&t, &id).ok());
  EXPECT_EQ(t, TType::kStop);
  EXPECT_EQ(r.position(), static_cast<int64_t>(buf.size()));
}

TEST(ThriftTest, TruncatedInputFailsCleanly) {
  FileMetaData md;
  md.schema.resize(2);
  md.schema[0].name = "root";
  md.schema[0].has_num_children = true;
  md.schema[0].num_children = 1;
  md.schema[1].name = "x";
  md.schema[1].has_type = true;
  md.schema[1].type = PhysicalType::kInt64;
  md.schema[1].has_repetition = true;
  std::string buf;
  WriteFileMetaData(md, &buf);
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    FileMetaData out;
    Status st = ReadFileMetaData(reinterpret_cast<const uint8_t*>(buf.data()),
                                 static_cast<int64_t>(cut), &out);
    EXPECT_ERROR_HAS(st, "corrupt Thrift data") << cut;
  }
  // Random garbage never crashes.
  std::mt19937 rng(1);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string g = buf;
    for (int k = 0; k < 3; ++k) g[rng() % g.size()] = static_cast<char>(rng());
    FileMetaData out;
    (void)ReadFileMetaData(reinterpret_cast<const uint8_t*>(g.data()),
                           static_cast<int64_t>(g.size()), &out);
  }
}

TEST(ThriftTest, FileMetaDataRoundTripSkipsUnknownFields) {
  FileMetaData md;
  md.version = 1;
  md.num_rows = 42;
  md.created_by = kCreatedBy;
  SchemaElement root;
  root.name = "spark_schema";
  root.has_num_children = true;
  root.num_children = 1;
  SchemaElement ts;
  ts.name = "ts";
  ts.has_type = true;
  ts.type = PhysicalType::kInt64;
  ts.has_repetition = true;
  ts.repetition = Repetition::kOptional;
  ts.logical_type.kind = LogicalType::kTimestamp;
  ts.logical_type.unit = TimeUnit::kNanos;
  ts.logical_type.is_adjusted_to_utc = true;
  md.schema = {root, ts};
  RowGroup rg;
  rg.num_rows = 42;
  ColumnChunk cc;
  cc.has_meta_data = true;
  cc.meta_data.type = PhysicalType::kInt64;
  cc.meta_data.encodings = {Encoding::kPlain, Encoding::kRle};
  cc.meta_data.path_in_schema = {"ts"};
  cc.meta_data.codec = Codec::kZstd;
  cc.meta_data.num_values = 42;
  cc.meta_data.data_page_offset = 4;
  cc.meta_data.has_statistics = true;
  cc.meta_data.statistics.has_null_count = true;
  cc.meta_data.statistics.null_count = 3;
  cc.meta_data.statistics.has_min_value = true;
  cc.meta_data.statistics.min_value = std::string("\x01\0\0\0\0\0\0\0", 8);
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  md.key_value_metadata.push_back({"k", true, "v"});
  md.num_column_orders = 1;
  std::string buf;
  WriteFileMetaData(md, &buf);
  FileMetaData out;
  ASSERT_TRUE(ReadFileMetaData(reinterpret_cast<const uint8_t*>(buf.data()),
                               static_cast<int64_t>(buf.size()), &out)
                  .ok());
  EXPECT_EQ(out.num_rows, 42);
  EXPECT_EQ(out.created_by, "spate version 0.1.0");
  ASSERT_EQ(out.schema.size(), 2u);
  EXPECT_EQ(out.schema[1].logical_type.kind, LogicalType::kTimestamp);
  EXPECT_EQ(out.schema[1].logical_type.unit, TimeUnit::kNanos);
  EXPECT_TRUE(out.schema[1].logical_type.is_adjusted_to_utc);
  ASSERT_EQ(out.row_groups.size(), 1u);
  const auto& m = out.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(m.codec, Codec::kZstd);
  EXPECT_EQ(m.path_in_schema, std::vector<std::string>{"ts"});
  EXPECT_EQ(m.statistics.null_count, 3);
  EXPECT_EQ(m.statistics.min_value.size(), 8u);
  EXPECT_EQ(out.key_value_metadata[0].value, "v");
  // column_orders (field 7) and unknown struct members were skipped without error.
}

TEST(ThriftTest, PageHeaderRoundTrip) {
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  h.has_crc = true;
  h.crc = -123;
  h.has_data_page_header_v2 = true;
  h.data_page_header_v2.num_values = 10;
  h.data_page_header_v2.num_nulls = 2;
  h.data_page_header_v2.num_rows = 10;
  h.data_page_header_v2.encoding = Encoding::kDeltaBinaryPacked;
  h.data_page_header_v2.definition_levels_byte_length = 3;
  h.data_page_header_v2.is_compressed = false;
  std::string buf;
  WritePageHeader(h, &buf);
  buf += "payload";
  PageHeader out;
  int64_t hl;
  ASSERT_TRUE(ReadPageHeader(reinterpret_cast<const uint8_t*>(buf.data()),
                             static_cast<int64_t>(buf.size()), &out, &hl)
                  .ok());
  EXPECT_EQ(hl, static_cast<int64_t>(buf.size()) - 7);
  EXPECT_EQ(out.crc, -123);
  EXPECT_EQ(out.data_page_header_v2.num_nulls, 2);
  EXPECT_EQ(out.data_page_header_v2.encoding, Encoding::kDeltaBinaryPacked);
  EXPECT_FALSE(out.data_page_header_v2.is_compressed);
}

// ---------------------------------------------------------------------------------------
// Encodings

TEST(EncodingTest, RleHybridRoundTrip) {
  std::mt19937 rng(7);
  for (int bw : {0, 1, 2, 3, 5, 8, 13, 20, 32}) {
    std::vector<uint32_t> v;
    uint64_t maxv = bw == 32 ? 0xFFFFFFFFull : ((1ull << bw) - 1);
    for (int i = 0; i < 5000; ++i) {
      uint32_t x = bw == 0 ? 0 : static_cast<uint32_t>(rng() & maxv);
      int run = (rng() % 4 == 0) ? static_cast<int>(rng() % 40) : 1;
      for (int k = 0; k < run; ++k) v.push_back(x);
    }
    std::string enc;
    RleEncode(v.data(), static_cast<int64_t>(v.size()), bw, &enc);
    std::vector<uint32_t> out(v.size());
    RleDecoder dec(reinterpret_cast<const uint8_t*>(enc.data()),
                   static_cast<int64_t>(enc.size()), bw);
    ASSERT_TRUE(dec.Get(out.data(), static_cast<int64_t>(out.size())).ok()) << bw;
    EXPECT_EQ(out, v) << bw;
    // Asking for more than there is fails cleanly.
    uint32_t extra[16];
    EXPECT_ERROR_HAS(dec.Get(extra, 16), "RLE/bit-packed data ends after");
  }
}

TEST(EncodingTest, RleKnownBytes) {
  // Levels 1,1,1,1,1,1,1,1 (run of 8) then 0,1,0 with bit width 1.
  std::vector<int16_t> v = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0};
  std::string enc;
  RleEncode(v.data(), static_cast<int64_t>(v.size()), 1, &enc);
  ASSERT_EQ(enc.size(), 4u);
  EXPECT_EQ(static_cast<uint8_t>(enc[0]), 8 << 1);  // RLE run of 8
  EXPECT_EQ(static_cast<uint8_t>(enc[1]), 1);
  EXPECT_EQ(static_cast<uint8_t>(enc[2]), 1 << 1 | 1);  // one bit-packed group
  EXPECT_EQ(static_cast<uint8_t>(enc[3]), 0b010);
}

// The bit-packed groups are packed by a routine per bit width: every width, full and
// partial last groups, for both level and index inputs.
TEST(EncodingTest, BitPackingOfEveryWidthRoundTrips) {
  std::mt19937 rng(9);
  for (int bw = 1; bw <= 32; ++bw) {
    const uint64_t maxv = bw == 32 ? 0xFFFFFFFFull : ((1ull << bw) - 1);
    for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 100, 1001}) {
      std::vector<uint32_t> v(static_cast<size_t>(n));
      for (auto& x : v) x = static_cast<uint32_t>(rng() & maxv);
      if (n > 1) v[1] = static_cast<uint32_t>(maxv);  // the widest value
      std::string enc;
      RleEncode(v.data(), n, bw, &enc);
      std::vector<uint32_t> out(v.size());
      RleDecoder dec(reinterpret_cast<const uint8_t*>(enc.data()),
                     static_cast<int64_t>(enc.size()), bw);
      ASSERT_TRUE(dec.Get(out.data(), n).ok()) << bw << " " << n;
      EXPECT_EQ(out, v) << bw << " " << n;
      if (bw > 15) continue;
      std::vector<int16_t> levels(v.begin(), v.end());
      MappedString lenc;
      RleEncode(levels.data(), n, bw, &lenc);
      EXPECT_EQ(std::string(lenc), enc) << bw << " " << n;
    }
  }
}

// The hybrid encoding as first written, value by value and bit by bit: the encoder (runs
// found 4 values at a time, groups packed per bit width) must give its bytes.
std::string ModelRle(const std::vector<uint32_t>& v, int bw) {
  std::string out;
  auto varint = [&](uint64_t x) {
    for (; x >= 0x80; x >>= 7) out.push_back(static_cast<char>((x & 0x7F) | 0x80));
    out.push_back(static_cast<char>(x));
  };
  auto packed = [&](int64_t b, int64_t count) {
    const int64_t groups = (count + 7) / 8;
    varint(static_cast<uint64_t>(groups) << 1 | 1);
    std::string bytes(static_cast<size_t>(groups * bw), '\0');
    for (int64_t j = 0; j < count; ++j) {
      for (int t = 0; t < bw; ++t) {
        const int64_t bit = j * bw + t;
        if (v[static_cast<size_t>(b + j)] >> t & 1)
          bytes[static_cast<size_t>(bit / 8)] |= static_cast<char>(1 << (bit % 8));
      }
    }
    out += bytes;
  };
  const auto n = static_cast<int64_t>(v.size());
  int64_t packed_from = 0, i = 0;
  while (i < n) {
    int64_t r = 1;
    while (i + r < n && v[static_cast<size_t>(i + r)] == v[static_cast<size_t>(i)]) ++r;
    if (r < 8) {
      i += r;
      continue;
    }
    if (packed_from < i) {
      const int64_t k = (8 - (i - packed_from) % 8) % 8;
      i += k;
      r -= k;
      packed(packed_from, i - packed_from);
    }
    varint(static_cast<uint64_t>(r) << 1);
    for (int b = 0; b < (bw + 7) / 8; ++b)
      out.push_back(static_cast<char>((v[static_cast<size_t>(i)] >> (8 * b)) & 0xFF));
    i += r;
    packed_from = i;
  }
  if (packed_from < n) packed(packed_from, n - packed_from);
  return out;
}

TEST(EncodingTest, RleEncodeMatchesTheValueByValueModel) {
  std::mt19937 rng(17);
  for (int round = 0; round < 3000; ++round) {
    const int bw = 1 + round % 32;
    const uint64_t maxv = bw == 32 ? 0xFFFFFFFFull : ((1ull << bw) - 1);
    // Runs of 1..20 of a few values (runs of 7, 8 and 9 meet at any alignment),
    // periodic stretches and random ones.
    const int alphabet = 1 + static_cast<int>(rng() % 4);
    std::vector<uint32_t> v;
    const int64_t n = static_cast<int64_t>(rng() % (round % 10 == 0 ? 3000 : 120));
    while (static_cast<int64_t>(v.size()) < n) {
      const uint32_t x = static_cast<uint32_t>(
          rng() % 3 == 0 ? rng() & maxv
                         : (rng() % static_cast<uint32_t>(alphabet)) & maxv);
      const int kind = static_cast<int>(rng() % 4);
      const int len = 1 + static_cast<int>(rng() % 20);
      for (int k = 0; k < len; ++k) {
        if (kind == 3) {
          v.push_back(static_cast<uint32_t>(k % 2 ? x : (x + 1) & maxv));
        } else {
          v.push_back(x);
        }
      }
    }
    v.resize(static_cast<size_t>(n));
    std::string enc;
    RleEncode(v.data(), n, bw, &enc);
    ASSERT_EQ(enc, ModelRle(v, bw)) << "round " << round << " bw " << bw << " n " << n;
    if (bw <= 15) {
      std::vector<int16_t> levels(v.begin(), v.end());
      MappedString lenc;
      RleEncode(levels.data(), n, bw, &lenc);
      ASSERT_EQ(std::string(lenc), enc) << "round " << round;
    }
  }
}

// A column without NULLs stores no definition levels; its pages encode them as
// RleEncodeRepeated, which must give RleEncode's bytes for the materialized levels.
TEST(EncodingTest, RleEncodeRepeatedMatchesRleEncode) {
  for (int bw : {1, 2, 3, 8, 9, 15}) {  // levels are int16: at most 15 bits
    const auto value = static_cast<uint32_t>((1u << bw) - 1);
    for (int64_t n : {0, 1, 2, 7, 8, 9, 63, 64, 65, 1000, 100000}) {
      std::vector<int16_t> levels(static_cast<size_t>(n), static_cast<int16_t>(value));
      MappedString want, got;
      RleEncode(levels.data(), n, bw, &want);
      RleEncodeRepeated(value, n, bw, &got);
      EXPECT_EQ(got, want) << bw << " " << n;
    }
  }
}

TEST(EncodingTest, UnpackBits) {
  // 3-bit values 0..7 packed LSB first: the spec's example bytes.
  const uint8_t in[] = {0x88, 0xC6, 0xFA};
  uint32_t out[8];
  UnpackBits(in, 3, 8, out);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
}

// Test-only DELTA_BINARY_PACKED encoder (block 128, 4 miniblocks of 32).
std::string EncodeDelta(const std::vector<int64_t>& v) {
  std::string out;
  auto varint = [&](uint64_t x) {
    while (x >= 0x80) {
      out.push_back(static_cast<char>((x & 0x7F) | 0x80));
      x >>= 7;
    }
    out.push_back(static_cast<char>(x));
  };
  auto zz = [](int64_t x) {
    return (static_cast<uint64_t>(x) << 1) ^ static_cast<uint64_t>(x >> 63);
  };
  varint(128);
  varint(4);
  varint(v.size());
  varint(v.empty() ? 0 : zz(v[0]));
  for (size_t b = 1; b < v.size(); b += 128) {
    std::vector<int64_t> d;
    for (size_t i = b; i < std::min(v.size(), b + 128); ++i)
      d.push_back(static_cast<int64_t>(static_cast<uint64_t>(v[i]) -
                                       static_cast<uint64_t>(v[i - 1])));
    int64_t mn = *std::min_element(d.begin(), d.end());
    d.resize(128, mn);
    varint(zz(mn));
    std::string widths(4, '\0'), data;
    for (int m = 0; m < 4; ++m) {
      uint64_t mx = 0;
      for (int j = 0; j < 32; ++j)
        mx = std::max<uint64_t>(
            mx, static_cast<uint64_t>(d[m * 32 + j]) - static_cast<uint64_t>(mn));
      int bw = BitWidth(mx);
      widths[m] = static_cast<char>(bw);
      unsigned __int128 acc = 0;
      int bits = 0;
      for (int j = 0; j < 32; ++j) {
        acc |= static_cast<unsigned __int128>(static_cast<uint64_t>(d[m * 32 + j]) -
                                              static_cast<uint64_t>(mn))
               << bits;
        bits += bw;
        while (bits >= 8) {
          data.push_back(static_cast<char>(static_cast<uint8_t>(acc)));
          acc >>= 8;
          bits -= 8;
        }
      }
    }
    out += widths + data;
  }
  return out;
}

TEST(EncodingTest, DeltaBinaryPacked) {
  std::vector<int64_t> v = {7, 5, 3, 1, 2, 3, 4, 5};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) v.push_back(static_cast<int64_t>(rng() >> (rng() % 64)));
  v.push_back(INT64_MIN);
  v.push_back(INT64_MAX);
  std::string enc = EncodeDelta(v);
  std::vector<int64_t> out;
  int64_t used;
  ASSERT_TRUE(DecodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(enc.data()),
                                      static_cast<int64_t>(enc.size()),
                                      static_cast<int64_t>(v.size()), &out, &used)
                  .ok());
  EXPECT_EQ(out, v);
  EXPECT_EQ(used, static_cast<int64_t>(enc.size()));
  // More values than allowed, and truncations, fail.
  EXPECT_FALSE(DecodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(enc.data()),
                                       static_cast<int64_t>(enc.size()), 10, &out, &used)
                   .ok());
  for (size_t cut = 0; cut < enc.size() / 2; cut += 7) {
    EXPECT_FALSE(DecodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(enc.data()),
                                         static_cast<int64_t>(cut),
                                         static_cast<int64_t>(v.size()), &out, &used)
                     .ok());
  }
}

TEST(EncodingTest, DeltaByteArrays) {
  std::vector<std::string> vals = {"apple", "applesauce", "apply", "banana", "", "band"};
  // DELTA_LENGTH_BYTE_ARRAY
  std::vector<int64_t> lens;
  std::string bytes;
  for (const auto& s : vals) {
    lens.push_back(static_cast<int64_t>(s.size()));
    bytes += s;
  }
  std::string dlba = EncodeDelta(lens) + bytes;
  std::vector<int32_t> off;
  std::string data;
  ASSERT_TRUE(DecodeDeltaLengthByteArray(reinterpret_cast<const uint8_t*>(dlba.data()),
                                         static_cast<int64_t>(dlba.size()), 6, &off,
                                         &data)
                  .ok());
  for (size_t i = 0; i < vals.size(); ++i)
    EXPECT_EQ(data.substr(off[i], off[i + 1] - off[i]), vals[i]);
  // DELTA_BYTE_ARRAY: prefix lengths + DLBA suffixes.
  std::vector<int64_t> pre = {0, 5, 4, 0, 0, 0};
  std::vector<int64_t> suf_len;
  std::string suf;
  for (size_t i = 0; i < vals.size(); ++i) {
    std::string s = vals[i].substr(static_cast<size_t>(pre[i]));
    suf_len.push_back(static_cast<int64_t>(s.size()));
    suf += s;
  }
  std::string dba = EncodeDelta(pre) + EncodeDelta(suf_len) + suf;
  ASSERT_TRUE(DecodeDeltaByteArray(reinterpret_cast<const uint8_t*>(dba.data()),
                                   static_cast<int64_t>(dba.size()), 6, &off, &data)
                  .ok());
  for (size_t i = 0; i < vals.size(); ++i)
    EXPECT_EQ(data.substr(off[i], off[i + 1] - off[i]), vals[i]);
  // A prefix longer than the previous value is corrupt.
  std::string bad = EncodeDelta({3, 0}) + EncodeDelta({1, 1}) + "ab";
  EXPECT_FALSE(DecodeDeltaByteArray(reinterpret_cast<const uint8_t*>(bad.data()),
                                    static_cast<int64_t>(bad.size()), 2, &off, &data)
                   .ok());
}

TEST(EncodingTest, ByteStreamSplit) {
  const float in[3] = {1.5f, -2.25f, 1e30f};
  std::string split(12, '\0');
  const auto* src = reinterpret_cast<const uint8_t*>(in);
  for (int i = 0; i < 3; ++i) {
    for (int b = 0; b < 4; ++b) split[b * 3 + i] = static_cast<char>(src[i * 4 + b]);
  }
  float out[3];
  UnsplitByteStreams(reinterpret_cast<const uint8_t*>(split.data()), 3, 4,
                     reinterpret_cast<uint8_t*>(out));
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[1], -2.25f);
  EXPECT_EQ(out[2], 1e30f);
}

// Page CRCs are computed by carry-less multiplication from 64 bytes on: zlib's value for
// every length around the 16- and 64-byte folds and any alignment.
TEST(CompressionTest, Crc32MatchesZlib) {
  std::mt19937 rng(5);
  std::vector<uint8_t> data(300000);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 260; ++n) lengths.push_back(n);
  for (int64_t n : {1023, 1024, 4097, 65536, 299990}) lengths.push_back(n);
  for (int64_t n : lengths) {
    for (size_t off : {0, 1, 7}) {
      const uint8_t* p = data.data() + off;
      EXPECT_EQ(Crc32(p, n), static_cast<uint32_t>(crc32(0, p, static_cast<uInt>(n))))
          << n << " at " << off;
    }
  }
  std::vector<uint8_t> ones(1000, 0xFF);
  EXPECT_EQ(Crc32(ones.data(), 1000), static_cast<uint32_t>(crc32(0, ones.data(), 1000)));
}

// The writer's page buffer is reused: a long page, then shorter ones, each decompressing
// to its own bytes.
TEST(CompressionTest, CompressReusingKeepsTheBufferAcrossPages) {
  for (Codec c : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                  Codec::kLz4Raw}) {
    MappedString buf;
    for (size_t n : {100000, 10, 0, 5000, 100001}) {
      std::string in;
      for (size_t i = 0; i < n; ++i) in.push_back(static_cast<char>('a' + (i * i) % 7));
      auto len = CompressReusing(c, reinterpret_cast<const uint8_t*>(in.data()),
                                 static_cast<int64_t>(n), &buf);
      ASSERT_TRUE(len.ok()) << len.status().ToString();
      ASSERT_LE(static_cast<size_t>(*len), buf.size());
      std::string out(n, '\0');
      ASSERT_TRUE(Decompress(c, reinterpret_cast<const uint8_t*>(buf.data()), *len,
                             reinterpret_cast<uint8_t*>(out.data()),
                             static_cast<int64_t>(n))
                      .ok())
          << CodecName(c) << " " << n;
      EXPECT_EQ(out, in) << CodecName(c) << " " << n;
    }
  }
}

TEST(CompressionTest, EveryCodecRoundTrips) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += std::to_string(i % 977) + ",";
  for (Codec c : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                  Codec::kLz4Raw}) {
    std::string comp;
    ASSERT_TRUE(Compress(c, reinterpret_cast<const uint8_t*>(data.data()),
                         static_cast<int64_t>(data.size()), &comp)
                    .ok());
    if (c != Codec::kUncompressed)
      EXPECT_LT(comp.size(), data.size() / 2) << CodecName(c);
    std::string out(data.size(), '\0');
    ASSERT_TRUE(Decompress(c, reinterpret_cast<const uint8_t*>(comp.data()),
                           static_cast<int64_t>(comp.size()),
                           reinterpret_cast<uint8_t*>(out.data()),
                           static_cast<int64_t>(out.size()))
                    .ok())
        << CodecName(c);
    EXPECT_EQ(out, data);
    // Wrong expected size and garbage fail cleanly.
    std::string small(10, '\0');
    if (c != Codec::kUncompressed) {
      EXPECT_FALSE(Decompress(c, reinterpret_cast<const uint8_t*>(comp.data()),
                              static_cast<int64_t>(comp.size()),
                              reinterpret_cast<uint8_t*>(small.data()), 10)
                       .ok());
      std::string junk = "this is not compressed data at all";
      EXPECT_FALSE(Decompress(c, reinterpret_cast<const uint8_t*>(junk.data()),
                              static_cast<int64_t>(junk.size()),
                              reinterpret_cast<uint8_t*>(out.data()),
                              static_cast<int64_t>(out.size()))
                       .ok());
    }
  }
  EXPECT_EQ(*ParseCodecName("SNAPPY"), Codec::kSnappy);
  EXPECT_EQ(*ParseCodecName("none"), Codec::kUncompressed);
  EXPECT_ERROR_CLASS(ParseCodecName("bzip9"),
                     "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION");
}

// ---------------------------------------------------------------------------------------
// Writer -> reader round trips

struct RoundTrip {
  std::shared_ptr<io::MemoryFileSystem> fs = std::make_shared<io::MemoryFileSystem>();

  Result<std::vector<BatchPtr>> Run(
      const std::vector<BatchPtr>& batches, WriterOptions opt = {},
      std::shared_ptr<ParquetFileReader>* reader_out = nullptr) {
    SPATE_ASSIGN_OR_RETURN(auto file, fs->Create("/t.parquet"));
    SPATE_ASSIGN_OR_RETURN(
        auto w,
        ParquetWriter::Make(std::move(file), *batches[0]->schema(), std::move(opt)));
    for (const auto& b : batches) SPATE_RETURN_IF_ERROR(w->Write(b));
    SPATE_RETURN_IF_ERROR(w->Close());
    SPATE_ASSIGN_OR_RETURN(auto r, ParquetFileReader::Open(fs, "/t.parquet"));
    if (reader_out) *reader_out = r;
    return r->ReadAll();
  }
};

std::vector<std::vector<Value>> Rows(const std::vector<BatchPtr>& batches) {
  std::vector<std::vector<Value>> rows;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) rows.push_back(b->GetRow(i));
  }
  return rows;
}

BatchPtr MakeBatch(const std::vector<Field>& fields,
                   const std::vector<std::vector<Value>>& cols) {
  std::vector<ColumnPtr> columns;
  for (size_t i = 0; i < fields.size(); ++i)
    columns.push_back(ColumnFromValues(fields[i].type, cols[i]));
  return Batch::Make(std::make_shared<const Schema>(fields), columns,
                     cols.empty() ? 0 : static_cast<int64_t>(cols[0].size()));
}

void ExpectSameRows(const std::vector<BatchPtr>& a, const std::vector<BatchPtr>& b) {
  auto ra = Rows(a), rb = Rows(b);
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t i = 0; i < ra.size(); ++i) {
    ASSERT_EQ(ra[i].size(), rb[i].size());
    for (size_t j = 0; j < ra[i].size(); ++j) {
      EXPECT_EQ(ra[i][j], rb[i][j])
          << "row " << i << " col " << j << ": " << ra[i][j].ToString() << " vs "
          << rb[i][j].ToString();
    }
  }
}

BatchPtr AllTypesBatch(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto dec_small = DataType::Decimal(9, 2);
  auto dec_mid = DataType::Decimal(18, 4);
  auto dec_big = DataType::Decimal(38, 10);
  auto arr_t = DataType::Array(DataType::Int());
  auto map_t = DataType::Map(DataType::String(), DataType::Long());
  auto struct_t = DataType::Struct(
      {Field{"a", DataType::Int(), true}, Field{"b", DataType::String(), true}});
  auto nested_t = DataType::Array(
      DataType::Struct({Field{"x", DataType::Array(DataType::String()), true},
                        Field{"y", DataType::Double(), true}}));
  std::vector<Field> fields = {
      {"bool", DataType::Boolean()},
      {"byte", DataType::Byte()},
      {"short", DataType::Short()},
      {"int", DataType::Int()},
      {"long", DataType::Long()},
      {"float", DataType::Float()},
      {"double", DataType::Double()},
      {"dec9", dec_small},
      {"dec18", dec_mid},
      {"dec38", dec_big},
      {"str", DataType::String()},
      {"bin", DataType::Binary()},
      {"date", DataType::Date()},
      {"ts", DataType::Timestamp()},
      {"ntz", DataType::TimestampNtz()},
      {"arr", arr_t},
      {"map", map_t},
      {"st", struct_t},
      {"nested", nested_t},
      {"req", DataType::Long(), false},
  };
  std::vector<std::vector<Value>> cols(fields.size());
  auto null_or = [&](Value v, const DataTypePtr& t) {
    return rng() % 5 == 0 ? Value::Null(t) : std::move(v);
  };
  for (int64_t i = 0; i < n; ++i) {
    int32_t r = static_cast<int32_t>(rng());
    cols[0].push_back(null_or(Value::Boolean(r & 1), fields[0].type));
    cols[1].push_back(null_or(Value::Byte(static_cast<int8_t>(r)), fields[1].type));
    cols[2].push_back(null_or(Value::Short(static_cast<int16_t>(r)), fields[2].type));
    cols[3].push_back(null_or(Value::Int(i % 3 == 0 ? INT32_MIN : r), fields[3].type));
    cols[4].push_back(
        null_or(Value::Long(static_cast<int64_t>(r) * 1000003), fields[4].type));
    cols[5].push_back(null_or(Value::Float(i % 7 == 0 ? NAN : static_cast<float>(r) / 3),
                              fields[5].type));
    cols[6].push_back(
        null_or(Value::Double(i % 11 == 0 ? -0.0 : r / 7.0), fields[6].type));
    cols[7].push_back(null_or(Value::Decimal(r % 1000000000, 9, 2), dec_small));
    cols[8].push_back(
        null_or(Value::Decimal(static_cast<__int128>(r) * 100000000, 18, 4), dec_mid));
    __int128 big =
        static_cast<__int128>(r) * static_cast<__int128>(1000000000000000000LL) * 100;
    cols[9].push_back(null_or(Value::Decimal(i % 2 ? big : -big, 38, 10), dec_big));
    cols[10].push_back(
        null_or(Value::String(i % 4 == 0 ? "" : "s" + std::to_string(r % 50) + "é"),
                fields[10].type));
    cols[11].push_back(null_or(
        Value::Binary(std::string("\0\xff", 2) + std::to_string(r)), fields[11].type));
    cols[12].push_back(null_or(Value::Date(r % 100000), fields[12].type));
    cols[13].push_back(
        null_or(Value::Timestamp(static_cast<int64_t>(r) * 123456), fields[13].type));
    cols[14].push_back(
        null_or(Value::TimestampNtz(-static_cast<int64_t>(r) * 7), fields[14].type));
    std::vector<Value> items;
    for (int k = 0; k < static_cast<int>(rng() % 4); ++k) {
      items.push_back(rng() % 4 == 0 ? Value::Null(DataType::Int())
                                     : Value::Int(static_cast<int32_t>(rng() % 100)));
    }
    cols[15].push_back(null_or(Value::ArrayOf(arr_t, items), arr_t));
    std::vector<Value> keys, vals;
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      keys.push_back(Value::String("k" + std::to_string(k)));
      vals.push_back(rng() % 3 == 0 ? Value::Null(DataType::Long())
                                    : Value::Long(static_cast<int64_t>(rng())));
    }
    cols[16].push_back(null_or(Value::Map(map_t, keys, vals), map_t));
    cols[17].push_back(null_or(
        Value::Struct(struct_t,
                      {null_or(Value::Int(r), DataType::Int()),
                       null_or(Value::String(std::to_string(i)), DataType::String())}),
        struct_t));
    std::vector<Value> outer;
    const auto& elem_t = nested_t->element_type();
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      std::vector<Value> xs;
      for (int m = 0; m < static_cast<int>(rng() % 3); ++m)
        xs.push_back(Value::String("x" + std::to_string(m)));
      outer.push_back(
          rng() % 4 == 0
              ? Value::Null(elem_t)
              : Value::Struct(elem_t, {rng() % 3 == 0
                                           ? Value::Null(elem_t->fields()[0].type)
                                           : Value::ArrayOf(elem_t->fields()[0].type, xs),
                                       Value::Double(k * 0.5)}));
    }
    cols[18].push_back(null_or(Value::ArrayOf(nested_t, outer), nested_t));
    cols[19].push_back(Value::Long(i));
  }
  return MakeBatch(fields, cols);
}

class RoundTripCodecTest : public ::testing::TestWithParam<Codec> {};

TEST_P(RoundTripCodecTest, EveryTypeWithNullsAndNesting) {
  auto b = AllTypesBatch(3000, 11);
  WriterOptions opt;
  opt.codec = GetParam();
  opt.page_bytes = 4096;  // many pages
  RoundTrip rt;
  std::shared_ptr<ParquetFileReader> reader;
  auto out = rt.Run({b}, opt, &reader);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameRows({b}, *out);
  EXPECT_EQ(reader->metadata().created_by, "spate version 0.1.0");
  EXPECT_TRUE(reader->schema()->field(9).type->Equals(*DataType::Decimal(38, 10)));
}

INSTANTIATE_TEST_SUITE_P(Codecs, RoundTripCodecTest,
                         ::testing::Values(Codec::kUncompressed, Codec::kSnappy,
                                           Codec::kGzip, Codec::kZstd, Codec::kLz4Raw),
                         [](const auto& info) {
                           return std::string(CodecName(info.param));
                         });

// Lists of flat elements and structs without lists are shredded column by column; a NULL
// list whose offsets still span child elements (Arrow allows it) and list offsets that do
// not start at 0 must shred as the row-by-row path does: the NULL row holds no elements.
TEST(RoundTripTest, ColumnWiseShreddingOfListsAndStructs) {
  auto elem_t = DataType::Struct(
      {Field{"a", DataType::Int(), true}, Field{"b", DataType::String(), true}});
  auto list_t = DataType::Array(elem_t);
  auto deep_t =
      DataType::Struct({Field{"s", elem_t, true}, Field{"c", DataType::Long(), false}});
  std::mt19937 rng(5);
  // Elements 0..(2 + n*3); row i's list is [o[i], o[i+1]) starting at element 2.
  const int64_t n = 500;
  std::vector<Value> as, bs;
  std::vector<uint8_t> svalid;
  std::vector<int32_t> offsets{2};
  std::vector<uint8_t> row_valid;
  std::vector<std::vector<Value>> expected_lists;
  for (int64_t e = 0; e < 2; ++e) {
    as.push_back(Value::Int(-1));
    bs.push_back(Value::String("unused"));
    svalid.push_back(1);
  }
  for (int64_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng() % 4);
    const bool null_row = rng() % 5 == 0;
    std::vector<Value> items;
    for (int j = 0; j < k; ++j) {
      Value a = rng() % 4 == 0 ? Value::Null(DataType::Int())
                               : Value::Int(static_cast<int32_t>(rng() % 9));
      Value b = rng() % 4 == 0 ? Value::Null(DataType::String())
                               : Value::String("v" + std::to_string(rng() % 7));
      const bool null_elem = rng() % 6 == 0;
      as.push_back(a);
      bs.push_back(b);
      svalid.push_back(!null_elem);
      items.push_back(null_elem ? Value::Null(elem_t) : Value::Struct(elem_t, {a, b}));
    }
    offsets.push_back(offsets.back() + k);
    row_valid.push_back(!null_row);
    expected_lists.push_back(items);
  }
  // The element struct column: validity from svalid.
  const int64_t ne = static_cast<int64_t>(as.size());
  auto ea = ColumnFromValues(DataType::Int(), as);
  auto eb = ColumnFromValues(DataType::String(), bs);
  BufferPtr ev = Buffer::Allocate(bits::BytesFor(ne));
  int64_t enulls = 0;
  for (int64_t e = 0; e < ne; ++e) {
    if (svalid[e])
      bits::Set(ev->mutable_data(), e);
    else
      ++enulls;
  }
  auto elems = std::make_shared<const Column>(elem_t, ne, enulls, ev, nullptr, nullptr,
                                              std::vector<ColumnPtr>{ea, eb});
  BufferPtr lv = Buffer::Allocate(bits::BytesFor(n));
  int64_t lnulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (row_valid[i])
      bits::Set(lv->mutable_data(), i);
    else
      ++lnulls;
  }
  BufferPtr lo = Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 4);
  std::memcpy(lo->mutable_data(), offsets.data(), offsets.size() * 4);
  auto lists = std::make_shared<const Column>(list_t, n, lnulls, lv, lo, nullptr,
                                              std::vector<ColumnPtr>{elems});
  // A struct column with a nested struct and a required field.
  std::vector<Value> deep;
  for (int64_t i = 0; i < n; ++i) {
    Value inner = rng() % 3 == 0
                      ? Value::Null(elem_t)
                      : Value::Struct(elem_t, {Value::Int(static_cast<int32_t>(i)),
                                               rng() % 2 ? Value::Null(DataType::String())
                                                         : Value::String("d")});
    deep.push_back(rng() % 4 == 0 ? Value::Null(deep_t)
                                  : Value::Struct(deep_t, {inner, Value::Long(i)}));
  }
  auto deep_col = ColumnFromValues(deep_t, deep);
  std::vector<Field> fields = {{"l", list_t}, {"d", deep_t}};
  auto batch = Batch::Make(std::make_shared<const Schema>(fields), {lists, deep_col}, n);
  WriterOptions opt;
  opt.page_bytes = 512;  // many pages
  RoundTrip rt;
  auto out = rt.Run({batch, batch}, opt);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto rows = Rows(*out);
  ASSERT_EQ(rows.size(), static_cast<size_t>(2 * n));
  for (int64_t r = 0; r < 2 * n; ++r) {
    const int64_t i = r % n;
    Value want =
        row_valid[i] ? Value::ArrayOf(list_t, expected_lists[i]) : Value::Null(list_t);
    EXPECT_EQ(rows[r][0], want) << "row " << r << ": " << rows[r][0].ToString();
    EXPECT_EQ(rows[r][1], deep[i]) << "row " << r;
  }
}

TEST(RoundTripTest, SchemaAsSparkWritesIt) {
  auto b = AllTypesBatch(10, 1);
  RoundTrip rt;
  std::shared_ptr<ParquetFileReader> reader;
  ASSERT_TRUE(rt.Run({b}, {}, &reader).ok());
  const auto& el = reader->metadata().schema;
  auto find = [&](const std::string& name) -> const SchemaElement& {
    for (const auto& e : el) {
      if (e.name == name) return e;
    }
    static SchemaElement none;
    return none;
  };
  EXPECT_EQ(find("dec9").type, PhysicalType::kInt32);
  EXPECT_EQ(find("dec18").type, PhysicalType::kInt64);
  EXPECT_EQ(find("dec38").type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(find("dec38").type_length, 16);
  EXPECT_EQ(find("str").logical_type.kind, LogicalType::kString);
  EXPECT_EQ(find("ts").logical_type.kind, LogicalType::kTimestamp);
  EXPECT_TRUE(find("ts").logical_type.is_adjusted_to_utc);
  EXPECT_FALSE(find("ntz").logical_type.is_adjusted_to_utc);
  EXPECT_EQ(find("arr").converted_type, ConvertedType::kList);
  EXPECT_EQ(find("list").repetition, Repetition::kRepeated);
  EXPECT_EQ(find("key_value").repetition, Repetition::kRepeated);
  EXPECT_EQ(find("req").repetition, Repetition::kRequired);
  EXPECT_EQ(find("byte").logical_type.bit_width, 8);
  EXPECT_EQ(DecimalBytes(38), 16);
  EXPECT_EQ(DecimalBytes(19), 9);
  EXPECT_EQ(DecimalBytes(10), 5);
}

TEST(RoundTripTest, ManyRowGroupsStatsAndDictionaryFallback) {
  std::vector<BatchPtr> batches;
  for (int k = 0; k < 10; ++k) {
    std::vector<Value> ids, cat, uniq;
    for (int i = 0; i < 1000; ++i) {
      ids.push_back(Value::Long(k * 1000 + i));
      cat.push_back(Value::String("cat" + std::to_string(i % 5)));
      uniq.push_back(
          Value::String(std::string(100, 'a' + (i % 26)) + std::to_string(k * 1000 + i)));
    }
    batches.push_back(MakeBatch({{"id", DataType::Long()},
                                 {"cat", DataType::String()},
                                 {"u", DataType::String()}},
                                {ids, cat, uniq}));
  }
  WriterOptions opt;
  opt.row_group_rows = 2000;
  opt.dictionary_page_bytes = 64 * 1024;
  RoundTrip rt;
  std::shared_ptr<ParquetFileReader> reader;
  auto out = rt.Run(batches, opt, &reader);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameRows(batches, *out);
  ASSERT_EQ(reader->num_row_groups(), 5);
  auto st = reader->Stats(2, 0);
  ASSERT_TRUE(st.has_min_max);
  EXPECT_EQ(st.min, Value::Long(4000));
  EXPECT_EQ(st.max, Value::Long(5999));
  EXPECT_EQ(st.null_count, 0);
  auto cs = reader->Stats(0, 1);
  EXPECT_EQ(cs.min, Value::String("cat0"));
  EXPECT_EQ(cs.max, Value::String("cat4"));
  const auto& md = reader->metadata();
  auto has = [](const ColumnMetaData& m, Encoding e) {
    return std::find(m.encodings.begin(), m.encodings.end(), e) != m.encodings.end();
  };
  EXPECT_TRUE(has(md.row_groups[0].columns[1].meta_data,
                  Encoding::kRleDictionary));  // 5 distinct
  EXPECT_FALSE(has(md.row_groups[0].columns[2].meta_data,
                   Encoding::kRleDictionary));  // > 64 KB: PLAIN
  // Projection: only column 1.
  auto b = reader->ReadRowGroup(1, {1});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->num_columns(), 1);
  EXPECT_EQ((*b)->schema()->field(0).name, "cat");
  EXPECT_EQ((*b)->num_rows(), 2000);
}

// Chunks whose values cannot all fit a dictionary have their distinct count estimated
// before one is built: the encoding must still be the one building it decides —
// dictionary when the distinct values fit dictionary_page_bytes, PLAIN when they do not —
// for random cardinalities on both sides of the limit, every fixed width, with NULLs.
TEST(RoundTripTest, DictionaryEstimateKeepsTheEncodingBuildingDecides) {
  std::mt19937_64 rng(23);
  constexpr int64_t kLimit = 16 * 1024;  // 2048 longs/doubles, 4096 ints
  const std::vector<DataTypePtr> types = {DataType::Long(), DataType::Double(),
                                          DataType::Int(), DataType::Date()};
  for (int round = 0; round < 40; ++round) {
    const DataTypePtr& type = types[static_cast<size_t>(round) % types.size()];
    const int64_t width =
        type->id() == TypeId::kLong || type->id() == TypeId::kDouble ? 8 : 4;
    const int64_t fit = kLimit / width;
    // Distinct counts from far below to far above the limit, the edges included.
    const int64_t distinct = std::max<int64_t>(
        1, round % 5 == 0 ? fit
           : round % 5 == 1
               ? fit + 1
               : static_cast<int64_t>(rng() % static_cast<uint64_t>(4 * fit)));
    const int64_t rows =
        std::max<int64_t>(distinct, fit + 1 + static_cast<int64_t>(rng() % (3 * fit)));
    // Every one of the distinct values appears, then random repeats; shuffled.
    std::vector<int64_t> keys(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i)
      keys[static_cast<size_t>(i)] =
          i < distinct ? i
                       : static_cast<int64_t>(rng() % static_cast<uint64_t>(distinct));
    std::shuffle(keys.begin(), keys.end(), rng);
    std::vector<Value> vals;
    for (int64_t k : keys) {
      const int64_t x = k * 7919 - 100000;  // distinct keys, distinct values
      if (rng() % 50 == 0) vals.push_back(Value::Null(type));  // NULLs are no entries
      switch (type->id()) {
        case TypeId::kLong:
          vals.push_back(Value::Long(x));
          break;
        case TypeId::kDouble:
          vals.push_back(Value::Double(static_cast<double>(x) / 8));
          break;
        case TypeId::kInt:
          vals.push_back(Value::Int(static_cast<int32_t>(x)));
          break;
        default:
          vals.push_back(Value::Date(static_cast<int32_t>(x / 1000)));
          break;
      }
    }
    // Dates repeat (x / 1000): count what the column really holds.
    std::set<std::string> seen;
    for (const auto& v : vals)
      if (!v.is_null()) seen.insert(v.ToString());
    const bool fits = static_cast<int64_t>(seen.size()) * width <= kLimit;
    auto batch = MakeBatch({{"c", type}}, {vals});
    WriterOptions opt;
    opt.dictionary_page_bytes = kLimit;
    RoundTrip rt;
    std::shared_ptr<ParquetFileReader> reader;
    auto out = rt.Run({batch}, opt, &reader);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameRows({batch}, *out);
    const auto& m = reader->metadata().row_groups[0].columns[0].meta_data;
    EXPECT_EQ(m.has_dictionary_page_offset, fits)
        << type->Sql() << " " << seen.size() << " distinct of " << vals.size();
  }
}

// A row group's bytes do not depend on how its rows came in batches. A column chunk
// stores no definition levels while its batches hold no NULL (they are all max_def:
// one run per page) and stores them from the first batch that has one; split at random
// points, the same rows give the same file, as one batch and as several, across many
// pages and with struct fields of never-NULL and sometimes-NULL structs and lists.
TEST(RoundTripTest, BatchSplitsKeepTheBytes) {
  std::mt19937_64 rng(31);
  auto st_t = DataType::Struct(
      {Field{"a", DataType::Long(), true}, Field{"b", DataType::String(), true}});
  auto list_t = DataType::Array(DataType::String());
  const std::vector<Field> fields = {{"l", DataType::Long()},
                                     {"s", DataType::String()},
                                     {"d", DataType::Double()},
                                     {"st", st_t},
                                     {"lst", list_t},
                                     {"req", DataType::Int(), false},
                                     {"dec", DataType::Decimal(20, 0)}};
  auto write = [&](const std::vector<BatchPtr>& batches, const WriterOptions& opt) {
    RoundTrip rt;
    auto out = rt.Run(batches, opt);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (out.ok()) ExpectSameRows(batches, *out);
    return *rt.fs->ReadAll("/t.parquet");
  };
  for (int round = 0; round < 12; ++round) {
    const int64_t rows = 500 + static_cast<int64_t>(rng() % 3000);
    // NULLs only in some stretches of rows (so that some pieces have none), per column.
    std::vector<std::pair<int64_t, int64_t>> null_spans(fields.size());
    for (auto& sp : null_spans) {
      const int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(rows));
      sp = {b, round % 3 == 0 ? b : b + static_cast<int64_t>(rng() % 400)};
    }
    auto null_at = [&](size_t c, int64_t i) {
      return i >= null_spans[c].first && i < null_spans[c].second && rng() % 3 != 0;
    };
    std::vector<std::vector<Value>> cols(fields.size());
    for (int64_t i = 0; i < rows; ++i) {
      const auto r = static_cast<int64_t>(rng() % 1000);
      cols[0].push_back(null_at(0, i) ? Value::Null(DataType::Long())
                                      : Value::Long(round % 2 ? r : i));
      cols[1].push_back(
          null_at(1, i) ? Value::Null(DataType::String())
                        : Value::String(std::string("s").append(std::to_string(r % 37))));
      cols[2].push_back(null_at(2, i) ? Value::Null(DataType::Double())
                                      : Value::Double(static_cast<double>(r) / 4));
      cols[3].push_back(null_at(3, i)
                            ? Value::Null(st_t)
                            : Value::Struct(st_t, {rng() % 5 == 0 && i > rows / 2
                                                       ? Value::Null(DataType::Long())
                                                       : Value::Long(r),
                                                   Value::String(std::to_string(i))}));
      std::vector<Value> items;
      for (int k = 0; k < static_cast<int>(rng() % 3); ++k)
        items.push_back(Value::String(std::string("t").append(std::to_string(k))));
      cols[4].push_back(null_at(4, i) ? Value::Null(list_t)
                                      : Value::ArrayOf(list_t, items));
      cols[5].push_back(Value::Int(static_cast<int32_t>(i)));
      cols[6].push_back(null_at(6, i) ? Value::Null(fields[6].type)
                                      : Value::Decimal(r, 20, 0));
    }
    auto whole = MakeBatch(fields, cols);
    std::vector<BatchPtr> pieces;
    for (int64_t at = 0; at < rows;) {
      const int64_t len =
          std::min<int64_t>(rows - at, 1 + static_cast<int64_t>(rng() % 700));
      pieces.push_back(SliceBatch(*whole, at, len));
      at += len;
    }
    WriterOptions opt;
    opt.page_bytes = 256 + static_cast<int64_t>(rng() % 2048);  // many pages
    opt.enable_dictionary = round % 4 != 3;
    EXPECT_EQ(write({whole}, opt), write(pieces, opt)) << "round " << round;
  }
}

TEST(RoundTripTest, OptionalColumnsWithAndWithoutNulls) {
  // Optional flat columns without nulls take the dense path; with nulls, the scatter
  // path.
  std::vector<Value> a, b, s1, s2;
  for (int i = 0; i < 5000; ++i) {
    a.push_back(Value::Long(i));
    b.push_back(i % 3 ? Value::Long(i) : Value::Null(DataType::Long()));
    s1.push_back(Value::String("v" + std::to_string(i % 10)));
    s2.push_back(i % 4 ? Value::String("w" + std::to_string(i))
                       : Value::Null(DataType::String()));
  }
  auto batch = MakeBatch({{"a", DataType::Long()},
                          {"b", DataType::Long()},
                          {"s1", DataType::String()},
                          {"s2", DataType::String()}},
                         {a, b, s1, s2});
  RoundTrip rt;
  auto out = rt.Run({batch});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameRows({batch}, *out);
  EXPECT_EQ((*out)[0]->column(0)->null_count(), 0);
  EXPECT_EQ((*out)[0]->column(0)->validity(), nullptr);
  EXPECT_EQ((*out)[0]->column(1)->null_count(), 1667);
}

// Rewrites the footer of a file spate wrote so that its columns carry other annotations
// (as other writers produce them), then reads it back.
TEST(RoundTripTest, OtherWritersAnnotations) {
  std::vector<Value> t, u, w;
  for (int64_t i = 0; i < 100; ++i) {
    t.push_back(Value::Long(i * 1000003 - 50000000));
    u.push_back(Value::Int(static_cast<int32_t>(
        i * 50)));  // unsigned 8-bit values up to 250 (stored as INT32)
    w.push_back(Value::Long(i % 7 == 0 ? -1 : i));  // UINT_64: -1 is 2^64 - 1
  }
  auto batch = MakeBatch(
      {{"t", DataType::Long()}, {"u", DataType::Int()}, {"w", DataType::Long()}},
      {t, u, w});
  RoundTrip rt;
  ASSERT_TRUE(rt.Run({batch}).ok());
  std::string file = *rt.fs->ReadAll("/t.parquet");
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  FileMetaData md;
  ASSERT_TRUE(
      ReadFileMetaData(
          reinterpret_cast<const uint8_t*>(file.data() + file.size() - 8 - len), len, &md)
          .ok());
  for (TimeUnit unit : {TimeUnit::kNanos, TimeUnit::kMillis}) {
    FileMetaData m2 = md;
    m2.schema[1].logical_type.kind = LogicalType::kTimestamp;
    m2.schema[1].logical_type.unit = unit;
    m2.schema[1].logical_type.is_adjusted_to_utc = unit == TimeUnit::kNanos;
    m2.schema[2].converted_type = ConvertedType::kUint8;
    m2.schema[3].converted_type = ConvertedType::kUint64;
    std::string footer;
    WriteFileMetaData(m2, &footer);
    std::string f2 = file.substr(0, file.size() - 8 - len) + footer;
    uint32_t l2 = static_cast<uint32_t>(footer.size());
    f2.append(reinterpret_cast<const char*>(&l2), 4);
    f2 += "PAR1";
    ASSERT_TRUE(rt.fs->WriteAtomic("/a.parquet", f2).ok());
    auto r = ParquetFileReader::Open(rt.fs, "/a.parquet");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->schema()->ToString(),
              unit == TimeUnit::kNanos
                  ? "struct<t:timestamp,u:smallint,w:decimal(20,0)>"
                  : "struct<t:timestamp_ntz,u:smallint,w:decimal(20,0)>");
    auto all = (*r)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    const Batch& b = *(*all)[0];
    for (int64_t i = 0; i < 100; ++i) {
      int64_t v = i * 1000003 - 50000000;
      int64_t want = unit == TimeUnit::kNanos ? (v >= 0 ? v / 1000 : -((-v + 999) / 1000))
                                              : v * 1000;
      EXPECT_EQ(b.column(0)->GetValue(i).i64(), want) << i;
      EXPECT_EQ(b.column(1)->GetValue(i).i64(), i * 50);
      __int128 wv = b.column(2)->GetValue(i).i128();
      __int128 wexp = i % 7 == 0 ? static_cast<__int128>(UINT64_MAX) : i;
      EXPECT_TRUE(wv == wexp) << i;
    }
  }
}

TEST(RoundTripTest, NullInNonNullableFieldFails) {
  auto b = MakeBatch({{"x", DataType::Long(), false}},
                     {{Value::Long(1), Value::Null(DataType::Long())}});
  RoundTrip rt;
  auto out = rt.Run({b});
  EXPECT_ERROR_HAS(out,
                   "cannot write a null value into the non-nullable Parquet field 'x'");
}

TEST(RoundTripTest, UnsupportedTypeIsRefused) {
  auto b = MakeBatch({{"i", DataType::DayTimeInterval()}},
                     {{Value::FromI64(DataType::DayTimeInterval(), 5)}});
  RoundTrip rt;
  auto out = rt.Run({b});
  ASSERT_ERROR_CLASS(out, "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE");
}

TEST(RoundTripTest, CorruptedFilesFailWithTheFileName) {
  auto b = AllTypesBatch(500, 5);
  RoundTrip rt;
  ASSERT_TRUE(rt.Run({b}, {}).ok());
  std::string good = *rt.fs->ReadAll("/t.parquet");
  std::mt19937 rng(9);
  int failures = 0;
  for (int iter = 0; iter < 300; ++iter) {
    std::string bad = good;
    if (iter % 3 == 0) {
      bad.resize(rng() % bad.size());
    } else {
      for (int k = 0; k < 1 + iter % 5; ++k)
        bad[rng() % bad.size()] = static_cast<char>(rng());
    }
    ASSERT_TRUE(rt.fs->WriteAtomic("/bad.parquet", bad).ok());
    auto r = ParquetFileReader::Open(rt.fs, "/bad.parquet");
    Status st = r.ok() ? ToStatus((*r)->ReadAll()) : r.status();
    if (!st.ok()) {
      ++failures;
      EXPECT_NE(st.ToString().find("/bad.parquet"), std::string::npos) << st.ToString();
    }
  }
  EXPECT_GT(failures, 200);
}

#if SPATE_GLIBC_MALLOC  // (malloc_probe.h: no threshold to observe under sanitizers)
// A file that keeps nothing (only the byte count).
class CountingNullFile : public io::WritableFile {
 public:
  Status Append(std::string_view data) override {
    bytes_ += static_cast<int64_t>(data.size());
    return Status::OK();
  }
  int64_t Position() const override { return bytes_; }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  const std::string& path() const override { return path_; }

 private:
  int64_t bytes_ = 0;
  std::string path_ = "/null.parquet";
};

// Writes one row group of 300 batches of 1,000 rows (an auto-compaction's file of many
// small ones), then exits with 0 when a 1 MiB malloc is still mapped (glibc's dynamic
// mmap threshold not raised past it), 1 when not, 2 when the write failed.
[[noreturn]] void WriteLargeRowGroupThenProbe() {
  std::vector<BatchPtr> batches;
  for (int k = 0; k < 300; ++k) {
    std::vector<Value> ids, keys, names;
    for (int i = 0; i < 1000; ++i) {
      const int64_t row = int64_t{k} * 1000 + i;
      ids.push_back(Value::Long(row));            // PLAIN: 2.4 MB of values
      keys.push_back(Value::Long(row % 100000));  // a 4 MiB dictionary table
      names.push_back(Value::String("row-" + std::to_string(row)));
    }
    batches.push_back(MakeBatch(
        {{"id", DataType::Long()}, {"k", DataType::Long()}, {"name", DataType::String()}},
        {ids, keys, names}));
  }
  auto w =
      ParquetWriter::Make(std::make_unique<CountingNullFile>(), *batches[0]->schema());
  if (!w.ok()) std::_Exit(2);
  for (const auto& b : batches) {
    if (!(*w)->Write(b).ok()) std::_Exit(2);
  }
  if (!(*w)->Close().ok() || (*w)->rows_written() != 300000) std::_Exit(2);
  std::_Exit(malloc_probe::MallocMaps(size_t{1} << 20) ? 0 : 1);
}

// Writing a large row group takes its chunk buffers (levels, gathered values, dictionary
// slots, pages) apart from malloc (base/mapped_allocator.h): freeing them leaves glibc's
// dynamic mmap threshold where it was, so a later 1 MiB block is still mapped. Before,
// the freed multi-MB buffers raised it (and the trim threshold to twice that), and a long
// stream's thread arenas kept that much free memory resident. In a fresh process:
// earlier tests' frees do not count.
TEST(WriterMemoryTest, LargeChunksLeaveGlibcsMmapThresholdAlone) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(WriteLargeRowGroupThenProbe(), ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace
}  // namespace spate::formats::parquet
