// Copyright spate authors.
#include "spate/compute/aggregate.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/approx_count_distinct.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using kernel::Out;
using Cols = std::vector<ColumnPtr>;

Status SumOverflow() {
  return Status::Error(
      "ARITHMETIC_OVERFLOW",
      {{"message", "long overflow"},
       {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."},
       {"config", "\"spark.sql.ansi.enabled\""}});
}

bool AllValid(const std::vector<ColumnPtr>& args, int64_t i) {
  for (const auto& a : args) {
    if (a->IsNull(i)) return false;
  }
  return true;
}

// ---- count ------------------------------------------------------------------------
// count(args): rows where every argument is non-NULL; count_if(x) (`only_true`): rows
// where x is TRUE.
class CountAcc final : public GroupedAccumulator {
 public:
  explicit CountAcc(bool only_true) : only_true_(only_true) {}
  void Resize(int64_t g) override { counts_.resize(static_cast<size_t>(g), 0); }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    if (only_true_) {
      const Column& c = *args[0];
      if (c.type_id() == TypeId::kNull) return Status::OK();
      for (int64_t i = 0; i < n; ++i) {
        if (!c.IsNull(i) && c.GetBool(i)) ++counts_[gid[i]];
      }
      return Status::OK();
    }
    bool any_nullable = false;
    for (const auto& a : args) any_nullable |= a->null_count() > 0;
    if (!any_nullable) {
      for (int64_t i = 0; i < n; ++i) ++counts_[gid[i]];
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (AllValid(args, i)) ++counts_[gid[i]];
      }
    }
    return Status::OK();
  }
  Status Merge(const std::vector<ColumnPtr>& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const int64_t* c = st[0]->raw_values<int64_t>();
    for (int64_t i = 0; i < n; ++i) counts_[gid[i]] += c[i];
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override { return {Emit()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(); }

 private:
  ColumnPtr Emit() {
    int64_t n = static_cast<int64_t>(counts_.size());
    Out<int64_t> out(n);
    // No groups (an empty partition of a streaming batch): data() may be null.
    if (n) std::memcpy(out.data, counts_.data(), counts_.size() * 8);
    return kernel::MakeColumn(DataType::Long(), n, 0, nullptr, out.buf);
  }
  bool only_true_;
  std::vector<int64_t> counts_;
};

class CountFn final : public AggregateFunction {
 public:
  explicit CountFn(std::string name, bool only_true = false) : only_true_(only_true) {
    name_ = std::move(name);
    result_type_ = DataType::Long();
    nullable_ = false;
    state_fields_ = {Field{"count", DataType::Long(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<CountAcc>(only_true_);
  }

 private:
  bool only_true_;
};

// ---- sum / avg / try_sum / try_avg
// ----------------------------------------------------- Acc: int64_t (integral sums, DAY
// TO SECOND intervals), int32_t (YEAR TO MONTH intervals), double, or __int128 (decimal).
// A group whose sum overflowed is flagged: try_* and decimals give NULL for it; an ANSI
// integral sum fails; a non-ANSI integral sum wraps (Spark's LEGACY Sum); an interval sum
// always fails (Spark's IntervalMathUtils).
struct SumAvgOptions {
  bool avg = false;
  bool try_mode = false;  // try_sum / try_avg: NULL on overflow, never an error
  bool interval = false;  // ANSI interval input
};

Status IntervalOverflow() {
  return Status::Error("INTERVAL_ARITHMETIC_OVERFLOW.WITH_SUGGESTION",
                       {{"functionName", "`try_add`"}});
}

template <typename Acc>
class SumAvgAcc final : public GroupedAccumulator {
 public:
  SumAvgAcc(SumAvgOptions opt, DataTypePtr in_type, DataTypePtr sum_type,
            DataTypePtr result_type)
      : opt_(opt),
        in_(std::move(in_type)),
        sum_type_(std::move(sum_type)),
        result_(std::move(result_type)) {}
  void Resize(int64_t g) override {
    sums_.resize(static_cast<size_t>(g), Acc{});
    counts_.resize(static_cast<size_t>(g), 0);
    over_.resize(static_cast<size_t>(g), 0);
  }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    if (args[0]->type_id() == TypeId::kNull) return Status::OK();
    ColumnPtr input = args[0];
    if (input->type_id() == TypeId::kString) {
      // Strings are summed as doubles (Spark's implicit cast).
      SPATE_ASSIGN_OR_RETURN(
          input, CastColumn(input, DataType::Double(),
                            ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy, ctx));
    }
    const Column& c = *input;
    return kernel::DispatchFixed(*c.type(), [&]<typename T>() -> Status {
      const T* v = c.raw_values<T>();
      bool overflow = false;
      if (c.null_count() == 0) {
        for (int64_t i = 0; i < n; ++i) {
          if (Add(gid[i], static_cast<Acc>(v[i]), 1)) [[unlikely]]
            overflow = over_[gid[i]] = 1;
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          if (c.IsValid(i) && Add(gid[i], static_cast<Acc>(v[i]), 1)) [[unlikely]] {
            overflow = over_[gid[i]] = 1;
          }
        }
      }
      return overflow ? OnOverflow(ctx) : Status::OK();
    });
  }
  Status Merge(const std::vector<ColumnPtr>& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    const Column& sc = *st[0];
    const Acc* s = sc.raw_values<Acc>();
    const int64_t* c = st[1]->raw_values<int64_t>();
    bool overflow = false;
    for (int64_t i = 0; i < n; ++i) {
      if (sc.null_count() && sc.IsNull(i)) {  // a partial sum that overflowed (try_*)
        counts_[gid[i]] += c[i];
        over_[gid[i]] = 1;
        continue;
      }
      if (c[i] == 0) continue;
      if (Add(gid[i], s[i], c[i])) [[unlikely]]
        overflow = over_[gid[i]] = 1;
    }
    return overflow ? OnOverflow(ctx) : Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    int64_t n = static_cast<int64_t>(sums_.size());
    Out<Acc> s(n);
    Out<int64_t> c(n);
    if (n) {
      std::memcpy(s.data, sums_.data(), sums_.size() * sizeof(Acc));
      std::memcpy(c.data, counts_.data(), counts_.size() * 8);
    }
    int64_t nulls = 0;
    BufferPtr validity;
    if (opt_.try_mode) {
      // try_*: a sum that overflowed, or a decimal sum past its type's precision, is NULL
      // (Spark's buffer holds the sum in the sum type).
      validity = Buffer::Allocate(bits::BytesFor(n));
      for (int64_t g = 0; g < n; ++g) {
        if (Lost(g, sum_type_)) {
          ++nulls;
        } else {
          bits::Set(validity->mutable_data(), g);
        }
      }
    }
    return {kernel::MakeColumn(sum_type_, n, nulls, nulls ? validity : nullptr, s.buf),
            kernel::MakeColumn(DataType::Long(), n, 0, nullptr, c.buf)};
  }
  Result<ColumnPtr> Finalize(const EvalContext& ctx) override {
    int64_t n = static_cast<int64_t>(sums_.size());
    Out<Acc> out(n);
    auto validity = Buffer::Allocate(bits::BytesFor(n));
    int64_t nulls = 0;
    for (int64_t g = 0; g < n; ++g) {
      bool valid = counts_[g] > 0;
      if (valid) {
        SPATE_ASSIGN_OR_RETURN(valid, ResultOf(g, ctx, &out.data[g]));
      }
      if (valid) {
        bits::Set(validity->mutable_data(), g);
      } else {
        ++nulls;
      }
    }
    return kernel::MakeColumn(result_, n, nulls, nulls ? validity : nullptr, out.buf);
  }

 private:
  static constexpr bool kDecimal = std::is_same_v<Acc, __int128>;
  // True when `count` values summing to `v` overflow group g's sum.
  bool Add(uint32_t g, Acc v, int64_t count) {
    counts_[g] += count;
    if constexpr (std::is_floating_point_v<Acc>) {
      sums_[g] += v;
      return false;
    } else {
      return __builtin_add_overflow(sums_[g], v, &sums_[g]);
    }
  }
  Status OnOverflow(const EvalContext& ctx) const {
    if (opt_.try_mode) return Status::OK();
    if (opt_.interval) return IntervalOverflow();
    if (ctx.ansi && !kDecimal) return SumOverflow();
    return Status::OK();  // non-ANSI: integral sums wrap, decimal sums become NULL
  }
  // Group g's sum is lost: it overflowed (try_* and decimals), or a decimal sum does not
  // fit `type`'s precision.
  bool Lost(int64_t g, const DataTypePtr& type) const {
    if (over_[g] && (opt_.try_mode || kDecimal)) return true;
    if constexpr (kDecimal) return !kernel::FitsPrecision(sums_[g], type->precision());
    return false;
  }
  // Group g's result into *out; false for NULL. Errors (ANSI decimals) as Spark's.
  Result<bool> ResultOf(int64_t g, const EvalContext& ctx, Acc* out) const {
    auto out_of_range = [&](const std::string& value) -> Result<bool> {
      if (opt_.try_mode || !ctx.ansi) return false;
      return Status::Error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                           {{"value", value},
                            {"precision", std::to_string(result_->precision())},
                            {"scale", std::to_string(result_->scale())},
                            {"config", "\"spark.sql.ansi.enabled\""}});
    };
    if (opt_.try_mode && over_[g]) return false;
    if constexpr (kDecimal) {
      if (over_[g]) return out_of_range("NULL");
      if (!opt_.avg) {
        if (!kernel::FitsPrecision(sums_[g], result_->precision())) {
          return out_of_range(FormatDecimal(sums_[g], result_->scale()));
        }
        *out = sums_[g];
        return true;
      }
      if (opt_.try_mode && !kernel::FitsPrecision(sums_[g], sum_type_->precision()))
        return false;
      // avg(decimal(p, s)) -> decimal(p + 4, s + 4): the sum scaled up, divided half-up.
      __int128 scaled;
      int shift = result_->scale() - sum_type_->scale();
      if (__builtin_mul_overflow(sums_[g], kernel::Pow10(shift), &scaled)) {
        return out_of_range(FormatDecimal(sums_[g], sum_type_->scale()));
      }
      *out = kernel::DivRoundHalfUp(scaled, counts_[g]);
      if (!kernel::FitsPrecision(*out, result_->precision())) {
        return out_of_range(FormatDecimal(*out, result_->scale()));
      }
      return true;
    } else if constexpr (std::is_floating_point_v<Acc>) {
      *out = opt_.avg ? sums_[g] / static_cast<double>(counts_[g]) : sums_[g];
      return true;
    } else {
      // Integral sums; interval averages round half up (Spark's Divide*Interval).
      *out = opt_.avg ? static_cast<Acc>(kernel::DivRoundHalfUp(sums_[g], counts_[g]))
                      : sums_[g];
      return true;
    }
  }
  SumAvgOptions opt_;
  DataTypePtr in_, sum_type_, result_;
  std::vector<Acc> sums_;
  std::vector<int64_t> counts_;
  std::vector<uint8_t> over_;
};

template <typename Acc>
class SumAvgFn final : public AggregateFunction {
 public:
  SumAvgFn(const std::string& name, SumAvgOptions opt, DataTypePtr in,
           DataTypePtr sum_type, const DataTypePtr& result)
      : opt_(opt), in_(std::move(in)), sum_type_(std::move(sum_type)) {
    name_ = name;
    result_type_ = result;
    state_fields_ = {Field{"sum", sum_type_, opt.try_mode},
                     Field{"count", DataType::Long(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<SumAvgAcc<Acc>>(opt_, in_, sum_type_, result_type_);
  }

 private:
  SumAvgOptions opt_;
  DataTypePtr in_, sum_type_;
};

// ---- min / max / first / last: keep one value per group -----------------------------
// Generic over types: values held as 1-row columns merged with CompareValuesAt. Fast path
// for fixed-width types.
template <typename T>
class MinMaxFixedAcc final : public GroupedAccumulator {
 public:
  MinMaxFixedAcc(bool is_max, DataTypePtr type)
      : is_max_(is_max), type_(std::move(type)) {}
  void Resize(int64_t g) override {
    vals_.resize(static_cast<size_t>(g), T{});
    has_.resize(static_cast<size_t>(g), 0);
  }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    const T* v = c.raw_values<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (c.null_count() && c.IsNull(i)) continue;
      Offer(gid[i], v[i]);
    }
    return Status::OK();
  }
  Status Merge(const std::vector<ColumnPtr>& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    return Update(st, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override { return {Emit()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(); }

 private:
  void Offer(uint32_t g, T v) {
    if (!has_[g]) {
      vals_[g] = v;
      has_[g] = 1;
      return;
    }
    int c;
    if constexpr (std::is_floating_point_v<T>) {
      bool an = std::isnan(v), bn = std::isnan(vals_[g]);
      c = (an || bn) ? (an == bn ? 0 : (an ? 1 : -1))
                     : (v < vals_[g] ? -1 : (v > vals_[g] ? 1 : 0));
    } else {
      c = v < vals_[g] ? -1 : (v > vals_[g] ? 1 : 0);
    }
    if (is_max_ ? c > 0 : c < 0) vals_[g] = v;
  }
  ColumnPtr Emit() {
    int64_t n = static_cast<int64_t>(vals_.size());
    Out<T> out(n);
    if (n) std::memcpy(out.data, vals_.data(), vals_.size() * sizeof(T));
    auto validity = Buffer::Allocate(bits::BytesFor(n));
    int64_t nulls = 0;
    for (int64_t g = 0; g < n; ++g) {
      if (has_[g]) {
        bits::Set(validity->mutable_data(), g);
      } else {
        ++nulls;
      }
    }
    return kernel::MakeColumn(type_, n, nulls, nulls ? validity : nullptr, out.buf);
  }
  bool is_max_;
  DataTypePtr type_;
  std::vector<T> vals_;
  std::vector<uint8_t> has_;
};

// Any type: keep (column, row) of the current pick per group, materialized at the end.
class PickAcc final : public GroupedAccumulator {
 public:
  enum class Mode { kMin, kMax, kFirst, kLast };
  PickAcc(Mode mode, bool ignore_nulls, DataTypePtr type)
      : mode_(mode), ignore_nulls_(ignore_nulls), type_(std::move(type)) {}
  void Resize(int64_t g) override {
    refs_.resize(static_cast<size_t>(g), ~uint64_t{0});
    seen_.resize(static_cast<size_t>(g), 0);
  }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const ColumnPtr& c = args[0];
    uint64_t src = sources_.size();
    sources_.push_back(c);  // rows of this batch may be compared with each other
    bool used = false;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t g = gid[i];
      bool null = c->IsNull(i);
      if (mode_ == Mode::kMin || mode_ == Mode::kMax) {
        if (null) continue;
        if (refs_[g] != ~uint64_t{0}) {
          const Column& cur = *sources_[refs_[g] >> 32];
          int cmp =
              CompareValuesAt(*c, i, cur, static_cast<int64_t>(refs_[g] & 0xffffffffu));
          if (mode_ == Mode::kMin ? cmp >= 0 : cmp <= 0) continue;
        }
      } else {
        if (ignore_nulls_ && null) continue;
        if (mode_ == Mode::kFirst && seen_[g]) continue;
      }
      seen_[g] = 1;
      refs_[g] = (src << 32) | static_cast<uint64_t>(i);
      used = true;
    }
    if (!used) sources_.pop_back();
    if (sources_.size() > 64) Compact();
    return Status::OK();
  }
  Status Merge(const std::vector<ColumnPtr>& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    // State column: value; state[1]: "seen" flag for first/last.
    if (mode_ == Mode::kFirst || mode_ == Mode::kLast) {
      std::vector<int32_t> rows;
      std::vector<uint32_t> gids;
      for (int64_t i = 0; i < n; ++i) {
        if (st[1]->GetBool(i)) {
          rows.push_back(static_cast<int32_t>(i));
          gids.push_back(gid[i]);
        }
      }
      ColumnPtr vals = Take(*st[0], rows.data(), static_cast<int64_t>(rows.size()));
      bool saved = ignore_nulls_;
      ignore_nulls_ = false;
      Status s = Update({vals}, gids.data(), static_cast<int64_t>(rows.size()), ctx);
      ignore_nulls_ = saved;
      return s;
    }
    return Update({st[0]}, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override {
    auto vals = Emit();
    if (mode_ == Mode::kMin || mode_ == Mode::kMax) return {vals};  // one state field
    int64_t n = static_cast<int64_t>(seen_.size());
    auto b = Buffer::Allocate(bits::BytesFor(n));
    for (int64_t g = 0; g < n; ++g) {
      if (seen_[g]) bits::Set(b->mutable_data(), g);
    }
    return {vals, kernel::MakeColumn(DataType::Boolean(), n, 0, nullptr, b)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(); }

 private:
  ColumnPtr Emit() {
    if (sources_.empty())
      return Column::MakeNull(type_, static_cast<int64_t>(refs_.size()));
    return TakeMulti(sources_, refs_.data(), static_cast<int64_t>(refs_.size()));
  }
  void Compact() {
    ColumnPtr all = Emit();
    sources_ = {all};
    for (size_t g = 0; g < refs_.size(); ++g) {
      if (refs_[g] != ~uint64_t{0}) refs_[g] = g;
    }
  }
  Mode mode_;
  bool ignore_nulls_;
  DataTypePtr type_;
  std::vector<ColumnPtr> sources_;
  std::vector<uint64_t> refs_;
  std::vector<uint8_t> seen_;
};

class PickFn final : public AggregateFunction {
 public:
  PickFn(std::string name, PickAcc::Mode mode, bool ignore_nulls, const DataTypePtr& type)
      : mode_(mode), ignore_nulls_(ignore_nulls) {
    name_ = std::move(name);
    result_type_ = type;
    state_fields_ = {Field{"value", type, true}};
    if (mode == PickAcc::Mode::kFirst || mode == PickAcc::Mode::kLast) {
      state_fields_.push_back(Field{"valueSet", DataType::Boolean(), false});
    }
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    bool fixed = (mode_ == PickAcc::Mode::kMin || mode_ == PickAcc::Mode::kMax) &&
                 result_type_->ByteWidth() > 0;
    if (fixed) {
      bool is_max = mode_ == PickAcc::Mode::kMax;
      return kernel::DispatchFixed(
          *result_type_, [&]<typename T>() -> std::unique_ptr<GroupedAccumulator> {
            return std::make_unique<MinMaxFixedAcc<T>>(is_max, result_type_);
          });
    }
    return std::make_unique<PickAcc>(mode_, ignore_nulls_, result_type_);
  }

 private:
  PickAcc::Mode mode_;
  bool ignore_nulls_;
};

// ---- DISTINCT wrapper: feed each distinct (group, args) once into the inner function
// ----
class DistinctAcc final : public GroupedAccumulator {
 public:
  explicit DistinctAcc(std::unique_ptr<GroupedAccumulator> inner)
      : inner_(std::move(inner)) {}
  void Resize(int64_t g) override {
    groups_ = g;
    inner_->Resize(g);
  }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    std::vector<const Column*> cols;
    for (const auto& a : args) cols.push_back(a.get());
    encoder_.Encode(cols, n);
    std::vector<int32_t> rows;
    std::vector<uint32_t> gids;
    std::string key;
    for (int64_t i = 0; i < n; ++i) {
      key.assign(reinterpret_cast<const char*>(&gid[i]), 4);
      key.append(encoder_.key(i));
      if (seen_.insert(key).second) {
        rows.push_back(static_cast<int32_t>(i));
        gids.push_back(gid[i]);
      }
    }
    if (rows.empty()) return Status::OK();
    std::vector<ColumnPtr> picked;
    for (const auto& a : args)
      picked.push_back(Take(*a, rows.data(), static_cast<int64_t>(rows.size())));
    return inner_->Update(picked, gids.data(), static_cast<int64_t>(rows.size()), ctx);
  }
  Status Merge(const std::vector<ColumnPtr>&, const uint32_t*, int64_t,
               const EvalContext&) override {
    return Status::Internal("DISTINCT aggregates are not mergeable");
  }
  std::vector<ColumnPtr> State() override { return {}; }
  Result<ColumnPtr> Finalize(const EvalContext& ctx) override {
    return inner_->Finalize(ctx);
  }

 private:
  std::unique_ptr<GroupedAccumulator> inner_;
  int64_t groups_ = 0;
  RowEncoder encoder_;
  std::unordered_set<std::string> seen_;
};

class DistinctFn final : public AggregateFunction {
 public:
  explicit DistinctFn(AggregateFunctionPtr inner) : inner_(std::move(inner)) {
    name_ = inner_->name();
    result_type_ = inner_->result_type();
    nullable_ = inner_->nullable();
    decomposable_ = false;
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<DistinctAcc>(inner_->MakeAccumulator());
  }

 private:
  AggregateFunctionPtr inner_;
};

// ---- bool_and / bool_or ------------------------------------------------------------
class BoolAcc final : public GroupedAccumulator {
 public:
  explicit BoolAcc(bool is_and) : and_(is_and) {}
  void Resize(int64_t g) override {
    has_.resize(static_cast<size_t>(g), 0);
    val_.resize(static_cast<size_t>(g), and_ ? 1 : 0);
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      uint32_t g = gid[i];
      has_[g] = 1;
      bool v = c.GetBool(i);
      val_[g] = and_ ? (val_[g] && v) : (val_[g] || v);
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    return Update(st, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override { return {Emit()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(); }

 private:
  ColumnPtr Emit() {
    BooleanBuilder b;
    for (size_t g = 0; g < has_.size(); ++g) {
      if (has_[g]) {
        b.Append(val_[g] != 0);
      } else {
        b.AppendNull();
      }
    }
    return b.Finish();
  }
  bool and_;
  std::vector<uint8_t> has_, val_;
};

class BoolFn final : public AggregateFunction {
 public:
  BoolFn(std::string name, bool is_and) : and_(is_and) {
    name_ = std::move(name);
    result_type_ = DataType::Boolean();
    state_fields_ = {Field{"agg", DataType::Boolean(), true}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<BoolAcc>(and_);
  }

 private:
  bool and_;
};

// ---- min_by / max_by ---------------------------------------------------------------
class ByAcc final : public GroupedAccumulator {
 public:
  ByAcc(bool is_max, DataTypePtr vt, DataTypePtr ot)
      : max_(is_max), vt_(std::move(vt)), ot_(std::move(ot)) {}
  void Resize(int64_t g) override { refs_.resize(static_cast<size_t>(g), ~uint64_t{0}); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    uint64_t src = vals_.size();
    vals_.push_back(args[0]);
    ords_.push_back(args[1]);
    const Column& o = *args[1];
    for (int64_t i = 0; i < n; ++i) {
      if (o.IsNull(i)) continue;
      uint64_t& r = refs_[gid[i]];
      if (r != ~uint64_t{0}) {
        const Column& cur = *ords_[r >> 32];
        int cmp = CompareValuesAt(o, i, cur, static_cast<int64_t>(r & 0xffffffffu));
        if (max_ ? cmp <= 0 : cmp >= 0) continue;
      }
      r = (src << 32) | static_cast<uint64_t>(i);
    }
    if (vals_.size() > 64) Compact();
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    return Update(st, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override { return {Emit(vals_, vt_), Emit(ords_, ot_)}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(vals_, vt_); }

 private:
  ColumnPtr Emit(const std::vector<ColumnPtr>& src, const DataTypePtr& t) {
    if (src.empty()) return Column::MakeNull(t, static_cast<int64_t>(refs_.size()));
    return TakeMulti(src, refs_.data(), static_cast<int64_t>(refs_.size()));
  }
  void Compact() {
    ColumnPtr v = Emit(vals_, vt_), o = Emit(ords_, ot_);
    vals_ = {v};
    ords_ = {o};
    for (size_t g = 0; g < refs_.size(); ++g) {
      if (refs_[g] != ~uint64_t{0}) refs_[g] = g;
    }
  }
  bool max_;
  DataTypePtr vt_, ot_;
  std::vector<ColumnPtr> vals_, ords_;
  std::vector<uint64_t> refs_;
};

class ByFn final : public AggregateFunction {
 public:
  ByFn(std::string name, bool is_max, const DataTypePtr& vt, const DataTypePtr& ot)
      : max_(is_max), ot_(ot) {
    name_ = std::move(name);
    result_type_ = vt;
    state_fields_ = {Field{"value", vt, true}, Field{"ordering", ot, true}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<ByAcc>(max_, result_type_, ot_);
  }

 private:
  bool max_;
  DataTypePtr ot_;
};

Status WrongArgs(const std::string& name, const std::string& expected, size_t actual) {
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)}});
}

Status NumericRequired(const std::string& name, const BoundExprPtr& arg) {
  return Status::Error(
      "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
      {{"sqlExpr", "\"" + name + "(" + arg->ToString() + ")\""},
       {"paramIndex", "first"},
       {"requiredType", name.starts_with("try_") ? "\"NUMERIC\" or \"ANSI INTERVAL\""
                                                 : "(\"NUMERIC\" or \"ANSI INTERVAL\")"},
       {"inputSql", "\"" + arg->ToString() + "\""},
       {"inputType", QuoteType(*arg->type())}});
}

}  // namespace

namespace agg {

ColumnPtr DoubleColumn(const std::vector<double>& v, const std::vector<uint8_t>* valid) {
  int64_t n = static_cast<int64_t>(v.size());
  kernel::Out<double> out(n);
  if (n) std::memcpy(out.data, v.data(), v.size() * 8);
  int64_t nulls = 0;
  BufferPtr validity = valid ? ValidityFromFlags(*valid, &nulls) : nullptr;
  return kernel::MakeColumn(DataType::Double(), n, nulls, validity, out.buf);
}

/// Reads row i of a numeric column as a double (decimals scaled).
double AsDouble(const Column& c, int64_t i) {
  if (c.type_id() == TypeId::kDecimal) {
    return static_cast<double>(c.raw_values<__int128>()[i]) /
           std::pow(10.0, c.type()->scale());
  }
  return kernel::DispatchFixed(*c.type(), [&]<typename T>() -> double {
    return static_cast<double>(c.raw_values<T>()[i]);
  });
}

Status WrongArgs(const std::string& name, const std::string& expected, size_t actual) {
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)},
                        {"docroot", "https://spark.apache.org/docs/latest"}});
}

Status TypeMismatch(const std::string& name, const std::vector<BoundExprPtr>& args,
                    size_t i, const std::string& required) {
  static const char* kOrd[] = {"first", "second", "third"};
  std::string text = name + "(";
  for (size_t k = 0; k < args.size(); ++k) text += (k ? ", " : "") + args[k]->ToString();
  text += ")";
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + text + "\""},
                        {"paramIndex", kOrd[std::min<size_t>(i, 2)]},
                        {"requiredType", required},
                        {"inputSql", "\"" + args[i]->ToString() + "\""},
                        {"inputType", QuoteType(*args[i]->type())}});
}

}  // namespace agg

namespace {

// count / sum / avg / min / max / first / last and their kin bound here; the families of
// aggregate_families.h bind the rest.
const std::vector<std::string>& BasicAggregateNames() {
  static const std::vector<std::string> kNames = {
      "count",       "sum",        "avg",       "mean",
      "min",         "max",        "first",     "last",
      "first_value", "last_value", "any_value", "approx_count_distinct",
      "try_sum",     "try_avg",    "count_if",  "bool_and",
      "every",       "bool_or",    "some",      "any",
      "min_by",      "max_by"};
  return kNames;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// count_if, bool_and / bool_or, min_by / max_by; the families' names; nullptr otherwise.
Result<AggregateFunctionPtr> MakeOtherAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args) {
  if (name == "count_if" || name == "bool_and" || name == "every" || name == "bool_or" ||
      name == "some" || name == "any") {
    if (args.size() != 1) return agg::WrongArgs(name, "1", args.size());
    TypeId t = args[0]->type()->id();
    if (t != TypeId::kBoolean && t != TypeId::kNull)
      return agg::TypeMismatch(name, args, 0, "\"BOOLEAN\"");
    if (name == "count_if") {
      return AggregateFunctionPtr(std::make_shared<CountFn>("count_if", true));
    }
    bool is_and = name == "bool_and" || name == "every";
    return AggregateFunctionPtr(std::make_shared<BoolFn>(name, is_and));
  }
  if (name == "min_by" || name == "max_by") {
    if (args.size() != 2) return agg::WrongArgs(name, "2", args.size());
    if (!IsOrderable(*args[1]->type())) {
      return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                           {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ", " +
                                            args[1]->ToString() + ")\""},
                            {"functionName", "`" + name + "`"},
                            {"dataType", QuoteType(*args[1]->type())}});
    }
    return AggregateFunctionPtr(
        std::make_shared<ByFn>(name, name == "max_by", args[0]->type(), args[1]->type()));
  }
  if (Contains(CollectAggregateNames(), name)) return MakeCollectAggregate(name, args);
  if (Contains(PercentileAggregateNames(), name)) {
    return MakePercentileAggregate(name, args);
  }
  if (Contains(SketchAggregateNames(), name)) return MakeSketchAggregate(name, args);
  if (Contains(VectorAggregateNames(), name)) return MakeVectorAggregate(name, args);
  return MakeStatsAggregate(name, args);
}

}  // namespace

bool IsAggregateName(const std::string& name) {
  return Contains(BasicAggregateNames(), name) ||
         Contains(CollectAggregateNames(), name) ||
         Contains(PercentileAggregateNames(), name) ||
         Contains(StatsAggregateNames(), name) ||
         Contains(SketchAggregateNames(), name) || Contains(VectorAggregateNames(), name);
}

Result<AggregateFunctionPtr> MakeAggregate(const std::string& name,
                                           const std::vector<BoundExprPtr>& args,
                                           bool distinct, bool ignore_nulls) {
  AggregateFunctionPtr fn;
  if (name == "count") {
    if (args.empty() && distinct) return WrongArgs(name, "> 0", 0);
    fn = std::make_shared<CountFn>(name);
  } else if (name == "sum" || name == "avg" || name == "mean" || name == "try_sum" ||
             name == "try_avg") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    DataTypePtr t = args[0]->type();
    SumAvgOptions opt;
    opt.avg = name != "sum" && name != "try_sum";
    opt.try_mode = name.starts_with("try_");
    if (t->id() == TypeId::kString) t = DataType::Double();
    if (t->id() == TypeId::kNull) t = DataType::Double();
    if (t->IsIntegral()) {
      if (opt.avg) {
        fn = std::make_shared<SumAvgFn<double>>(name, opt, t, DataType::Double(),
                                                DataType::Double());
      } else {
        fn = std::make_shared<SumAvgFn<int64_t>>(name, opt, t, DataType::Long(),
                                                 DataType::Long());
      }
    } else if (t->IsFloating()) {
      fn = std::make_shared<SumAvgFn<double>>(name, opt, t, DataType::Double(),
                                              DataType::Double());
    } else if (t->id() == TypeId::kDecimal) {
      int p = t->precision(), s = t->scale();
      auto sum_t = DataType::Decimal(std::min(38, p + 10), s);
      // Spark's Average: DecimalType.bounded(p + 4, s + 4) (no scale adjustment).
      auto res =
          opt.avg ? DataType::Decimal(std::min(38, p + 4), std::min(38, s + 4)) : sum_t;
      fn = std::make_shared<SumAvgFn<__int128>>(name, opt, t, sum_t, res);
    } else if (t->id() == TypeId::kDayTimeInterval) {
      // The sum keeps the input's fields; the average is INTERVAL DAY TO SECOND.
      opt.interval = true;
      fn = std::make_shared<SumAvgFn<int64_t>>(name, opt, t, t,
                                               opt.avg ? DataType::DayTimeInterval() : t);
    } else if (t->id() == TypeId::kYearMonthInterval) {
      opt.interval = true;
      fn = std::make_shared<SumAvgFn<int32_t>>(
          name, opt, t, t, opt.avg ? DataType::YearMonthInterval() : t);
    } else {
      return NumericRequired(name, args[0]);
    }
  } else if (name == "min" || name == "max") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    if (!IsOrderable(*args[0]->type())) {
      return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                           {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ")\""},
                            {"functionName", "`" + name + "`"},
                            {"dataType", QuoteType(*args[0]->type())}});
    }
    fn = std::make_shared<PickFn>(
        name, name == "min" ? PickAcc::Mode::kMin : PickAcc::Mode::kMax, false,
        args[0]->type());
  } else if (name == "first" || name == "first_value" || name == "any_value" ||
             name == "last" || name == "last_value") {
    if (args.empty() || args.size() > 2) return WrongArgs(name, "[1, 2]", args.size());
    bool ign = ignore_nulls;
    if (args.size() == 2) {
      const Value* v = args[1]->literal_value();
      if (!v || v->type()->id() != TypeId::kBoolean) {
        return Status::Error(
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ")\""},
             {"paramIndex", "second"},
             {"requiredType", "\"BOOLEAN\""},
             {"inputSql", "\"" + args[1]->ToString() + "\""},
             {"inputType", QuoteType(*args[1]->type())}});
      }
      ign = !v->is_null() && v->i64() != 0;
    }
    bool last = name == "last" || name == "last_value";
    fn = std::make_shared<PickFn>(
        name, last ? PickAcc::Mode::kLast : PickAcc::Mode::kFirst, ign, args[0]->type());
  } else if (name == "approx_count_distinct") {
    SPATE_ASSIGN_OR_RETURN(fn, MakeApproxCountDistinct(args));
  } else {
    SPATE_ASSIGN_OR_RETURN(fn, MakeOtherAggregate(name, args));
  }
  if (!fn) {
    return Status::Error(
        "UNRESOLVED_ROUTINE",
        {{"routineName", "`" + name + "`"},
         {"searchPath",
          "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]"}});
  }
  if (distinct && name != "min" && name != "max") return std::make_shared<DistinctFn>(fn);
  return fn;
}

Result<AggregateFunctionPtr> MakeAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args, bool distinct,
    bool ignore_nulls, const std::vector<OrderDirection>& within_group) {
  if (within_group.empty()) return MakeAggregate(name, args, distinct, ignore_nulls);
  // The arguments end with one ordering key per WITHIN GROUP entry.
  const size_t nkeys = std::min(within_group.size(), args.size());
  const auto split = args.end() - static_cast<std::ptrdiff_t>(nkeys);
  std::vector<BoundExprPtr> values(args.begin(), split);
  std::vector<BoundExprPtr> keys(split, args.end());
  AggregateFunctionPtr fn;
  if (name == "percentile_cont" || name == "percentile_disc") {
    SPATE_ASSIGN_OR_RETURN(
        fn, MakePercentileWithinGroup(name, values, keys, distinct, within_group));
  } else if (name == "listagg" || name == "string_agg") {
    SPATE_ASSIGN_OR_RETURN(
        fn, MakeListAggWithinGroup(name, values, keys, distinct, within_group));
  } else {
    return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING",
                         {{"funcName", "`" + name + "`"}});
  }
  if (distinct) return AggregateFunctionPtr(std::make_shared<DistinctFn>(fn));
  return fn;
}

}  // namespace spate

namespace spate {
void RegisterAggregateFunctionNames(FunctionRegistry& r) {
  for (const auto* names :
       {&BasicAggregateNames(), &CollectAggregateNames(), &PercentileAggregateNames(),
        &StatsAggregateNames(), &SketchAggregateNames(), &VectorAggregateNames()}) {
    for (const auto& n : *names) r.RegisterKind(n, FunctionKind::kAggregate);
  }
  for (const char* n : {"row_number", "rank", "dense_rank", "percent_rank", "ntile",
                        "lag", "lead", "cume_dist", "nth_value"}) {
    r.RegisterKind(n, FunctionKind::kWindow);
  }
}
}  // namespace spate
