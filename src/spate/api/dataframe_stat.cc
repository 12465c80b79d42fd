// Copyright spate authors.
//
// DataFrame's multi-dimensional aggregates (cube, rollup, groupingSets), sampling
// (sample, randomSplit), replace, toJSON, withColumnsRenamed and df.stat, all built from
// the plans the rest of the API makes (see dataframe.h for the contracts).

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "spate/api/dataframe.h"
#include "spate/api/session.h"
#include "spate/api/session_state.h"
#include "spate/base/text_parse.h"
#include "spate/sql/grouping_sets.h"
#include "spate/types/format.h"

namespace spate::api {

namespace F = functions;
using sql::LogicalPlan;
using sql::PlanKind;

namespace {

std::shared_ptr<LogicalPlan> Node(PlanKind kind, std::vector<sql::PlanPtr> children) {
  auto p = std::make_shared<LogicalPlan>(kind);
  p->children = std::move(children);
  return p;
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

Column Quoted(const std::string& name) {
  std::string q = "`";
  for (char c : name) q += c == '`' ? std::string("``") : std::string(1, c);
  return F::col(q + "`");
}

// A uniform double in [0, 1) per row: a hash of the seed and the row's
// monotonically_increasing_id() (53 bits of it, as a double's mantissa).
Column UniformOf(int64_t seed) {
  constexpr int64_t kBits = int64_t{1} << 53;
  Column h = F::call_function(
      "xxhash64", {F::lit(seed), F::call_function("monotonically_increasing_id", {})});
  return F::call_function("pmod", {h, F::lit(kBits)}).cast(DataType::Double()) /
         F::lit(static_cast<double>(kBits));
}

int64_t SeedOr(std::optional<int64_t> seed) {
  if (seed) return *seed;
  std::random_device rd;
  return (static_cast<int64_t>(rd()) << 32) ^ rd();
}

constexpr const char* kDrawColumn = "__spate_sample_u";

std::vector<Column> Named(const std::vector<std::string>& names) {
  std::vector<Column> cols;
  for (const auto& n : names) cols.push_back(F::col(n));
  return cols;
}

std::vector<Column> ColumnsOf(const DataFrame& df) {
  std::vector<Column> cols;
  for (const auto& n : df.columns()) cols.push_back(Quoted(n));
  return cols;
}

// The kind of a replacement key or a column type: 'n' numeric, 's' string, 'b' boolean.
char KindOf(const DataTypePtr& t) {
  if (t->IsNumeric()) return 'n';
  if (t->id() == TypeId::kString) return 's';
  if (t->id() == TypeId::kBoolean) return 'b';
  return 0;
}

double NumberOf(const Value& v) {
  return v.type()->IsFloating()               ? v.f64()
         : v.type()->id() == TypeId::kDecimal ? ParseDouble(v.ToString()).value_or(NAN)
                                              : static_cast<double>(v.i64());
}

}  // namespace

// ---- cube / rollup / groupingSets
// -------------------------------------------------------

GroupedData DataFrame::cube(const std::vector<Column>& cols) const {
  return GroupedData(*this, cols, sql::CubeSets(cols.size()));
}

GroupedData DataFrame::cube(const std::vector<std::string>& cols) const {
  return cube(Named(cols));
}

GroupedData DataFrame::rollup(const std::vector<Column>& cols) const {
  return GroupedData(*this, cols, sql::RollupSets(cols.size()));
}

GroupedData DataFrame::rollup(const std::vector<std::string>& cols) const {
  return rollup(Named(cols));
}

GroupedData DataFrame::groupingSets(const std::vector<std::vector<Column>>& sets,
                                    const std::vector<Column>& cols) const {
  // The keys: `cols` (in the output), then any other expression a set groups by (grouped
  // by, not output, as Spark's GroupingSets).
  std::vector<Column> keys = cols;
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.expr()->DisplayName());
  std::vector<std::vector<size_t>> idx;
  for (const auto& set : sets) {
    std::vector<size_t> s;
    for (const auto& c : set) {
      const std::string n = c.expr()->DisplayName();
      auto it = std::find_if(names.begin(), names.end(), [&](const std::string& k) {
        return EqualsIgnoreCase(k, n);
      });
      if (it == names.end()) {
        keys.push_back(c);
        names.push_back(n);
        it = names.end() - 1;
      }
      s.push_back(static_cast<size_t>(it - names.begin()));
    }
    idx.push_back(std::move(s));
  }
  return GroupedData(*this, std::move(keys), std::move(idx), cols.size());
}

DataFrame GroupedData::AggGroupingSets(const std::vector<Column>& exprs) const {
  // One aggregate over GROUP BY grouping_sets(keys, sets...), analyzed as SQL's GROUP BY
  // ROLLUP / CUBE / GROUPING SETS is (sql/grouping_sets.h): the output keys, then
  // `exprs`.
  if (sets_.empty()) ThrowStatus(Status::Invalid("grouping sets must not be empty"));
  std::vector<ExprPtr> keys;
  for (const auto& k : keys_) keys.push_back(k.expr());
  std::vector<ExprPtr> spec{Expr::Call(sql::kGroupingKeysCall, std::move(keys))};
  for (const auto& set : sets_) {
    std::vector<ExprPtr> members;
    for (size_t i : set) members.push_back(keys_.at(i).expr());
    spec.push_back(Expr::Call("struct", std::move(members)));
  }
  auto p = Node(PlanKind::kAggregate, {df_.plan()});
  p->group_by = {Expr::Call("grouping_sets", std::move(spec))};
  const size_t num_output = std::min(num_output_keys_, keys_.size());
  for (size_t i = 0; i < num_output; ++i) p->exprs.push_back(keys_[i].expr());
  for (const auto& c : exprs) p->exprs.push_back(c.expr());
  return DataFrame(df_.session(), p);
}

// ---- sampling
// -----------------------------------------------------------------------------

DataFrame DataFrame::Sample(bool withReplacement, double fraction,
                            std::optional<int64_t> seed) const {
  if (withReplacement && !(fraction >= 0.0)) {
    ThrowStatus(Status::Invalid("requirement failed: Sampling fraction (" +
                                FormatDouble(fraction) +
                                ") must be nonnegative with replacement"));
  }
  if (!withReplacement && !(fraction >= 0.0 && fraction <= 1.0)) {
    ThrowStatus(Status::Invalid("requirement failed: Sampling fraction (" +
                                FormatDouble(fraction) +
                                ") must be on interval [0, 1] without replacement"));
  }
  const int64_t s = SeedOr(seed);
  std::vector<Column> cols = ColumnsOf(*this);
  DataFrame drawn = withColumn(kDrawColumn, UniformOf(s));
  if (!withReplacement) {
    return drawn.filter(F::col(kDrawColumn) < F::lit(fraction)).select(cols);
  }
  // With replacement: each row repeated k ~ Poisson(fraction) times (k by the inverse
  // CDF).
  double p = std::exp(-fraction), cdf = p;
  Column cases = F::when(F::col(kDrawColumn) < F::lit(cdf), int32_t{0});
  int32_t j = 1;
  for (; j < 100000 && cdf < 1.0 - 1e-15; ++j) {
    p *= fraction / j;
    cdf += p;
    cases = cases.when(F::col(kDrawColumn) < F::lit(cdf), F::lit(j));
  }
  const char* kCount = "__spate_sample_k";
  DataFrame counted =
      drawn.withColumn(kCount, cases.otherwise(F::lit(j))).filter(F::col(kCount) > 0);
  std::vector<Column> with_copies = cols;
  with_copies.push_back(
      F::call_function(
          "explode", {F::call_function("sequence", {F::lit(int32_t{1}), F::col(kCount)})})
          .alias("__spate_sample_copy"));
  return counted.select(with_copies).select(cols);
}

std::vector<DataFrame> DataFrame::randomSplit(const std::vector<double>& weights,
                                              std::optional<int64_t> seed) const {
  std::vector<std::string> shown;
  double total = 0;
  for (double w : weights) {
    shown.push_back(FormatDouble(w));
    total += w;
  }
  for (double w : weights) {
    if (!(w >= 0.0)) {
      ThrowStatus(
          Status::Invalid("requirement failed: Weights must be nonnegative, but got [" +
                          Join(shown, ",") + "]"));
    }
  }
  if (!(total > 0.0)) {
    ThrowStatus(
        Status::Invalid("requirement failed: Sum of weights must be positive, but got [" +
                        Join(shown, ",") + "]"));
  }
  const int64_t s = SeedOr(seed);
  std::vector<Column> cols = ColumnsOf(*this);
  DataFrame drawn = withColumn(kDrawColumn, UniformOf(s));
  std::vector<DataFrame> out;
  double lower = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double upper = i + 1 == weights.size() ? 1.0 : lower + weights[i] / total;
    Column u = F::col(kDrawColumn);
    out.push_back(drawn.filter((u >= F::lit(lower)) && (u < F::lit(upper))).select(cols));
    lower = upper;
  }
  return out;
}

// ---- replace, toJSON, withColumnsRenamed
// ----------------------------------------------------

DataFrame DataFrame::replace(const std::vector<std::pair<Value, Value>>& replacements,
                             const std::vector<std::string>& subset) const {
  char kind = 0;
  for (const auto& [key, value] : replacements) {
    if (key.is_null()) continue;
    char k = KindOf(key.type());
    if (!k || (kind && k != kind)) {
      ThrowStatus(
          Status::Invalid("requirement failed: replace: the keys must all be numbers, "
                          "all strings or all booleans"));
    }
    kind = k;
  }
  if (replacements.empty()) return *this;
  std::vector<Column> cols;
  for (const auto& a : bound_->output) {
    Column c = Quoted(a.name);
    bool chosen = subset.empty();
    for (const auto& n : subset) chosen |= EqualsIgnoreCase(n, a.name);
    if (!chosen || KindOf(a.type) != kind || kind == 0) {
      cols.push_back(c);
      continue;
    }
    std::vector<ExprPtr> branches;
    for (const auto& [key, value] : replacements) {
      ExprPtr match;
      if (key.is_null()) {
        match = F::isnull(c).expr();
      } else if (kind == 'n') {
        // Spark compares numbers as doubles (its replacement map is Map[Double, Double]).
        match = (c.cast(DataType::Double()) == F::lit(NumberOf(key))).expr();
      } else {
        match = (c == Column::Lit(key)).expr();
      }
      branches.push_back(match);
      branches.push_back(Expr::Cast(Expr::Lit(value), a.type));
    }
    cols.push_back(Column(Expr::CaseWhen(std::move(branches), c.expr())).alias(a.name));
  }
  return select(cols);
}

DataFrame DataFrame::toJSON() const {
  return select(
      {F::call_function("to_json", {F::call_function("struct", ColumnsOf(*this))})
           .alias("value")});
}

DataFrame DataFrame::withColumnsRenamed(
    const std::vector<std::pair<std::string, std::string>>& renames) const {
  std::vector<Column> cols;
  for (const auto& a : bound_->output) {
    std::string name = a.name;
    for (const auto& [from, to] : renames) {
      if (EqualsIgnoreCase(from, a.name)) name = to;
    }
    Column c = (*this)[a.name];
    cols.push_back(name == a.name ? c : c.alias(name));
  }
  return select(cols);
}

// ---- subqueries
// ---------------------------------------------------------------------------

Column DataFrame::scalar() const {
  auto e = std::make_shared<Expr>(ExprKind::kScalarSubquery);
  e->subquery = std::make_shared<sql::PlanSubquery>(plan_);
  return Column(e);
}

Column DataFrame::exists() const {
  auto e = std::make_shared<Expr>(ExprKind::kExists);
  e->subquery = std::make_shared<sql::PlanSubquery>(plan_);
  return Column(e);
}

// ---- df.stat
// ------------------------------------------------------------------------------

DataFrameStatFunctions DataFrame::stat() const { return DataFrameStatFunctions(*this); }

namespace {

void RequireNumeric(const DataFrame& df, const std::string& name,
                    const std::string& what) {
  for (const auto& a : df.analyzed()->output) {
    if (EqualsIgnoreCase(a.name, name)) {
      if (!a.type->IsNumeric()) {
        ThrowStatus(Status::Invalid("requirement failed: Currently " + what +
                                    " calculation for columns with dataType " +
                                    a.type->SimpleString() + " not supported."));
      }
      return;
    }
  }
  (void)df[name];  // throws UNRESOLVED_COLUMN
}

}  // namespace

namespace {

// The centred sums of two numeric columns: count, sum((x - mean x) * (y - mean y)),
// sum((x - mean x)^2), sum((y - mean y)^2), a NULL counting as 0 (as Spark's df.stat
// does). Two passes (the means, then the sums), so the result is as exact as Spark's
// update.
struct Moments {
  int64_t n = 0;
  double cxy = 0, cxx = 0, cyy = 0;
};

Moments CentredSums(const DataFrame& df, const std::string& col1,
                    const std::string& col2) {
  Column x = F::coalesce({Quoted(col1).cast(DataType::Double()), F::lit(0.0)});
  Column y = F::coalesce({Quoted(col2).cast(DataType::Double()), F::lit(0.0)});
  DataFrame both = df.select({x.alias("x"), y.alias("y")});
  auto means = both.agg({F::count(F::lit(1)), F::avg(F::col("x")), F::avg(F::col("y"))})
                   .collect()
                   .at(0);
  Moments m;
  m.n = means[0].i64();
  if (m.n == 0) return m;
  Column dx = F::col("x") - F::lit(means[1].f64()),
         dy = F::col("y") - F::lit(means[2].f64());
  auto sums =
      both.agg({F::sum(dx * dy), F::sum(dx * dx), F::sum(dy * dy)}).collect().at(0);
  m.cxy = sums[0].f64();
  m.cxx = sums[1].f64();
  m.cyy = sums[2].f64();
  return m;
}

}  // namespace

double DataFrameStatFunctions::corr(const std::string& col1, const std::string& col2,
                                    const std::string& method) const {
  if (!EqualsIgnoreCase(method, "pearson")) {
    ThrowStatus(Status::Invalid(
        "requirement failed: Currently only the calculation of the Pearson "
        "Correlation coefficient is supported."));
  }
  RequireNumeric(df_, col1, "correlation");
  RequireNumeric(df_, col2, "correlation");
  Moments m = CentredSums(df_, col1, col2);
  if (m.n == 0) return std::numeric_limits<double>::quiet_NaN();
  return m.cxy / std::sqrt(m.cxx * m.cyy);
}

double DataFrameStatFunctions::cov(const std::string& col1,
                                   const std::string& col2) const {
  RequireNumeric(df_, col1, "covariance");
  RequireNumeric(df_, col2, "covariance");
  Moments m = CentredSums(df_, col1, col2);
  if (m.n < 2) return std::numeric_limits<double>::quiet_NaN();
  return m.cxy / static_cast<double>(m.n - 1);
}

DataFrame DataFrameStatFunctions::crosstab(const std::string& col1,
                                           const std::string& col2) const {
  auto counts = df_.groupBy(std::vector<Column>{Quoted(col1).cast(DataType::String()),
                                                Quoted(col2).cast(DataType::String())})
                    .agg({F::count(F::lit(1))})
                    .collect();
  auto text = [](const Value& v) { return v.is_null() ? std::string("null") : v.str(); };
  std::set<std::string> seen2;
  std::map<std::string, std::map<std::string, int64_t>> table;
  std::vector<std::string> order1;
  for (const auto& r : counts) {
    const std::string a = text(r[0]), b = text(r[1]);
    seen2.insert(b);
    if (!table.count(a)) order1.push_back(a);
    table[a][b] += r[2].i64();
  }
  StructType schema;
  schema.add(col1 + "_" + col2, DataType::String(), true);
  for (const auto& b : seen2) schema.add(b, DataType::Long(), false);
  std::vector<std::vector<Value>> rows;
  for (const auto& a : order1) {
    std::vector<Value> row{Value::String(a)};
    for (const auto& b : seen2) {
      auto it = table[a].find(b);
      row.push_back(Value::Long(it == table[a].end() ? 0 : it->second));
    }
    rows.push_back(std::move(row));
  }
  return SparkSession(df_.session()).createDataFrame(rows, schema);
}

std::vector<std::vector<double>> DataFrameStatFunctions::approxQuantile(
    const std::vector<std::string>& cols, const std::vector<double>& probabilities,
    double relativeError) const {
  for (double p : probabilities) {
    if (!(p >= 0.0 && p <= 1.0)) {
      ThrowStatus(Status::Invalid(
          "requirement failed: percentile should be in the range [0.0, 1.0]"));
    }
  }
  if (!(relativeError >= 0.0)) {
    ThrowStatus(Status::Invalid(
        "requirement failed: Relative Error must be non-negative but got " +
        FormatDouble(relativeError)));
  }
  const int32_t accuracy =
      relativeError == 0.0
          ? std::numeric_limits<int32_t>::max()
          : static_cast<int32_t>(std::min<double>(std::ceil(1.0 / relativeError),
                                                  std::numeric_limits<int32_t>::max()));
  std::vector<Column> probs;
  for (double p : probabilities) probs.push_back(F::lit(p));
  std::vector<Column> aggs;
  for (const auto& c : cols) {
    aggs.push_back(F::call_function(
        "percentile_approx", {Quoted(c).cast(DataType::Double()),
                              F::call_function("array", probs), F::lit(accuracy)}));
  }
  std::vector<std::vector<double>> out;
  if (aggs.empty()) return out;
  auto row = df_.agg(aggs).collect().at(0);
  for (size_t i = 0; i < cols.size(); ++i) {
    std::vector<double> q;
    const Value& v = row[i];
    if (!v.is_null()) {
      for (const auto& x : v.items()) q.push_back(x.f64());
    }
    out.push_back(std::move(q));
  }
  return out;
}

DataFrame DataFrameStatFunctions::freqItems(const std::vector<std::string>& cols,
                                            double support) const {
  if (!(support >= 1e-4)) {
    ThrowStatus(Status::Invalid("requirement failed: Support (" + FormatDouble(support) +
                                ") must be greater than 1e-4."));
  }
  const double threshold = support * static_cast<double>(df_.count());
  StructType schema;
  std::vector<Value> row;
  for (const auto& c : cols) {
    DataFrame one = df_.select({Quoted(c)});
    const Field field = one.schema().fields().at(0);
    std::vector<Value> items;
    auto counts = one.groupBy(std::vector<Column>{Quoted(field.name)})
                      .agg({F::count(F::lit(1)).alias("__spate_n")});
    for (const auto& r :
         counts.filter(F::col("__spate_n") > F::lit(threshold)).collect()) {
      items.push_back(r[0]);
    }
    auto type = DataType::Array(field.type, true);
    schema.add(c + "_freqItems", type, false);
    row.push_back(Value::ArrayOf(type, std::move(items)));
  }
  return SparkSession(df_.session())
      .createDataFrame(std::vector<std::vector<Value>>{row}, schema);
}

DataFrame DataFrameStatFunctions::sampleBy(
    const Column& col, const std::vector<std::pair<Value, double>>& fractions,
    int64_t seed) const {
  std::optional<DataFrame> out;
  for (const auto& [key, fraction] : fractions) {
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
      ThrowStatus(
          Status::Invalid("requirement failed: Fractions must be in [0, 1], but got " +
                          FormatDouble(fraction) + "."));
    }
    DataFrame stratum = df_.filter(col == Column::Lit(key)).sample(fraction, seed);
    out = out ? out->union_(stratum) : stratum;
  }
  return out ? *out : df_.limit(0);
}

}  // namespace spate::api
