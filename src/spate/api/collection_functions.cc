// Copyright spate authors.
#include "spate/api/collection_functions.h"

#include <atomic>

namespace spate::api::functions {

namespace {
Column F(const char* name, const std::vector<Column>& args) {
  return call_function(name, args);
}

// Variable names unique in the process, so that nested lambdas never capture each
// other's.
std::vector<std::string> FreshNames(std::initializer_list<const char*> bases) {
  static std::atomic<int64_t> counter{0};
  int64_t id = ++counter;
  std::vector<std::string> out;
  for (const char* b : bases) out.push_back(std::string(b) + "_" + std::to_string(id));
  return out;
}

Column Var(const std::string& name) { return Column(Expr::Col(name)); }

Column Lambda1(const Fn1& f, const char* a = "x") {
  auto n = FreshNames({a});
  return lambda_function(n, f(Var(n[0])));
}
Column Lambda2(const Fn2& f, const char* a = "x", const char* b = "y") {
  auto n = FreshNames({a, b});
  return lambda_function(n, f(Var(n[0]), Var(n[1])));
}
}  // namespace

Column lambda_function(const std::vector<std::string>& names, const Column& body) {
  auto e = std::make_shared<Expr>(ExprKind::kLambda);
  e->name_parts = names;
  e->children.push_back(body.expr());
  return Column(e);
}

Column transform(const Column& c, const Fn1& f) {
  return F("transform", {c, Lambda1(f)});
}
Column transform(const Column& c, const Fn2& f) {
  return F("transform", {c, Lambda2(f, "x", "i")});
}
Column filter(const Column& c, const Fn1& f) { return F("filter", {c, Lambda1(f)}); }
Column filter(const Column& c, const Fn2& f) {
  return F("filter", {c, Lambda2(f, "x", "i")});
}
Column exists(const Column& c, const Fn1& f) { return F("exists", {c, Lambda1(f)}); }
Column forall(const Column& c, const Fn1& f) { return F("forall", {c, Lambda1(f)}); }
Column aggregate(const Column& c, const Column& initial, const Fn2& merge) {
  return F("aggregate", {c, initial, Lambda2(merge, "acc", "x")});
}
Column aggregate(const Column& c, const Column& initial, const Fn2& merge,
                 const Fn1& finish) {
  return F("aggregate", {c, initial, Lambda2(merge, "acc", "x"), Lambda1(finish, "acc")});
}
Column reduce(const Column& c, const Column& initial, const Fn2& merge) {
  return F("reduce", {c, initial, Lambda2(merge, "acc", "x")});
}
Column reduce(const Column& c, const Column& initial, const Fn2& merge,
              const Fn1& finish) {
  return F("reduce", {c, initial, Lambda2(merge, "acc", "x"), Lambda1(finish, "acc")});
}
Column zip_with(const Column& left, const Column& right, const Fn2& f) {
  return F("zip_with", {left, right, Lambda2(f)});
}
Column array_sort(const Column& c, const Fn2& comparator) {
  return F("array_sort", {c, Lambda2(comparator, "l", "r")});
}
Column map_filter(const Column& c, const Fn2& f) {
  return F("map_filter", {c, Lambda2(f, "k", "v")});
}
Column transform_keys(const Column& c, const Fn2& f) {
  return F("transform_keys", {c, Lambda2(f, "k", "v")});
}
Column transform_values(const Column& c, const Fn2& f) {
  return F("transform_values", {c, Lambda2(f, "k", "v")});
}
Column map_zip_with(const Column& left, const Column& right, const Fn3& f) {
  auto n = FreshNames({"k", "v1", "v2"});
  return F("map_zip_with",
           {left, right, lambda_function(n, f(Var(n[0]), Var(n[1]), Var(n[2])))});
}

Column array(const std::vector<Column>& cols) { return F("array", cols); }
Column array_contains(const Column& arr, const Column& value) {
  return F("array_contains", {arr, value});
}
Column element_at(const Column& c, const Column& key) {
  return F("element_at", {c, key});
}
Column try_element_at(const Column& c, const Column& key) {
  return F("try_element_at", {c, key});
}
Column size(const Column& c) { return F("size", {c}); }
Column cardinality(const Column& c) { return F("cardinality", {c}); }
Column array_distinct(const Column& c) { return F("array_distinct", {c}); }
Column array_join(const Column& c, const std::string& delimiter) {
  return F("array_join", {c, lit(delimiter)});
}
Column array_join(const Column& c, const std::string& delimiter,
                  const std::string& null_replacement) {
  return F("array_join", {c, lit(delimiter), lit(null_replacement)});
}
Column array_max(const Column& c) { return F("array_max", {c}); }
Column array_min(const Column& c) { return F("array_min", {c}); }
Column array_position(const Column& c, const Column& value) {
  return F("array_position", {c, value});
}
Column array_remove(const Column& c, const Column& value) {
  return F("array_remove", {c, value});
}
Column array_sort(const Column& c) { return F("array_sort", {c}); }
Column sort_array(const Column& c, bool asc) { return F("sort_array", {c, lit(asc)}); }
Column sequence(const Column& start, const Column& stop) {
  return F("sequence", {start, stop});
}
Column sequence(const Column& start, const Column& stop, const Column& step) {
  return F("sequence", {start, stop, step});
}
Column slice(const Column& c, const Column& start, const Column& length) {
  return F("slice", {c, start, length});
}
Column slice(const Column& c, int start, int length) {
  return F("slice", {c, lit(start), lit(length)});
}
Column flatten(const Column& c) { return F("flatten", {c}); }
Column arrays_zip(const std::vector<Column>& cols) { return F("arrays_zip", cols); }
Column create_map(const std::vector<Column>& cols) { return F("map", cols); }
Column map_keys(const Column& c) { return F("map_keys", {c}); }
Column map_values(const Column& c) { return F("map_values", {c}); }
Column map_from_arrays(const Column& keys, const Column& values) {
  return F("map_from_arrays", {keys, values});
}
Column struct_(const std::vector<Column>& cols) { return F("struct", cols); }
Column named_struct(const std::vector<Column>& cols) { return F("named_struct", cols); }
Column explode(const Column& c) { return F("explode", {c}); }
Column explode_outer(const Column& c) { return F("explode_outer", {c}); }
Column posexplode(const Column& c) { return F("posexplode", {c}); }
Column posexplode_outer(const Column& c) { return F("posexplode_outer", {c}); }
Column inline_(const Column& c) { return F("inline", {c}); }
Column inline_outer(const Column& c) { return F("inline_outer", {c}); }
Column stack(const std::vector<Column>& cols) { return F("stack", cols); }
Column collect_list(const Column& c) { return F("collect_list", {c}); }
Column collect_set(const Column& c) { return F("collect_set", {c}); }
Column approx_count_distinct(const Column& c, double rsd) {
  return F("approx_count_distinct", {c, lit(rsd)});
}
Column stddev(const Column& c) { return F("stddev", {c}); }
Column stddev_samp(const Column& c) { return F("stddev_samp", {c}); }
Column stddev_pop(const Column& c) { return F("stddev_pop", {c}); }
Column std(const Column& c) { return F("std", {c}); }
Column variance(const Column& c) { return F("variance", {c}); }
Column var_samp(const Column& c) { return F("var_samp", {c}); }
Column var_pop(const Column& c) { return F("var_pop", {c}); }
Column count_if(const Column& c) { return F("count_if", {c}); }
Column bool_and(const Column& c) { return F("bool_and", {c}); }
Column every(const Column& c) { return F("every", {c}); }
Column bool_or(const Column& c) { return F("bool_or", {c}); }
Column some(const Column& c) { return F("some", {c}); }
Column min_by(const Column& c, const Column& ord) { return F("min_by", {c, ord}); }
Column max_by(const Column& c, const Column& ord) { return F("max_by", {c, ord}); }
Column median(const Column& c) { return F("median", {c}); }
Column percentile(const Column& c, const Column& percentage) {
  return F("percentile", {c, percentage});
}
Column percentile_approx(const Column& c, const Column& percentage, int accuracy) {
  return F("percentile_approx", {c, percentage, lit(accuracy)});
}
Column approx_percentile(const Column& c, const Column& percentage, int accuracy) {
  return F("approx_percentile", {c, percentage, lit(accuracy)});
}

namespace {
// A call of `name` with WITHIN GROUP (ORDER BY order...): a sort order column keeps its
// direction; a plain column sorts ascending, NULLs first.
Column WithinGroup(const char* name, std::vector<ExprPtr> args,
                   const std::vector<Column>& order, bool distinct) {
  auto call = std::make_shared<Expr>(*Expr::Call(name, std::move(args), distinct));
  for (const Column& o : order) {
    const ExprPtr& e = o.expr();
    call->within_group.push_back(
        e->kind == ExprKind::kSortOrder ? e->sort : SortSpec{e, true, true});
  }
  return Column(call);
}
Column ListAgg(const char* name, const Column& c, const Column* delimiter,
               const std::vector<Column>& order, bool distinct) {
  // Spark names the delimiter NULL when there is none: listagg(s, NULL).
  ExprPtr d = delimiter ? delimiter->expr() : Expr::Lit(Value::Null(DataType::Null()));
  return WithinGroup(name, {c.expr(), d}, order, distinct);
}
}  // namespace

Column percentile_cont(const Column& percentage, const Column& order) {
  return WithinGroup("percentile_cont", {percentage.expr()}, {order}, false);
}
Column percentile_disc(const Column& percentage, const Column& order) {
  return WithinGroup("percentile_disc", {percentage.expr()}, {order}, false);
}
Column try_sum(const Column& c) { return F("try_sum", {c}); }
Column try_avg(const Column& c) { return F("try_avg", {c}); }
Column listagg(const Column& c, const Column* delimiter,
               const std::vector<Column>& order) {
  return ListAgg("listagg", c, delimiter, order, false);
}
Column listagg_distinct(const Column& c, const Column* delimiter,
                        const std::vector<Column>& order) {
  return ListAgg("listagg", c, delimiter, order, true);
}
Column string_agg(const Column& c, const Column* delimiter,
                  const std::vector<Column>& order) {
  return ListAgg("string_agg", c, delimiter, order, false);
}
Column string_agg_distinct(const Column& c, const Column* delimiter,
                           const std::vector<Column>& order) {
  return ListAgg("string_agg", c, delimiter, order, true);
}

Column skewness(const Column& c) { return F("skewness", {c}); }
Column kurtosis(const Column& c) { return F("kurtosis", {c}); }
Column corr(const Column& x, const Column& y) { return F("corr", {x, y}); }
Column covar_pop(const Column& x, const Column& y) { return F("covar_pop", {x, y}); }
Column covar_samp(const Column& x, const Column& y) { return F("covar_samp", {x, y}); }
Column regr_count(const Column& y, const Column& x) { return F("regr_count", {y, x}); }
Column regr_slope(const Column& y, const Column& x) { return F("regr_slope", {y, x}); }
Column regr_intercept(const Column& y, const Column& x) {
  return F("regr_intercept", {y, x});
}
Column regr_r2(const Column& y, const Column& x) { return F("regr_r2", {y, x}); }
Column bit_and(const Column& c) { return F("bit_and", {c}); }
Column bit_or(const Column& c) { return F("bit_or", {c}); }
Column bit_xor(const Column& c) { return F("bit_xor", {c}); }
Column mode(const Column& c) { return F("mode", {c}); }
Column bitmap_construct_agg(const Column& c) { return F("bitmap_construct_agg", {c}); }
Column bitmap_or_agg(const Column& c) { return F("bitmap_or_agg", {c}); }
Column bitmap_and_agg(const Column& c) { return F("bitmap_and_agg", {c}); }
Column count_min_sketch(const Column& c, const Column& eps, const Column& confidence,
                        const Column& seed) {
  return F("count_min_sketch", {c, eps, confidence, seed});
}
Column histogram_numeric(const Column& c, const Column& nb) {
  return F("histogram_numeric", {c, nb});
}
Column array_append(const Column& a, const Column& e) {
  return F("array_append", {a, e});
}
Column array_prepend(const Column& a, const Column& e) {
  return F("array_prepend", {a, e});
}
Column array_insert(const Column& a, const Column& pos, const Column& e) {
  return F("array_insert", {a, pos, e});
}
Column array_compact(const Column& a) { return F("array_compact", {a}); }
Column array_size(const Column& a) { return F("array_size", {a}); }
Column array_repeat(const Column& e, const Column& count) {
  return F("array_repeat", {e, count});
}
Column array_union(const Column& a, const Column& b) { return F("array_union", {a, b}); }
Column array_intersect(const Column& a, const Column& b) {
  return F("array_intersect", {a, b});
}
Column array_except(const Column& a, const Column& b) {
  return F("array_except", {a, b});
}
Column arrays_overlap(const Column& a, const Column& b) {
  return F("arrays_overlap", {a, b});
}
Column get(const Column& a, const Column& index) { return F("get", {a, index}); }
Column shuffle(const Column& a, int64_t seed) {
  return F("shuffle", {a, lit(Value::Long(seed))});
}
Column map_concat(const std::vector<Column>& maps) { return F("map_concat", maps); }
Column map_contains_key(const Column& m, const Column& key) {
  return F("map_contains_key", {m, key});
}
Column map_entries(const Column& m) { return F("map_entries", {m}); }
Column map_from_entries(const Column& e) { return F("map_from_entries", {e}); }
Column vector_inner_product(const Column& a, const Column& b) {
  return F("vector_inner_product", {a, b});
}
Column vector_cosine_similarity(const Column& a, const Column& b) {
  return F("vector_cosine_similarity", {a, b});
}
Column vector_l2_distance(const Column& a, const Column& b) {
  return F("vector_l2_distance", {a, b});
}
Column vector_norm(const Column& v) { return F("vector_norm", {v}); }
Column vector_norm(const Column& v, const Column& d) { return F("vector_norm", {v, d}); }
Column vector_normalize(const Column& v) { return F("vector_normalize", {v}); }
Column vector_normalize(const Column& v, const Column& d) {
  return F("vector_normalize", {v, d});
}
Column vector_sum(const Column& v) { return F("vector_sum", {v}); }
Column vector_avg(const Column& v) { return F("vector_avg", {v}); }

}  // namespace spate::api::functions
