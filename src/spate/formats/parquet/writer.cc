// Copyright spate authors.
#include "spate/formats/parquet/writer.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <string_view>

#include "spate/base/mapped_allocator.h"
#include "spate/columnar/kernels.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/encoding.h"
#include "spate/formats/string_bounds.h"

namespace spate::formats::parquet {

// One leaf column's levels and value positions for the row group being written. Values
// are referenced, not copied: (leaf column, row indices) per batch.
//
// The buffers of a row group's chunks (levels, gathered values, dictionary, pages) are
// MappedVector / MappedString (base/mapped_allocator.h): once 64 KiB or more they are
// mapped and unmapped apart from malloc, so writing a large chunk (an auto-compaction's,
// a checkpoint's) does not raise glibc's dynamic mmap threshold, after which the free
// tops of the thread arenas stay resident (docs/streaming.md, "Memory").
struct ParquetWriter::LeafData {
  struct Segment {
    const Column* col = nullptr;
    MappedVector<int32_t> idx;
    int64_t all = -1;  // >= 0: rows [0, all) of col, no index list
  };
  // Definition levels. Until a level below max_def is appended (defs_stored false),
  // every level is max_def and `def` stays empty: a column without NULLs stores none and
  // its pages encode them as one run.
  MappedVector<int16_t> def;
  MappedVector<int16_t> rep;
  MappedVector<Segment> segs;
  int64_t num_levels = 0;
  int64_t num_values = 0;
  int16_t max_def = 0;
  bool defs_stored = false;

  // Call before appending levels to `def` (then one per level).
  void StoreDefs() {
    if (defs_stored) return;
    def.assign(static_cast<size_t>(num_levels), max_def);
    defs_stored = true;
  }
  // Appends n levels at max_def (num_levels is the caller's).
  void AppendMaxDefs(int64_t n) {
    if (defs_stored) def.insert(def.end(), static_cast<size_t>(n), max_def);
  }
};

namespace {

using LeafData = ParquetWriter::LeafData;

int64_t ColumnBytes(const Column& c) {
  int64_t n = 0;
  if (c.validity()) n += c.validity()->size();
  if (c.values()) n += c.values()->size();
  if (c.data()) n += c.data()->size();
  for (const auto& ch : c.children()) n += ColumnBytes(*ch);
  return n;
}

Status NullInRequired(const LevelNode& n) {
  return Status::Invalid(
      "cannot write a null value into the non-nullable Parquet field '" + n.name + "'");
}

// Shreds value i of `col` (node `n`) into the leaves' levels.
struct Shredder {
  std::vector<LeafData>* leaves;
  std::vector<LeafData::Segment*> segs;  // current batch's segment per leaf

  void EmitEmpty(const LevelNode& n, int16_t def, int16_t rep) {
    for (int l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l) {
      LeafData& d = (*leaves)[l];
      d.StoreDefs();
      d.def.push_back(def);
      d.rep.push_back(rep);
      ++d.num_levels;
    }
  }

  Status Shred(const LevelNode& n, const Column& col, int64_t i, int16_t rep) {
    if (col.IsNull(i)) {
      if (n.def == n.parent_def) return NullInRequired(n);
      EmitEmpty(n, n.parent_def, rep);
      return Status::OK();
    }
    switch (n.kind) {
      case LevelNode::kPrimitive: {
        LeafData& d = (*leaves)[n.leaf];
        d.StoreDefs();
        d.def.push_back(n.def);
        d.rep.push_back(rep);
        ++d.num_levels;
        ++d.num_values;
        LeafData::Segment* s = segs[n.leaf];
        s->col = &col;
        s->idx.push_back(static_cast<int32_t>(i));
        return Status::OK();
      }
      case LevelNode::kStruct:
        for (size_t c = 0; c < n.children.size(); ++c) {
          SPATE_RETURN_IF_ERROR(
              Shred(n.children[c], *col.child(static_cast<int>(c)), i, rep));
        }
        return Status::OK();
      case LevelNode::kList: {
        const int32_t* o = col.offsets();
        if (o[i] == o[i + 1]) {
          EmitEmpty(n, n.def, rep);
          return Status::OK();
        }
        for (int32_t j = o[i]; j < o[i + 1]; ++j) {
          SPATE_RETURN_IF_ERROR(
              Shred(n.children[0], *col.child(0), j, j == o[i] ? rep : n.elem_rep));
        }
        return Status::OK();
      }
      case LevelNode::kMap: {
        const int32_t* o = col.offsets();
        if (o[i] == o[i + 1]) {
          EmitEmpty(n, n.def, rep);
          return Status::OK();
        }
        const Column& entries = *col.child(0);
        for (int32_t j = o[i]; j < o[i + 1]; ++j) {
          int16_t r = j == o[i] ? rep : n.elem_rep;
          SPATE_RETURN_IF_ERROR(Shred(n.children[0], *entries.child(0), j, r));
          SPATE_RETURN_IF_ERROR(Shred(n.children[1], *entries.child(1), j, r));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }
};

// Whether `n` has no list or map below it (its leaves have one level per row).
bool IsFlat(const LevelNode& n) {
  if (n.kind == LevelNode::kList || n.kind == LevelNode::kMap) return false;
  for (const auto& c : n.children) {
    if (!IsFlat(c)) return false;
  }
  return true;
}

// Shreds rows [begin, begin + rows) of `col` (node `n`, IsFlat) column by column into
// its leaves' definition levels and value segments. `up`: the definition level each row
// reached above this node (nullptr: every row reached n.parent_def). Repetition levels
// are not stored (the caller adds them when the node is inside a list).
Status ShredFlat(const LevelNode& n, const Column& col, int64_t begin, int64_t rows,
                 const int16_t* up, std::vector<LeafData>* leaves) {
  const bool optional = n.def > n.parent_def;
  if (!up && !col.may_have_nulls()) {
    // Every row reaches n.def: the children see rows as below a node that is never NULL
    // (up == nullptr), and a leaf's levels are all max_def.
    if (n.kind == LevelNode::kStruct) {
      for (size_t c = 0; c < n.children.size(); ++c) {
        SPATE_RETURN_IF_ERROR(ShredFlat(n.children[c], *col.child(static_cast<int>(c)),
                                        begin, rows, nullptr, leaves));
      }
      return Status::OK();
    }
    LeafData& d = (*leaves)[n.leaf];
    d.AppendMaxDefs(rows);
    d.num_levels += rows;
    d.num_values += rows;
    LeafData::Segment s;
    s.col = &col;
    if (begin == 0) {
      s.all = rows;
    } else {
      s.idx.resize(static_cast<size_t>(rows));
      for (int64_t i = 0; i < rows; ++i)
        s.idx[static_cast<size_t>(i)] = static_cast<int32_t>(begin + i);
    }
    d.segs.push_back(std::move(s));
    return Status::OK();
  }
  MappedVector<int16_t> defs(static_cast<size_t>(rows));
  int64_t present = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int16_t d;
    if (up && up[i] < n.parent_def) {
      d = up[i];
    } else if (col.IsNull(begin + i)) {
      if (!optional) return NullInRequired(n);
      d = n.parent_def;
    } else {
      d = n.def;
      ++present;
    }
    defs[static_cast<size_t>(i)] = d;
  }
  if (n.kind == LevelNode::kStruct) {
    for (size_t c = 0; c < n.children.size(); ++c) {
      SPATE_RETURN_IF_ERROR(ShredFlat(n.children[c], *col.child(static_cast<int>(c)),
                                      begin, rows, defs.data(), leaves));
    }
    return Status::OK();
  }
  LeafData& d = (*leaves)[n.leaf];
  if (present == rows) {
    d.AppendMaxDefs(rows);
  } else {
    d.StoreDefs();
    d.def.insert(d.def.end(), defs.begin(), defs.end());
  }
  d.num_levels += rows;
  d.num_values += present;
  LeafData::Segment s;
  s.col = &col;
  if (present == rows && begin == 0) {
    s.all = rows;
  } else {
    s.idx.reserve(static_cast<size_t>(present));
    for (int64_t i = 0; i < rows; ++i) {
      if (defs[static_cast<size_t>(i)] == n.def)
        s.idx.push_back(static_cast<int32_t>(begin + i));
    }
  }
  d.segs.push_back(std::move(s));
  return Status::OK();
}

// Shreds rows [0, rows) of a top-level list `n` whose element is flat: the elements'
// levels column by column (elements of NULL lists marked absent), then one pass over the
// rows placing them with their repetition levels (0 at a row's first element, elem_rep
// after).
Status ShredFlatList(const LevelNode& n, const Column& col, int64_t rows,
                     std::vector<LeafData>* leaves) {
  const int32_t* o = col.offsets();
  const int64_t e0 = o[0], count = o[rows] - o[0];
  const bool optional = n.def > n.parent_def;
  MappedVector<int16_t> up(static_cast<size_t>(count), n.parent_def);
  for (int64_t i = 0; i < rows; ++i) {
    if (col.IsNull(i)) {
      if (!optional) return NullInRequired(n);
      continue;
    }
    std::fill(up.begin() + (o[i] - e0), up.begin() + (o[i + 1] - e0), n.elem_def);
  }
  std::vector<LeafData> elems(leaves->size());
  for (size_t l = 0; l < elems.size(); ++l) {
    elems[l].max_def = (*leaves)[l].max_def;
    elems[l].defs_stored = true;  // read below level by level
  }
  SPATE_RETURN_IF_ERROR(
      ShredFlat(n.children[0], *col.child(0), e0, count, up.data(), &elems));
  for (int l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l) {
    const LeafData& t = elems[l];
    LeafData& d = (*leaves)[l];
    d.StoreDefs();
    for (int64_t i = 0; i < rows; ++i) {
      if (col.IsNull(i) || o[i] == o[i + 1]) {
        d.def.push_back(col.IsNull(i) ? n.parent_def : n.def);
        d.rep.push_back(0);
        ++d.num_levels;
        continue;
      }
      d.def.insert(d.def.end(), t.def.begin() + (o[i] - e0),
                   t.def.begin() + (o[i + 1] - e0));
      d.rep.push_back(0);
      d.rep.insert(d.rep.end(), static_cast<size_t>(o[i + 1] - o[i] - 1), n.elem_rep);
      d.num_levels += o[i + 1] - o[i];
    }
    d.num_values += t.num_values;
    for (const auto& s : t.segs) d.segs.push_back(s);
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Value materialization: leaf segments -> contiguous physical values.

template <typename T, typename F>
void ForEachValue(const LeafData& d, F&& f) {
  for (const auto& s : d.segs) {
    if (!s.col) continue;
    if (s.all >= 0) {
      for (int64_t i = 0; i < s.all; ++i) f(*s.col, i);
    } else {
      for (int32_t i : s.idx) f(*s.col, i);
    }
  }
}

template <typename Dst, typename Src>
void GatherFixed(const LeafData& d, MappedVector<Dst>* out) {
  out->clear();
  out->reserve(
      static_cast<size_t>(d.num_values));  // no zero-fill: every value is appended
  for (const auto& s : d.segs) {
    if (!s.col) continue;
    const Src* v = s.col->raw_values<Src>();
    if (s.all >= 0) {
      if constexpr (std::is_same_v<Dst, Src>) {
        out->insert(out->end(), v, v + s.all);
      } else {
        for (int64_t i = 0; i < s.all; ++i) out->push_back(static_cast<Dst>(v[i]));
      }
    } else {
      for (int32_t i : s.idx) out->push_back(static_cast<Dst>(v[i]));
    }
  }
}

template <typename T>
int64_t ValueSize(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return static_cast<int64_t>(v.size()) + 4;
  } else {
    return sizeof(T);
  }
}

// The string / binary values of the segments.
void GatherViews(const LeafData& d, MappedVector<std::string_view>* out) {
  out->resize(static_cast<size_t>(d.num_values));
  std::string_view* v = out->data();
  for (const auto& s : d.segs) {
    if (!s.col) continue;
    const int32_t* o = s.col->offsets();
    const char* base =
        s.col->data() ? reinterpret_cast<const char*>(s.col->data()->data()) : nullptr;
    if (s.all >= 0) {
      for (int64_t i = 0; i < s.all; ++i)
        *v++ = std::string_view(base + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    } else {
      for (int32_t i : s.idx)
        *v++ = std::string_view(base + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    }
  }
}

// Open-addressing dictionary from values to indices. Fixed-width values are kept in the
// slots beside their index (one memory access per probe); strings are compared in dict_.
template <typename T, typename Hash, typename Eq>
class DictBuilder {
  static constexpr bool kInline = !std::is_same_v<T, std::string_view>;
  struct Slot {
    T key;
    int32_t index;
  };

 public:
  // fixed_size > 0: every entry's dictionary bytes; 0: ValueSize.
  DictBuilder(int64_t max_bytes, int64_t fixed_size)
      : max_bytes_(max_bytes), fixed_size_(fixed_size) {
    if constexpr (kInline) {
      slots_.assign(1024, Slot{T{}, -1});
    } else {
      slots_.assign(1024, -1);
    }
  }
  // Returns false when the dictionary got too large.
  bool Build(const MappedVector<T>& values, MappedVector<uint32_t>* indices) {
    const size_t n = values.size();
    indices->resize(n);
    uint32_t* out = indices->data();
    for (size_t i = 0; i < n; ++i) {
      const T& v = values[i];
      size_t h = Hash{}(v) >> shift_;
      while (true) {
        int32_t s;
        if constexpr (kInline) {
          s = slots_[h].index;
        } else {
          s = slots_[h];
        }
        if (s < 0) {
          s = static_cast<int32_t>(dict_.size());
          if constexpr (kInline) {
            slots_[h] = Slot{v, s};
          } else {
            slots_[h] = s;
          }
          dict_.push_back(v);
          bytes_ += fixed_size_ > 0 ? fixed_size_ : ValueSize(v);
          if (bytes_ > max_bytes_) return false;
          if (dict_.size() * 2 > slots_.size()) Grow();
          out[i] = static_cast<uint32_t>(s);
          break;
        }
        bool equal;
        if constexpr (kInline) {
          equal = Eq{}(slots_[h].key, v);
        } else {
          equal = Eq{}(dict_[static_cast<size_t>(s)], v);
        }
        if (equal) {
          out[i] = static_cast<uint32_t>(s);
          break;
        }
        h = (h + 1) & mask_;
      }
    }
    return true;
  }
  MappedVector<T> TakeDict() { return std::move(dict_); }

 private:
  void Grow() {
    using SlotType = typename decltype(slots_)::value_type;
    MappedVector<SlotType> n;
    if constexpr (kInline) {
      n.assign(slots_.size() * 2, Slot{T{}, -1});
    } else {
      n.assign(slots_.size() * 2, -1);
    }
    const size_t mask = n.size() - 1;
    const int shift = shift_ - 1;
    for (size_t k = 0; k < dict_.size(); ++k) {
      size_t h = Hash{}(dict_[k]) >> shift;
      if constexpr (kInline) {
        while (n[h].index >= 0) h = (h + 1) & mask;
        n[h] = Slot{dict_[k], static_cast<int32_t>(k)};
      } else {
        while (n[h] >= 0) h = (h + 1) & mask;
        n[h] = static_cast<int32_t>(k);
      }
    }
    slots_ = std::move(n);
    mask_ = slots_.size() - 1;
    --shift_;
  }
  int64_t max_bytes_;
  int64_t fixed_size_;
  size_t mask_ = 1023;
  int shift_ = 64 - 10;  // a slot is the hash's top log2(slots) bits
  std::conditional_t<kInline, MappedVector<Slot>, MappedVector<int32_t>> slots_;
  MappedVector<T> dict_;
  int64_t bytes_ = 0;
};

// The bits of a fixed-width value, zero-extended.
template <typename T>
uint64_t Bits64(const T& v) {
  uint64_t x = 0;
  std::memcpy(&x, &v, sizeof(T));
  return x;
}
// The dictionary's slot hash of a fixed-width value (its top bits are used).
template <typename T>
struct SlotHash {
  size_t operator()(const T& v) const {
    const uint64_t x = Bits64(v);
    return static_cast<size_t>((x ^ (x >> 32)) * 0x9e3779b97f4a7c15ULL);
  }
};
// A 64-bit mix of a fixed-width value (HyperLogLog's hash).
template <typename T>
struct BitsHash {
  size_t operator()(const T& v) const {
    uint64_t x = Bits64(v);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }
};
template <typename T>
struct BitsEq {
  bool operator()(const T& a, const T& b) const {
    // Bitwise on purpose: -0.0 and 0.0 are two dictionary entries, a NaN equals itself.
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
};
// Whether the dictionary of the fixed-width values `vals` may stay within max_bytes. A
// chunk whose values all fit trivially may; otherwise their distinct count is estimated
// (HyperLogLog over 2^11 registers, the dictionary's own hash; standard error ~2.3%) and
// only a clear overflow (the estimate 1.25x the entries that fit, ~10 standard errors)
// answers no. Building a dictionary of values that mostly differ costs a cache miss per
// value and ends in PLAIN anyway; a wrong answer could only change the encoding.
template <typename T>
bool DictionaryMayFit(const MappedVector<T>& vals, int64_t max_bytes) {
  const auto width = static_cast<int64_t>(sizeof(T));
  if (static_cast<int64_t>(vals.size()) * width <= max_bytes) return true;
  constexpr int kBits = 11;
  constexpr int kRegisters = 1 << kBits;
  std::vector<uint8_t> reg(kRegisters, 0);
  for (const T& v : vals) {
    const uint64_t h = BitsHash<T>{}(v);
    // Leading zeros after the register bits, plus one (a guard bit bounds it).
    const auto rank = static_cast<uint8_t>(
        __builtin_clzll((h << kBits) | (uint64_t{1} << (kBits - 1))) + 1);
    uint8_t& r = reg[h >> (64 - kBits)];
    r = std::max(r, rank);
  }
  double sum = 0;
  int zeros = 0;
  for (uint8_t r : reg) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0;
  }
  constexpr double kM = kRegisters;
  double estimate = 0.7213 / (1 + 1.079 / kM) * kM * kM / sum;
  if (estimate <= 2.5 * kM && zeros > 0) estimate = kM * std::log(kM / zeros);
  return estimate * static_cast<double>(width) <= 1.25 * static_cast<double>(max_bytes);
}

// Strings (and FIXED_LEN_BYTE_ARRAY decimals) are not estimated.
bool DictionaryMayFit(const MappedVector<std::string_view>&, int64_t) { return true; }

// Strings' dictionary hash and equality, inline: words of 8 bytes, the tail read as two
// overlapping words (never a byte outside the string).
inline uint64_t Word8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t Word4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
struct ViewHash {
  size_t operator()(std::string_view v) const {
    const char* p = v.data();
    size_t n = v.size();
    uint64_t h = (n + 1) * 0x9e3779b97f4a7c15ULL;
    auto mix = [&h](uint64_t w) {
      h = (h ^ w) * 0xff51afd7ed558ccdULL;
      h ^= h >> 32;
    };
    for (; n > 8; n -= 8, p += 8) mix(Word8(p));
    if (n >= 4) {
      mix(Word4(p) | Word4(p + n - 4) << 32);
    } else if (n > 0) {
      mix(static_cast<uint8_t>(p[0]) |
          static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8 |
          static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1])) << 16);
    }
    return static_cast<size_t>((h ^ (h >> 29)) * 0x9e3779b97f4a7c15ULL);
  }
};
struct ViewEq {
  bool operator()(std::string_view a, std::string_view b) const {
    const size_t n = a.size();
    if (n != b.size()) return false;
    if (n > 16) return std::memcmp(a.data(), b.data(), n) == 0;
    const char *x = a.data(), *y = b.data();
    if (n >= 8) return Word8(x) == Word8(y) && Word8(x + n - 8) == Word8(y + n - 8);
    if (n >= 4) return Word4(x) == Word4(y) && Word4(x + n - 4) == Word4(y + n - 4);
    for (size_t i = 0; i < n; ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
};

// PLAIN encoding of values [b, e).
template <typename T>
void PlainEncode(const MappedVector<T>& v, size_t b, size_t e, int flba_width,
                 MappedString* out) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    size_t total = 0;
    for (size_t i = b; i < e; ++i) total += v[i].size() + (flba_width == 0 ? 4 : 0);
    size_t at = out->size();
    out->resize(at + total);
    char* p = out->data() + at;
    for (size_t i = b; i < e; ++i) {
      if (flba_width == 0) {
        uint32_t len = static_cast<uint32_t>(v[i].size());
        std::memcpy(p, &len, 4);
        p += 4;
      }
      std::memcpy(p, v[i].data(), v[i].size());
      p += v[i].size();
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    size_t n = e - b;
    size_t start = out->size();
    out->resize(start + (n + 7) / 8, 0);
    uint8_t* p = reinterpret_cast<uint8_t*>(out->data() + start);
    for (size_t i = 0; i < n; ++i) {
      if (v[b + i]) p[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
  } else {
    out->append(reinterpret_cast<const char*>(v.data() + b), (e - b) * sizeof(T));
  }
}

template <typename T>
std::string StatBytes(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::string(1, v ? '\1' : '\0');
  } else {
    return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
  }
}

// The bounds ComputeStats found before the footer's rules (zeros normalized, strings over
// 4 KiB dropped) were applied: the first value seen wins ties.
template <typename T>
struct RawBounds {
  bool any = false;
  bool nan = false;
  T min{}, max{};
};

// Min/max (Parquet's type-defined order) of the values, NaN ignored.
template <typename T>
void ComputeStats(const MappedVector<T>& v, Statistics* st, RawBounds<T>* raw) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (v.empty()) return;
    StringBounds b;
    for (const auto& x : v) b.Add(x);
    const std::string_view mn = b.min(), mx = b.max();
    *raw = {true, false, mn, mx};
    if (mn.size() > 4096 || mx.size() > 4096) return;
    st->has_min_value = st->has_max_value = true;
    st->min_value = std::string(mn);
    st->max_value = std::string(mx);
  } else {
    bool any = false;
    T mn{}, mx{};
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
      for (const auto& x : v) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(x)) {
            raw->nan = true;
            continue;
          }
        }
        if (!any) {
          mn = mx = x;
          any = true;
        } else {
          if (x < mn) mn = x;
          if (mx < x) mx = x;
        }
      }
    } else if (!v.empty()) {
      // Integers: a plain min/max loop (vectorized).
      mn = mx = v[0];
      for (size_t i = 1; i < v.size(); ++i) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
      }
      any = true;
    }
    if (!any) return;
    raw->any = true;
    raw->min = mn;
    raw->max = mx;
    if constexpr (std::is_floating_point_v<T>) {
      if (mn == 0) mn = -T(0);
      if (mx == 0) mx = T(0);
    }
    st->has_min_value = st->has_max_value = true;
    st->min_value = StatBytes(mn);
    st->max_value = StatBytes(mx);
    // The deprecated fields (signed order) for readers that only know them.
    if constexpr (!std::is_same_v<T, bool>) {
      st->has_min = st->has_max = true;
      st->min = st->min_value;
      st->max = st->max_value;
    }
  }
}

// Physical value x of a leaf of spate type t as the Value a pass over the rows keeps for
// Delta's statistics; nullopt for types without bounds there (boolean, binary).
template <typename T>
std::optional<Value> SummaryValue(const T& x, const DataType& t) {
  switch (t.id()) {
    case TypeId::kByte:
      return Value::Byte(static_cast<int8_t>(x));
    case TypeId::kShort:
      return Value::Short(static_cast<int16_t>(x));
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(x));
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(x));
    case TypeId::kLong:
      return Value::Long(static_cast<int64_t>(x));
    case TypeId::kTimestamp:
      return Value::Timestamp(static_cast<int64_t>(x));
    case TypeId::kTimestampNtz:
      return Value::TimestampNtz(static_cast<int64_t>(x));
    case TypeId::kFloat:
      return Value::Float(static_cast<float>(x));
    case TypeId::kDouble:
      return Value::Double(static_cast<double>(x));
    case TypeId::kDecimal:
      return Value::Decimal(static_cast<__int128>(x), t.precision(), t.scale());
    default:
      return std::nullopt;
  }
}

template <>
std::optional<Value> SummaryValue(const std::string_view& x, const DataType& t) {
  if (t.id() != TypeId::kString) return std::nullopt;
  return Value::String(std::string(x));
}

template <>
std::optional<Value> SummaryValue(const bool&, const DataType&) {
  return std::nullopt;
}

template <typename T>
void Summarize(const RawBounds<T>& raw, const DataType& t, LeafSummary* sum) {
  sum->nan = raw.nan;
  if (!raw.any) return;
  sum->min = SummaryValue(raw.min, t);
  sum->max = SummaryValue(raw.max, t);
}

void PutLe32(uint32_t v, MappedString* out) {
  out->append(reinterpret_cast<const char*>(&v), 4);
}

// Big-endian two's complement of v in `width` bytes.
void DecimalToBytes(__int128 v, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(v & 0xFF));
    v >>= 8;
  }
}

}  // namespace

ParquetWriter::ParquetWriter(std::unique_ptr<io::WritableFile> file, ParquetSchema schema,
                             WriterOptions options)
    : file_(std::move(file)), schema_(std::move(schema)), options_(std::move(options)) {}

ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Make(
    std::unique_ptr<io::WritableFile> file, const Schema& schema, WriterOptions options) {
  SPATE_ASSIGN_OR_RETURN(ParquetSchema ps, SchemaForWrite(schema));
  std::unique_ptr<ParquetWriter> w(
      new ParquetWriter(std::move(file), std::move(ps), std::move(options)));
  w->metadata_.version = 1;
  w->metadata_.schema = w->schema_.elements;
  w->metadata_.created_by = kCreatedBy;
  w->metadata_.key_value_metadata = w->options_.key_value_metadata;
  w->metadata_.num_column_orders = static_cast<int32_t>(w->schema_.leaves.size());
  SPATE_RETURN_IF_ERROR(w->Append("PAR1"));
  return w;
}

int64_t ParquetWriter::bytes_written() const { return file_ ? file_->Position() : 0; }

Status ParquetWriter::Append(std::string_view bytes) { return file_->Append(bytes); }

Status ParquetWriter::Write(const BatchPtr& batch) {
  if (closed_) return Status::Invalid("write to a closed Parquet writer");
  if (batch->num_columns() != schema_.schema->num_fields()) {
    return Status::Invalid("batch has " + std::to_string(batch->num_columns()) +
                           " columns, the Parquet schema " +
                           std::to_string(schema_.schema->num_fields()));
  }
  if (batch->num_rows() == 0) return Status::OK();
  if (pending_rows_ + batch->num_rows() > options_.row_group_rows) {
    // Split at the row-group row limit (slices copy; only done when a limit cuts a
    // batch).
    int64_t head = options_.row_group_rows - pending_rows_;
    SPATE_RETURN_IF_ERROR(Write(SliceBatch(*batch, 0, head)));
    return Write(SliceBatch(*batch, head, batch->num_rows() - head));
  }
  int64_t bytes = 0;
  for (const auto& c : batch->columns()) bytes += ColumnBytes(*c);
  int64_t rows = batch->num_rows();
  // Split batches larger than what is left of the row group? Keep whole batches: a
  // row group holds whole batches, which keeps shredding simple.
  pending_.push_back(batch);
  pending_rows_ += rows;
  pending_bytes_ += bytes;
  if (pending_bytes_ >= options_.row_group_bytes ||
      pending_rows_ >= options_.row_group_rows) {
    return FlushRowGroup();
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup() {
  if (pending_rows_ == 0) return Status::OK();
  std::vector<LeafData> leaves(schema_.leaves.size());
  for (size_t l = 0; l < leaves.size(); ++l)
    leaves[l].max_def = schema_.leaves[l].max_def;
  for (size_t f = 0; f < schema_.fields.size(); ++f) {
    const LevelNode& node = schema_.fields[f];
    for (const auto& b : pending_) {
      const Column& col = *b->column(static_cast<int>(f));
      int64_t n = b->num_rows();
      if (node.kind == LevelNode::kPrimitive) {
        LeafData& d = leaves[node.leaf];
        LeafData::Segment s;
        s.col = &col;
        bool optional = node.def > node.parent_def;
        if (!col.may_have_nulls()) {
          s.all = n;
          if (optional) d.AppendMaxDefs(n);
          d.num_values += n;
        } else {
          if (!optional) return NullInRequired(node);
          d.StoreDefs();
          const size_t at = d.def.size();
          d.def.resize(at + static_cast<size_t>(n));
          int16_t* def = d.def.data() + at;
          // One slot of slack: the loop writes the next index before knowing it is valid.
          const auto valid_rows = static_cast<size_t>(n - col.null_count());
          s.idx.resize(valid_rows + 1);
          int32_t* idx = s.idx.data();
          size_t k = 0;
          for (int64_t i = 0; i < n; ++i) {
            const bool valid = col.IsValid(i);
            def[i] = valid ? node.def : node.parent_def;
            idx[k] = static_cast<int32_t>(i);
            k += valid;
          }
          s.idx.resize(k);
          d.num_values += static_cast<int64_t>(k);
        }
        d.num_levels += n;
        d.segs.push_back(std::move(s));
        continue;
      }
      if (IsFlat(node)) {
        SPATE_RETURN_IF_ERROR(ShredFlat(node, col, 0, n, nullptr, &leaves));
        continue;
      }
      if (node.kind == LevelNode::kList && IsFlat(node.children[0])) {
        SPATE_RETURN_IF_ERROR(ShredFlatList(node, col, n, &leaves));
        continue;
      }
      Shredder sh{&leaves, {}};
      for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l)
        leaves[l].segs.emplace_back();
      sh.segs.resize(leaves.size(), nullptr);
      for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l)
        sh.segs[l] = &leaves[l].segs.back();
      for (int64_t i = 0; i < n; ++i) SPATE_RETURN_IF_ERROR(sh.Shred(node, col, i, 0));
    }
  }
  RowGroup rg;
  rg.num_rows = pending_rows_;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  rg.has_file_offset = true;
  rg.file_offset = file_->Position();
  if (options_.summarize_leaves) summaries_.emplace_back(leaves.size());
  for (size_t l = 0; l < leaves.size(); ++l) {
    ColumnChunk chunk;
    SPATE_RETURN_IF_ERROR(WriteChunk(static_cast<int>(l), leaves[l], &chunk));
    rg.total_byte_size += chunk.meta_data.total_uncompressed_size;
    rg.total_compressed_size += chunk.meta_data.total_compressed_size;
    rg.columns.push_back(std::move(chunk));
  }
  metadata_.row_groups.push_back(std::move(rg));
  metadata_.num_rows += pending_rows_;
  rows_written_ += pending_rows_;
  pending_.clear();
  pending_rows_ = 0;
  pending_bytes_ = 0;
  return Status::OK();
}

namespace {

// Writes one column chunk of physical values `vals` (type T).
template <typename T>
struct ChunkWriter {
  const LeafInfo& leaf;
  const LeafData& d;
  const WriterOptions& opt;
  std::function<Status(std::string_view)> append;
  std::function<int64_t()> position;
  int flba_width = 0;
  // Min/max statistics from the values (from the dictionary when there is one: the same
  // set of values); false when the caller filled them (decimals as FIXED_LEN_BYTE_ARRAY).
  bool compute_stats = true;
  // Set (WriterOptions::summarize_leaves, leaves outside lists and maps): filled with the
  // chunk's LeafSummary (min/max left to the caller when compute_stats is false).
  LeafSummary* summary = nullptr;

  MappedString comp_buf;  // reused across pages (no zero-fill after the first)

  Status WritePage(PageType type, MappedString& body, int32_t num_values, Encoding enc,
                   int64_t* unc_total, int64_t* comp_total, bool dict_page) {
    MappedString& comp = comp_buf;
    std::string_view out;
    if (opt.codec == Codec::kUncompressed) {
      out = body;
    } else {
      SPATE_ASSIGN_OR_RETURN(
          const int64_t len,
          CompressReusing(opt.codec, reinterpret_cast<const uint8_t*>(body.data()),
                          static_cast<int64_t>(body.size()), &comp));
      out = std::string_view(comp.data(), static_cast<size_t>(len));
    }
    if (body.size() > static_cast<size_t>(INT32_MAX) ||
        out.size() > static_cast<size_t>(INT32_MAX)) {
      return Status::Invalid("Parquet page larger than 2 GB in column " +
                             leaf.path.back());
    }
    PageHeader h;
    h.type = type;
    h.uncompressed_page_size = static_cast<int32_t>(body.size());
    h.compressed_page_size = static_cast<int32_t>(out.size());
    if (opt.write_page_crc) {
      h.has_crc = true;
      h.crc = static_cast<int32_t>(Crc32(reinterpret_cast<const uint8_t*>(out.data()),
                                         static_cast<int64_t>(out.size())));
    }
    if (dict_page) {
      h.has_dictionary_page_header = true;
      h.dictionary_page_header.num_values = num_values;
      h.dictionary_page_header.encoding = Encoding::kPlain;
    } else {
      h.has_data_page_header = true;
      h.data_page_header.num_values = num_values;
      h.data_page_header.encoding = enc;
      h.data_page_header.definition_level_encoding = Encoding::kRle;
      h.data_page_header.repetition_level_encoding = Encoding::kRle;
    }
    std::string hdr;
    WritePageHeader(h, &hdr);
    SPATE_RETURN_IF_ERROR(append(hdr));
    SPATE_RETURN_IF_ERROR(append(out));
    *unc_total += static_cast<int64_t>(hdr.size() + body.size());
    *comp_total += static_cast<int64_t>(hdr.size() + out.size());
    return Status::OK();
  }

  Status Write(const MappedVector<T>& vals, Statistics stats, ColumnChunk* chunk) {
    ColumnMetaData& m = chunk->meta_data;
    chunk->has_meta_data = true;
    m.type = leaf.physical;
    m.path_in_schema = leaf.path;
    m.codec = opt.codec;
    m.num_values = d.num_levels;
    int64_t unc = 0, comp = 0;
    int64_t start = position();
    chunk->file_offset = start;

    // Dictionary.
    MappedVector<uint32_t> indices;
    MappedVector<T> dict;
    bool use_dict = false;
    if constexpr (!std::is_same_v<T, bool>) {
      if (opt.enable_dictionary && !vals.empty() &&
          DictionaryMayFit(vals, opt.dictionary_page_bytes)) {
        using H = std::conditional_t<std::is_same_v<T, std::string_view>, ViewHash,
                                     SlotHash<T>>;
        using E =
            std::conditional_t<std::is_same_v<T, std::string_view>, ViewEq, BitsEq<T>>;
        DictBuilder<T, H, E> db(opt.dictionary_page_bytes, flba_width);
        if (db.Build(vals, &indices)) {
          use_dict = true;
          dict = db.TakeDict();
        }
      }
    }
    RawBounds<T> raw;
    if (compute_stats) ComputeStats(use_dict ? dict : vals, &stats, &raw);
    if (summary && compute_stats) Summarize(raw, *leaf.type, summary);
    if (use_dict) {
      MappedString body;
      PlainEncode(dict, 0, dict.size(), flba_width, &body);
      m.has_dictionary_page_offset = true;
      m.dictionary_page_offset = position();
      SPATE_RETURN_IF_ERROR(WritePage(PageType::kDictionaryPage, body,
                                      static_cast<int32_t>(dict.size()), Encoding::kPlain,
                                      &unc, &comp, true));
    }
    m.data_page_offset = position();
    int dict_bw =
        use_dict ? std::max(1, BitWidth(dict.size() > 0 ? dict.size() - 1 : 0)) : 0;

    // Pages: cut at ~page_bytes of values, at row starts (rep == 0).
    double avg = 1;
    if (!vals.empty()) {
      if constexpr (std::is_same_v<T, std::string_view>) {
        int64_t total = 0;
        for (const auto& v : vals) total += static_cast<int64_t>(v.size()) + 4;
        avg = static_cast<double>(total) / static_cast<double>(vals.size());
      } else {
        avg = use_dict ? std::max(0.125, dict_bw / 8.0) : sizeof(T);
      }
    }
    int64_t per_page = std::max<int64_t>(
        64, static_cast<int64_t>(static_cast<double>(opt.page_bytes) / avg));
    const bool has_def = leaf.max_def > 0, has_rep = leaf.max_rep > 0;
    // No level stored: every level is max_def (a value).
    const bool all_defined = !has_def || !d.defs_stored;
    int64_t l0 = 0, v0 = 0;
    // Room for the largest page this chunk fills (values, levels and slack), at most a
    // full page: a chunk of ten values does not take a page_bytes block (1.25 MiB per
    // column per file, which made glibc serve every later large block from its heaps).
    const double page_values = static_cast<double>(
        std::min<int64_t>(per_page, static_cast<int64_t>(vals.size())));
    const double page_levels =
        static_cast<double>(std::min<int64_t>(8 * per_page, d.num_levels));
    MappedString page_body;
    page_body.reserve(static_cast<size_t>(
        std::min<double>(static_cast<double>(opt.page_bytes) * 1.25,
                         (page_values * avg + page_levels / 2 + 64) * 1.25)));
    while (l0 < d.num_levels || (l0 == 0 && d.num_levels == 0)) {
      int64_t l1 = l0, v1 = v0;
      // Whole blocks of 64 stored levels while the page stays under per_page values and
      // under `limit` levels: the loop below would take every level of such a block,
      // whatever its repetition level.
      auto whole_blocks = [&](int64_t limit) {
        const int16_t* def = d.def.data();
        const auto max_def = static_cast<int16_t>(leaf.max_def);
        while (l1 + 64 <= limit) {
          int64_t c = 0;
          for (int k = 0; k < 64; ++k) c += def[l1 + k] == max_def;
          if (v1 - v0 + c >= per_page) break;
          v1 += c;
          l1 += 64;
        }
      };
      const int64_t limit = std::min(d.num_levels, l0 + 8 * per_page);
      if (!has_rep) {
        // The loop below without repetition levels: the same cut, found by blocks, then
        // level by level.
        if (all_defined) {
          l1 = std::min(limit, l0 + per_page);
          v1 = v0 + (l1 - l0);
        } else {
          whole_blocks(limit);
          const int16_t* def = d.def.data();
          for (; l1 < limit && v1 - v0 < per_page; ++l1) v1 += def[l1] == leaf.max_def;
        }
      } else if (!all_defined) {
        whole_blocks(limit);
      }
      while (l1 < d.num_levels && (v1 - v0 < per_page || (has_rep && d.rep[l1] != 0)) &&
             (l1 - l0 < 8 * per_page || (has_rep && d.rep[l1] != 0))) {
        if (all_defined || d.def[l1] == leaf.max_def) ++v1;
        ++l1;
      }
      MappedString& body = page_body;
      body.clear();
      if (has_rep) {
        MappedString enc;
        RleEncode(d.rep.data() + l0, l1 - l0,
                  BitWidth(static_cast<uint64_t>(leaf.max_rep)), &enc);
        PutLe32(static_cast<uint32_t>(enc.size()), &body);
        body += enc;
      }
      if (has_def) {
        MappedString enc;
        const int bw = BitWidth(static_cast<uint64_t>(leaf.max_def));
        if (d.defs_stored) {
          RleEncode(d.def.data() + l0, l1 - l0, bw, &enc);
        } else {
          RleEncodeRepeated(static_cast<uint32_t>(leaf.max_def), l1 - l0, bw, &enc);
        }
        PutLe32(static_cast<uint32_t>(enc.size()), &body);
        body += enc;
      }
      if (use_dict) {
        body.push_back(static_cast<char>(dict_bw));
        RleEncode(indices.data() + v0, v1 - v0, dict_bw, &body);
      } else {
        PlainEncode(vals, static_cast<size_t>(v0), static_cast<size_t>(v1), flba_width,
                    &body);
      }
      SPATE_RETURN_IF_ERROR(WritePage(
          PageType::kDataPage, body, static_cast<int32_t>(l1 - l0),
          use_dict ? Encoding::kRleDictionary : Encoding::kPlain, &unc, &comp, false));
      l0 = l1;
      v0 = v1;
      if (d.num_levels == 0) break;
    }
    m.encodings = use_dict ? std::vector<Encoding>{Encoding::kPlain, Encoding::kRle,
                                                   Encoding::kRleDictionary}
                           : std::vector<Encoding>{Encoding::kPlain, Encoding::kRle};
    m.total_uncompressed_size = unc;
    m.total_compressed_size = comp;
    stats.has_null_count = true;
    if (leaf.max_rep == 0) {
      stats.null_count = d.num_levels - d.num_values;
    } else {
      // Nulls of the leaf itself: levels one below max_def (elements that are null).
      int64_t nulls = 0;
      if (d.defs_stored && leaf.max_def > 0) {
        const int16_t* def = d.def.data();
        const auto null_def = static_cast<int16_t>(leaf.max_def - 1);
        for (int64_t i = 0; i < d.num_levels; ++i) nulls += def[i] == null_def;
      }
      stats.null_count = nulls;
    }
    if (summary) summary->null_count = stats.null_count;
    m.has_statistics = true;
    m.statistics = std::move(stats);
    return Status::OK();
  }
};

}  // namespace

Status ParquetWriter::WriteChunk(int leaf_index, LeafData& d, ColumnChunk* chunk) {
  const LeafInfo& leaf = schema_.leaves[leaf_index];
  auto append = [this](std::string_view b) { return Append(b); };
  auto position = [this] { return file_->Position(); };
  LeafSummary* sum = options_.summarize_leaves && leaf.max_rep == 0
                         ? &summaries_.back()[static_cast<size_t>(leaf_index)]
                         : nullptr;
  Statistics st;
  switch (leaf.type->id()) {
    case TypeId::kBoolean: {
      MappedVector<bool> v;
      v.reserve(static_cast<size_t>(d.num_values));
      ForEachValue<bool>(d,
                         [&](const Column& c, int64_t i) { v.push_back(c.GetBool(i)); });
      return ChunkWriter<bool>{leaf, d, options_, append, position, 0, true, sum}.Write(
          v, std::move(st), chunk);
    }
    case TypeId::kByte: {
      MappedVector<int32_t> v;
      GatherFixed<int32_t, int8_t>(d, &v);
      return ChunkWriter<int32_t>{leaf, d, options_, append, position, 0, true, sum}
          .Write(v, std::move(st), chunk);
    }
    case TypeId::kShort: {
      MappedVector<int32_t> v;
      GatherFixed<int32_t, int16_t>(d, &v);
      return ChunkWriter<int32_t>{leaf, d, options_, append, position, 0, true, sum}
          .Write(v, std::move(st), chunk);
    }
    case TypeId::kInt:
    case TypeId::kDate: {
      MappedVector<int32_t> v;
      GatherFixed<int32_t, int32_t>(d, &v);
      return ChunkWriter<int32_t>{leaf, d, options_, append, position, 0, true, sum}
          .Write(v, std::move(st), chunk);
    }
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      MappedVector<int64_t> v;
      GatherFixed<int64_t, int64_t>(d, &v);
      return ChunkWriter<int64_t>{leaf, d, options_, append, position, 0, true, sum}
          .Write(v, std::move(st), chunk);
    }
    case TypeId::kFloat: {
      MappedVector<float> v;
      GatherFixed<float, float>(d, &v);
      return ChunkWriter<float>{leaf, d, options_, append, position, 0, true, sum}.Write(
          v, std::move(st), chunk);
    }
    case TypeId::kDouble: {
      MappedVector<double> v;
      GatherFixed<double, double>(d, &v);
      return ChunkWriter<double>{leaf, d, options_, append, position, 0, true, sum}.Write(
          v, std::move(st), chunk);
    }
    case TypeId::kDecimal: {
      if (leaf.physical == PhysicalType::kInt32) {
        MappedVector<int32_t> v;
        GatherFixed<int32_t, __int128>(d, &v);
        return ChunkWriter<int32_t>{leaf, d, options_, append, position, 0, true, sum}
            .Write(v, std::move(st), chunk);
      }
      if (leaf.physical == PhysicalType::kInt64) {
        MappedVector<int64_t> v;
        GatherFixed<int64_t, __int128>(d, &v);
        return ChunkWriter<int64_t>{leaf, d, options_, append, position, 0, true, sum}
            .Write(v, std::move(st), chunk);
      }
      const int w = leaf.type_length;
      MappedString arena(static_cast<size_t>(d.num_values * w), '\0');
      MappedVector<std::string_view> v;
      v.reserve(static_cast<size_t>(d.num_values));
      bool any = false;
      __int128 mn = 0, mx = 0;
      ForEachValue<__int128>(d, [&](const Column& c, int64_t i) {
        __int128 x = c.raw_values<__int128>()[i];
        char* p = arena.data() + v.size() * static_cast<size_t>(w);
        DecimalToBytes(x, w, p);
        v.emplace_back(p, static_cast<size_t>(w));
        if (!any || x < mn) mn = x;
        if (!any || x > mx) mx = x;
        any = true;
      });
      if (any) {
        st.has_min_value = st.has_max_value = true;
        st.min_value.resize(static_cast<size_t>(w));
        st.max_value.resize(static_cast<size_t>(w));
        DecimalToBytes(mn, w, st.min_value.data());
        DecimalToBytes(mx, w, st.max_value.data());
      }
      ChunkWriter<std::string_view> cw{leaf, d, options_, append, position};
      cw.flba_width = w;
      cw.compute_stats = false;
      cw.summary = sum;
      if (sum && any) {
        sum->min = Value::Decimal(mn, leaf.type->precision(), leaf.type->scale());
        sum->max = Value::Decimal(mx, leaf.type->precision(), leaf.type->scale());
      }
      return cw.Write(v, std::move(st), chunk);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      MappedVector<std::string_view> v;
      GatherViews(d, &v);
      return ChunkWriter<std::string_view>{leaf,     d, options_, append,
                                           position, 0, true,     sum}
          .Write(v, std::move(st), chunk);
    }
    default:
      return Status::Unimplemented("Parquet writer: unsupported leaf type " +
                                   leaf.type->SimpleString());
  }
}

Status ParquetWriter::Close() {
  if (closed_) return Status::OK();
  SPATE_RETURN_IF_ERROR(FlushRowGroup());
  closed_ = true;
  std::string footer;
  WriteFileMetaData(metadata_, &footer);
  SPATE_RETURN_IF_ERROR(Append(footer));
  uint32_t len = static_cast<uint32_t>(footer.size());
  SPATE_RETURN_IF_ERROR(Append(std::string_view(reinterpret_cast<const char*>(&len), 4)));
  SPATE_RETURN_IF_ERROR(Append("PAR1"));
  return file_->Close();
}

}  // namespace spate::formats::parquet
