// Copyright spate authors.
#include "spate/compute/aggregate_extra.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <unordered_set>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"
#include "spate/types/format.h"

namespace spate {

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

using Cols = std::vector<ColumnPtr>;

using agg::AsDouble;
using agg::DoubleColumn;
using agg::TypeMismatch;
using agg::WrongArgs;

// ---- collect_list / collect_set
// -------------------------------------------------------- `null_field` >= 0: the
// elements are structs, skipped when that field is NULL (listagg).
class CollectAcc final : public GroupedAccumulator {
 public:
  CollectAcc(bool set, DataTypePtr type, int null_field = -1)
      : set_(set), type_(std::move(type)), null_field_(null_field) {}
  void Resize(int64_t g) override {
    refs_.resize(static_cast<size_t>(g));
    if (set_) seen_.resize(static_cast<size_t>(g));
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const ColumnPtr& c = args[0];
    std::vector<int32_t> rows(static_cast<size_t>(n));
    std::iota(rows.begin(), rows.end(), 0);
    Add(c, gid, rows.data(), n);
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& a = *st[0];
    const int32_t* o = a.offsets();
    std::vector<uint32_t> gids;
    std::vector<int32_t> rows;
    for (int64_t i = 0; i < n; ++i) {
      for (int32_t k = o[i]; k < o[i + 1]; ++k) {
        gids.push_back(gid[i]);
        rows.push_back(k);
      }
    }
    Add(a.child(0), gids.data(), rows.data(), static_cast<int64_t>(rows.size()));
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override { return {Emit()}; }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Emit(); }

 private:
  void Add(const ColumnPtr& c, const uint32_t* gid, const int32_t* rows, int64_t n) {
    if (n == 0) return;
    uint64_t src = sources_.size();
    sources_.push_back(c);
    if (set_) encoder_.Encode({c.get()}, c->length());
    for (int64_t k = 0; k < n; ++k) {
      int32_t i = rows[k];
      if (null_field_ >= 0 ? c->child(null_field_)->IsNull(i) : c->IsNull(i)) continue;
      if (set_ && !seen_[gid[k]].insert(std::string(encoder_.key(i))).second) continue;
      refs_[gid[k]].push_back((src << 32) | static_cast<uint32_t>(i));
    }
  }
  ColumnPtr Emit() {
    int64_t groups = static_cast<int64_t>(refs_.size());
    std::vector<int32_t> offsets{0};
    std::vector<uint64_t> all;
    for (const auto& r : refs_) {
      all.insert(all.end(), r.begin(), r.end());
      offsets.push_back(static_cast<int32_t>(all.size()));
    }
    ColumnPtr child = sources_.empty() ? Column::MakeNull(type_->element_type(), 0)
                                       : TakeMulti(sources_, all.data(),
                                                   static_cast<int64_t>(all.size()));
    auto off = Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 4);
    std::memcpy(off->mutable_data(), offsets.data(), offsets.size() * 4);
    return std::make_shared<const Column>(type_, groups, 0, nullptr, off, nullptr,
                                          std::vector<ColumnPtr>{child});
  }
  bool set_;
  DataTypePtr type_;
  int null_field_;
  std::vector<ColumnPtr> sources_;
  std::vector<std::vector<uint64_t>> refs_;
  std::vector<std::unordered_set<std::string>> seen_;
  RowEncoder encoder_;
};

class CollectFn final : public AggregateFunction {
 public:
  CollectFn(std::string name, bool set, DataTypePtr elem) : set_(set) {
    name_ = std::move(name);
    result_type_ = DataType::Array(std::move(elem), false);
    nullable_ = false;
    state_fields_ = {Field{"buf", result_type_, false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<CollectAcc>(set_, result_type_);
  }

 private:
  bool set_;
};

// ---- listagg / string_agg
// --------------------------------------------------------------- Collects (value,
// ordering keys...) per group as an array of structs (the partial state), then sorts each
// group's rows by the WITHIN GROUP keys (stable: without keys, or among equal keys, rows
// stay in arrival order) and joins the values with the delimiter.
class ListAggAcc final : public GroupedAccumulator {
 public:
  ListAggAcc(DataTypePtr state_type, DataTypePtr result, std::string delimiter,
             std::vector<OrderDirection> order)
      : inner_(false, state_type, 0),
        elem_(state_type->element_type()),
        result_(std::move(result)),
        delimiter_(std::move(delimiter)),
        order_(std::move(order)) {}
  void Resize(int64_t g) override { inner_.Resize(g); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext& ctx) override {
    // args: value, delimiter, ordering keys.
    ColumnPtr value = args[0];
    if (!value->type()->Equals(*result_)) {
      SPATE_ASSIGN_OR_RETURN(
          value, CastColumn(value, result_,
                            ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy, ctx));
    }
    Cols fields{value};
    fields.insert(fields.end(), args.begin() + 2, args.end());
    auto row = std::make_shared<const Column>(elem_, n, 0, nullptr, nullptr, nullptr,
                                              std::move(fields));
    return inner_.Update({row}, gid, n, ctx);
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext& ctx) override {
    return inner_.Merge(st, gid, n, ctx);
  }
  std::vector<ColumnPtr> State() override { return inner_.State(); }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    ColumnPtr all = inner_.State()[0];
    const int32_t* o = all->offsets();
    const Column& rows = *all->child(0);
    const Column& values = *rows.child(0);
    StringBuilder out(result_);
    std::vector<int64_t> idx;
    std::string joined;
    for (int64_t g = 0; g < all->length(); ++g) {
      if (o[g] == o[g + 1]) {
        out.AppendNull();
        continue;
      }
      idx.resize(static_cast<size_t>(o[g + 1] - o[g]));
      std::iota(idx.begin(), idx.end(), o[g]);
      if (!order_.empty())
        std::stable_sort(idx.begin(), idx.end(),
                         [&](int64_t a, int64_t b) { return Before(rows, a, b); });
      joined.clear();
      for (size_t k = 0; k < idx.size(); ++k) {
        if (k) joined += delimiter_;
        joined += values.GetView(idx[k]);
      }
      out.Append(joined);
    }
    return out.Finish();
  }

 private:
  // Row a sorts before row b by the WITHIN GROUP keys (struct fields 1..).
  bool Before(const Column& rows, int64_t a, int64_t b) const {
    for (size_t k = 0; k < order_.size(); ++k) {
      const Column& key = *rows.child(static_cast<int>(k) + 1);
      bool an = key.IsNull(a), bn = key.IsNull(b);
      if (an || bn) {
        if (an == bn) continue;
        return an == order_[k].nulls_first;
      }
      int c = CompareValuesAt(key, a, key, b);
      if (c != 0) return order_[k].ascending ? c < 0 : c > 0;
    }
    return false;
  }
  CollectAcc inner_;
  DataTypePtr elem_, result_;
  std::string delimiter_;
  std::vector<OrderDirection> order_;
};

class ListAggFn final : public AggregateFunction {
 public:
  ListAggFn(std::string name, DataTypePtr result, std::string delimiter,
            const std::vector<BoundExprPtr>& keys, std::vector<OrderDirection> order)
      : delimiter_(std::move(delimiter)), order_(std::move(order)) {
    name_ = std::move(name);
    result_type_ = result;
    std::vector<Field> fields{Field{"value", result, true}};
    for (size_t k = 0; k < keys.size(); ++k) {
      fields.push_back(Field{"key" + std::to_string(k), keys[k]->type(), true});
    }
    state_type_ = DataType::Array(DataType::Struct(std::move(fields)), false);
    state_fields_ = {Field{"buf", state_type_, false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<ListAggAcc>(state_type_, result_type_, delimiter_, order_);
  }

 private:
  DataTypePtr state_type_;
  std::string delimiter_;
  std::vector<OrderDirection> order_;
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
        if (!c.IsNull(i)) add(gid[i], AsDouble(c, i));
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
    return {DoubleColumn(n_, nullptr), DoubleColumn(avg_, nullptr),
            DoubleColumn(m2_, nullptr)};
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
    return DoubleColumn(out, &valid);
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

// ---- count_if ----------------------------------------------------------------------
class CountIfAcc final : public GroupedAccumulator {
 public:
  void Resize(int64_t g) override { counts_.resize(static_cast<size_t>(g), 0); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (!c.IsNull(i) && c.GetBool(i)) ++counts_[gid[i]];
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
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
    kernel::Out<int64_t> out(n);
    if (n) std::memcpy(out.data, counts_.data(), counts_.size() * 8);
    return kernel::MakeColumn(DataType::Long(), n, 0, nullptr, out.buf);
  }
  std::vector<int64_t> counts_;
};

class CountIfFn final : public AggregateFunction {
 public:
  CountIfFn() {
    name_ = "count_if";
    result_type_ = DataType::Long();
    nullable_ = false;
    state_fields_ = {Field{"count", DataType::Long(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<CountIfAcc>();
  }
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
  ByFn(std::string name, bool is_max, DataTypePtr vt, DataTypePtr ot)
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

// ---- median / percentile / percentile_approx ----------------------------------------
// Keeps every value of a group (as double, like Spark's Percentile and
// QuantileSummaries). kExact: percentile / median / percentile_cont; kDisc:
// percentile_disc; `reverse`: the values ranked descending (WITHIN GROUP (ORDER BY x
// DESC)), whose key is the last argument (the first otherwise).
enum class PctKind { kExact, kApprox, kDisc };

class PercentileAcc final : public GroupedAccumulator {
 public:
  PercentileAcc(PctKind kind, std::vector<double> pcts, bool array_result,
                double rel_error, DataTypePtr result, bool reverse, bool key_last)
      : kind_(kind),
        pcts_(std::move(pcts)),
        array_(array_result),
        rel_error_(rel_error),
        result_(std::move(result)),
        reverse_(reverse),
        key_last_(key_last) {}
  void Resize(int64_t g) override { vals_.resize(static_cast<size_t>(g)); }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = key_last_ ? *args.back() : *args[0];
    if (c.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (!c.IsNull(i)) vals_[gid[i]].push_back(AsDouble(c, i));
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& a = *st[0];
    const int32_t* o = a.offsets();
    const double* v = a.child(0)->raw_values<double>();
    for (int64_t i = 0; i < n; ++i) {
      auto& dst = vals_[gid[i]];
      dst.insert(dst.end(), v + o[i], v + o[i + 1]);
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    std::vector<int32_t> offsets{0};
    std::vector<double> all;
    for (const auto& g : vals_) {
      all.insert(all.end(), g.begin(), g.end());
      offsets.push_back(static_cast<int32_t>(all.size()));
    }
    auto off = Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 4);
    std::memcpy(off->mutable_data(), offsets.data(), offsets.size() * 4);
    return {std::make_shared<const Column>(
        DataType::Array(DataType::Double(), false), static_cast<int64_t>(vals_.size()), 0,
        nullptr, off, nullptr, std::vector<ColumnPtr>{DoubleColumn(all, nullptr)})};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    auto b = ColumnBuilder::Make(result_);
    DataTypePtr elem = array_ ? result_->element_type() : result_;
    for (auto& g : vals_) {
      if (g.empty()) {
        b->AppendNull();
        continue;
      }
      std::sort(g.begin(), g.end(), [](double x, double y) {
        // NaN largest, as Spark orders doubles.
        if (std::isnan(x)) return false;
        if (std::isnan(y)) return true;
        return x < y;
      });
      std::vector<Value> out;
      for (double p : pcts_) out.push_back(ToValue(elem, Pick(g, p)));
      b->AppendValue(array_ ? Value::ArrayOf(result_, out) : out[0]);
    }
    return b->Finish();
  }

 private:
  double Pick(const std::vector<double>& s, double p) const {
    int64_t n = static_cast<int64_t>(s.size());
    // WITHIN GROUP (ORDER BY x DESC) ranks the values descending (Spark's `reverse`).
    auto at = [&](int64_t i) { return reverse_ ? s[n - 1 - i] : s[i]; };
    if (kind_ == PctKind::kDisc) {
      // Spark's PercentileDisc: the first value (in the WITHIN GROUP order) whose
      // cumulative distribution reaches p.
      return at(std::clamp<int64_t>(
          static_cast<int64_t>(std::ceil(p * static_cast<double>(n))) - 1, 0, n - 1));
    }
    if (kind_ == PctKind::kExact) {
      // Spark's Percentile: linear interpolation between the closest ranks.
      double pos = static_cast<double>(n - 1) * p;
      int64_t lo = static_cast<int64_t>(std::floor(pos));
      int64_t hi = static_cast<int64_t>(std::ceil(pos));
      if (lo == hi || at(lo) == at(hi)) return at(lo);
      return (static_cast<double>(hi) - pos) * at(lo) +
             (pos - static_cast<double>(lo)) * at(hi);
    }
    // QuantileSummaries.query on an uncompressed summary: the value at rank ceil(p * n).
    if (p <= rel_error_) return s.front();
    if (p >= 1 - rel_error_) return s.back();
    int64_t rank = static_cast<int64_t>(std::ceil(p * static_cast<double>(n)));
    return s[std::clamp<int64_t>(rank - 1, 0, n - 1)];
  }
  static Value ToValue(const DataTypePtr& t, double v) {
    switch (t->id()) {
      case TypeId::kDouble:
        return Value::Double(v);
      case TypeId::kFloat:
        return Value::Float(static_cast<float>(v));
      case TypeId::kByte:
        return Value::Byte(static_cast<int8_t>(v));
      case TypeId::kShort:
        return Value::Short(static_cast<int16_t>(v));
      case TypeId::kInt:
        return Value::Int(static_cast<int32_t>(v));
      case TypeId::kDecimal:
        return Value::Decimal(
            static_cast<__int128>(std::llround(v * std::pow(10.0, t->scale()))),
            t->precision(), t->scale());
      default:
        return Value::FromI64(t, static_cast<int64_t>(v));
    }
  }
  PctKind kind_;
  std::vector<double> pcts_;
  bool array_;
  double rel_error_;
  DataTypePtr result_;
  bool reverse_, key_last_;
  std::vector<std::vector<double>> vals_;
};

class PercentileFn final : public AggregateFunction {
 public:
  PercentileFn(std::string name, PctKind kind, std::vector<double> pcts,
               bool array_result, double rel_error, DataTypePtr result,
               bool reverse = false, bool key_last = false)
      : kind_(kind),
        pcts_(std::move(pcts)),
        array_(array_result),
        rel_error_(rel_error),
        reverse_(reverse),
        key_last_(key_last) {
    name_ = std::move(name);
    result_type_ = std::move(result);
    state_fields_ = {Field{"values", DataType::Array(DataType::Double(), false), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<PercentileAcc>(kind_, pcts_, array_, rel_error_, result_type_,
                                           reverse_, key_last_);
  }

 private:
  PctKind kind_;
  std::vector<double> pcts_;
  bool array_;
  double rel_error_;
  bool reverse_, key_last_;
};

bool NumericOrNull(const DataType& t) { return t.IsNumeric() || t.id() == TypeId::kNull; }

/// Reads a foldable percentage (double or array of doubles) in [0, 1].
Status ReadPercentages(const std::string& name, const std::vector<BoundExprPtr>& args,
                       std::vector<double>* out, bool* is_array) {
  const Value* v = args[1]->literal_value();
  Value folded;
  if (!v && args[1]->IsConstant()) {
    // A foldable expression such as array(0.25, 0.75): evaluate it once.
    auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
    auto col = args[1]->Evaluate(*one, EvalContext{});
    if (col.ok()) {
      folded = (*col)->GetValue(0);
      v = &folded;
    }
  }
  if (!v) {
    return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                         {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ", " +
                                          args[1]->ToString() + ")\""},
                          {"inputName", "`percentage`"},
                          {"inputType", "\"DOUBLE\""},
                          {"inputExpr", "\"" + args[1]->ToString() + "\""}});
  }
  auto num = [](const Value& x) -> std::optional<double> {
    if (x.is_null()) return std::nullopt;
    const DataType& t = *x.type();
    if (t.id() == TypeId::kDecimal)
      return static_cast<double>(x.i128()) / std::pow(10.0, t.scale());
    if (t.IsFloating()) return x.f64();
    if (t.IsIntegral()) return static_cast<double>(x.i64());
    return std::nullopt;
  };
  *is_array = v->type()->id() == TypeId::kArray;
  std::vector<Value> items = *is_array ? v->items() : std::vector<Value>{*v};
  for (const auto& it : items) {
    auto d = num(it);
    if (!d) return TypeMismatch(name, args, 1, "\"DOUBLE\"");
    if (*d < 0.0 || *d > 1.0) {
      return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                           {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ", " +
                                            args[1]->ToString() + ")\""},
                            {"exprName", "percentage"},
                            {"valueRange", "[0.0, 1.0]"},
                            {"currentValue", FormatDouble(*d)}});
    }
    out->push_back(*d);
  }
  return Status::OK();
}

// Intervals are ranked as their months / microseconds; median and percentile give the
// widest interval of the kind (DAY TO SECOND, YEAR TO MONTH), truncated.
bool IsInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
}
DataTypePtr WidestInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval ? DataType::DayTimeInterval()
                                            : DataType::YearMonthInterval();
}
constexpr const char* kPercentileTypes =
    "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\")";

/// percentile_cont / percentile_disc(pct) WITHIN GROUP (ORDER BY key [DESC]); named
/// percentile_cont(key, pct) in errors, as Spark's.
Result<AggregateFunctionPtr> MakePercentileWithin(const std::string& name,
                                                  const BoundExprPtr& key,
                                                  const BoundExprPtr& pct, bool reverse) {
  std::vector<BoundExprPtr> args{key, pct};
  const DataType& t = *key->type();
  if (!NumericOrNull(t) && !IsInterval(t))
    return TypeMismatch(name, args, 0, kPercentileTypes);
  std::vector<double> p;
  bool is_array = false;
  SPATE_RETURN_IF_ERROR(ReadPercentages(name, args, &p, &is_array));
  DataTypePtr elem = IsInterval(t) ? WidestInterval(t) : DataType::Double();
  DataTypePtr rt = is_array ? DataType::Array(elem, false) : elem;
  PctKind kind = name == "percentile_cont" ? PctKind::kExact : PctKind::kDisc;
  // The key is evaluated after the percentage (the WITHIN GROUP key follows the
  // arguments).
  return AggregateFunctionPtr(
      std::make_shared<PercentileFn>(name, kind, p, is_array, 0.0, rt, reverse, true));
}

/// listagg / string_agg(value, delimiter) with the WITHIN GROUP `keys` (maybe none).
Result<AggregateFunctionPtr> MakeListAgg(const std::string& name,
                                         const std::vector<BoundExprPtr>& args,
                                         const std::vector<BoundExprPtr>& keys,
                                         const std::vector<OrderDirection>& order) {
  if (args.empty() || args.size() > 2) return WrongArgs(name, "[1, 2]", args.size());
  const DataType& t = *args[0]->type();
  bool binary = t.id() == TypeId::kBinary;
  bool to_string = t.id() == TypeId::kString || t.id() == TypeId::kNull ||
                   t.IsNumeric() || t.id() == TypeId::kBoolean ||
                   t.id() == TypeId::kDate || t.id() == TypeId::kTimestamp ||
                   t.id() == TypeId::kTimestampNtz || IsInterval(t);
  if (!binary && !to_string)
    return TypeMismatch(name, args, 0, "(\"STRING\" or \"BINARY\")");
  DataTypePtr result = binary ? DataType::Binary() : DataType::String();
  std::string delimiter;
  if (args.size() == 2) {
    const Value* d = args[1]->literal_value();
    if (!d) {
      return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                           {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ", " +
                                            args[1]->ToString() + ")\""},
                            {"inputName", "`delimiter`"},
                            {"inputType", "\"STRING\""},
                            {"inputExpr", "\"" + args[1]->ToString() + "\""}});
    }
    TypeId dt = d->type()->id();
    if (dt != TypeId::kNull && (dt == TypeId::kBinary) != binary) {
      return Status::Error(
          "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
          {{"sqlExpr",
            "\"" + name + "(" + args[0]->ToString() + ", " + args[1]->ToString() + ")\""},
           {"functionName", "`" + name + "`"},
           {"dataType", "(" + QuoteType(t) + " or " + QuoteType(*d->type()) + ")"}});
    }
    if (!d->is_null()) {
      SPATE_ASSIGN_OR_RETURN(Value s,
                             CastValue(*d, result, CastMode::kLegacy, EvalContext{}));
      delimiter = std::string(s.str());
    }
  }
  for (const auto& k : keys) {
    if (!IsOrderable(*k->type())) {
      return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                           {{"sqlExpr", "\"" + k->ToString() + "\""},
                            {"functionName", "`sortorder`"},
                            {"dataType", QuoteType(*k->type())}});
    }
  }
  return AggregateFunctionPtr(
      std::make_shared<ListAggFn>(name, result, delimiter, keys, order));
}

}  // namespace

Result<AggregateFunctionPtr> MakeWithinGroupAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args, bool distinct,
    const std::vector<OrderDirection>& order) {
  const size_t nkeys = std::min(order.size(), args.size());
  std::vector<BoundExprPtr> values(args.begin(),
                                   args.end() - static_cast<std::ptrdiff_t>(nkeys));
  std::vector<BoundExprPtr> keys(args.end() - static_cast<std::ptrdiff_t>(nkeys),
                                 args.end());
  const std::string fn = "`" + name + "`";
  if (name == "percentile_cont" || name == "percentile_disc") {
    if (distinct)
      return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED",
                           {{"funcName", fn}});
    if (keys.size() != 1) {
      return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS",
                           {{"funcName", fn},
                            {"expectedNum", "1"},
                            {"actualNum", std::to_string(keys.size())}});
    }
    if (values.size() != 1) return WrongArgs(name, "1", values.size());
    return MakePercentileWithin(name, keys[0], values[0], !order[0].ascending);
  }
  if (name == "listagg" || name == "string_agg") {
    if (distinct && !values.empty()) {
      // DISTINCT dedups the values cast to STRING while the keys order the originals:
      // Spark refuses inputs whose string form is not one-to-one with them.
      const DataType& vt = *values[0]->type();
      if (!keys.empty() && (vt.IsFloating() || vt.id() == TypeId::kDecimal)) {
        return Status::Error(
            "INVALID_WITHIN_GROUP_EXPRESSION.MISMATCH_WITH_DISTINCT_INPUT_UNSAFE_CAST",
            {{"funcName", fn}, {"inputType", QuoteType(vt)}, {"castType", "\"STRING\""}});
      }
      for (const auto& k : keys) {
        if (k->ToString() != values[0]->ToString()) {
          return Status::Error(
              "INVALID_WITHIN_GROUP_EXPRESSION.MISMATCH_WITH_DISTINCT_INPUT",
              {{"funcName", fn},
               {"funcArg", "\"" + values[0]->ToString() + "\""},
               {"orderingExpr", "\"" + k->ToString() + "\""}});
        }
      }
    }
    return MakeListAgg(name, values, keys, order);
  }
  return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING",
                       {{"funcName", fn}});
}

const std::vector<std::string>& ExtraAggregateNames() {
  static const std::vector<std::string> kNames = {"collect_list",
                                                  "array_agg",
                                                  "collect_set",
                                                  "stddev",
                                                  "stddev_samp",
                                                  "std",
                                                  "stddev_pop",
                                                  "variance",
                                                  "var_samp",
                                                  "var_pop",
                                                  "count_if",
                                                  "bool_and",
                                                  "every",
                                                  "bool_or",
                                                  "some",
                                                  "any",
                                                  "min_by",
                                                  "max_by",
                                                  "median",
                                                  "percentile",
                                                  "percentile_approx",
                                                  "approx_percentile",
                                                  "percentile_cont",
                                                  "percentile_disc",
                                                  "listagg",
                                                  "string_agg"};
  static const auto* kAll = [] {
    auto* all = new std::vector<std::string>(kNames);
    for (const auto& n : StatsAggregateNames()) all->push_back(n);
    return all;
  }();
  return *kAll;
}

Result<AggregateFunctionPtr> MakeExtraAggregate(const std::string& name,
                                                const std::vector<BoundExprPtr>& args) {
  if (name == "collect_list" || name == "array_agg" || name == "collect_set") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    bool set = name == "collect_set";
    if (set && !IsOrderable(*args[0]->type())) {
      return TypeMismatch(name, args, 0, "\"ARRAY\" or orderable");
    }
    return AggregateFunctionPtr(std::make_shared<CollectFn>(name, set, args[0]->type()));
  }
  if (name == "stddev" || name == "stddev_samp" || name == "std" ||
      name == "stddev_pop" || name == "variance" || name == "var_samp" ||
      name == "var_pop") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    if (!NumericOrNull(*args[0]->type()))
      return TypeMismatch(name, args, 0, "\"DOUBLE\"");
    MomentKind k = name == "stddev_pop"                         ? MomentKind::kStddevPop
                   : name == "var_pop"                          ? MomentKind::kVarPop
                   : (name == "variance" || name == "var_samp") ? MomentKind::kVarSamp
                                                                : MomentKind::kStddevSamp;
    return AggregateFunctionPtr(std::make_shared<MomentFn>(name, k));
  }
  if (name == "count_if" || name == "bool_and" || name == "every" || name == "bool_or" ||
      name == "some" || name == "any") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    TypeId t = args[0]->type()->id();
    if (t != TypeId::kBoolean && t != TypeId::kNull)
      return TypeMismatch(name, args, 0, "\"BOOLEAN\"");
    if (name == "count_if") return AggregateFunctionPtr(std::make_shared<CountIfFn>());
    bool is_and = name == "bool_and" || name == "every";
    return AggregateFunctionPtr(std::make_shared<BoolFn>(name, is_and));
  }
  if (name == "min_by" || name == "max_by") {
    if (args.size() != 2) return WrongArgs(name, "2", args.size());
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
  auto is_interval = IsInterval;
  auto widest = WidestInterval;
  if (name == "percentile_cont" || name == "percentile_disc") {
    return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING",
                         {{"funcName", "`" + name + "`"}});
  }
  if (name == "listagg" || name == "string_agg") return MakeListAgg(name, args, {}, {});
  if (name == "median") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    const DataType& t = *args[0]->type();
    if (!NumericOrNull(t) && !is_interval(t)) {
      return TypeMismatch(
          name, args, 0,
          "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\")");
    }
    DataTypePtr rt = is_interval(t) ? widest(t) : DataType::Double();
    return AggregateFunctionPtr(std::make_shared<PercentileFn>(
        name, PctKind::kExact, std::vector<double>{0.5}, false, 0.0, rt));
  }
  if (name == "percentile") {
    if (args.size() != 2) return WrongArgs(name, "2", args.size());
    const DataType& t = *args[0]->type();
    if (!NumericOrNull(t) && !is_interval(t)) {
      return TypeMismatch(
          name, args, 0,
          "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\")");
    }
    std::vector<double> p;
    bool is_array = false;
    SPATE_RETURN_IF_ERROR(ReadPercentages(name, args, &p, &is_array));
    DataTypePtr elem = is_interval(t) ? widest(t) : DataType::Double();
    DataTypePtr rt = is_array ? DataType::Array(elem, false) : elem;
    return AggregateFunctionPtr(
        std::make_shared<PercentileFn>(name, PctKind::kExact, p, is_array, 0.0, rt));
  }
  if (name == "percentile_approx" || name == "approx_percentile") {
    if (args.size() < 2 || args.size() > 3) return WrongArgs(name, "[2, 3]", args.size());
    const DataTypePtr& t = args[0]->type();
    if (!t->IsNumeric() && t->id() != TypeId::kDate && t->id() != TypeId::kTimestamp &&
        !is_interval(*t)) {
      return TypeMismatch(name, args, 0, "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\")");
    }
    std::vector<double> p;
    bool is_array = false;
    SPATE_RETURN_IF_ERROR(ReadPercentages(name, args, &p, &is_array));
    int64_t accuracy = 10000;
    if (args.size() == 3) {
      const Value* a = args[2]->literal_value();
      if (!a || a->is_null() || !a->type()->IsIntegral())
        return TypeMismatch(name, args, 2, "\"INT\"");
      accuracy = a->i64();
      if (accuracy <= 0) {
        return Status::Error(
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ", " +
                             args[1]->ToString() + ", " + args[2]->ToString() + ")\""},
             {"exprName", "accuracy"},
             {"valueRange", "(0, 2147483647]"},
             {"currentValue", std::to_string(accuracy)}});
      }
    }
    DataTypePtr rt = is_array ? DataType::Array(t, false) : t;
    return AggregateFunctionPtr(std::make_shared<PercentileFn>(
        name, PctKind::kApprox, p, is_array, 1.0 / static_cast<double>(accuracy), rt));
  }
  return MakeStatsAggregate(name, args);
}

}  // namespace spate
