// Copyright spate authors.
#include "spate/stream/spark_state_schema.h"

#include <cmath>
#include <set>
#include <string>

#include "spate/compute/approx_count_distinct.h"

namespace spate::stream {

namespace {

/// Spark's name of the function an alias resolves to (equal calls share a buffer).
std::string Canonical(const std::string& name) {
  if (name == "mean") return "avg";
  if (name == "std" || name == "stddev") return "stddev_samp";
  if (name == "variance") return "var_samp";
  if (name == "every") return "bool_and";
  if (name == "some" || name == "any") return "bool_or";
  if (name == "first_value" || name == "any_value") return "first";
  if (name == "last_value") return "last";
  if (name == "array_agg") return "collect_list";
  if (name == "string_agg") return "listagg";
  if (name == "approx_percentile") return "percentile_approx";
  return name;
}

bool IsInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
}

/// Spark's maximal digits of a decimal computed as a long / a double (DecimalAggregates).
constexpr int kMaxLongDigits = 18;
constexpr int kMaxDoubleDigits = 15;

/// The buffer fields of one call; false when unknown.
bool BufferOf(const sql::AggregateCall& call, std::vector<Field>* out) {
  const std::string name = Canonical(call.function->name());
  const auto& args = call.args;
  auto add = [&](std::string n, DataTypePtr t, bool nullable = true) {
    out->push_back(Field{std::move(n), std::move(t), nullable});
  };
  if (name == "count" || name == "count_if") {
    add("count", DataType::Long(), false);
    return true;
  }
  if (args.empty()) return false;
  const DataTypePtr& t = args[0]->type();
  if (name == "sum") {
    if (t->IsIntegral()) {
      add("sum", DataType::Long());
    } else if (t->IsFloating()) {
      add("sum", DataType::Double());
    } else if (t->id() == TypeId::kDecimal) {
      if (t->precision() + 10 <= kMaxLongDigits) {
        add("sum", DataType::Long());
      } else {
        add("sum", DataType::Decimal(std::min(38, t->precision() + 10), t->scale()));
        add("isEmpty", DataType::Boolean(), false);
      }
    } else if (IsInterval(*t)) {
      add("sum", t);
    } else {
      return false;
    }
    return true;
  }
  if (name == "try_sum" || name == "try_avg") {
    // TrySum / TryAverage: the buffers of Sum / Average, without DecimalAggregates'
    // rewrite of small decimals (it matches only Sum and Average); TrySum tracks isEmpty
    // for decimals.
    if (t->IsIntegral()) {
      add("sum", name == "try_sum" ? DataType::Long() : DataType::Double());
    } else if (t->IsFloating() || t->id() == TypeId::kString) {
      add("sum", DataType::Double());
    } else if (t->id() == TypeId::kDecimal) {
      add("sum", DataType::Decimal(std::min(38, t->precision() + 10), t->scale()));
      if (name == "try_sum") add("isEmpty", DataType::Boolean(), false);
    } else if (IsInterval(*t)) {
      add("sum", t);
    } else {
      return false;
    }
    if (name == "try_avg") add("count", DataType::Long());
    return true;
  }
  if (name == "avg") {
    if (t->IsIntegral() || t->IsFloating() ||
        (t->id() == TypeId::kDecimal && t->precision() + 4 <= kMaxDoubleDigits)) {
      add("sum", DataType::Double());
    } else if (t->id() == TypeId::kDecimal) {
      add("sum", DataType::Decimal(std::min(38, t->precision() + 10), t->scale()));
    } else if (IsInterval(*t)) {
      add("sum", t);
    } else {
      return false;
    }
    add("count", DataType::Long());
    return true;
  }
  if (name == "min" || name == "max" || name == "bit_and" || name == "bit_or" ||
      name == "bit_xor") {
    add(name, t);
    return true;
  }
  if (name == "bool_and" || name == "bool_or") {
    add(name == "bool_and" ? "min" : "max", DataType::Boolean());
    return true;
  }
  if (name == "first" || name == "last") {
    add(name, t);
    add("valueSet", DataType::Boolean());
    return true;
  }
  if (name == "stddev_samp" || name == "stddev_pop" || name == "var_samp" ||
      name == "var_pop" || name == "skewness" || name == "kurtosis") {
    std::vector<const char*> moments = {"n", "avg", "m2"};
    if (name == "skewness" || name == "kurtosis") moments.push_back("m3");
    if (name == "kurtosis") moments.push_back("m4");
    for (const char* m : moments) add(m, DataType::Double(), false);
    return true;
  }
  if (name == "collect_list" || name == "collect_set" || name == "percentile" ||
      name == "median" || name == "percentile_approx" || name == "mode" ||
      name == "percentile_cont" || name == "percentile_disc" || name == "listagg" ||
      name == "count_min_sketch" || name == "histogram_numeric") {
    add("buf", DataType::Binary());
    return true;
  }
  if (name == "bitmap_construct_agg" || name == "bitmap_or_agg" ||
      name == "bitmap_and_agg") {
    add("bitmap", DataType::Binary(), false);
    return true;
  }
  if (name == "max_by" || name == "min_by") {
    if (args.size() != 2) return false;
    add("valueWithExtremumOrdering", t);
    add("extremumOrdering", args[1]->type());
    return true;
  }
  if (name == "approx_count_distinct") {
    double rsd = 0.05;
    if (args.size() == 2) {
      const Value* v = args[1]->literal_value();
      if (!v || v->is_null()) return false;
      if (v->type()->id() == TypeId::kDouble) {
        rsd = v->f64();
      } else if (v->type()->id() == TypeId::kDecimal) {
        rsd = static_cast<double>(v->i128()) / std::pow(10.0, v->type()->scale());
      } else {
        return false;
      }
    }
    const int p = HllPrecision(rsd);
    if (p < 4 || p > 30) return false;
    const int64_t words = ((int64_t{1} << p) + 9) / 10;  // 10 six-bit registers per word
    for (int64_t w = 0; w < words; ++w)
      add("MS[" + std::to_string(w) + "]", DataType::Long());
    return true;
  }
  return false;
}

}  // namespace

SchemaPtr SparkAggregationBufferSchema(const std::vector<sql::AggregateCall>& calls) {
  std::vector<Field> fields;
  std::set<std::string> seen;
  for (const auto& call : calls) {
    if (!call.function) return nullptr;
    std::string key = Canonical(call.function->name()) + "(";
    for (const auto& a : call.args) key += a->ToString() + ",";
    key += ")";
    if (call.filter) key += " FILTER " + call.filter->ToString();
    if (!seen.insert(key).second) continue;
    if (!BufferOf(call, &fields)) return nullptr;
  }
  return std::make_shared<const Schema>(std::move(fields));
}

}  // namespace spate::stream
