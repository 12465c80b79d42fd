// Copyright spate authors.
// Percentile aggregates: median, percentile, percentile_approx / approx_percentile (every
// value of a group kept as Spark's Percentile / QuantileSummaries), and percentile_cont /
// percentile_disc (pct) WITHIN GROUP (ORDER BY key [DESC]).

#include <algorithm>
#include <cmath>

#include "spate/columnar/builder.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using Cols = std::vector<ColumnPtr>;

using agg::AsDouble;
using agg::DoubleColumn;
using agg::IsInterval;
using agg::TypeMismatch;
using agg::WrongArgs;

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
    std::vector<double> all;
    std::vector<int32_t> offsets = ConcatGroups(vals_, &all);
    return {MakeListColumn(DataType::Array(DataType::Double(), false), offsets,
                           DoubleColumn(all, nullptr))};
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
DataTypePtr WidestInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval ? DataType::DayTimeInterval()
                                            : DataType::YearMonthInterval();
}

/// The value type of an exact percentile of args[key] (DOUBLE, or the widest interval of
/// its kind); UNEXPECTED_INPUT_TYPE for other key types.
Result<DataTypePtr> ExactPercentileType(const std::string& name,
                                        const std::vector<BoundExprPtr>& args,
                                        size_t key) {
  const DataType& t = *args[key]->type();
  if (!NumericOrNull(t) && !IsInterval(t)) {
    return TypeMismatch(
        name, args, key,
        "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\")");
  }
  return IsInterval(t) ? WidestInterval(t) : DataType::Double();
}

/// percentile_cont / percentile_disc(pct) WITHIN GROUP (ORDER BY key [DESC]); named
/// percentile_cont(key, pct) in errors, as Spark's.
Result<AggregateFunctionPtr> MakePercentileWithin(const std::string& name,
                                                  const BoundExprPtr& key,
                                                  const BoundExprPtr& pct, bool reverse) {
  std::vector<BoundExprPtr> args{key, pct};
  SPATE_ASSIGN_OR_RETURN(DataTypePtr elem, ExactPercentileType(name, args, 0));
  std::vector<double> p;
  bool is_array = false;
  SPATE_RETURN_IF_ERROR(ReadPercentages(name, args, &p, &is_array));
  DataTypePtr rt = is_array ? DataType::Array(elem, false) : elem;
  PctKind kind = name == "percentile_cont" ? PctKind::kExact : PctKind::kDisc;
  // The key is evaluated after the percentage (the WITHIN GROUP key follows the
  // arguments).
  return AggregateFunctionPtr(
      std::make_shared<PercentileFn>(name, kind, p, is_array, 0.0, rt, reverse, true));
}

}  // namespace

const std::vector<std::string>& PercentileAggregateNames() {
  static const std::vector<std::string> kNames = {
      "median",          "percentile",     "percentile_approx", "approx_percentile",
      "percentile_cont", "percentile_disc"};
  return kNames;
}

Result<AggregateFunctionPtr> MakePercentileAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args) {
  if (name == "percentile_cont" || name == "percentile_disc") {
    return Status::Error("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING",
                         {{"funcName", "`" + name + "`"}});
  }
  if (name == "median") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    SPATE_ASSIGN_OR_RETURN(DataTypePtr rt, ExactPercentileType(name, args, 0));
    return AggregateFunctionPtr(std::make_shared<PercentileFn>(
        name, PctKind::kExact, std::vector<double>{0.5}, false, 0.0, rt));
  }
  if (name == "percentile") {
    if (args.size() != 2) return WrongArgs(name, "2", args.size());
    SPATE_ASSIGN_OR_RETURN(DataTypePtr elem, ExactPercentileType(name, args, 0));
    std::vector<double> p;
    bool is_array = false;
    SPATE_RETURN_IF_ERROR(ReadPercentages(name, args, &p, &is_array));
    DataTypePtr rt = is_array ? DataType::Array(elem, false) : elem;
    return AggregateFunctionPtr(
        std::make_shared<PercentileFn>(name, PctKind::kExact, p, is_array, 0.0, rt));
  }
  if (name == "percentile_approx" || name == "approx_percentile") {
    if (args.size() < 2 || args.size() > 3) return WrongArgs(name, "[2, 3]", args.size());
    const DataTypePtr& t = args[0]->type();
    if (!t->IsNumeric() && t->id() != TypeId::kDate && t->id() != TypeId::kTimestamp &&
        !IsInterval(*t)) {
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
  return AggregateFunctionPtr();
}

Result<AggregateFunctionPtr> MakePercentileWithinGroup(
    const std::string& name, const std::vector<BoundExprPtr>& values,
    const std::vector<BoundExprPtr>& keys, bool distinct,
    const std::vector<OrderDirection>& order) {
  const std::string fn = "`" + name + "`";
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

}  // namespace spate
