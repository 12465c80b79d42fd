// Copyright spate authors.
// Statistical and bitwise aggregates of Spark's SHOW FUNCTIONS: stddev / variance and
// their _samp / _pop forms (central moments to the second), skewness and kurtosis
// (central moments to the fourth, Spark's CentralMomentAgg updates and merges), corr,
// covar_pop, covar_samp and the regr_* family (one co-moment state: n, the means, the
// co-moment and both second moments, over the rows where both arguments are non-NULL, as
// Spark's Covariance/PearsonCorrelation), bit_and / bit_or / bit_xor, and mode (the most
// frequent value; ties go to the smallest value).

#include <cmath>
#include <cstring>
#include <map>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"

namespace spate {

namespace {

using Cols = std::vector<ColumnPtr>;

ColumnPtr Doubles(const std::vector<double>& v, const std::vector<uint8_t>* valid) {
  return agg::DoubleColumn(v, valid);
}
double NumberAt(const Column& c, int64_t i) { return agg::AsDouble(c, i); }
using ArgsRef = const std::vector<BoundExprPtr>&;
Status ArgCount(const std::string& name, const std::string& expected, size_t actual) {
  return agg::WrongArgs(name, expected, actual);
}
Status ArgType(const std::string& name, ArgsRef args, size_t i,
               const std::string& required) {
  return agg::TypeMismatch(name, args, i, required);
}

bool NumberOrNull(const DataType& t) { return t.IsNumeric() || t.id() == TypeId::kNull; }

// ---- skewness / kurtosis
// -----------------------------------------------------------------

class HighMomentAcc final : public GroupedAccumulator {
 public:
  explicit HighMomentAcc(bool kurtosis) : kurtosis_(kurtosis) {}
  void Resize(int64_t g) override {
    for (auto* v : {&n_, &avg_, &m2_, &m3_, &m4_}) v->resize(static_cast<size_t>(g), 0.0);
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      uint32_t g = gid[i];
      double x = NumberAt(c, i);
      double n1 = n_[g], nn = n1 + 1.0;
      double delta = x - avg_[g];
      double dn = delta / nn, dn2 = dn * dn;
      double term = delta * dn * n1;
      avg_[g] += dn;
      m4_[g] += term * dn2 * (nn * nn - 3.0 * nn + 3.0) + 6.0 * dn2 * m2_[g] -
                4.0 * dn * m3_[g];
      m3_[g] += term * dn * (nn - 2.0) - 3.0 * dn * m2_[g];
      m2_[g] += term;
      n_[g] = nn;
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const double *nb = st[0]->raw_values<double>(), *ab = st[1]->raw_values<double>();
    const double *m2b = st[2]->raw_values<double>(), *m3b = st[3]->raw_values<double>();
    const double* m4b = st[4]->raw_values<double>();
    for (int64_t i = 0; i < n; ++i) {
      uint32_t g = gid[i];
      double n1 = n_[g], n2 = nb[i], nn = n1 + n2;
      double delta = ab[i] - avg_[g];
      double dn = nn == 0.0 ? 0.0 : delta / nn;
      double m2a = m2_[g], m3a = m3_[g];
      avg_[g] += dn * n2;
      m2_[g] = m2a + m2b[i] + delta * dn * n1 * n2;
      m3_[g] = m3a + m3b[i] + dn * dn * delta * n1 * n2 * (n1 - n2) +
               3.0 * dn * (n1 * m2b[i] - n2 * m2a);
      m4_[g] = m4_[g] + m4b[i] +
               dn * dn * dn * delta * n1 * n2 * (n1 * n1 - n1 * n2 + n2 * n2) +
               6.0 * dn * dn * (n1 * n1 * m2b[i] + n2 * n2 * m2a) +
               4.0 * dn * (n1 * m3b[i] - n2 * m3a);
      n_[g] = nn;
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    return {Doubles(n_, nullptr), Doubles(avg_, nullptr), Doubles(m2_, nullptr),
            Doubles(m3_, nullptr), Doubles(m4_, nullptr)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    std::vector<double> out(n_.size(), 0.0);
    std::vector<uint8_t> valid(n_.size(), 1);
    for (size_t g = 0; g < n_.size(); ++g) {
      // NULL for no rows and (spark.sql.legacy.statisticalAggregate=false) a zero m2.
      if (n_[g] == 0.0 || m2_[g] == 0.0) {
        valid[g] = 0;
        continue;
      }
      out[g] = kurtosis_
                   ? n_[g] * m4_[g] / (m2_[g] * m2_[g]) - 3.0
                   : std::sqrt(n_[g]) * m3_[g] / std::sqrt(m2_[g] * m2_[g] * m2_[g]);
    }
    return Doubles(out, &valid);
  }

 private:
  bool kurtosis_;
  std::vector<double> n_, avg_, m2_, m3_, m4_;
};

class HighMomentFn final : public AggregateFunction {
 public:
  explicit HighMomentFn(const std::string& name) {
    name_ = name;
    result_type_ = DataType::Double();
    for (const char* f : {"n", "avg", "m2", "m3", "m4"})
      state_fields_.push_back(Field{f, DataType::Double(), false});
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<HighMomentAcc>(name_ == "kurtosis");
  }
};

// ---- corr / covar_* / regr_* ---------------------------------------------------------

enum class Bivariate : uint8_t {
  kCorr,
  kCovarPop,
  kCovarSamp,
  kRegrCount,
  kRegrAvgX,
  kRegrAvgY,
  kRegrSxx,
  kRegrSyy,
  kRegrSxy,
  kRegrSlope,
  kRegrIntercept,
  kRegrR2
};

// State over pairs (a, b): corr/covar_*(a, b) as called; regr_*(y, x) as (x, y), the
// order of Spark's covariance inside them. Sums give the regr_avg* (Spark's avg).
class BivariateAcc final : public GroupedAccumulator {
 public:
  explicit BivariateAcc(Bivariate kind) : kind_(kind) {}
  void Resize(int64_t g) override {
    for (auto* v : {&n_, &a_avg_, &b_avg_, &ck_, &a_mk_, &b_mk_, &a_sum_, &b_sum_}) {
      v->resize(static_cast<size_t>(g), 0.0);
    }
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column &a = *args[0], &b = *args[1];
    if (a.type_id() == TypeId::kNull || b.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsNull(i) || b.IsNull(i)) continue;
      uint32_t g = gid[i];
      double x = NumberAt(a, i), y = NumberAt(b, i);
      double nn = n_[g] + 1.0;
      double dx = x - a_avg_[g], dy = y - b_avg_[g];
      a_avg_[g] += dx / nn;
      b_avg_[g] += dy / nn;
      ck_[g] += dx * (y - b_avg_[g]);
      a_mk_[g] += dx * (x - a_avg_[g]);
      b_mk_[g] += dy * (y - b_avg_[g]);
      a_sum_[g] += x;
      b_sum_[g] += y;
      n_[g] = nn;
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const double *nb = st[0]->raw_values<double>(), *ab = st[1]->raw_values<double>();
    const double *bb = st[2]->raw_values<double>(), *ckb = st[3]->raw_values<double>();
    const double *amb = st[4]->raw_values<double>(), *bmb = st[5]->raw_values<double>();
    const double *asb = st[6]->raw_values<double>(), *bsb = st[7]->raw_values<double>();
    for (int64_t i = 0; i < n; ++i) {
      uint32_t g = gid[i];
      double n1 = n_[g], n2 = nb[i], nn = n1 + n2;
      double dx = ab[i] - a_avg_[g], dy = bb[i] - b_avg_[g];
      double dxn = nn == 0.0 ? 0.0 : dx / nn, dyn = nn == 0.0 ? 0.0 : dy / nn;
      a_avg_[g] += dxn * n2;
      b_avg_[g] += dyn * n2;
      ck_[g] += ckb[i] + dx * dyn * n1 * n2;
      a_mk_[g] += amb[i] + dx * dxn * n1 * n2;
      b_mk_[g] += bmb[i] + dy * dyn * n1 * n2;
      a_sum_[g] += asb[i];
      b_sum_[g] += bsb[i];
      n_[g] = nn;
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    return {Doubles(n_, nullptr),     Doubles(a_avg_, nullptr), Doubles(b_avg_, nullptr),
            Doubles(ck_, nullptr),    Doubles(a_mk_, nullptr),  Doubles(b_mk_, nullptr),
            Doubles(a_sum_, nullptr), Doubles(b_sum_, nullptr)};
  }
  Result<ColumnPtr> Finalize(const EvalContext& ctx) override {
    size_t groups = n_.size();
    if (kind_ == Bivariate::kRegrCount) {
      kernel::Out<int64_t> out(static_cast<int64_t>(groups));
      for (size_t g = 0; g < groups; ++g) out.data[g] = static_cast<int64_t>(n_[g]);
      return kernel::MakeColumn(DataType::Long(), static_cast<int64_t>(groups), 0,
                                nullptr, out.buf);
    }
    std::vector<double> out(groups, 0.0);
    std::vector<uint8_t> valid(groups, 1);
    for (size_t g = 0; g < groups; ++g) {
      double n = n_[g];
      // For regr_*(y, x): x is a, y is b.
      double x_mk = a_mk_[g], y_mk = b_mk_[g];
      bool null = n == 0.0;
      double v = 0.0;
      switch (kind_) {
        case Bivariate::kCorr:
          null = null || n == 1.0;
          if (!null && a_mk_[g] * b_mk_[g] == 0.0) {
            // ck / sqrt(0): Spark's ANSI division by zero, NULL without ANSI.
            if (ctx.ansi)
              return Status::Error("DIVIDE_BY_ZERO",
                                   {{"config", "\"spark.sql.ansi.enabled\""}});
            null = true;
          }
          v = ck_[g] / std::sqrt(a_mk_[g] * b_mk_[g]);
          break;
        case Bivariate::kCovarPop:
          v = ck_[g] / n;
          break;
        case Bivariate::kCovarSamp:
          null = null || n == 1.0;
          v = ck_[g] / (n - 1.0);
          break;
        case Bivariate::kRegrAvgX:
          v = a_sum_[g] / n;
          break;
        case Bivariate::kRegrAvgY:
          v = b_sum_[g] / n;
          break;
        case Bivariate::kRegrSxx:
          v = x_mk;
          break;
        case Bivariate::kRegrSyy:
          v = y_mk;
          break;
        case Bivariate::kRegrSxy:
          v = ck_[g];
          break;
        case Bivariate::kRegrSlope:
          null = null || x_mk == 0.0;
          v = (ck_[g] / n) / (x_mk / n);
          break;
        case Bivariate::kRegrIntercept:
          null = null || x_mk == 0.0;
          v = b_sum_[g] / n - (ck_[g] / n) / (x_mk / n) * (a_sum_[g] / n);
          break;
        case Bivariate::kRegrR2: {
          null = null || x_mk == 0.0;
          double r = ck_[g] / std::sqrt(x_mk * y_mk);
          v = y_mk == 0.0 ? 1.0 : r * r;
          break;
        }
        default:
          break;
      }
      if (null) {
        valid[g] = 0;
      } else {
        out[g] = v;
      }
    }
    return Doubles(out, &valid);
  }

 private:
  Bivariate kind_;
  std::vector<double> n_, a_avg_, b_avg_, ck_, a_mk_, b_mk_, a_sum_, b_sum_;
};

class BivariateFn final : public AggregateFunction {
 public:
  BivariateFn(const std::string& name, Bivariate kind) : kind_(kind) {
    name_ = name;
    result_type_ = kind == Bivariate::kRegrCount ? DataType::Long() : DataType::Double();
    nullable_ = kind != Bivariate::kRegrCount;
    for (const char* f :
         {"n", "a_avg", "b_avg", "ck", "a_mk", "b_mk", "a_sum", "b_sum"}) {
      state_fields_.push_back(Field{f, DataType::Double(), false});
    }
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<BivariateAcc>(kind_);
  }

 private:
  Bivariate kind_;
};

// regr_*(y, x) accumulates the pairs as (x, y).
class SwappedAcc final : public GroupedAccumulator {
 public:
  explicit SwappedAcc(std::unique_ptr<GroupedAccumulator> inner)
      : inner_(std::move(inner)) {}
  void Resize(int64_t g) override { inner_->Resize(g); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    return inner_->Update({args[1], args[0]}, gid, n, ctx);
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    return inner_->Merge(st, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override { return inner_->State(); }
  Result<ColumnPtr> Finalize(const EvalContext& ctx) override {
    return inner_->Finalize(ctx);
  }

 private:
  std::unique_ptr<GroupedAccumulator> inner_;
};

class SwappedFn final : public AggregateFunction {
 public:
  explicit SwappedFn(std::shared_ptr<const AggregateFunction> inner)
      : inner_(std::move(inner)) {
    name_ = inner_->name();
    result_type_ = inner_->result_type();
    nullable_ = inner_->nullable();
    state_fields_ = inner_->state_fields();
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<SwappedAcc>(inner_->MakeAccumulator());
  }

 private:
  std::shared_ptr<const AggregateFunction> inner_;
};

const std::map<std::string, Bivariate>& BivariateNames() {
  static const auto* kNames =
      new std::map<std::string, Bivariate>{{"corr", Bivariate::kCorr},
                                           {"covar_pop", Bivariate::kCovarPop},
                                           {"covar_samp", Bivariate::kCovarSamp},
                                           {"regr_count", Bivariate::kRegrCount},
                                           {"regr_avgx", Bivariate::kRegrAvgX},
                                           {"regr_avgy", Bivariate::kRegrAvgY},
                                           {"regr_sxx", Bivariate::kRegrSxx},
                                           {"regr_syy", Bivariate::kRegrSyy},
                                           {"regr_sxy", Bivariate::kRegrSxy},
                                           {"regr_slope", Bivariate::kRegrSlope},
                                           {"regr_intercept", Bivariate::kRegrIntercept},
                                           {"regr_r2", Bivariate::kRegrR2}};
  return *kNames;
}

// ---- bit_and / bit_or / bit_xor
// --------------------------------------------------------

enum class BitOp : uint8_t { kAnd, kOr, kXor };

class BitAcc final : public GroupedAccumulator {
 public:
  BitAcc(BitOp op, DataTypePtr type) : op_(op), type_(std::move(type)) {}
  void Resize(int64_t g) override {
    value_.resize(static_cast<size_t>(g), op_ == BitOp::kAnd ? -1 : 0);
    seen_.resize(static_cast<size_t>(g), 0);
  }
  void Add(uint32_t g, int64_t x) {
    int64_t& v = value_[g];
    v = op_ == BitOp::kAnd ? (v & x) : op_ == BitOp::kOr ? (v | x) : (v ^ x);
    seen_[g] = 1;
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (!c.IsNull(i)) Add(gid[i], static_cast<int64_t>(NumberValue(c, i)));
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const int64_t* v = st[0]->raw_values<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (!st[0]->IsNull(i)) Add(gid[i], v[i]);
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override { return {Longs()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    SPATE_ASSIGN_OR_RETURN(
        auto cast, MakeCast(MakeColumnRef(0, DataType::Long(), true, "v"), type_));
    auto batch = Batch::Make(std::make_shared<const Schema>(
                                 std::vector<Field>{Field{"v", DataType::Long(), true}}),
                             {Longs()}, static_cast<int64_t>(value_.size()));
    return cast->Evaluate(*batch, EvalContext{});
  }

 private:
  static int64_t NumberValue(const Column& c, int64_t i) {
    return kernel::DispatchFixed(*c.type(), [&]<typename T>() -> int64_t {
      return static_cast<int64_t>(c.raw_values<T>()[i]);
    });
  }
  ColumnPtr Longs() {
    auto n = static_cast<int64_t>(value_.size());
    kernel::Out<int64_t> out(n);
    if (n) std::memcpy(out.data, value_.data(), value_.size() * sizeof(int64_t));
    int64_t nulls = 0;
    BufferPtr validity = ValidityFromFlags(seen_, &nulls);
    return kernel::MakeColumn(DataType::Long(), n, nulls, validity, out.buf);
  }
  BitOp op_;
  DataTypePtr type_;
  std::vector<int64_t> value_;
  std::vector<uint8_t> seen_;
};

class BitFn final : public AggregateFunction {
 public:
  BitFn(const std::string& name, BitOp op, DataTypePtr type) : op_(op) {
    name_ = name;
    result_type_ = std::move(type);
    state_fields_ = {Field{"v", DataType::Long(), true}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<BitAcc>(op_, result_type_);
  }

 private:
  BitOp op_;
};

// ---- mode
// ------------------------------------------------------------------------------

// Counts each distinct value per group (keyed by its text); the state is the values and
// their counts as two arrays per group.
class ModeAcc final : public GroupedAccumulator {
 public:
  explicit ModeAcc(DataTypePtr type) : type_(std::move(type)) {}
  void Resize(int64_t g) override { counts_.resize(static_cast<size_t>(g)); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    return Add(*args[0], nullptr, gid, n);
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    // State: an array of the values and an array of their counts per group.
    const Column& vals = *st[0];
    const Column& cnts = *st[1];
    const int32_t* off = vals.offsets();
    const int64_t* c = cnts.child(0)->raw_values<int64_t>();
    std::vector<uint32_t> gids = ElementGroups(off, gid, n);
    return Add(*vals.child(0), c + off[0], gids.data(), static_cast<int64_t>(gids.size()),
               off[0]);
  }
  std::vector<ColumnPtr> State() override {
    std::vector<int32_t> offsets{0};
    std::vector<uint8_t> valid;
    std::vector<int64_t> counts;
    std::vector<int32_t> take;
    ColumnPtr all = Values();
    for (auto& group : counts_) {
      for (auto& [key, entry] : group) {
        take.push_back(entry.index);
        counts.push_back(entry.count);
      }
      offsets.push_back(static_cast<int32_t>(take.size()));
      valid.push_back(1);
    }
    ColumnPtr vals = Take(*all, take.data(), static_cast<int64_t>(take.size()));
    kernel::Out<int64_t> c(static_cast<int64_t>(counts.size()));
    if (!counts.empty())
      std::memcpy(c.data, counts.data(), counts.size() * sizeof(int64_t));
    ColumnPtr cc = kernel::MakeColumn(
        DataType::Long(), static_cast<int64_t>(counts.size()), 0, nullptr, c.buf);
    return {MakeListColumn(DataType::Array(type_), offsets, valid, vals),
            MakeListColumn(DataType::Array(DataType::Long()), offsets, valid, cc)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    ColumnPtr all = Values();
    std::vector<int32_t> take;
    for (auto& group : counts_) {
      int32_t best = -1;
      int64_t best_count = 0;
      for (auto& [key, entry] : group) {
        if (entry.count > best_count ||
            (entry.count == best_count &&
             CompareValuesAt(*all, entry.index, *all, best) < 0)) {
          best = entry.index;
          best_count = entry.count;
        }
      }
      take.push_back(best);
    }
    return Take(*all, take.data(), static_cast<int64_t>(take.size()));
  }

 private:
  struct Entry {
    int32_t index;  // row of values_ holding the value
    int64_t count;
  };
  Status Add(const Column& c, const int64_t* weights, const uint32_t* gid, int64_t n,
             int64_t base = 0) {
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      int64_t row = base + i;
      if (c.IsNull(row)) continue;
      Value v = c.GetValue(row);
      std::string key = v.ToString();
      auto& group = counts_[gid[i]];
      auto it = group.find(key);
      if (it == group.end()) {
        kept_.push_back(std::move(v));
        group.emplace(
            key, Entry{static_cast<int32_t>(kept_.size() - 1), weights ? weights[i] : 1});
      } else {
        it->second.count += weights ? weights[i] : 1;
      }
    }
    values_.reset();
    return Status::OK();
  }
  ColumnPtr Values() {
    if (!values_) values_ = ColumnFromValues(type_, kept_);
    return values_;
  }
  DataTypePtr type_;
  std::vector<std::map<std::string, Entry>> counts_;
  std::vector<Value> kept_;
  ColumnPtr values_;
};

class ModeFn final : public AggregateFunction {
 public:
  explicit ModeFn(const DataTypePtr& type) {
    name_ = "mode";
    result_type_ = type;
    state_fields_ = {Field{"values", DataType::Array(type), false},
                     Field{"counts", DataType::Array(DataType::Long()), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<ModeAcc>(result_type_);
  }
};

// ---- central moments: stddev / variance ---------------------------------------------
enum class MomentKind { kStddevSamp, kStddevPop, kVarSamp, kVarPop };

class MomentAcc final : public GroupedAccumulator {
 public:
  explicit MomentAcc(MomentKind kind) : kind_(kind) {}
  void Resize(int64_t g) override {
    n_.resize(static_cast<size_t>(g), 0.0);
    avg_.resize(static_cast<size_t>(g), 0.0);
    m2_.resize(static_cast<size_t>(g), 0.0);
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    auto add = [&](uint32_t g, double x) {
      // Spark's CentralMomentAgg update.
      double nn = n_[g] + 1.0;
      double delta = x - avg_[g];
      double delta_n = delta / nn;
      avg_[g] += delta_n;
      m2_[g] += delta * (delta - delta_n);
      n_[g] = nn;
    };
    if (c.type_id() == TypeId::kDouble) {
      const double* v = c.raw_values<double>();
      for (int64_t i = 0; i < n; ++i) {
        if (!c.IsNull(i)) add(gid[i], v[i]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (!c.IsNull(i)) add(gid[i], NumberAt(c, i));
      }
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const double* n2 = st[0]->raw_values<double>();
    const double* a2 = st[1]->raw_values<double>();
    const double* m2 = st[2]->raw_values<double>();
    for (int64_t i = 0; i < n; ++i) {
      uint32_t g = gid[i];
      double n1 = n_[g];
      double nn = n1 + n2[i];
      double delta = a2[i] - avg_[g];
      double delta_n = nn == 0.0 ? 0.0 : delta / nn;
      avg_[g] += delta_n * n2[i];
      m2_[g] += m2[i] + delta * delta_n * n1 * n2[i];
      n_[g] = nn;
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    return {Doubles(n_, nullptr), Doubles(avg_, nullptr), Doubles(m2_, nullptr)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    size_t groups = n_.size();
    std::vector<double> out(groups, 0.0);
    std::vector<uint8_t> valid(groups, 1);
    for (size_t g = 0; g < groups; ++g) {
      double n = n_[g];
      bool samp = kind_ == MomentKind::kStddevSamp || kind_ == MomentKind::kVarSamp;
      // spark.sql.legacy.statisticalAggregate=false: divide by zero gives NULL.
      if (n == 0.0 || (samp && n == 1.0)) {
        valid[g] = 0;
        continue;
      }
      double var = m2_[g] / (samp ? n - 1.0 : n);
      out[g] = (kind_ == MomentKind::kStddevSamp || kind_ == MomentKind::kStddevPop)
                   ? std::sqrt(var)
                   : var;
    }
    return Doubles(out, &valid);
  }

 private:
  MomentKind kind_;
  std::vector<double> n_, avg_, m2_;
};

class MomentFn final : public AggregateFunction {
 public:
  MomentFn(std::string name, MomentKind kind) : kind_(kind) {
    name_ = std::move(name);
    result_type_ = DataType::Double();
    state_fields_ = {Field{"n", DataType::Double(), false},
                     Field{"avg", DataType::Double(), false},
                     Field{"m2", DataType::Double(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<MomentAcc>(kind_);
  }

 private:
  MomentKind kind_;
};

}  // namespace

const std::vector<std::string>& StatsAggregateNames() {
  static const auto* kNames = [] {
    auto* v = new std::vector<std::string>{
        "stddev",   "stddev_samp", "std",      "stddev_pop", "variance",
        "var_samp", "var_pop",     "skewness", "kurtosis",   "bit_and",
        "bit_or",   "bit_xor",     "mode"};
    for (const auto& [name, kind] : BivariateNames()) v->push_back(name);
    return v;
  }();
  return *kNames;
}

Result<AggregateFunctionPtr> MakeStatsAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args) {
  if (name == "stddev" || name == "stddev_samp" || name == "std" ||
      name == "stddev_pop" || name == "variance" || name == "var_samp" ||
      name == "var_pop") {
    if (args.size() != 1) return ArgCount(name, "1", args.size());
    if (!NumberOrNull(*args[0]->type())) return ArgType(name, args, 0, "\"DOUBLE\"");
    MomentKind k = name == "stddev_pop"                         ? MomentKind::kStddevPop
                   : name == "var_pop"                          ? MomentKind::kVarPop
                   : (name == "variance" || name == "var_samp") ? MomentKind::kVarSamp
                                                                : MomentKind::kStddevSamp;
    return AggregateFunctionPtr(std::make_shared<MomentFn>(name, k));
  }
  if (name == "skewness" || name == "kurtosis") {
    if (args.size() != 1) return ArgCount(name, "1", args.size());
    if (!NumberOrNull(*args[0]->type())) return ArgType(name, args, 0, "\"DOUBLE\"");
    return AggregateFunctionPtr(std::make_shared<HighMomentFn>(name));
  }
  if (auto it = BivariateNames().find(name); it != BivariateNames().end()) {
    if (args.size() != 2) return ArgCount(name, "2", args.size());
    for (size_t k = 0; k < 2; ++k) {
      if (!NumberOrNull(*args[k]->type())) return ArgType(name, args, k, "\"DOUBLE\"");
    }
    auto fn = std::make_shared<BivariateFn>(name, it->second);
    if (name.rfind("regr_", 0) == 0)
      return AggregateFunctionPtr(std::make_shared<SwappedFn>(fn));
    return AggregateFunctionPtr(fn);
  }
  if (name == "bit_and" || name == "bit_or" || name == "bit_xor") {
    if (args.size() != 1) return ArgCount(name, "1", args.size());
    const DataType& t = *args[0]->type();
    if (!t.IsIntegral()) return ArgType(name, args, 0, "\"INTEGRAL\"");
    BitOp op = name == "bit_and"  ? BitOp::kAnd
               : name == "bit_or" ? BitOp::kOr
                                  : BitOp::kXor;
    return AggregateFunctionPtr(std::make_shared<BitFn>(name, op, args[0]->type()));
  }
  if (name == "mode") {
    if (args.empty() || args.size() > 2) return ArgCount(name, "[1, 2]", args.size());
    return AggregateFunctionPtr(std::make_shared<ModeFn>(args[0]->type()));
  }
  return AggregateFunctionPtr();
}

}  // namespace spate
