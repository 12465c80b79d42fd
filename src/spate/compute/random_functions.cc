// Copyright spate authors.
// Seeded random functions: rand / random (uniform in [0, 1)), randn (standard normal),
// uniform(min, max[, seed]), randstr(length[, seed]) and shuffle(array[, seed]).
//
// rand, randn, uniform and randstr draw exactly Spark's values: each partition draws from
// Spark's XORShiftRandom seeded with seed + partition index (the seed hashed by
// MurmurHash3 of its 8 big-endian bytes, then xorshift 21/35/4), through
// java.util.Random's nextDouble, nextGaussian and nextInt. Row k of a partition takes the
// k-th draw, so a batch that starts at row offset r continues the partition's generator
// (or replays it from the seed when batches arrive out of order). Without a seed the seed
// is drawn once when the call is resolved, so the values differ per query
// (nondeterministic, as Spark's).

#include <cmath>
#include <mutex>
#include <random>
#include <unordered_map>
#include <utility>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/hash_functions.h"
#include "spate/compute/nested_columns.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;

// Spark's XORShiftRandom with java.util.Random's derived draws.
class XorShiftRandom {
 public:
  // The seed hashed as Scala's MurmurHash3.bytesHash of its 8 big-endian bytes: the low
  // word with arraySeed, the high word with the low word; that is Murmur3 of the
  // byte-swapped long.
  explicit XorShiftRandom(int64_t seed) {
    auto swapped = static_cast<int64_t>(__builtin_bswap64(static_cast<uint64_t>(seed)));
    auto lo = static_cast<uint32_t>(Murmur3HashLong(swapped, 0x3c074a61));
    auto hi = static_cast<uint32_t>(Murmur3HashLong(swapped, static_cast<int32_t>(lo)));
    state_ = (static_cast<uint64_t>(hi) << 32) | lo;
  }

  int32_t Next(int bits) {
    uint64_t s = state_;
    s ^= s << 21;
    s ^= s >> 35;
    s ^= s << 4;
    state_ = s;
    return static_cast<int32_t>(
        static_cast<uint32_t>(s & ((uint64_t{2} << (bits - 1)) - 1)));
  }
  double NextDouble() {
    int64_t a = Next(26), b = Next(27);
    return static_cast<double>((a << 27) + b) * 0x1.0p-53;
  }
  double NextGaussian() {
    if (has_next_gaussian_) {
      has_next_gaussian_ = false;
      return next_gaussian_;
    }
    double v1, v2, s;
    do {
      v1 = 2 * NextDouble() - 1;
      v2 = 2 * NextDouble() - 1;
      s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    double m = std::sqrt(-2 * std::log(s) / s);
    next_gaussian_ = v2 * m;
    has_next_gaussian_ = true;
    return v1 * m;
  }
  int32_t NextInt(int32_t bound) {
    if ((bound & -bound) == bound) {
      return static_cast<int32_t>((static_cast<int64_t>(bound) * Next(31)) >> 31);
    }
    int32_t bits, val;
    do {
      bits = Next(31);
      val = bits % bound;
    } while (static_cast<int64_t>(bits) - val + (bound - 1) > INT32_MAX);
    return val;
  }

 private:
  uint64_t state_;
  bool has_next_gaussian_ = false;
  double next_gaussian_ = 0;
};

// The generators of one call, one per partition, positioned at a row offset.
class PartitionGenerators {
 public:
  explicit PartitionGenerators(int64_t seed) : seed_(seed) {}

  // The generator of `partition` positioned at row `offset`, with `draw(rng)` the per-row
  // draw used to skip rows. Calls `f(rng)` for n rows under the lock.
  template <typename Draw, typename F>
  void Run(int partition, int64_t offset, int64_t n, Draw draw, F f) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = gens_.find(partition);
    if (it == gens_.end() || it->second.next_row != offset) {
      Entry e{XorShiftRandom(seed_ + partition), 0};
      for (; e.next_row < offset; ++e.next_row) draw(e.rng);
      it = gens_.insert_or_assign(partition, e).first;
    }
    f(it->second.rng);
    it->second.next_row = offset + n;
  }

 private:
  struct Entry {
    XorShiftRandom rng;
    int64_t next_row;
  };
  int64_t seed_;
  std::mutex mu_;
  std::unordered_map<int, Entry> gens_;
};

int64_t RandomSeed() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int64_t>(rng());
}

// Reads the optional seed argument at `index`: a foldable INT or BIGINT (NULL = 0), as
// Spark's ExpressionWithRandomSeed.
Result<int64_t> SeedArg(const std::string& name, const Args& args, size_t index) {
  if (args.size() <= index) return RandomSeed();
  const BoundExprPtr& a = args[index];
  TypeId t = a->type()->id();
  if (t != TypeId::kInt && t != TypeId::kLong && t != TypeId::kNull) {
    return fn::UnexpectedType(name, args, index, "(\"INT\" or \"BIGINT\")");
  }
  if (!a->IsConstant()) {
    std::string seed_expr = "\"", with_seed = "\"";
    seed_expr.append(a->ToString()).append("\"");
    with_seed.append(fn::CallSql(name, args)).append("\"");
    return Status::Error("SEED_EXPRESSION_IS_UNFOLDABLE",
                         {{"seedExpr", seed_expr}, {"exprWithSeed", with_seed}});
  }
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr c, a->Evaluate(*one, EvalContext{}));
  Value v = c->GetValue(0);
  return v.is_null() ? 0 : v.i64();
}

// The text of a call with its arguments, the seed included when the user gave one.
std::function<std::string(const std::vector<std::string>&)> Display(
    const std::string& name) {
  return [name](const std::vector<std::string>& a) { return CallText(name, a); };
}

Result<BoundExprPtr> ResolveRand(const std::string& name, bool gaussian,
                                 const Args& args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 0, 1, "[0, 1]"));
  SPATE_ASSIGN_OR_RETURN(int64_t seed, SeedArg(name, args, 0));
  auto gens = std::make_shared<PartitionGenerators>(seed);
  return MakeScalarCall(
      name, DataType::Double(), false, args,
      [gens, gaussian](const std::vector<ColumnPtr>&, int64_t n,
                       const EvalContext& ctx) -> Result<ColumnPtr> {
        kernel::Out<double> out(n);
        auto draw = [gaussian](XorShiftRandom& r) {
          return gaussian ? r.NextGaussian() : r.NextDouble();
        };
        gens->Run(ctx.partition_id, ctx.row_offset, n, draw, [&](XorShiftRandom& r) {
          for (int64_t i = 0; i < n; ++i) out.data[i] = draw(r);
        });
        return kernel::MakeColumn(DataType::Double(), n, 0, nullptr, out.buf);
      },
      Display(name == "random" ? "rand" : name), /*nondeterministic=*/true);
}

// uniform(min, max[, seed]): min + (max - min) * nextDouble, cast to the wider of the
// bounds' types (integral results truncate, decimals round to the type's scale).
Result<BoundExprPtr> ResolveUniform(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("uniform", args.size(), 2, 3, "[2, 3]"));
  for (size_t k = 0; k < 2; ++k) {
    const DataType& t = *args[k]->type();
    if (!(t.IsNumeric() || t.id() == TypeId::kNull)) {
      return fn::UnexpectedType("uniform", args, k, "\"NUMERIC\"");
    }
    if (!args[k]->IsConstant())
      return fn::NonFoldableInput(fn::CallSql("uniform", args), k == 0 ? "min" : "max",
                                  "NUMERIC", *args[k]);
  }
  SPATE_ASSIGN_OR_RETURN(int64_t seed, SeedArg("uniform", args, 2));
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  double bounds[2];
  bool null_bound = false;
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(auto d, ImplicitCast(args[k], DataType::Double()));
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c, d->Evaluate(*one, EvalContext{}));
    Value v = c->GetValue(0);
    null_bound |= v.is_null();
    bounds[k] = v.is_null() ? 0 : v.f64();
  }
  DataTypePtr type = CommonType(args[0]->type(), args[1]->type());
  if (!type || type->id() == TypeId::kNull) type = DataType::Int();
  auto gens = std::make_shared<PartitionGenerators>(seed);
  double lo = bounds[0], hi = bounds[1];
  auto draws = MakeScalarCall(
      "uniform", DataType::Double(), null_bound, {},
      [gens, lo, hi, null_bound](const std::vector<ColumnPtr>&, int64_t n,
                                 const EvalContext& ctx) -> Result<ColumnPtr> {
        if (null_bound) return MakeConstantColumn(Value::Null(DataType::Double()), n);
        kernel::Out<double> out(n);
        auto draw = [](XorShiftRandom& r) { return r.NextDouble(); };
        gens->Run(ctx.partition_id, ctx.row_offset, n, draw, [&](XorShiftRandom& r) {
          for (int64_t i = 0; i < n; ++i) out.data[i] = lo + (hi - lo) * r.NextDouble();
        });
        return kernel::MakeColumn(DataType::Double(), n, 0, nullptr, out.buf);
      },
      nullptr, /*nondeterministic=*/true);
  SPATE_ASSIGN_OR_RETURN(auto cast, MakeCast(draws, type, /*is_try=*/true));
  return MakeScalarCall(
      "uniform", type, null_bound, args,
      [cast](const std::vector<ColumnPtr>&, int64_t n,
             const EvalContext& ctx) -> Result<ColumnPtr> {
        auto empty = Batch::Make(std::make_shared<const Schema>(), {}, n);
        return cast->Evaluate(*empty, ctx);
      },
      Display("uniform"), /*nondeterministic=*/true);
}

// randstr(length[, seed]): `length` characters drawn from 0-9a-zA-Z.
Result<BoundExprPtr> ResolveRandstr(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("randstr", args.size(), 1, 2, "[1, 2]"));
  TypeId t = args[0]->type()->id();
  if (t != TypeId::kInt && t != TypeId::kShort && t != TypeId::kByte) {
    return fn::UnexpectedType("randstr", args, 0, "\"INT\"");
  }
  if (!args[0]->IsConstant())
    return fn::NonFoldableInput(fn::CallSql("randstr", args), "length", "INT", *args[0]);
  SPATE_ASSIGN_OR_RETURN(int64_t seed, SeedArg("randstr", args, 1));
  SPATE_ASSIGN_OR_RETURN(auto len_expr, ImplicitCast(args[0], DataType::Int()));
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr lc, len_expr->Evaluate(*one, EvalContext{}));
  Value lv = lc->GetValue(0);
  int64_t len = lv.is_null() ? 0 : lv.i64();
  if (len < 0) {
    return Status::Error("INVALID_PARAMETER_VALUE.LENGTH",
                         {{"parameter", "`length`"},
                          {"functionName", "`randstr`"},
                          {"length", std::to_string(len)}});
  }
  auto gens = std::make_shared<PartitionGenerators>(seed);
  return MakeScalarCall(
      "randstr", DataType::String(), false, args,
      [gens, len](const std::vector<ColumnPtr>&, int64_t n,
                  const EvalContext& ctx) -> Result<ColumnPtr> {
        static const char kChars[] =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        StringBuilder sb(DataType::String(), n, n * len);
        std::string s;
        // Each character is |nextInt() % 62|.
        auto draw = [len](XorShiftRandom& r) {
          for (int64_t k = 0; k < len; ++k) r.Next(32);
          return 0;
        };
        gens->Run(ctx.partition_id, ctx.row_offset, n, draw, [&](XorShiftRandom& r) {
          for (int64_t i = 0; i < n; ++i) {
            s.clear();
            for (int64_t k = 0; k < len; ++k)
              s.push_back(kChars[std::abs(r.Next(32) % 62)]);
            sb.Append(s);
          }
        });
        return sb.Finish();
      },
      Display("randstr"), /*nondeterministic=*/true);
}

// shuffle(array[, seed]): a random permutation of each array (Fisher-Yates over the
// partition's generator).
Result<BoundExprPtr> ResolveShuffle(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("shuffle", args.size(), 1, 2, "[1, 2]"));
  if (args[0]->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0],
                           ImplicitCast(args[0], DataType::Array(DataType::Null())));
  }
  if (args[0]->type()->id() != TypeId::kArray) {
    return fn::UnexpectedType("shuffle", args, 0, "\"ARRAY\"");
  }
  SPATE_ASSIGN_OR_RETURN(int64_t seed, SeedArg("shuffle", args, 1));
  auto gens = std::make_shared<PartitionGenerators>(seed);
  DataTypePtr type = args[0]->type();
  Args data{args[0]};
  std::string arg_text = args[0]->ToString();
  return MakeScalarCall(
      "shuffle", type, args[0]->nullable(), data,
      [gens](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext& ctx) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const int32_t* off = a.offsets();
        std::vector<int32_t> offsets{0}, take;
        std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
        take.reserve(static_cast<size_t>(off[n] - off[0]));
        // A batch is shuffled by its partition's generator from where the previous batch
        // left it; a partition replayed out of order restarts from the seed.
        gens->Run(
            ctx.partition_id, ctx.row_offset, n, [](XorShiftRandom&) { return 0; },
            [&](XorShiftRandom& r) {
              for (int64_t i = 0; i < n; ++i) {
                size_t base = take.size();
                if (a.IsNull(i)) {
                  valid[static_cast<size_t>(i)] = 0;
                } else {
                  for (int32_t k = off[i]; k < off[i + 1]; ++k) take.push_back(k);
                }
                for (size_t k = take.size() - base; k > 1; --k) {
                  auto j = static_cast<size_t>(r.NextInt(static_cast<int32_t>(k)));
                  std::swap(take[base + k - 1], take[base + j]);
                }
                offsets.push_back(static_cast<int32_t>(take.size()));
              }
            });
        ColumnPtr child =
            Take(*a.child(0), take.data(), static_cast<int64_t>(take.size()));
        return MakeListColumn(a.type(), offsets, valid, std::move(child));
      },
      [arg_text](const std::vector<std::string>&) { return "shuffle(" + arg_text + ")"; },
      /*nondeterministic=*/true);
}

}  // namespace

void RegisterRandomFunctions(FunctionRegistry& r) {
  for (const char* name : {"rand", "random"}) {
    r.RegisterScalar(name, [name](const Args& a, const ResolveContext&) {
      return ResolveRand(name, false, a);
    });
  }
  r.RegisterScalar("randn", [](const Args& a, const ResolveContext&) {
    return ResolveRand("randn", true, a);
  });
  r.RegisterScalar("uniform", ResolveUniform);
  r.RegisterScalar("randstr", ResolveRandstr);
  r.RegisterScalar("shuffle", ResolveShuffle);
}

}  // namespace spate
