// Copyright spate authors.
// Aggregates that collect a group's values: collect_list / array_agg, collect_set, and
// listagg / string_agg (with WITHIN GROUP (ORDER BY ...) and DISTINCT as Spark 4.2).

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using Cols = std::vector<ColumnPtr>;

using agg::IsInterval;
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
    std::vector<uint32_t> gids = ElementGroups(o, gid, n);
    std::vector<int32_t> rows(gids.size());
    std::iota(rows.begin(), rows.end(), o[0]);
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
    std::vector<uint64_t> all;
    std::vector<int32_t> offsets = ConcatGroups(refs_, &all);
    ColumnPtr child = sources_.empty() ? Column::MakeNull(type_->element_type(), 0)
                                       : TakeMulti(sources_, all.data(),
                                                   static_cast<int64_t>(all.size()));
    return MakeListColumn(type_, offsets, std::move(child));
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
  ListAggAcc(const DataTypePtr& state_type, DataTypePtr result, std::string delimiter,
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
  ListAggFn(std::string name, const DataTypePtr& result, std::string delimiter,
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

}  // namespace

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
      return fn::NonFoldableInput(
          name + "(" + args[0]->ToString() + ", " + args[1]->ToString() + ")",
          "delimiter", "STRING", *args[1]);
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

const std::vector<std::string>& CollectAggregateNames() {
  static const std::vector<std::string> kNames = {"collect_list", "array_agg",
                                                  "collect_set", "listagg", "string_agg"};
  return kNames;
}

Result<AggregateFunctionPtr> MakeCollectAggregate(const std::string& name,
                                                  const std::vector<BoundExprPtr>& args) {
  if (name == "collect_list" || name == "array_agg" || name == "collect_set") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    bool set = name == "collect_set";
    if (set && !IsOrderable(*args[0]->type())) {
      return TypeMismatch(name, args, 0, "\"ARRAY\" or orderable");
    }
    return AggregateFunctionPtr(std::make_shared<CollectFn>(name, set, args[0]->type()));
  }
  if (name == "listagg" || name == "string_agg") return MakeListAgg(name, args, {}, {});
  return AggregateFunctionPtr();
}

Result<AggregateFunctionPtr> MakeListAggWithinGroup(
    const std::string& name, const std::vector<BoundExprPtr>& values,
    const std::vector<BoundExprPtr>& keys, bool distinct,
    const std::vector<OrderDirection>& order) {
  const std::string fn = "`" + name + "`";
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

}  // namespace spate
