// Copyright spate authors.
#pragma once

// Collection functions, generators and the collection/statistical aggregates of the
// `functions` namespace (pyspark.sql.functions names). Each builds an unresolved call of
// the SQL function of the same name; types are checked when the plan is analyzed.
// Thread safety: pure builders of immutable Columns.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spate/api/column.h"

namespace spate::api::functions {

// arrays
Column array(const std::vector<Column>& cols);
Column array_contains(const Column& arr, const Column& value);
Column element_at(const Column& c, const Column& key);
Column try_element_at(const Column& c, const Column& key);
Column size(const Column& c);
Column cardinality(const Column& c);
Column array_distinct(const Column& c);
Column array_join(const Column& c, const std::string& delimiter);
Column array_join(const Column& c, const std::string& delimiter,
                  const std::string& null_replacement);
Column array_max(const Column& c);
Column array_min(const Column& c);
Column array_position(const Column& c, const Column& value);
Column array_remove(const Column& c, const Column& value);
Column array_sort(const Column& c);
Column sort_array(const Column& c, bool asc = true);
Column sequence(const Column& start, const Column& stop);
Column sequence(const Column& start, const Column& stop, const Column& step);
Column slice(const Column& c, const Column& start, const Column& length);
Column slice(const Column& c, int start, int length);
Column flatten(const Column& c);
Column arrays_zip(const std::vector<Column>& cols);
// higher-order functions: `f` builds the lambda's body from its variables (Columns that
// stand for the element, index, accumulator, key or value), as PySpark's Python lambdas
using Fn1 = std::function<Column(const Column&)>;
using Fn2 = std::function<Column(const Column&, const Column&)>;
using Fn3 = std::function<Column(const Column&, const Column&, const Column&)>;
Column transform(const Column& c, const Fn1& f);
Column transform(const Column& c, const Fn2& f);  // (element, index)
Column filter(const Column& c, const Fn1& f);
Column filter(const Column& c, const Fn2& f);  // (element, index)
Column exists(const Column& c, const Fn1& f);
Column forall(const Column& c, const Fn1& f);
Column aggregate(const Column& c, const Column& initial, const Fn2& merge);
Column aggregate(const Column& c, const Column& initial, const Fn2& merge,
                 const Fn1& finish);
Column reduce(const Column& c, const Column& initial, const Fn2& merge);
Column reduce(const Column& c, const Column& initial, const Fn2& merge,
              const Fn1& finish);
Column zip_with(const Column& left, const Column& right, const Fn2& f);
Column array_sort(const Column& c, const Fn2& comparator);
Column map_filter(const Column& c, const Fn2& f);  // (key, value)
Column transform_keys(const Column& c, const Fn2& f);
Column transform_values(const Column& c, const Fn2& f);
Column map_zip_with(const Column& left, const Column& right,
                    const Fn3& f);  // (key, v1, v2)
/// A lambda of `names.size()` variables over `body` (what the builders above make; also
/// for bindings that build the body themselves, e.g. from Python).
Column lambda_function(const std::vector<std::string>& names, const Column& body);
// maps and structs
Column create_map(const std::vector<Column>& cols);
Column map_keys(const Column& c);
Column map_values(const Column& c);
Column map_from_arrays(const Column& keys, const Column& values);
Column struct_(const std::vector<Column>& cols);  // functions.struct (a C++ keyword)
Column named_struct(const std::vector<Column>& cols);
// generators (SELECT list only)
Column explode(const Column& c);
Column explode_outer(const Column& c);
Column posexplode(const Column& c);
Column posexplode_outer(const Column& c);
Column inline_(const Column& c);  // functions.inline (a C++ keyword)
Column inline_outer(const Column& c);
/// stack(n, v1, v2, ...): `cols[0]` is the literal row count n; the values fill n rows of
/// ceil((cols.size() - 1) / n) columns col0, col1, ... (NULL-padded).
Column stack(const std::vector<Column>& cols);
// aggregates
Column collect_list(const Column& c);
Column collect_set(const Column& c);
Column approx_count_distinct(const Column& c, double rsd = 0.05);
Column stddev(const Column& c);
Column stddev_samp(const Column& c);
Column stddev_pop(const Column& c);
Column std(const Column& c);
Column variance(const Column& c);
Column var_samp(const Column& c);
Column var_pop(const Column& c);
Column count_if(const Column& c);
Column bool_and(const Column& c);
Column every(const Column& c);
Column bool_or(const Column& c);
Column some(const Column& c);
Column min_by(const Column& c, const Column& ord);
Column max_by(const Column& c, const Column& ord);
Column median(const Column& c);
Column percentile(const Column& c, const Column& percentage);
Column percentile_approx(const Column& c, const Column& percentage, int accuracy = 10000);
Column approx_percentile(const Column& c, const Column& percentage, int accuracy = 10000);
/// percentile_cont / percentile_disc(percentage) WITHIN GROUP (ORDER BY order): `order`
/// is a column, or a sort order (col.desc()) to rank the values descending.
Column percentile_cont(const Column& percentage, const Column& order);
Column percentile_disc(const Column& percentage, const Column& order);
/// try_sum / try_avg: sum / avg, NULL instead of an overflow.
Column try_sum(const Column& c);
Column try_avg(const Column& c);
/// listagg / string_agg(c[, delimiter]) [WITHIN GROUP (ORDER BY order...)]: the non-NULL
/// values (STRING or BINARY) concatenated with the delimiter (none without one).
Column listagg(const Column& c, const Column* delimiter = nullptr,
               const std::vector<Column>& order = {});
Column listagg_distinct(const Column& c, const Column* delimiter = nullptr,
                        const std::vector<Column>& order = {});
Column string_agg(const Column& c, const Column* delimiter = nullptr,
                  const std::vector<Column>& order = {});
Column string_agg_distinct(const Column& c, const Column* delimiter = nullptr,
                           const std::vector<Column>& order = {});
Column skewness(const Column& c);
Column kurtosis(const Column& c);
Column corr(const Column& x, const Column& y);
Column covar_pop(const Column& x, const Column& y);
Column covar_samp(const Column& x, const Column& y);
Column regr_count(const Column& y,
                  const Column& x);  // also regr_avgx, ... by call_function
Column regr_slope(const Column& y, const Column& x);
Column regr_intercept(const Column& y, const Column& x);
Column regr_r2(const Column& y, const Column& x);
Column bit_and(const Column& c);
Column bit_or(const Column& c);
Column bit_xor(const Column& c);
Column mode(const Column& c);
/// bitmap_construct_agg: the 4096-byte bitmap with the bit of each value (a position in
/// [0, 32768), usually bitmap_bit_position(x)) set; bitmap_or_agg / bitmap_and_agg: the
/// bitwise OR / AND of bitmaps (a short bitmap counts as zeros beyond its end).
Column bitmap_construct_agg(const Column& c);
Column bitmap_or_agg(const Column& c);
Column bitmap_and_agg(const Column& c);
/// count_min_sketch(c, eps, confidence, seed): Spark's serialized CountMinSketch (BINARY)
/// of an integral, string or binary column; eps and confidence DOUBLE literals, the seed
/// an INT or BIGINT literal.
Column count_min_sketch(const Column& c, const Column& eps, const Column& confidence,
                        const Column& seed);
/// histogram_numeric(c, nb): array<struct<x, y>> of at most nb bins (x as c's type), as
/// Spark's NumericHistogram.
Column histogram_numeric(const Column& c, const Column& nb);
// more arrays and maps (concat also joins arrays)
Column array_append(const Column& array, const Column& element);
Column array_prepend(const Column& array, const Column& element);
Column array_insert(const Column& array, const Column& pos, const Column& element);
Column array_compact(const Column& array);
Column array_size(const Column& array);
Column array_repeat(const Column& element, const Column& count);
Column array_union(const Column& a, const Column& b);
Column array_intersect(const Column& a, const Column& b);
Column array_except(const Column& a, const Column& b);
Column arrays_overlap(const Column& a, const Column& b);
Column get(const Column& array, const Column& index);
Column shuffle(const Column& array, int64_t seed);
Column map_concat(const std::vector<Column>& maps);
Column map_contains_key(const Column& map, const Column& key);
Column map_entries(const Column& map);
Column map_from_entries(const Column& entries);
// vectors (ARRAY<FLOAT>, Spark 4.2): single-precision results in Spark's summation order
Column vector_inner_product(const Column& a, const Column& b);
Column vector_cosine_similarity(const Column& a, const Column& b);
Column vector_l2_distance(const Column& a, const Column& b);
/// vector_norm / vector_normalize(v[, degree]): degree 1, 2 (the default) or +inf, FLOAT.
Column vector_norm(const Column& v);
Column vector_norm(const Column& v, const Column& degree);
Column vector_normalize(const Column& v);
Column vector_normalize(const Column& v, const Column& degree);
/// Aggregates: the element-wise sum / running mean of a group's vectors (NULL arrays and
/// arrays with a NULL element skipped; NULL without any; lengths must agree).
Column vector_sum(const Column& v);
Column vector_avg(const Column& v);

}  // namespace spate::api::functions
