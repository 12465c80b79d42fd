// Copyright spate authors.
// Spark's summary aggregates whose values are Spark's own byte formats:
//   bitmap_construct_agg / bitmap_or_agg / bitmap_and_agg  4096-byte bitmaps (32768 bits)
//   count_min_sketch   CountMinSketchImpl's serialized V1 bytes (big-endian: version 1,
//                      total count, depth, width, the depth hash multipliers drawn from
//                      java.util.Random(seed).nextInt(Integer.MAX_VALUE), then the
//                      depth x width counters); integral values hashed as
//                      (a * v + (a * v) >> 32) & (2^31 - 1) % width, strings and binary
//                      by Murmur3_x86_32 (hashUnsafeBytes, seed 0 then the first hash)
//   histogram_numeric  NumericHistogram (Ben-Haim / Tom-Tov, as Hive's): bins inserted
//                      in order, the closest pair merged when over nb, ties between
//                      equally close pairs broken by java.util.Random(31183); merged
//                      partial histograms are sorted and trimmed the same way
// Each partial state is the byte form Spark serializes for that aggregate (the bitmap,
// the sketch, and for histogram_numeric nb, the used bins and their (x, y) doubles), so a
// state column is what Spark would shuffle and keep in its state store.
//
// Thread safety: as aggregate.h.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/columnar/builder.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/cast.h"
#include "spate/compute/function_args.h"
#include "spate/compute/hash_functions.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"

namespace spate {

namespace {

using Cols = std::vector<ColumnPtr>;
using ArgsRef = const std::vector<BoundExprPtr>&;

constexpr int64_t kBitmapBytes = 4096;

// ---- java.util.Random, as the sketches seed it ----

class JavaRandom {
 public:
  explicit JavaRandom(int64_t seed)
      : seed_((static_cast<uint64_t>(seed) ^ kMultiplier) & kMask) {}
  int32_t Next(int bits) {
    seed_ = (seed_ * kMultiplier + 0xBULL) & kMask;
    return static_cast<int32_t>(static_cast<uint32_t>(seed_ >> (48 - bits)));
  }
  int32_t NextInt(int32_t bound) {
    int32_t r = Next(31);
    const int32_t m = bound - 1;
    if ((bound & m) == 0) {
      return static_cast<int32_t>((static_cast<int64_t>(bound) * r) >> 31);
    }
    for (int32_t u = r;; u = Next(31)) {
      r = u % bound;
      // Java's int arithmetic: u - r + m overflowing to a negative value rejects u.
      auto t = static_cast<int32_t>(static_cast<uint32_t>(u) - static_cast<uint32_t>(r) +
                                    static_cast<uint32_t>(m));
      if (t >= 0) return r;
    }
  }
  double NextDouble() {
    int64_t hi = static_cast<int64_t>(Next(26)) << 27;
    return static_cast<double>(hi + Next(27)) * 0x1.0p-53;
  }

 private:
  static constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr uint64_t kMask = (uint64_t{1} << 48) - 1;
  uint64_t seed_;
};

void PutBE32(std::string* out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xFF));
}
void PutBE64(std::string* out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xFF));
}
int64_t GetBE64(const char* p) {
  uint64_t u = 0;
  for (int k = 0; k < 8; ++k) u = (u << 8) | static_cast<uint8_t>(p[k]);
  return static_cast<int64_t>(u);
}
int32_t GetBE32(const char* p) {
  uint32_t u = 0;
  for (int k = 0; k < 4; ++k) u = (u << 8) | static_cast<uint8_t>(p[k]);
  return static_cast<int32_t>(u);
}
double GetBEDouble(const char* p) {
  int64_t bits = GetBE64(p);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
void PutBEDouble(std::string* out, double d) {
  int64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  PutBE64(out, bits);
}

/// `c` cast to `to` (ANSI per ctx) when its type differs: the implicit casts Spark adds
/// to an aggregate's input.
Result<ColumnPtr> CastInput(const ColumnPtr& c, const DataTypePtr& to, int64_t n,
                            const EvalContext& ctx) {
  if (c->type()->Equals(*to)) return c;
  SPATE_ASSIGN_OR_RETURN(auto cast, MakeCast(MakeColumnRef(0, c->type(), true, "v"), to));
  auto batch = Batch::Make(
      std::make_shared<const Schema>(std::vector<Field>{Field{"v", c->type(), true}}),
      {c}, n);
  return cast->Evaluate(*batch, ctx);
}

ColumnPtr BinaryColumn(const std::vector<std::string>& values) {
  auto n = static_cast<int64_t>(values.size());
  int64_t bytes = 0;
  for (const auto& v : values) bytes += static_cast<int64_t>(v.size());
  StringBuilder b(DataType::Binary(), n, std::max<int64_t>(bytes, 1));
  for (const auto& v : values) b.Append(v);
  return b.Finish();
}

// ---- bitmaps ----

enum class BitmapOp : uint8_t { kConstruct, kOr, kAnd };

Status BitmapTooLarge(size_t size) {
  return Status::Error(
      "BITMAP_INPUT_TOO_LARGE",
      {{"inputBytes", std::to_string(size)}, {"maxBytes", std::to_string(kBitmapBytes)}});
}

class BitmapAcc final : public GroupedAccumulator {
 public:
  explicit BitmapAcc(BitmapOp op) : op_(op) {}
  void Resize(int64_t g) override {
    bits_.resize(static_cast<size_t>(g * kBitmapBytes),
                 op_ == BitmapOp::kAnd ? uint8_t{0xFF} : uint8_t{0});
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    if (op_ != BitmapOp::kConstruct) return MergeBitmaps(*args[0], gid, n);
    if (args[0]->type_id() == TypeId::kNull || n == 0) return Status::OK();
    SPATE_ASSIGN_OR_RETURN(auto c, CastInput(args[0], DataType::Long(), n, ctx));
    const int64_t* v = c->raw_values<int64_t>();
    const bool nulls = c->null_count() > 0;
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && c->IsNull(i)) continue;
      const int64_t pos = v[i];
      if (pos < 0 || pos >= kBitmapBytes * 8) {
        return Status::Error("INVALID_BITMAP_POSITION",
                             {{"bitPosition", std::to_string(pos)},
                              {"bitmapNumBytes", std::to_string(kBitmapBytes)},
                              {"bitmapNumBits", std::to_string(kBitmapBytes * 8)}});
      }
      bits_[static_cast<size_t>(gid[i] * kBitmapBytes + pos / 8)] |=
          static_cast<uint8_t>(1u << (pos % 8));
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    return MergeBitmaps(*st[0], gid, n);
  }
  std::vector<ColumnPtr> State() override { return {Bitmaps()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Bitmaps(); }

 private:
  // A short input counts as zeros beyond its end (OR keeps those bytes, AND clears
  // them), as Spark.
  Status MergeBitmaps(const Column& c, const uint32_t* gid, int64_t n) {
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      std::string_view v = c.GetView(i);
      if (static_cast<int64_t>(v.size()) > kBitmapBytes) return BitmapTooLarge(v.size());
      uint8_t* b = &bits_[static_cast<size_t>(gid[i] * kBitmapBytes)];
      const auto* in = reinterpret_cast<const uint8_t*>(v.data());
      if (op_ == BitmapOp::kAnd) {
        for (size_t k = 0; k < v.size(); ++k) b[k] &= in[k];
        std::memset(b + v.size(), 0, static_cast<size_t>(kBitmapBytes) - v.size());
      } else {
        for (size_t k = 0; k < v.size(); ++k) b[k] |= in[k];
      }
    }
    return Status::OK();
  }
  ColumnPtr Bitmaps() const {
    const auto g = static_cast<int64_t>(bits_.size()) / kBitmapBytes;
    StringBuilder b(DataType::Binary(), g, std::max<int64_t>(g * kBitmapBytes, 1));
    for (int64_t i = 0; i < g; ++i) {
      b.Append(std::string_view(
          reinterpret_cast<const char*>(&bits_[static_cast<size_t>(i * kBitmapBytes)]),
          static_cast<size_t>(kBitmapBytes)));
    }
    return b.Finish();
  }
  BitmapOp op_;
  std::vector<uint8_t> bits_;
};

class BitmapFn final : public AggregateFunction {
 public:
  BitmapFn(const std::string& name, BitmapOp op) : op_(op) {
    name_ = name;
    result_type_ = DataType::Binary();
    nullable_ = false;
    state_fields_ = {Field{"bitmap", DataType::Binary(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<BitmapAcc>(op_);
  }

 private:
  BitmapOp op_;
};

Result<AggregateFunctionPtr> MakeBitmapAggregate(const std::string& name, ArgsRef args) {
  if (args.size() != 1) return agg::WrongArgs(name, "1", args.size());
  const DataType& t = *args[0]->type();
  if (name == "bitmap_construct_agg") {
    // ImplicitCastInputTypes(LongType): numbers and strings cast to BIGINT.
    if (!t.IsNumeric() && t.id() != TypeId::kString && t.id() != TypeId::kNull)
      return agg::TypeMismatch(name, args, 0, "\"BIGINT\"");
    return AggregateFunctionPtr(std::make_shared<BitmapFn>(name, BitmapOp::kConstruct));
  }
  if (t.id() != TypeId::kBinary) return agg::TypeMismatch(name, args, 0, "\"BINARY\"");
  return AggregateFunctionPtr(std::make_shared<BitmapFn>(
      name, name == "bitmap_and_agg" ? BitmapOp::kAnd : BitmapOp::kOr));
}

// ---- count_min_sketch ----

struct CmsShape {
  int32_t depth = 0;
  int32_t width = 0;
  std::vector<int64_t> hash_a;
};

class CmsAcc final : public GroupedAccumulator {
 public:
  explicit CmsAcc(const CmsShape* shape)
      : shape_(shape), cells_(static_cast<int64_t>(shape->depth) * shape->width) {}
  void Resize(int64_t g) override {
    table_.resize(static_cast<size_t>(g * cells_), 0);
    total_.resize(static_cast<size_t>(g), 0);
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull || n == 0) return Status::OK();
    const bool nulls = c.null_count() > 0;
    const int32_t depth = shape_->depth, width = shape_->width;
    if (c.type_id() == TypeId::kString || c.type_id() == TypeId::kBinary) {
      for (int64_t i = 0; i < n; ++i) {
        if (nulls && c.IsNull(i)) continue;
        std::string_view v = c.GetView(i);
        const int32_t h1 = Murmur3HashBytes(v, 0);
        const int32_t h2 = Murmur3HashBytes(v, h1);
        int64_t* row = Table(gid[i]);
        for (int32_t d = 0; d < depth; ++d) {
          // Java: Math.abs((hash1 + d * hash2) % width) in int arithmetic.
          auto h =
              static_cast<int32_t>(static_cast<uint32_t>(h1) +
                                   static_cast<uint32_t>(d) * static_cast<uint32_t>(h2));
          int32_t b = h % width;
          row[static_cast<int64_t>(d) * width + (b < 0 ? -b : b)] += 1;
        }
        total_[gid[i]] += 1;
      }
      return Status::OK();
    }
    kernel::DispatchFixed(*c.type(), [&]<typename T>() {
      if constexpr (std::is_integral_v<T>) {
        const T* v = c.raw_values<T>();
        for (int64_t i = 0; i < n; ++i) {
          if (nulls && c.IsNull(i)) continue;
          AddLong(gid[i], static_cast<int64_t>(v[i]), depth, width);
        }
      }
    });
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& c = *st[0];
    const int64_t header = 4 + 8 + 4 + 4 + 8 * static_cast<int64_t>(shape_->depth);
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      std::string_view v = c.GetView(i);
      if (static_cast<int64_t>(v.size()) != header + 8 * cells_)
        return Status::Internal("count_min_sketch state of the wrong size");
      total_[gid[i]] += GetBE64(v.data() + 4);
      int64_t* row = Table(gid[i]);
      const char* p = v.data() + header;
      for (int64_t k = 0; k < cells_; ++k) row[k] += GetBE64(p + 8 * k);
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override { return {Sketches()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Sketches(); }

 private:
  int64_t* Table(uint32_t g) { return &table_[static_cast<size_t>(g * cells_)]; }
  void AddLong(uint32_t g, int64_t item, int32_t depth, int32_t width) {
    int64_t* row = Table(g);
    for (int32_t d = 0; d < depth; ++d) {
      auto h = static_cast<int64_t>(static_cast<uint64_t>(shape_->hash_a[d]) *
                                    static_cast<uint64_t>(item));
      h += h >> 32;
      h &= (int64_t{1} << 31) - 1;
      row[static_cast<int64_t>(d) * width + static_cast<int32_t>(h) % width] += 1;
    }
    total_[g] += 1;
  }
  ColumnPtr Sketches() const {
    std::vector<std::string> out(total_.size());
    for (size_t g = 0; g < total_.size(); ++g) {
      std::string& s = out[g];
      s.reserve(static_cast<size_t>(20 + 8 * shape_->depth + 8 * cells_));
      PutBE32(&s, 1);  // Version.V1
      PutBE64(&s, total_[g]);
      PutBE32(&s, shape_->depth);
      PutBE32(&s, shape_->width);
      for (int64_t a : shape_->hash_a) PutBE64(&s, a);
      const int64_t* row = &table_[g * static_cast<size_t>(cells_)];
      for (int64_t k = 0; k < cells_; ++k) PutBE64(&s, row[k]);
    }
    return BinaryColumn(out);
  }
  const CmsShape* shape_;
  int64_t cells_;
  std::vector<int64_t> table_;
  std::vector<int64_t> total_;
};

class CmsFn final : public AggregateFunction {
 public:
  explicit CmsFn(CmsShape shape) : shape_(std::move(shape)) {
    name_ = "count_min_sketch";
    result_type_ = DataType::Binary();
    nullable_ = false;
    state_fields_ = {Field{"buf", DataType::Binary(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<CmsAcc>(&shape_);
  }

 private:
  CmsShape shape_;
};

Status ValueOutOfRange(const std::string& name, ArgsRef args, const std::string& expr,
                       const std::string& range, const std::string& current) {
  return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                       {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                        {"exprName", expr},
                        {"valueRange", range},
                        {"currentValue", current}});
}

Status UnexpectedNull(const std::string& name, ArgsRef args, const std::string& expr) {
  return Status::Error(
      "DATATYPE_MISMATCH.UNEXPECTED_NULL",
      {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""}, {"exprName", expr}});
}

/// A double as Spark's toSQLValue prints it in messages ("0.0D"): the shortest digits
/// that read back as `d`.
std::string JavaDouble(double d) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s + "D";
}

Result<AggregateFunctionPtr> MakeCountMinSketch(ArgsRef args) {
  const std::string name = "count_min_sketch";
  if (args.size() > 4) return agg::WrongArgs(name, "4", args.size());
  if (args.size() < 4) {
    // Spark binds count_min_sketch by its signature (column, epsilon, confidence, seed).
    static const char* kParams[] = {"column", "epsilon", "confidence", "seed"};
    return Status::Error(
        "REQUIRED_PARAMETER_NOT_FOUND",
        {{"routineName", "`count_min_sketch`"},
         {"parameterName", std::string("`") + kParams[args.size()] + "`"},
         {"index", "0"}});
  }
  const TypeId t = args[0]->type()->id();
  if (!args[0]->type()->IsIntegral() && t != TypeId::kString && t != TypeId::kBinary &&
      t != TypeId::kNull) {
    return agg::TypeMismatch(name, args, 0, "(\"INTEGRAL\" or \"STRING\" or \"BINARY\")");
  }
  // ExpectsInputTypes: eps and confidence DOUBLE, the seed INT or BIGINT; no casts.
  for (size_t i : {size_t{1}, size_t{2}}) {
    TypeId a = args[i]->type()->id();
    if (a != TypeId::kDouble && a != TypeId::kNull)
      return fn::UnexpectedType(name, args, i, "\"DOUBLE\"");
  }
  TypeId st = args[3]->type()->id();
  if (st != TypeId::kInt && st != TypeId::kLong && st != TypeId::kNull)
    return fn::UnexpectedType(name, args, 3, "(\"INT\" or \"BIGINT\")");
  const char* names[] = {"", "eps", "confidence", "seed"};
  const char* types[] = {"", "DOUBLE", "DOUBLE", "INT"};
  for (size_t i = 1; i < 4; ++i) {
    if (!args[i]->IsConstant()) {
      return fn::NonFoldableInput(fn::CallSql(name, args), names[i], types[i], *args[i]);
    }
  }
  std::vector<Value> v(4);
  for (size_t i = 1; i < 4; ++i) {
    SPATE_ASSIGN_OR_RETURN(v[i], fn::FoldConstant(args[i]));
    if (v[i].is_null()) return UnexpectedNull(name, args, names[i]);
  }
  const double eps = v[1].f64(), confidence = v[2].f64();
  if (!(eps > 0.0)) {
    return ValueOutOfRange(name, args, "eps", "(0.0, 1.7976931348623157E308]",
                           JavaDouble(eps));
  }
  if (!(confidence > 0.0) || confidence >= 1.0) {
    return ValueOutOfRange(name, args, "confidence", "(0.0, 1.0]",
                           JavaDouble(confidence));
  }
  // The seed is an int (a BIGINT seed keeps its low 32 bits, as Long.intValue).
  const auto seed = static_cast<int32_t>(static_cast<uint32_t>(v[3].i64()));
  CmsShape shape;
  const double w = std::ceil(2.0 / eps);
  shape.width =
      w >= 2147483647.0 ? std::numeric_limits<int32_t>::max() : static_cast<int32_t>(w);
  shape.depth = static_cast<int32_t>(std::ceil(-std::log(1 - confidence) / std::log(2)));
  if (static_cast<double>(shape.depth) * shape.width > 1e8) {
    return Status::Error("FAILED_FUNCTION_CALL", {{"funcName", "`count_min_sketch`"}});
  }
  JavaRandom r(seed);
  for (int32_t d = 0; d < shape.depth; ++d)
    shape.hash_a.push_back(r.NextInt(std::numeric_limits<int32_t>::max()));
  return AggregateFunctionPtr(std::make_shared<CmsFn>(std::move(shape)));
}

// ---- histogram_numeric ----

struct Bin {
  double x;
  double y;
};

/// One group's NumericHistogram: bins sorted by x, its tie-breaking generator.
struct Histogram {
  int32_t nbins = 0;
  std::vector<Bin> bins;
  JavaRandom prng{31183};

  void Add(double v) {
    // Binary search for the bin to shift right; an equal x stops it.
    int bin = 0;
    for (int l = 0, r = static_cast<int>(bins.size()); l < r;) {
      bin = (l + r) / 2;
      if (bins[static_cast<size_t>(bin)].x > v) {
        r = bin;
      } else if (bins[static_cast<size_t>(bin)].x < v) {
        l = ++bin;
      } else {
        break;
      }
    }
    if (bin < static_cast<int>(bins.size()) && bins[static_cast<size_t>(bin)].x == v) {
      bins[static_cast<size_t>(bin)].y += 1;
      return;
    }
    bins.insert(bins.begin() + bin, Bin{v, 1});
    if (static_cast<int32_t>(bins.size()) > nbins) Trim();
  }
  void MergeFrom(int32_t other_nbins, std::vector<Bin> other) {
    if (nbins == 0 || bins.empty()) {
      nbins = other_nbins;
      bins = std::move(other);
      return;
    }
    bins.insert(bins.end(), other.begin(), other.end());
    // Java's Collections.sort: stable, by Double.compare of x.
    std::stable_sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) {
      return JavaCompare(a.x, b.x) < 0;
    });
    Trim();
  }
  void Trim() {
    while (static_cast<int32_t>(bins.size()) > nbins) {
      double smallest = bins[1].x - bins[0].x;
      size_t loc = 0;
      int count = 1;
      for (size_t i = 1; i + 1 < bins.size(); ++i) {
        double diff = bins[i + 1].x - bins[i].x;
        if (diff < smallest) {
          smallest = diff;
          loc = i;
          count = 1;
        } else if (diff == smallest && prng.NextDouble() <= 1.0 / ++count) {
          loc = i;
        }
      }
      Bin& a = bins[loc];
      const Bin& b = bins[loc + 1];
      double d = a.y + b.y;
      a.x *= a.y / d;
      a.x += b.x / d * b.y;
      a.y = d;
      bins.erase(bins.begin() + static_cast<std::ptrdiff_t>(loc) + 1);
    }
  }
  static int JavaCompare(double a, double b) {
    if (a < b) return -1;
    if (a > b) return 1;
    int64_t x, y;
    double za = a == 0.0 && !std::signbit(a) ? 0.0 : a;
    double zb = b == 0.0 && !std::signbit(b) ? 0.0 : b;
    std::memcpy(&x, &za, sizeof x);
    std::memcpy(&y, &zb, sizeof y);
    if (std::isnan(a)) x = 0x7ff8000000000000LL;
    if (std::isnan(b)) y = 0x7ff8000000000000LL;
    return x == y ? 0 : (x < y ? -1 : 1);
  }
};

class HistogramAcc final : public GroupedAccumulator {
 public:
  HistogramAcc(int32_t nb, DataTypePtr input) : nb_(nb), input_(std::move(input)) {}
  void Resize(int64_t g) override {
    while (static_cast<int64_t>(h_.size()) < g) {
      h_.emplace_back();
      h_.back().nbins = nb_;
    }
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    if (args[0]->type_id() == TypeId::kNull || n == 0) return Status::OK();
    ColumnPtr c = args[0];
    if (c->type_id() == TypeId::kString) {
      SPATE_ASSIGN_OR_RETURN(c, CastInput(c, DataType::Double(), n, ctx));
    }
    const bool nulls = c->null_count() > 0;
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && c->IsNull(i)) continue;
      h_[gid[i]].Add(agg::AsDouble(*c, i));
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& c = *st[0];
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      std::string_view v = c.GetView(i);
      if (v.size() < 8) return Status::Internal("histogram_numeric state too short");
      const int32_t nb = GetBE32(v.data());
      const int32_t used = GetBE32(v.data() + 4);
      if (used < 0 || v.size() != 8 + 16 * static_cast<size_t>(used))
        return Status::Internal("histogram_numeric state of the wrong size");
      std::vector<Bin> bins(static_cast<size_t>(used));
      for (int32_t k = 0; k < used; ++k) {
        const char* p = v.data() + 8 + 16 * static_cast<size_t>(k);
        bins[static_cast<size_t>(k)] = Bin{GetBEDouble(p), GetBEDouble(p + 8)};
      }
      h_[gid[i]].MergeFrom(nb, std::move(bins));
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    std::vector<std::string> out(h_.size());
    for (size_t g = 0; g < h_.size(); ++g) {
      PutBE32(&out[g], h_[g].nbins);
      PutBE32(&out[g], static_cast<int32_t>(h_[g].bins.size()));
      for (const Bin& b : h_[g].bins) {
        PutBEDouble(&out[g], b.x);
        PutBEDouble(&out[g], b.y);
      }
    }
    return {BinaryColumn(out)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override;

 private:
  int32_t nb_;
  DataTypePtr input_;
  std::vector<Histogram> h_;
};

/// The x values (doubles) as the input's type, converted as Spark's eval does (Java's
/// narrowing conversions for integral, date, timestamp and interval types; floats by
/// rounding; decimals by Decimal(double) rounded half-up to the type's scale).
Result<ColumnPtr> XColumn(const std::vector<double>& xs, const DataTypePtr& type) {
  const auto n = static_cast<int64_t>(xs.size());
  auto java_long = [](double d) -> int64_t {
    if (std::isnan(d)) return 0;
    if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
    if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  };
  auto java_int = [](double d) -> int32_t {
    if (std::isnan(d)) return 0;
    if (d >= 2147483647.0) return std::numeric_limits<int32_t>::max();
    if (d <= -2147483648.0) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(d);
  };
  auto fill = [&]<typename T>(auto convert) {
    kernel::Out<T> out(n);
    for (int64_t i = 0; i < n; ++i) out.data[i] = convert(xs[static_cast<size_t>(i)]);
    return kernel::MakeColumn(type, n, 0, nullptr, out.buf);
  };
  switch (type->id()) {
    case TypeId::kByte:
      return fill.operator()<int8_t>(
          [&](double d) { return static_cast<int8_t>(java_int(d)); });
    case TypeId::kShort:
      return fill.operator()<int16_t>(
          [&](double d) { return static_cast<int16_t>(java_int(d)); });
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return fill.operator()<int32_t>(java_int);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return fill.operator()<int64_t>(java_long);
    case TypeId::kFloat:
      return fill.operator()<float>([](double d) { return static_cast<float>(d); });
    case TypeId::kDecimal: {
      SPATE_ASSIGN_OR_RETURN(
          auto cast, MakeCast(MakeColumnRef(0, DataType::Double(), false, "x"), type));
      auto batch = Batch::Make(std::make_shared<const Schema>(std::vector<Field>{
                                   Field{"x", DataType::Double(), false}}),
                               {agg::DoubleColumn(xs, nullptr)}, n);
      EvalContext ctx;
      ctx.ansi = false;
      return cast->Evaluate(*batch, ctx);
    }
    default:
      return agg::DoubleColumn(xs, nullptr);
  }
}

DataTypePtr HistogramType(const DataTypePtr& x) {
  return DataType::Array(
      DataType::Struct({Field{"x", x, true}, Field{"y", DataType::Double(), true}}),
      true);
}

Result<ColumnPtr> HistogramAcc::Finalize(const EvalContext&) {
  std::vector<double> xs, ys;
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> valid;
  for (const Histogram& h : h_) {
    for (const Bin& b : h.bins) {
      xs.push_back(b.x);
      ys.push_back(b.y);
    }
    offsets.push_back(static_cast<int32_t>(xs.size()));
    valid.push_back(h.bins.empty() ? 0 : 1);
  }
  const DataTypePtr x_type =
      input_->id() == TypeId::kString || input_->id() == TypeId::kNull
          ? DataType::Double()
          : input_;
  SPATE_ASSIGN_OR_RETURN(auto x, XColumn(xs, x_type));
  const DataTypePtr type = HistogramType(x_type);
  const DataTypePtr& entry = type->element_type();
  auto structs = MakeStructColumn(entry, static_cast<int64_t>(xs.size()),
                                  {x, agg::DoubleColumn(ys, nullptr)});
  return MakeListColumn(type, offsets, valid, structs);
}

class HistogramFn final : public AggregateFunction {
 public:
  HistogramFn(int32_t nb, DataTypePtr input) : nb_(nb), input_(std::move(input)) {
    name_ = "histogram_numeric";
    const bool as_double =
        input_->id() == TypeId::kString || input_->id() == TypeId::kNull;
    result_type_ = HistogramType(as_double ? DataType::Double() : input_);
    nullable_ = true;
    state_fields_ = {Field{"buf", DataType::Binary(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<HistogramAcc>(nb_, input_);
  }

 private:
  int32_t nb_;
  DataTypePtr input_;
};

Result<AggregateFunctionPtr> MakeHistogramNumeric(ArgsRef args) {
  const std::string name = "histogram_numeric";
  if (args.size() != 2) return agg::WrongArgs(name, "2", args.size());
  const DataTypePtr& t = args[0]->type();
  if (!t->IsNumeric() && !agg::IsInterval(*t) && t->id() != TypeId::kDate &&
      t->id() != TypeId::kTimestamp && t->id() != TypeId::kTimestampNtz &&
      t->id() != TypeId::kString && t->id() != TypeId::kNull) {
    return agg::TypeMismatch(
        name, args, 0,
        "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or \"INTERVAL "
        "YEAR TO MONTH\" or \"INTERVAL DAY TO SECOND\")");
  }
  // nb: INT with Spark's implicit casts (integral, string, decimal, double).
  SPATE_ASSIGN_OR_RETURN(auto nb_arg,
                         fn::ToTypeArg(name, args, 1, DataType::Int(), "\"INT\""));
  if (!nb_arg->IsConstant())
    return fn::NonFoldableInput(fn::CallSql(name, args), "nb", "INT", *args[1]);
  SPATE_ASSIGN_OR_RETURN(Value nb, fn::FoldConstant(nb_arg));
  if (nb.is_null()) return UnexpectedNull(name, args, "nb");
  if (nb.i64() < 2) {
    return ValueOutOfRange(name, args, "nb", "[2, 2147483647]", std::to_string(nb.i64()));
  }
  return AggregateFunctionPtr(
      std::make_shared<HistogramFn>(static_cast<int32_t>(nb.i64()), t));
}

}  // namespace

const std::vector<std::string>& SketchAggregateNames() {
  static const std::vector<std::string> kNames = {"bitmap_construct_agg", "bitmap_or_agg",
                                                  "bitmap_and_agg", "count_min_sketch",
                                                  "histogram_numeric"};
  return kNames;
}

Result<AggregateFunctionPtr> MakeSketchAggregate(const std::string& name,
                                                 const std::vector<BoundExprPtr>& args) {
  if (name == "count_min_sketch") return MakeCountMinSketch(args);
  if (name == "histogram_numeric") return MakeHistogramNumeric(args);
  if (name.starts_with("bitmap_")) return MakeBitmapAggregate(name, args);
  return AggregateFunctionPtr();
}

}  // namespace spate
