// Copyright spate authors.
#include "spate/formats/parquet/reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "spate/columnar/builder.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/encoding.h"

namespace spate::formats::parquet {

namespace {

constexpr int64_t kMaxPageBytes = int64_t{1} << 30;
constexpr int64_t kMaxPageValues = int64_t{1} << 28;

Status Corrupt(std::string m) {
  return Status(StatusCode::kDataCorruption, std::move(m));
}

// A buffer grown by doubling; `used` bytes are valid.
struct Growable {
  BufferPtr buf;
  int64_t used = 0;
  uint8_t* Reserve(int64_t extra) {
    int64_t need = used + extra;
    if (!buf) {
      buf = Buffer::AllocateUninitialized(
          std::max<int64_t>(need, 64));  // every used byte is written
    } else if (need > buf->capacity()) {
      buf->set_size(used);  // Resize keeps only the first size() bytes
      buf->Resize(need);
    }
    return buf->mutable_data() + used;
  }
  BufferPtr Finish() {
    if (!buf) buf = Buffer::Allocate(0);
    buf->set_size(used);
    return buf;
  }
};

// Dense (non-null) values of a leaf in the spate representation.
struct Values {
  enum Kind { kFixed, kBool, kBytes } kind = kFixed;
  int width = 0;
  int64_t n = 0;
  Growable fixed;          // kFixed: n * width bytes; kBool: n bytes of 0/1
  Growable offsets, data;  // kBytes: n + 1 int32 offsets

  void Init(const DataType& t) {
    if (t.IsBinaryLike()) {
      kind = kBytes;
      *reinterpret_cast<int32_t*>(offsets.Reserve(4)) = 0;
      offsets.used = 4;
    } else if (t.id() == TypeId::kBoolean) {
      kind = kBool;
      width = 1;
    } else {
      kind = kFixed;
      width = t.ByteWidth();
    }
  }
  const int32_t* offs() const {
    return reinterpret_cast<const int32_t*>(offsets.buf->data());
  }
  Status AppendBytes(const uint8_t* p, int64_t len) {
    if (data.used + len > std::numeric_limits<int32_t>::max()) {
      return Status::Unimplemented("a column chunk holds more than 2 GB of string data");
    }
    if (len > 0) std::memcpy(data.Reserve(len), p, static_cast<size_t>(len));
    data.used += len;
    *reinterpret_cast<int32_t*>(offsets.Reserve(4)) = static_cast<int32_t>(data.used);
    offsets.used += 4;
    ++n;
    return Status::OK();
  }
};

// Decoded physical values of one page: fixed-width bytes or offsets + data.
struct PhysBatch {
  int64_t n = 0;
  const uint8_t* fixed = nullptr;
  int pw = 0;
  const int32_t* offsets = nullptr;  // n + 1, relative to data
  const uint8_t* data = nullptr;
};

int PhysicalWidth(const LeafInfo& leaf) {
  switch (leaf.physical) {
    case PhysicalType::kBoolean:
      return 1;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return leaf.type_length;
    case PhysicalType::kByteArray:
      return 0;
  }
  return 0;
}

Result<__int128> BytesToDecimal(const uint8_t* p, int64_t len) {
  if (len == 0) return static_cast<__int128>(0);
  // Drop sign-extension bytes beyond 16.
  while (len > 16) {
    bool neg = p[1] & 0x80;
    if (!((p[0] == 0 && !neg) || (p[0] == 0xFF && neg)))
      return Corrupt("decimal value wider than 128 bits");
    ++p;
    --len;
  }
  __int128 v = (p[0] & 0x80) ? -1 : 0;
  for (int64_t i = 0; i < len; ++i)
    v = static_cast<__int128>((static_cast<unsigned __int128>(v) << 8) | p[i]);
  return v;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Status AppendConverted(const LeafInfo& leaf, const PhysBatch& b, Values* out) {
  const int64_t n = b.n;
  if (n == 0) return Status::OK();
  if (out->kind == Values::kBytes) {
    if (b.offsets) {
      int64_t total = b.offsets[n] - b.offsets[0];
      if (out->data.used + total > std::numeric_limits<int32_t>::max()) {
        return Status::Unimplemented(
            "a column chunk holds more than 2 GB of string data");
      }
      if (total > 0)
        std::memcpy(out->data.Reserve(total), b.data + b.offsets[0],
                    static_cast<size_t>(total));
      int32_t base = static_cast<int32_t>(out->data.used) - b.offsets[0];
      int32_t* o = reinterpret_cast<int32_t*>(out->offsets.Reserve(4 * n));
      for (int64_t i = 0; i < n; ++i) o[i] = base + b.offsets[i + 1];
      out->offsets.used += 4 * n;
      out->data.used += total;
      out->n += n;
      return Status::OK();
    }
    for (int64_t i = 0; i < n; ++i)
      SPATE_RETURN_IF_ERROR(out->AppendBytes(b.fixed + i * b.pw, b.pw));
    return Status::OK();
  }
  if (out->kind == Values::kBool) {
    std::memcpy(out->fixed.Reserve(n), b.fixed, static_cast<size_t>(n));
    out->fixed.used += n;
    out->n += n;
    return Status::OK();
  }
  const int w = out->width;
  uint8_t* dst = out->fixed.Reserve(n * w);
  const uint8_t* src = b.fixed;
  switch (leaf.conversion) {
    case Conversion::kNone:
      if (!src || b.pw != w) return Status::Internal("Parquet reader: width mismatch");
      std::memcpy(dst, src, static_cast<size_t>(n * w));
      break;
    case Conversion::kInt32ToInt8:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int8_t*>(dst)[i] =
            static_cast<int8_t>(Load<int32_t>(src + 4 * i));
      break;
    case Conversion::kInt32ToInt16:
    case Conversion::kUInt8ToInt16:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int16_t*>(dst)[i] =
            static_cast<int16_t>(Load<int32_t>(src + 4 * i));
      break;
    case Conversion::kUInt16ToInt32:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int32_t*>(dst)[i] = Load<int32_t>(src + 4 * i) & 0xFFFF;
      break;
    case Conversion::kUInt32ToInt64:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int64_t*>(dst)[i] = Load<uint32_t>(src + 4 * i);
      break;
    case Conversion::kInt32ToDecimal:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<__int128*>(dst)[i] = Load<int32_t>(src + 4 * i);
      break;
    case Conversion::kInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<__int128*>(dst)[i] = Load<int64_t>(src + 8 * i);
      break;
    case Conversion::kUInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<__int128*>(dst)[i] = Load<uint64_t>(src + 8 * i);
      break;
    case Conversion::kBytesToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = b.offsets ? b.data + b.offsets[i] : src + i * b.pw;
        int64_t len = b.offsets ? b.offsets[i + 1] - b.offsets[i] : b.pw;
        SPATE_ASSIGN_OR_RETURN(__int128 v, BytesToDecimal(p, len));
        std::memcpy(dst + 16 * i, &v, 16);
      }
      break;
    case Conversion::kMillisToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = Load<int64_t>(src + 8 * i), r;
        if (__builtin_mul_overflow(v, int64_t{1000}, &r))
          return Corrupt("TIMESTAMP(MILLIS) value out of range");
        reinterpret_cast<int64_t*>(dst)[i] = r;
      }
      break;
    case Conversion::kNanosToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = Load<int64_t>(src + 8 * i);
        int64_t q = v / 1000;
        if (v % 1000 < 0) --q;
        reinterpret_cast<int64_t*>(dst)[i] = q;
      }
      break;
    case Conversion::kInt96ToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos = Load<int64_t>(src + 12 * i);
        int64_t julian = Load<int32_t>(src + 12 * i + 8);
        // Spark's DateTimeUtils.fromJulianDay: (days - 2440588) * MICROS_PER_DAY +
        // nanos / 1000 in Java longs, which wrap on overflow (garbage INT96 values); the
        // same wrapping arithmetic here, without undefined behaviour.
        uint64_t micros = static_cast<uint64_t>(julian - 2440588) * 86400000000ULL +
                          static_cast<uint64_t>(nanos / 1000);
        reinterpret_cast<int64_t*>(dst)[i] = static_cast<int64_t>(micros);
      }
      break;
  }
  out->fixed.used += n * w;
  out->n += n;
  return Status::OK();
}

// Appends dict[indices[i]] for i < n.
Status GatherDict(const Values& dict, const uint32_t* idx, int64_t n, Values* out) {
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] >= static_cast<uint64_t>(dict.n)) {
      return Corrupt("dictionary index " + std::to_string(idx[i]) +
                     " out of range (dictionary has " + std::to_string(dict.n) +
                     " values)");
    }
  }
  if (out->kind == Values::kBytes) {
    const int32_t* o = dict.offs();
    const uint8_t* d = dict.data.buf ? dict.data.buf->data() : nullptr;
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += o[idx[i] + 1] - o[idx[i]];
    if (out->data.used + total > std::numeric_limits<int32_t>::max()) {
      return Status::Unimplemented("a column chunk holds more than 2 GB of string data");
    }
    uint8_t* dst = total > 0 ? out->data.Reserve(total) : nullptr;
    int32_t* oo = reinterpret_cast<int32_t*>(out->offsets.Reserve(4 * n));
    int32_t pos = static_cast<int32_t>(out->data.used);
    for (int64_t i = 0; i < n; ++i) {
      int32_t len = o[idx[i] + 1] - o[idx[i]];
      if (len > 0) std::memcpy(dst, d + o[idx[i]], static_cast<size_t>(len));
      dst += len;
      pos += len;
      oo[i] = pos;
    }
    out->data.used += total;
    out->offsets.used += 4 * n;
    out->n += n;
    return Status::OK();
  }
  const int w = out->width;
  uint8_t* dst = out->fixed.Reserve(n * w);
  const uint8_t* src = dict.fixed.buf ? dict.fixed.buf->data() : nullptr;
  switch (w) {
    case 1:
      for (int64_t i = 0; i < n; ++i) dst[i] = src[idx[i]];
      break;
    case 2:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int16_t*>(dst)[i] =
            reinterpret_cast<const int16_t*>(src)[idx[i]];
      break;
    case 4:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int32_t*>(dst)[i] =
            reinterpret_cast<const int32_t*>(src)[idx[i]];
      break;
    case 8:
      for (int64_t i = 0; i < n; ++i)
        reinterpret_cast<int64_t*>(dst)[i] =
            reinterpret_cast<const int64_t*>(src)[idx[i]];
      break;
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * w, src + static_cast<int64_t>(idx[i]) * w,
                    static_cast<size_t>(w));
  }
  out->fixed.used += n * w;
  out->n += n;
  return Status::OK();
}

struct Scratch {
  std::vector<uint8_t> bytes;
  std::vector<int32_t> offsets;
  std::string str;
  std::vector<int64_t> longs;
  std::vector<uint32_t> indices;
};

Status DecodeValues(const LeafInfo& leaf, Encoding enc, const uint8_t* p, int64_t size,
                    int64_t n, const Values* dict, Values* out, Scratch& s) {
  if (n == 0) return Status::OK();
  const int pw = PhysicalWidth(leaf);
  PhysBatch b;
  b.n = n;
  b.pw = pw;
  switch (enc) {
    case Encoding::kPlain:
      if (leaf.physical == PhysicalType::kBoolean) {
        if ((n + 7) / 8 > size)
          return Corrupt("PLAIN boolean values past the end of the page");
        s.bytes.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) s.bytes[i] = (p[i >> 3] >> (i & 7)) & 1;
        b.fixed = s.bytes.data();
      } else if (leaf.physical == PhysicalType::kByteArray) {
        // Validate and measure, then copy the values without their length prefixes.
        int64_t pos = 0, total = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (size - pos < 4)
            return Corrupt("PLAIN BYTE_ARRAY length past the end of the page");
          uint32_t len = Load<uint32_t>(p + pos);
          pos += 4;
          if (len > static_cast<uint64_t>(size - pos))
            return Corrupt("PLAIN BYTE_ARRAY value past the end of the page");
          pos += len;
          total += len;
        }
        if (out->kind == Values::kBytes) {
          if (out->data.used + total > std::numeric_limits<int32_t>::max()) {
            return Status::Unimplemented(
                "a column chunk holds more than 2 GB of string data");
          }
          uint8_t* dst = total > 0 ? out->data.Reserve(total) : nullptr;
          int32_t* o = reinterpret_cast<int32_t*>(out->offsets.Reserve(4 * n));
          int32_t at = static_cast<int32_t>(out->data.used);
          pos = 0;
          for (int64_t i = 0; i < n; ++i) {
            uint32_t len = Load<uint32_t>(p + pos);
            pos += 4;
            if (len > 0) std::memcpy(dst, p + pos, len);
            dst += len;
            pos += len;
            at += static_cast<int32_t>(len);
            o[i] = at;
          }
          out->data.used += total;
          out->offsets.used += 4 * n;
          out->n += n;
          return Status::OK();
        }
        s.offsets.resize(static_cast<size_t>(n + 1));
        s.str.resize(static_cast<size_t>(total));
        pos = 0;
        int32_t at = 0;
        s.offsets[0] = 0;
        for (int64_t i = 0; i < n; ++i) {
          uint32_t len = Load<uint32_t>(p + pos);
          pos += 4;
          if (len > 0) std::memcpy(s.str.data() + at, p + pos, len);
          pos += len;
          at += static_cast<int32_t>(len);
          s.offsets[i + 1] = at;
        }
        b.offsets = s.offsets.data();
        b.data = reinterpret_cast<const uint8_t*>(s.str.data());
      } else {
        if (pw <= 0 || n > size / pw)
          return Corrupt("PLAIN values past the end of the page");
        b.fixed = p;
      }
      return AppendConverted(leaf, b, out);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary: {
      if (!dict) return Corrupt("dictionary-encoded page without a dictionary page");
      if (size < 1) return Corrupt("dictionary page data is empty");
      int bw = p[0];
      if (bw > 32)
        return Corrupt("dictionary index bit width " + std::to_string(bw) + " > 32");

      s.indices.resize(static_cast<size_t>(n));
      RleDecoder dec(p + 1, size - 1, bw);
      SPATE_RETURN_IF_ERROR(dec.Get(s.indices.data(), n));
      return GatherDict(*dict, s.indices.data(), n, out);
    }
    case Encoding::kRle: {
      if (leaf.physical != PhysicalType::kBoolean)
        return Status::Unimplemented("RLE encoding of non-boolean values");
      if (size < 4) return Corrupt("RLE boolean values: missing length");
      uint32_t len = Load<uint32_t>(p);
      if (len > static_cast<uint64_t>(size - 4))
        return Corrupt("RLE boolean values past the end of the page");
      std::vector<uint32_t> tmp(static_cast<size_t>(n));
      RleDecoder dec(p + 4, len, 1);
      SPATE_RETURN_IF_ERROR(dec.Get(tmp.data(), n));
      s.bytes.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) s.bytes[i] = static_cast<uint8_t>(tmp[i]);
      b.fixed = s.bytes.data();
      return AppendConverted(leaf, b, out);
    }
    case Encoding::kDeltaBinaryPacked: {
      if (leaf.physical != PhysicalType::kInt32 &&
          leaf.physical != PhysicalType::kInt64) {
        return Corrupt("DELTA_BINARY_PACKED for a non-integer column");
      }
      int64_t used;
      SPATE_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(p, size, n, &s.longs, &used));
      if (static_cast<int64_t>(s.longs.size()) != n) {
        return Corrupt("DELTA_BINARY_PACKED holds " + std::to_string(s.longs.size()) +
                       " values, expected " + std::to_string(n));
      }
      s.bytes.resize(static_cast<size_t>(n * pw));
      for (int64_t i = 0; i < n; ++i) {
        if (pw == 4) {
          int32_t v = static_cast<int32_t>(s.longs[i]);
          std::memcpy(s.bytes.data() + 4 * i, &v, 4);
        } else {
          std::memcpy(s.bytes.data() + 8 * i, &s.longs[i], 8);
        }
      }
      b.fixed = s.bytes.data();
      return AppendConverted(leaf, b, out);
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      if (leaf.physical != PhysicalType::kByteArray &&
          leaf.physical != PhysicalType::kFixedLenByteArray) {
        return Corrupt(std::string(EncodingName(enc)) + " for a non-binary column");
      }
      if (enc == Encoding::kDeltaLengthByteArray) {
        SPATE_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(p, size, n, &s.offsets, &s.str));
      } else {
        SPATE_RETURN_IF_ERROR(DecodeDeltaByteArray(p, size, n, &s.offsets, &s.str));
      }
      b.offsets = s.offsets.data();
      b.data = reinterpret_cast<const uint8_t*>(s.str.data());
      return AppendConverted(leaf, b, out);
    }
    case Encoding::kByteStreamSplit: {
      if (pw <= 0 || leaf.physical == PhysicalType::kBoolean ||
          leaf.physical == PhysicalType::kInt96) {
        return Corrupt("BYTE_STREAM_SPLIT for an unsupported column type");
      }
      if (n > size / pw)
        return Corrupt("BYTE_STREAM_SPLIT values past the end of the page");
      s.bytes.resize(static_cast<size_t>(n * pw));
      UnsplitByteStreams(p, n, pw, s.bytes.data());
      b.fixed = s.bytes.data();
      return AppendConverted(leaf, b, out);
    }
    default:
      return Status::Unimplemented(std::string("Parquet encoding ") + EncodingName(enc) +
                                   " (" + std::to_string(static_cast<int>(enc)) +
                                   ") is not supported");
  }
}

// Decodes `n` levels with max value `max` from an RLE (v1: length-prefixed) or
// BIT_PACKED section; advances *p.
Status DecodeLevels(Encoding enc, bool length_prefixed, const uint8_t** p,
                    const uint8_t* end, int64_t n, int16_t max, int16_t* out,
                    const char* what) {
  int bw = BitWidth(static_cast<uint64_t>(max));
  if (enc == Encoding::kRle) {
    int64_t len = end - *p;
    if (length_prefixed) {
      if (end - *p < 4) return Corrupt(std::string(what) + " levels: missing length");
      len = Load<uint32_t>(*p);
      *p += 4;
      if (len > end - *p)
        return Corrupt(std::string(what) + " levels past the end of the page");
    }
    RleDecoder dec(*p, len, bw);
    Status st = dec.Get(out, n);
    if (!st.ok()) return Corrupt(std::string(what) + " levels: " + st.message());
    *p += len;
  } else if (enc == Encoding::kBitPacked) {
    int64_t bytes = (n * bw + 7) / 8;
    if (bytes > end - *p)
      return Corrupt(std::string(what) + " levels past the end of the page");
    // MSB-first bit order.
    for (int64_t i = 0; i < n; ++i) {
      int v = 0;
      for (int b = 0; b < bw; ++b) {
        int64_t bit = i * bw + b;
        v = (v << 1) | (((*p)[bit >> 3] >> (7 - (bit & 7))) & 1);
      }
      out[i] = static_cast<int16_t>(v);
    }
    *p += bytes;
  } else {
    return Status::Unimplemented(std::string(what) + " level encoding " +
                                 EncodingName(enc) + " is not supported");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (out[i] < 0 || out[i] > max) {
      return Corrupt(std::string(what) + " level " + std::to_string(out[i]) +
                     " exceeds the maximum " + std::to_string(max));
    }
  }
  return Status::OK();
}

}  // namespace

struct ParquetFileReader::LeafColumn {
  std::vector<int16_t> def, rep;
  int64_t num_levels = 0;
  Values values;
};

Status ParquetFileReader::Err(const Status& st) const {
  if (st.ok()) return st;
  std::string msg =
      "Encountered error while reading file " + path() + ". " + st.message();
  return Status(st.code() == StatusCode::kOk ? StatusCode::kDataCorruption : st.code(),
                std::move(msg));
}

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(
    const io::FileSystemPtr& fs, const std::string& path) {
  auto f = fs->OpenForRead(path);
  if (!f.ok()) return f.status();
  return Open(std::shared_ptr<io::RandomAccessFile>(std::move(*f)));
}

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file) {
  std::shared_ptr<ParquetFileReader> r(new ParquetFileReader());
  r->file_ = std::move(file);
  auto fail = [&](const Status& st) { return r->Err(st); };
  int64_t size = r->file_->Size();
  if (size < 12)
    return fail(
        Corrupt("not a Parquet file (too small: " + std::to_string(size) + " bytes)"));
  std::string tail;
  SPATE_RETURN_IF_ERROR(r->file_->ReadAt(size - 8, 8, &tail));
  if (tail.compare(4, 4, "PARE") == 0) {
    return fail(
        Status::Unimplemented("the file uses Parquet modular encryption (encrypted "
                              "footer), which is not supported"));
  }
  if (tail.compare(4, 4, "PAR1") != 0)
    return fail(Corrupt("not a Parquet file (no PAR1 magic at the end)"));
  std::string head;
  SPATE_RETURN_IF_ERROR(r->file_->ReadAt(0, 4, &head));
  if (head != "PAR1")
    return fail(Corrupt("not a Parquet file (no PAR1 magic at the start)"));
  uint32_t footer_len = Load<uint32_t>(reinterpret_cast<const uint8_t*>(tail.data()));
  if (footer_len == 0 || footer_len > static_cast<uint64_t>(size - 12)) {
    return fail(Corrupt("footer length " + std::to_string(footer_len) +
                        " does not fit the file"));
  }
  std::string footer;
  SPATE_RETURN_IF_ERROR(r->file_->ReadAt(size - 8 - footer_len, footer_len, &footer));
  Status st = ReadFileMetaData(reinterpret_cast<const uint8_t*>(footer.data()),
                               footer_len, &r->metadata_);
  if (!st.ok()) return fail(Corrupt("could not read the footer: " + st.message()));
  if (r->metadata_.encrypted) {
    return fail(
        Status::Unimplemented("the file uses Parquet modular encryption (plaintext "
                              "footer), which is not supported"));
  }
  auto schema = SchemaForRead(r->metadata_.schema);
  if (!schema.ok()) return fail(schema.status());
  r->schema_ = std::move(*schema);
  int64_t total = 0;
  for (const auto& g : r->metadata_.row_groups) {
    if (g.columns.size() != r->schema_.leaves.size()) {
      return fail(Corrupt("a row group has " + std::to_string(g.columns.size()) +
                          " column chunks, the schema " +
                          std::to_string(r->schema_.leaves.size()) + " leaf columns"));
    }
    if (g.num_rows < 0) return fail(Corrupt("negative row count in a row group"));
    for (const auto& c : g.columns) {
      if (c.encrypted)
        return fail(Status::Unimplemented(
            "the file has encrypted columns, which is not supported"));
    }
    total += g.num_rows;
  }
  (void)total;
  return r;
}

Status ParquetFileReader::ReadLeaf(int rg, int leaf_index, LeafColumn* out) const {
  const LeafInfo& leaf = schema_.leaves[leaf_index];
  const ColumnChunk& chunk = metadata_.row_groups[rg].columns[leaf_index];
  auto where = [&] {
    std::string p;
    for (const auto& s : leaf.path) p += (p.empty() ? "" : ".") + s;
    return "column " + p + ", row group " + std::to_string(rg);
  };
  if (!chunk.has_meta_data)
    return Corrupt("column chunk without metadata (" + where() + ")");
  if (chunk.has_file_path)
    return Status::Unimplemented("column chunks in external files (" + where() + ")");
  const ColumnMetaData& m = chunk.meta_data;
  if (m.type != leaf.physical)
    return Corrupt("column chunk type does not match the schema (" + where() + ")");
  if (m.num_values < 0) return Corrupt("negative value count (" + where() + ")");
  out->values.Init(*leaf.type);
  if (m.num_values == 0)
    return Status::OK();  // nothing to read (some writers leave no pages)
  int64_t start = m.data_page_offset;
  if (m.has_dictionary_page_offset && m.dictionary_page_offset > 0 &&
      m.dictionary_page_offset < start) {
    start = m.dictionary_page_offset;
  }
  int64_t len = m.total_compressed_size;
  int64_t file_size = file_->Size();
  if (start < 4 || len < 0 || start > file_size || len > file_size - start) {
    return Corrupt("column chunk offset/size out of the file (" + where() + ")");
  }
  std::unique_ptr<uint8_t[]> raw(
      new uint8_t[static_cast<size_t>(std::max<int64_t>(len, 1))]);
  SPATE_RETURN_IF_ERROR(file_->ReadInto(start, len, raw.get()));
  const uint8_t* base = raw.get();
  {
    // Pre-size the value buffers from the metadata (bounded, so a lying footer cannot
    // force a huge allocation; they still grow as needed).
    int64_t n = std::min<int64_t>(m.num_values, int64_t{1} << 26);
    Values& v = out->values;
    if (v.kind == Values::kBytes) {
      v.offsets.Reserve(4 * n);
      v.data.Reserve(std::min<int64_t>(m.total_uncompressed_size, int64_t{1} << 30));
    } else {
      v.fixed.Reserve(n * v.width);
    }
    if (leaf.max_def > 0) out->def.reserve(static_cast<size_t>(n));
    if (leaf.max_rep > 0) out->rep.reserve(static_cast<size_t>(n));
  }

  const bool has_def = leaf.max_def > 0, has_rep = leaf.max_rep > 0;
  std::unique_ptr<Values> dict;
  std::vector<uint8_t> page_buf, values_buf;
  Scratch scratch;
  int64_t pos = 0;
  int64_t levels_read = 0;
  while (levels_read < m.num_values) {
    if (pos >= len) {
      return Corrupt("column chunk ends after " + std::to_string(levels_read) + " of " +
                     std::to_string(m.num_values) + " values (" + where() + ")");
    }
    PageHeader h;
    int64_t hl;
    Status st = ReadPageHeader(base + pos, len - pos, &h, &hl);
    if (!st.ok())
      return Corrupt("bad page header: " + st.message() + " (" + where() + ")");
    pos += hl;
    if (h.compressed_page_size > len - pos)
      return Corrupt("page past the end of the column chunk (" + where() + ")");
    const uint8_t* page = base + pos;
    const int64_t csize = h.compressed_page_size;
    pos += csize;
    if (h.uncompressed_page_size > kMaxPageBytes) {
      return Status::Unimplemented("page of " + std::to_string(h.uncompressed_page_size) +
                                   " bytes is too large (" + where() + ")");
    }
    if (h.has_crc) {
      const uint32_t crc = Crc32(page, csize);
      if (crc != static_cast<uint32_t>(h.crc))
        return Corrupt("page CRC mismatch (" + where() + ")");
    }
    auto decompress_all = [&](const uint8_t** data, int64_t* size) -> Status {
      if (m.codec == Codec::kUncompressed) {
        *data = page;
        *size = csize;
        return Status::OK();
      }
      page_buf.resize(static_cast<size_t>(h.uncompressed_page_size));
      if (csize == 0 && h.uncompressed_page_size == 0) {
        *data = page_buf.data();
        *size = 0;
        return Status::OK();
      }
      Status ds =
          Decompress(m.codec, page, csize, page_buf.data(), h.uncompressed_page_size);
      if (!ds.ok()) return Status(ds.code(), ds.message() + " (" + where() + ")");
      *data = page_buf.data();
      *size = h.uncompressed_page_size;
      return Status::OK();
    };
    switch (h.type) {
      case PageType::kDictionaryPage: {
        if (!h.has_dictionary_page_header)
          return Corrupt("dictionary page without its header (" + where() + ")");
        if (dict)
          return Corrupt("two dictionary pages in one column chunk (" + where() + ")");
        const auto& dh = h.dictionary_page_header;
        if (dh.num_values < 0)
          return Corrupt("negative dictionary size (" + where() + ")");
        if (dh.encoding != Encoding::kPlain &&
            dh.encoding != Encoding::kPlainDictionary) {
          return Status::Unimplemented(std::string("dictionary page encoding ") +
                                       EncodingName(dh.encoding));
        }
        const uint8_t* d;
        int64_t dsize;
        SPATE_RETURN_IF_ERROR(decompress_all(&d, &dsize));
        dict = std::make_unique<Values>();
        dict->Init(*leaf.type);
        Status ds = DecodeValues(leaf, Encoding::kPlain, d, dsize, dh.num_values, nullptr,
                                 dict.get(), scratch);
        if (!ds.ok())
          return Status(ds.code(),
                        "dictionary page: " + ds.message() + " (" + where() + ")");
        break;
      }
      case PageType::kDataPage:
      case PageType::kDataPageV2: {
        const bool v2 = h.type == PageType::kDataPageV2;
        if (v2 ? !h.has_data_page_header_v2 : !h.has_data_page_header) {
          return Corrupt("data page without its header (" + where() + ")");
        }
        int64_t n = v2 ? h.data_page_header_v2.num_values : h.data_page_header.num_values;
        if (n < 0 || n > kMaxPageValues)
          return Corrupt("bad page value count " + std::to_string(n) + " (" + where() +
                         ")");
        if (n > m.num_values - levels_read)
          return Corrupt("pages hold more values than the column chunk (" + where() +
                         ")");
        const uint8_t* d;
        int64_t dsize;
        const uint8_t* values_ptr;
        int64_t values_size;
        size_t lv0 = out->def.size();
        if (has_def) out->def.resize(lv0 + static_cast<size_t>(n));
        if (has_rep) out->rep.resize(out->rep.size() + static_cast<size_t>(n));
        int16_t* rep_out = has_rep ? out->rep.data() + out->rep.size() - n : nullptr;
        int16_t* def_out = has_def ? out->def.data() + lv0 : nullptr;
        Encoding enc;
        const int64_t direct_bytes = n * out->values.width;
        if (!v2 && !has_def && !has_rep &&
            h.data_page_header.encoding == Encoding::kPlain &&
            m.codec != Codec::kUncompressed && leaf.conversion == Conversion::kNone &&
            out->values.kind == Values::kFixed &&
            PhysicalWidth(leaf) == out->values.width &&
            h.uncompressed_page_size == direct_bytes && csize > 0) {
          // Fast path: a PLAIN page of a flat required fixed-width column is exactly the
          // column's bytes; decompress straight into the column buffer.
          Status ds = Decompress(m.codec, page, csize,
                                 out->values.fixed.Reserve(direct_bytes), direct_bytes);
          if (!ds.ok()) return Status(ds.code(), ds.message() + " (" + where() + ")");
          out->values.fixed.used += direct_bytes;
          out->values.n += n;
          levels_read += n;
          break;
        }
        if (!v2) {
          SPATE_RETURN_IF_ERROR(decompress_all(&d, &dsize));
          const auto& dh = h.data_page_header;
          enc = dh.encoding;
          const uint8_t* p = d;
          const uint8_t* end = d + dsize;
          Status ls;
          if (has_rep)
            ls = DecodeLevels(dh.repetition_level_encoding, true, &p, end, n,
                              leaf.max_rep, rep_out, "repetition");
          if (ls.ok() && has_def)
            ls = DecodeLevels(dh.definition_level_encoding, true, &p, end, n,
                              leaf.max_def, def_out, "definition");
          if (!ls.ok()) return Status(ls.code(), ls.message() + " (" + where() + ")");
          values_ptr = p;
          values_size = end - p;
        } else {
          const auto& dh = h.data_page_header_v2;
          enc = dh.encoding;
          int64_t rl = dh.repetition_levels_byte_length,
                  dl = dh.definition_levels_byte_length;
          if (rl < 0 || dl < 0 || rl + dl > csize)
            return Corrupt("bad level lengths in a v2 page (" + where() + ")");
          const uint8_t* p = page;
          Status ls;
          if (has_rep) {
            ls = DecodeLevels(Encoding::kRle, false, &p, page + rl, n, leaf.max_rep,
                              rep_out, "repetition");
          }
          p = page + rl;
          if (ls.ok() && has_def) {
            ls = DecodeLevels(Encoding::kRle, false, &p, page + rl + dl, n, leaf.max_def,
                              def_out, "definition");
          }
          if (!ls.ok()) return Status(ls.code(), ls.message() + " (" + where() + ")");
          const uint8_t* vp = page + rl + dl;
          int64_t vsize = csize - rl - dl;
          int64_t usize = h.uncompressed_page_size - rl - dl;
          if (dh.is_compressed && m.codec != Codec::kUncompressed && vsize > 0) {
            if (usize < 0)
              return Corrupt("bad uncompressed size in a v2 page (" + where() + ")");
            values_buf.resize(static_cast<size_t>(usize));
            Status ds = Decompress(m.codec, vp, vsize, values_buf.data(), usize);
            if (!ds.ok()) return Status(ds.code(), ds.message() + " (" + where() + ")");
            values_ptr = values_buf.data();
            values_size = usize;
          } else {
            values_ptr = vp;
            values_size = vsize;
          }
        }
        int64_t non_null = n;
        if (has_def) {
          non_null = 0;
          for (int64_t i = 0; i < n; ++i) non_null += def_out[i] == leaf.max_def;
        }
        if (has_rep && levels_read == 0 && n > 0 && rep_out[0] != 0) {
          return Corrupt("the first repetition level of a column chunk is not 0 (" +
                         where() + ")");
        }
        int64_t before = out->values.n;
        Status vs = DecodeValues(leaf, enc, values_ptr, values_size, non_null, dict.get(),
                                 &out->values, scratch);
        if (!vs.ok()) return Status(vs.code(), vs.message() + " (" + where() + ")");
        if (out->values.n - before != non_null)
          return Corrupt("page value count mismatch (" + where() + ")");
        levels_read += n;
        break;
      }
      default:
        break;  // index pages and unknown page types are skipped
    }
  }
  out->num_levels = levels_read;
  return Status::OK();
}

namespace {

using LeafColumn = ParquetFileReader::LeafColumn;

struct Assembler {
  const ParquetSchema& schema;
  std::vector<LeafColumn>& leaves;

  Status Mismatch(const LevelNode& n) {
    return Corrupt("inconsistent levels in the column chunks of '" + n.name + "'");
  }

  static int16_t Def(const LeafColumn& lc, int64_t i) {
    return lc.def.empty() ? 0 : lc.def[i];
  }
  static int16_t Rep(const LeafColumn& lc, int64_t i) {
    return lc.rep.empty() ? 0 : lc.rep[i];
  }

  // Validity of node `n`'s slots from leaf `lc`; returns the slot count.
  int64_t Slots(const LevelNode& n, const LeafColumn& lc, int16_t slot_def,
                int16_t slot_rep, BufferPtr* validity, int64_t* nulls) {
    const bool optional = n.def > slot_def;
    int64_t count = 0;
    *nulls = 0;
    ValidityBuilder vb;
    for (int64_t i = 0; i < lc.num_levels; ++i) {
      if (Rep(lc, i) <= slot_rep && Def(lc, i) >= slot_def) {
        ++count;
        if (optional) vb.Append(Def(lc, i) >= n.def);
      }
    }
    if (optional) {
      *nulls = vb.null_count();
      *validity = vb.Finish();
    }
    return count;
  }

  Result<ColumnPtr> Build(const LevelNode& n, int16_t slot_def, int16_t slot_rep) {
    switch (n.kind) {
      case LevelNode::kPrimitive:
        return Primitive(n, slot_def, slot_rep);
      case LevelNode::kStruct: {
        std::vector<ColumnPtr> children;
        for (const auto& c : n.children) {
          SPATE_ASSIGN_OR_RETURN(ColumnPtr col, Build(c, slot_def, slot_rep));
          children.push_back(std::move(col));
        }
        BufferPtr validity;
        int64_t nulls;
        int64_t len =
            Slots(n, leaves[n.first_leaf], slot_def, slot_rep, &validity, &nulls);
        for (const auto& c : children) {
          if (c->length() != len) return Mismatch(n);
        }
        return std::make_shared<const Column>(n.type, len, nulls, validity, nullptr,
                                              nullptr, std::move(children));
      }
      case LevelNode::kList:
      case LevelNode::kMap: {
        const LeafColumn& lc = leaves[n.first_leaf];
        const bool optional = n.def > slot_def;
        Growable off;
        ValidityBuilder vb;
        int64_t count = 0, elems = 0;
        for (int64_t i = 0; i < lc.num_levels; ++i) {
          int16_t r = Rep(lc, i), d = Def(lc, i);
          if (r <= slot_rep && d >= slot_def) {
            *reinterpret_cast<int32_t*>(off.Reserve(4)) = static_cast<int32_t>(elems);
            off.used += 4;
            ++count;
            if (optional) vb.Append(d >= n.def);
          }
          if (r <= n.elem_rep && d >= n.elem_def) ++elems;
        }
        if (elems > std::numeric_limits<int32_t>::max())
          return Status::Unimplemented("list with more than 2^31 elements");
        *reinterpret_cast<int32_t*>(off.Reserve(4)) = static_cast<int32_t>(elems);
        off.used += 4;
        ColumnPtr child;
        if (n.kind == LevelNode::kList) {
          SPATE_ASSIGN_OR_RETURN(child, Build(n.children[0], n.elem_def, n.elem_rep));
        } else {
          SPATE_ASSIGN_OR_RETURN(ColumnPtr keys,
                                 Build(n.children[0], n.elem_def, n.elem_rep));
          SPATE_ASSIGN_OR_RETURN(ColumnPtr vals,
                                 Build(n.children[1], n.elem_def, n.elem_rep));
          if (keys->length() != vals->length()) return Mismatch(n);
          if (keys->may_have_nulls())
            return Corrupt("map '" + n.name + "' has a null key");
          auto entry_type =
              DataType::Struct({Field{"key", n.type->key_type(), false},
                                Field{"value", n.type->value_type(), true}});
          child = std::make_shared<const Column>(entry_type, keys->length(), 0, nullptr,
                                                 nullptr, nullptr,
                                                 std::vector<ColumnPtr>{keys, vals});
        }
        if (child->length() != elems) return Mismatch(n);
        int64_t nulls = optional ? vb.null_count() : 0;
        BufferPtr validity = optional ? vb.Finish() : nullptr;
        return std::make_shared<const Column>(n.type, count, nulls, validity,
                                              off.Finish(), nullptr,
                                              std::vector<ColumnPtr>{child});
      }
    }
    return Status::Internal("bad level node");
  }

  Result<ColumnPtr> Primitive(const LevelNode& n, int16_t slot_def, int16_t slot_rep) {
    LeafColumn& lc = leaves[n.leaf];
    Values& v = lc.values;
    const DataTypePtr& type = n.type;
    if (lc.rep.empty() && (lc.def.empty() || (slot_def == 0 && v.n == lc.num_levels))) {
      // Required (or optional without a single null), not nested in a list: the dense
      // values are the column.
      if (v.n != lc.num_levels) return Mismatch(n);
      if (v.kind == Values::kBytes) {
        return std::make_shared<const Column>(type, v.n, 0, nullptr, v.offsets.Finish(),
                                              v.data.Finish());
      }
      if (v.kind == Values::kBool) {
        BufferPtr bitsbuf = Buffer::Allocate(bits::BytesFor(v.n));
        const uint8_t* src = v.fixed.buf ? v.fixed.buf->data() : nullptr;
        for (int64_t i = 0; i < v.n; ++i) {
          if (src[i]) bits::Set(bitsbuf->mutable_data(), i);
        }
        return std::make_shared<const Column>(type, v.n, 0, nullptr, bitsbuf);
      }
      return std::make_shared<const Column>(type, v.n, 0, nullptr, v.fixed.Finish());
    }
    const int16_t max_def = schema.leaves[n.leaf].max_def;
    // Count slots.
    int64_t slots = 0;
    const bool simple = lc.rep.empty() && slot_def == 0;
    if (simple) {
      slots = lc.num_levels;
    } else {
      for (int64_t i = 0; i < lc.num_levels; ++i)
        slots += Rep(lc, i) <= slot_rep && Def(lc, i) >= slot_def;
    }
    BufferPtr validity = Buffer::Allocate(bits::BytesFor(slots));
    uint8_t* vbits = validity->mutable_data();
    int64_t nulls = 0;
    int64_t s = 0, k = 0;
    auto for_each_slot = [&](auto&& f) {
      for (int64_t i = 0; i < lc.num_levels; ++i) {
        int16_t d = lc.def.empty() ? max_def : lc.def[i];
        if (!simple && !(Rep(lc, i) <= slot_rep && d >= slot_def)) continue;
        bool valid = d == max_def;
        if (valid) {
          bits::Set(vbits, s);
        } else {
          ++nulls;
        }
        f(s, valid);
        ++s;
      }
    };
    BufferPtr values, data;
    if (v.kind == Values::kBytes) {
      values = Buffer::AllocateUninitialized((slots + 1) * 4);
      int32_t* o = values->mutable_data_as<int32_t>();
      const int32_t* src = v.offs();
      o[0] = 0;
      for_each_slot(
          [&](int64_t slot, bool valid) { o[slot + 1] = valid ? src[++k] : o[slot]; });
      data = v.data.Finish();
    } else if (v.kind == Values::kBool) {
      values = Buffer::Allocate(bits::BytesFor(slots));
      uint8_t* out = values->mutable_data();
      const uint8_t* src = v.fixed.buf ? v.fixed.buf->data() : nullptr;
      for_each_slot([&](int64_t slot, bool valid) {
        if (valid && src[k++]) bits::Set(out, slot);
      });
    } else {
      const int w = v.width;
      values = Buffer::AllocateUninitialized(slots * w);  // null slots are zeroed below
      uint8_t* out = values->mutable_data();
      const uint8_t* src = v.fixed.buf ? v.fixed.buf->data() : nullptr;
      switch (w) {
        case 4:
          for_each_slot([&](int64_t slot, bool valid) {
            reinterpret_cast<int32_t*>(out)[slot] =
                valid ? reinterpret_cast<const int32_t*>(src)[k++] : 0;
          });
          break;
        case 8:
          for_each_slot([&](int64_t slot, bool valid) {
            reinterpret_cast<int64_t*>(out)[slot] =
                valid ? reinterpret_cast<const int64_t*>(src)[k++] : 0;
          });
          break;
        default:
          for_each_slot([&](int64_t slot, bool valid) {
            if (valid) {
              std::memcpy(out + slot * w, src + (k++) * w, static_cast<size_t>(w));
            } else {
              std::memset(out + slot * w, 0, static_cast<size_t>(w));
            }
          });
      }
    }
    if (v.kind != Values::kBytes && k != v.n) return Mismatch(n);
    if (v.kind == Values::kBytes && k != v.n) return Mismatch(n);
    if (nulls == 0) validity = nullptr;
    return std::make_shared<const Column>(type, slots, nulls, validity, values, data);
  }
};

Value StatValue(const LeafInfo& leaf, const std::string& bytes, bool* ok) {
  *ok = false;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const DataType& t = *leaf.type;
  switch (leaf.physical) {
    case PhysicalType::kInt32: {
      if (bytes.size() != 4) return Value();
      int32_t v = Load<int32_t>(p);
      *ok = true;
      switch (leaf.conversion) {
        case Conversion::kNone:
          return t.id() == TypeId::kDate ? Value::Date(v) : Value::Int(v);
        case Conversion::kInt32ToInt8:
          return Value::Byte(static_cast<int8_t>(v));
        case Conversion::kInt32ToInt16:
          return Value::Short(static_cast<int16_t>(v));
        case Conversion::kInt32ToDecimal:
          return Value::Decimal(v, t.precision(), t.scale());
        default:
          *ok = false;
          return Value();
      }
    }
    case PhysicalType::kInt64: {
      if (bytes.size() != 8) return Value();
      int64_t v = Load<int64_t>(p);
      *ok = true;
      switch (leaf.conversion) {
        case Conversion::kNone:
          if (t.id() == TypeId::kTimestamp) return Value::Timestamp(v);
          if (t.id() == TypeId::kTimestampNtz) return Value::TimestampNtz(v);
          return Value::Long(v);
        case Conversion::kInt64ToDecimal:
          return Value::Decimal(v, t.precision(), t.scale());
        default:
          *ok = false;
          return Value();
      }
    }
    case PhysicalType::kFloat: {
      if (bytes.size() != 4) return Value();
      float v = Load<float>(p);
      if (std::isnan(v)) return Value();
      *ok = true;
      return Value::Float(v);
    }
    case PhysicalType::kDouble: {
      if (bytes.size() != 8) return Value();
      double v = Load<double>(p);
      if (std::isnan(v)) return Value();
      *ok = true;
      return Value::Double(v);
    }
    case PhysicalType::kByteArray:
      if (t.id() == TypeId::kString) {
        *ok = true;
        return Value::String(bytes);
      }
      return Value();
    default:
      return Value();
  }
}

}  // namespace

Result<BatchPtr> ParquetFileReader::ReadRowGroup(int rg,
                                                 const std::vector<int>& columns) const {
  if (rg < 0 || rg >= num_row_groups())
    return Status::Invalid("row group index out of range");
  std::vector<LeafColumn> leaves(schema_.leaves.size());
  std::vector<Field> fields;
  std::vector<ColumnPtr> cols;
  const int64_t rows = metadata_.row_groups[rg].num_rows;
  for (int c : columns) {
    const LevelNode& node = schema_.fields[c];
    for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l) {
      Status st = ReadLeaf(rg, l, &leaves[l]);
      if (!st.ok()) return Err(st);
    }
    Assembler a{schema_, leaves};
    auto col = a.Build(node, 0, 0);
    if (!col.ok()) return Err(col.status());
    if ((*col)->length() != rows) {
      return Err(Corrupt("column '" + node.name + "' has " +
                         std::to_string((*col)->length()) + " rows, the row group " +
                         std::to_string(rows)));
    }
    // Free the leaf buffers now that the column owns them.
    for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l)
      leaves[l] = LeafColumn();
    fields.push_back(schema_.schema->field(c));
    cols.push_back(std::move(*col));
  }
  return Batch::Make(std::make_shared<const Schema>(std::move(fields)), std::move(cols),
                     rows);
}

Result<std::vector<BatchPtr>> ParquetFileReader::ReadAll() const {
  std::vector<int> all;
  for (int i = 0; i < schema_.schema->num_fields(); ++i) all.push_back(i);
  std::vector<BatchPtr> out;
  for (int rg = 0; rg < num_row_groups(); ++rg) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, ReadRowGroup(rg, all));
    out.push_back(std::move(b));
  }
  return out;
}

ColumnStats ParquetFileReader::Stats(int rg, int column) const {
  ColumnStats cs;
  const LevelNode& node = schema_.fields[column];
  if (node.kind != LevelNode::kPrimitive) return cs;
  const LeafInfo& leaf = schema_.leaves[node.leaf];
  const ColumnChunk& chunk = metadata_.row_groups[rg].columns[node.leaf];
  if (!chunk.has_meta_data || !chunk.meta_data.has_statistics) return cs;
  const Statistics& st = chunk.meta_data.statistics;
  cs.num_values = chunk.meta_data.num_values;
  cs.has_null_count = st.has_null_count;
  cs.null_count = st.null_count;
  const std::string* mn = nullptr;
  const std::string* mx = nullptr;
  if (st.has_min_value && st.has_max_value) {
    mn = &st.min_value;
    mx = &st.max_value;
  } else if (st.has_min && st.has_max && leaf.physical != PhysicalType::kByteArray &&
             leaf.physical != PhysicalType::kFixedLenByteArray) {
    mn = &st.min;  // deprecated fields: signed order, fine for numbers
    mx = &st.max;
  }
  if (mn) {
    bool ok1, ok2;
    cs.min = StatValue(leaf, *mn, &ok1);
    cs.max = StatValue(leaf, *mx, &ok2);
    cs.has_min_max = ok1 && ok2;
  }
  return cs;
}

}  // namespace spate::formats::parquet
