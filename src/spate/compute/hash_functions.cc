// Copyright spate authors.
// hash (Murmur3, seed 42) and xxhash64 (XXH64, seed 42), bit-exact with Spark.

#include "spate/compute/hash_functions.h"

#include <cmath>
#include <cstring>

#include "spate/compute/function_args.h"

namespace spate {

namespace {

inline uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint32_t MixK1(uint32_t k1) {
  k1 *= 0xcc9e2d51u;
  k1 = Rotl32(k1, 15);
  return k1 * 0x1b873593u;
}
inline uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = Rotl32(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}
inline uint32_t Fmix32(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  h1 ^= h1 >> 16;
  return h1;
}

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t XxRound(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = Rotl64(acc, 31);
  return acc * kP1;
}
inline uint64_t XxMerge(uint64_t h, uint64_t v) {
  h ^= XxRound(0, v);
  return h * kP1 + kP4;
}
inline uint64_t XxAvalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}
inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t Load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Minimal big-endian two's-complement bytes of v (java.math.BigInteger.toByteArray).
std::string BigIntegerBytes(__int128 v) {
  unsigned char be[16];
  unsigned __int128 u = static_cast<unsigned __int128>(v);
  for (int k = 15; k >= 0; --k) {
    be[k] = static_cast<unsigned char>(u & 0xFF);
    u >>= 8;
  }
  int start = 0;
  while (start < 15) {
    if (be[start] == 0x00 && (be[start + 1] & 0x80) == 0) {
      ++start;
    } else if (be[start] == 0xFF && (be[start + 1] & 0x80) != 0) {
      ++start;
    } else {
      break;
    }
  }
  return std::string(reinterpret_cast<const char*>(be + start),
                     static_cast<size_t>(16 - start));
}

struct Murmur3 {
  using H = int32_t;
  static H Int(int32_t v, H seed) { return Murmur3HashInt(v, seed); }
  static H Long(int64_t v, H seed) { return Murmur3HashLong(v, seed); }
  static H Bytes(std::string_view b, H seed) { return Murmur3HashBytes(b, seed); }
};
struct Xx64 {
  using H = int64_t;
  static H Int(int32_t v, H seed) { return XxHash64Int(v, seed); }
  static H Long(int64_t v, H seed) { return XxHash64Long(v, seed); }
  static H Bytes(std::string_view b, H seed) { return XxHash64Bytes(b, seed); }
};

inline int32_t FloatBits(float f) {
  if (f == 0.0f) return 0;  // -0.0 hashes as 0
  if (std::isnan(f)) return 0x7fc00000;
  int32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline int64_t DoubleBits(double d) {
  if (d == 0.0) return 0;
  if (std::isnan(d)) return 0x7ff8000000000000LL;
  int64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Hash of one (non-null) value of `col` at row i.
template <typename Hs>
typename Hs::H HashAt(const Column& col, int64_t i, typename Hs::H h) {
  const DataType& t = *col.type();
  switch (t.id()) {
    case TypeId::kNull:
      return h;
    case TypeId::kBoolean:
      return Hs::Int(col.GetBool(i) ? 1 : 0, h);
    case TypeId::kByte:
      return Hs::Int(col.raw_values<int8_t>()[i], h);
    case TypeId::kShort:
      return Hs::Int(col.raw_values<int16_t>()[i], h);
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Hs::Int(col.raw_values<int32_t>()[i], h);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return Hs::Long(col.raw_values<int64_t>()[i], h);
    case TypeId::kFloat:
      return Hs::Int(FloatBits(col.raw_values<float>()[i]), h);
    case TypeId::kDouble:
      return Hs::Long(DoubleBits(col.raw_values<double>()[i]), h);
    case TypeId::kDecimal: {
      __int128 v = col.raw_values<__int128>()[i];
      if (t.precision() <= 18) return Hs::Long(static_cast<int64_t>(v), h);
      return Hs::Bytes(BigIntegerBytes(v), h);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return Hs::Bytes(col.GetView(i), h);
    case TypeId::kArray: {
      const int32_t* o = col.offsets();
      const Column& e = *col.child(0);
      for (int32_t j = o[i]; j < o[i + 1]; ++j) {
        if (e.IsValid(j)) h = HashAt<Hs>(e, j, h);
      }
      return h;
    }
    case TypeId::kMap: {
      const int32_t* o = col.offsets();
      const Column& entries = *col.child(0);
      const Column& k = *entries.child(0);
      const Column& v = *entries.child(1);
      for (int32_t j = o[i]; j < o[i + 1]; ++j) {
        if (k.IsValid(j)) h = HashAt<Hs>(k, j, h);
        if (v.IsValid(j)) h = HashAt<Hs>(v, j, h);
      }
      return h;
    }
    case TypeId::kStruct: {
      for (const auto& f : col.children()) {
        if (f->IsValid(i)) h = HashAt<Hs>(*f, i, h);
      }
      return h;
    }
  }
  return h;
}

template <typename Hs, typename T, typename F>
void HashFixed(const Column& col, typename Hs::H* hashes, int64_t n, F f) {
  const T* x = col.raw_values<T>();
  const uint8_t* v = col.validity_bits();
  if (!v) {
    for (int64_t i = 0; i < n; ++i) hashes[i] = f(x[i], hashes[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (bits::Get(v, i)) hashes[i] = f(x[i], hashes[i]);
    }
  }
}

template <typename Hs>
void HashColumn(const Column& col, typename Hs::H* hashes, int64_t n) {
  using H = typename Hs::H;
  const DataType& t = *col.type();
  switch (t.id()) {
    case TypeId::kNull:
      return;
    case TypeId::kByte:
      HashFixed<Hs, int8_t>(col, hashes, n, [](int8_t x, H h) { return Hs::Int(x, h); });
      return;
    case TypeId::kShort:
      HashFixed<Hs, int16_t>(col, hashes, n,
                             [](int16_t x, H h) { return Hs::Int(x, h); });
      return;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      HashFixed<Hs, int32_t>(col, hashes, n,
                             [](int32_t x, H h) { return Hs::Int(x, h); });
      return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      HashFixed<Hs, int64_t>(col, hashes, n,
                             [](int64_t x, H h) { return Hs::Long(x, h); });
      return;
    case TypeId::kFloat:
      HashFixed<Hs, float>(col, hashes, n,
                           [](float x, H h) { return Hs::Int(FloatBits(x), h); });
      return;
    case TypeId::kDouble:
      HashFixed<Hs, double>(col, hashes, n,
                            [](double x, H h) { return Hs::Long(DoubleBits(x), h); });
      return;
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint8_t* v = col.validity_bits();
      for (int64_t i = 0; i < n; ++i) {
        if (!v || bits::Get(v, i)) hashes[i] = Hs::Bytes(col.GetView(i), hashes[i]);
      }
      return;
    }
    default:
      for (int64_t i = 0; i < n; ++i) {
        if (col.IsValid(i)) hashes[i] = HashAt<Hs>(col, i, hashes[i]);
      }
      return;
  }
}

bool HasMap(const DataType& t) {
  switch (t.id()) {
    case TypeId::kMap:
      return true;
    case TypeId::kArray:
      return HasMap(*t.element_type());
    case TypeId::kStruct:
      for (const auto& f : t.fields()) {
        if (HasMap(*f.type)) return true;
      }
      return false;
    default:
      return false;
  }
}

template <typename Hs>
Result<BoundExprPtr> ResolveHash(const std::string& name,
                                 std::vector<BoundExprPtr> args) {
  using H = typename Hs::H;
  if (args.empty()) {
    return Status::Error(
        "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        {{"functionName", "`" + name + "`"}, {"expectedNum", "> 0"}, {"actualNum", "0"}});
  }
  for (size_t k = 0; k < args.size(); ++k) {
    // Spark refuses maps in hash expressions (HASH_MAP_TYPE) unless a legacy flag is set.
    if (HasMap(*args[k]->type())) {
      return Status::Error("DATATYPE_MISMATCH.HASH_MAP_TYPE",
                           {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                            {"functionName", "`" + name + "`"}});
    }
  }
  DataTypePtr type = std::is_same_v<H, int32_t> ? DataType::Int() : DataType::Long();
  return MakeScalarCall(name, type, false, args,
                        [type](const std::vector<ColumnPtr>& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          kernel::Out<H> out(n);
                          for (int64_t i = 0; i < n; ++i) out.data[i] = 42;
                          for (const auto& col : c) HashColumn<Hs>(*col, out.data, n);
                          return kernel::MakeColumn(type, n, 0, nullptr, out.buf);
                        });
}

}  // namespace

int32_t Murmur3HashInt(int32_t v, int32_t seed) {
  uint32_t h1 = MixH1(static_cast<uint32_t>(seed), MixK1(static_cast<uint32_t>(v)));
  return static_cast<int32_t>(Fmix32(h1, 4));
}

int32_t Murmur3HashLong(int64_t v, int32_t seed) {
  uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(v));
  uint32_t high = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  uint32_t h1 = MixH1(static_cast<uint32_t>(seed), MixK1(low));
  h1 = MixH1(h1, MixK1(high));
  return static_cast<int32_t>(Fmix32(h1, 8));
}

int32_t Murmur3HashBytes(std::string_view bytes, int32_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t len = bytes.size();
  size_t aligned = len - len % 4;
  uint32_t h1 = static_cast<uint32_t>(seed);
  for (size_t k = 0; k < aligned; k += 4) h1 = MixH1(h1, MixK1(Load32(p + k)));
  // Spark's legacy tail: each remaining byte, sign-extended, mixed as a whole word.
  for (size_t k = aligned; k < len; ++k) {
    int32_t half_word = static_cast<int8_t>(p[k]);
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(half_word)));
  }
  return static_cast<int32_t>(Fmix32(h1, static_cast<uint32_t>(len)));
}

int64_t XxHash64Bytes(std::string_view bytes, int64_t seed_in) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned char* end = p + bytes.size();
  uint64_t seed = static_cast<uint64_t>(seed_in);
  uint64_t h;
  if (bytes.size() >= 32) {
    uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    const unsigned char* limit = end - 32;
    do {
      v1 = XxRound(v1, Load64(p));
      v2 = XxRound(v2, Load64(p + 8));
      v3 = XxRound(v3, Load64(p + 16));
      v4 = XxRound(v4, Load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = Rotl64(v1, 1) + Rotl64(v2, 7) + Rotl64(v3, 12) + Rotl64(v4, 18);
    h = XxMerge(h, v1);
    h = XxMerge(h, v2);
    h = XxMerge(h, v3);
    h = XxMerge(h, v4);
  } else {
    h = seed + kP5;
  }
  h += static_cast<uint64_t>(bytes.size());
  while (p + 8 <= end) {
    h ^= XxRound(0, Load64(p));
    h = Rotl64(h, 27) * kP1 + kP4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= static_cast<uint64_t>(Load32(p)) * kP1;
    h = Rotl64(h, 23) * kP2 + kP3;
    p += 4;
  }
  while (p < end) {
    h ^= static_cast<uint64_t>(*p) * kP5;
    h = Rotl64(h, 11) * kP1;
    ++p;
  }
  return static_cast<int64_t>(XxAvalanche(h));
}

int64_t XxHash64Int(int32_t v, int64_t seed) {
  uint64_t h = static_cast<uint64_t>(seed) + kP5 + 4;
  h ^= static_cast<uint64_t>(static_cast<uint32_t>(v)) * kP1;
  h = Rotl64(h, 23) * kP2 + kP3;
  return static_cast<int64_t>(XxAvalanche(h));
}

int64_t XxHash64Long(int64_t v, int64_t seed) {
  uint64_t h = static_cast<uint64_t>(seed) + kP5 + 8;
  h ^= Rotl64(static_cast<uint64_t>(v) * kP2, 31) * kP1;
  h = Rotl64(h, 27) * kP1 + kP4;
  return static_cast<int64_t>(XxAvalanche(h));
}

void Murmur3HashColumn(const Column& col, int32_t* hashes, int64_t n) {
  HashColumn<Murmur3>(col, hashes, n);
}
void XxHash64Column(const Column& col, int64_t* hashes, int64_t n) {
  HashColumn<Xx64>(col, hashes, n);
}

void RegisterHashFunctions(FunctionRegistry& r) {
  r.RegisterScalar("hash", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveHash<Murmur3>("hash", std::move(args));
  });
  r.RegisterScalar("xxhash64", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveHash<Xx64>("xxhash64", std::move(args));
  });
}

}  // namespace spate
