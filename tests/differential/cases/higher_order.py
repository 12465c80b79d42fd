"""Higher-order functions and lambdas: transform, filter, exists, forall, aggregate / reduce,
zip_with, array_sort with a comparator, map_filter, transform_keys, transform_values,
map_zip_with, in SQL and through PySpark's Python lambdas."""

from dsl import case, expr_cases, sql_case

ARRS = ("VALUES (1, array(3, 1, 2)), (2, array(1, NULL, 1)), (3, array()), (4, NULL), "
        "(5, array(5)) AS t(k, a)")
MAPS = ("VALUES (1, map('a', 1, 'b', 2)), (2, map()), (3, NULL), (4, map('x', NULL)) AS t(k, m)")

expr_cases("hof_array", ARRS, [
    "transform(a, x -> x + 1)", "transform(a, (x, i) -> x * 10 + i)", "transform(a, x -> x + k)",
    "transform(a, x -> CAST(x AS STRING))", "transform(a, x -> array(x, k))",
    "filter(a, x -> x > 1)", "filter(a, (x, i) -> i % 2 = 0)", "filter(a, x -> x IS NULL)",
    "exists(a, x -> x = 1)", "exists(a, x -> x > 4)", "forall(a, x -> x > 0)",
    "forall(a, x -> x IS NOT NULL)", "aggregate(a, 0, (acc, x) -> acc + coalesce(x, 0))",
    "aggregate(a, 0L, (acc, x) -> acc + x)", "aggregate(a, 0, (acc, x) -> acc + k, acc -> acc * 2)",
    "aggregate(a, '', (acc, x) -> concat(acc, CAST(x AS STRING)))",
    "reduce(a, 1, (acc, x) -> acc * coalesce(x, 1))", "zip_with(a, array(10, 20), (x, y) -> x + y)",
    "zip_with(a, a, (x, y) -> struct(x, y))",
    "array_sort(a, (l, r) -> CASE WHEN l IS NULL THEN 1 WHEN r IS NULL THEN -1 ELSE r - l END)",
    "array_sort(a, (l, r) -> 0)", "transform(a, x -> transform(array(x, k), y -> y * x))",
    "filter(transform(a, x -> x * 2), x -> x > 2)", "size(filter(a, x -> x > k))",
    "transform(a, x -> x)[0]", "exists(a, x -> k > 3)",
])
expr_cases("hof_map", MAPS, [
    "map_filter(m, (key, v) -> v > 1)", "map_filter(m, (key, v) -> key = 'a')",
    "transform_values(m, (key, v) -> v * 10)", "transform_values(m, (key, v) -> concat(key, CAST(v AS STRING)))",
    "transform_keys(m, (key, v) -> upper(key))", "transform_keys(m, (key, v) -> concat(key, CAST(k AS STRING)))",
    "map_zip_with(m, map('a', 100, 'z', 26), (key, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0))",
    "map_zip_with(m, m, (key, v1, v2) -> v1 = v2)",
])
expr_cases("hof_literal", "", [
    "transform(array(1, 2, 3), x -> x + 1)", "transform(array(1), 1)", "filter(array(1, 2), true)",
    "exists(array(2, 1), x -> 10 / (x - 1) > 0)", "exists(array(), x -> x > 1)",
    "forall(array(), x -> x > 1)", "exists(array(1, NULL), x -> x > 1)",
    "forall(array(1, NULL), x -> x > 1)", "aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> 1)",
    "aggregate(array(1, 2), CAST(NULL AS INT), (acc, x) -> coalesce(acc, 0) + x)",
    "transform(array(named_struct('a', 1, 'b', 'x')), s -> s.a)",
    "transform(array(array(1), array(2, 3)), a -> aggregate(a, 0, (acc, x) -> acc + x))",
    "array_sort(array('bb', 'a', 'ccc'), (l, r) -> length(l) - length(r))",
    "array_sort(array(3, 1), (l, r) -> if(l = 3, NULL, 1))",
    "transform_keys(map(1, 'a', 2, 'b'), (key, v) -> key * 10)",
    "map_zip_with(map(1, 'a'), map(1L, 'b'), (key, x, y) -> concat(x, y))",
    "transform(array(1, 2), X -> x + 1)", "zip_with(array(1, 2, 3), array('a'), (x, y) -> y)",
    # errors
    "transform(1, x -> x)", "filter(array(1), x -> x + 1)", "transform(array(1), (x, y, z) -> x)",
    "transform(array(1), (x, x) -> x)", "abs(x -> x)", "transform(array(1))",
    "aggregate(array(1.5, 2.5), 0, (acc, x) -> acc + x)", "aggregate(array(1), 0)",
    "array_sort(array(3, 1), (l, r) -> CAST(r - l AS BIGINT))",
    "transform_keys(map(1, 'a', 2, 'b'), (key, v) -> 1)",
    "transform_keys(map(1, 'a'), (key, v) -> CAST(NULL AS INT))",
    "map_zip_with(map(1, 'a'), map('1', 'b'), (key, x, y) -> x)",
    "forall(array(0, 1), x -> 10 / x > 100)", "transform(array(1), x -> x.a)",
])

# Without aliases: the names Spark gives these columns (namedlambdavariable(), the identity
# finish of aggregate, hidden lambdas).
sql_case("hof_names", "SELECT transform(array(1, 2), x -> x + 1), filter(array(1), (x, i) -> i = 0), "
         "aggregate(array(1), 0, (acc, x) -> acc + x), exists(array(1), x -> true), "
         "transform(array(1), 7), map_zip_with(map(1, 2), map(1, 3), (k, a, b) -> a + b)")
sql_case("hof_names_nested", "SELECT transform(array(array(1), array(2, 3)), a -> transform(a, y -> y * 2)), "
         "transform(array(named_struct('a', 1)), x -> x.a)")
sql_case("hof_lambda_shadows_column", "SELECT x, transform(array(1, 2), x -> x + 1) FROM (SELECT 100 AS x)")
sql_case("hof_outer_column", "SELECT transform(array(1, 2), x -> x + y) AS r FROM (SELECT 10 AS y)")
sql_case("hof_group_key_in_lambda", "SELECT k, transform(sort_array(collect_list(v)), x -> x * k) AS r "
         "FROM VALUES (1, 2), (1, 3), (2, 5) AS t(k, v) GROUP BY k")
sql_case("hof_non_grouped_column_in_lambda", "SELECT k, transform(collect_list(v), x -> x * v) "
         "FROM VALUES (1, 2), (1, 3) AS t(k, v) GROUP BY k")
sql_case("hof_in_where", "SELECT k FROM VALUES (1, array(1, 2)), (2, array(3)) AS t(k, a) "
         "WHERE exists(a, x -> x > 2)")
sql_case("hof_in_aggregate_argument", "SELECT sum(aggregate(a, 0, (acc, x) -> acc + x)) AS s "
         "FROM VALUES (array(1, 2)), (array(3)), (NULL) AS t(a)")
sql_case("hof_many_rows", "SELECT id, transform(sequence(0, id % 5), x -> x * id) AS t, "
         "aggregate(sequence(0, id % 7), 0L, (acc, x) -> acc + x * id) AS s, "
         "array_sort(sequence(0, id % 9), (l, r) -> r - l) AS d FROM range(200)")
sql_case("hof_window_over_lambda", "SELECT k, sum(size(filter(a, x -> x > 1))) OVER (ORDER BY k) AS s "
         "FROM VALUES (1, array(1, 2)), (2, array(3, 4)), (3, array()) AS t(k, a) ORDER BY k")


@case
def hof_python_lambdas(s):
    F = s.F
    df = s.spark.createDataFrame([(1, [1, 2, 3], {"a": 1}), (2, [], {}), (3, None, None)],
                                 "k int, a array<int>, m map<string,int>")
    return df.select(
        "k",
        F.transform("a", lambda x: x * 2),
        F.transform("a", lambda x, i: x + i),
        F.filter("a", lambda x: x % 2 == 1),
        F.exists("a", lambda x: x > 2),
        F.forall(F.col("a"), lambda x: x > 0),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + x),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + x, lambda acc: acc * 10),
        F.reduce("a", F.lit(1), lambda acc, x: acc * x),
        F.zip_with("a", "a", lambda x, y: x * y),
        F.array_sort("a", lambda l, r: r - l),
        F.map_filter("m", lambda key, v: v > 0),
        F.transform_keys("m", lambda key, v: F.upper(key)),
        F.transform_values("m", lambda key, v: v + F.col("k")),
        F.map_zip_with("m", "m", lambda key, v1, v2: v1 + v2),
    )


@case
def hof_python_nested_lambdas(s):
    F = s.F
    df = s.spark.createDataFrame([([[1, 2], [3]],), ([[4]],)], "a array<array<int>>")
    return df.select(F.transform("a", lambda xs: F.transform(xs, lambda y: y + F.size(xs))).alias("r"),
                     F.filter("a", lambda xs: F.exists(xs, lambda y: y > 2)).alias("f"))


@case
def hof_python_bad_lambda(s):
    F = s.F
    df = s.spark.createDataFrame([([1],)], "a array<int>")
    return df.select(F.transform("a", lambda: F.lit(1)))


@case
def hof_python_lambda_not_returning_column(s):
    F = s.F
    df = s.spark.createDataFrame([([1],)], "a array<int>")
    return df.select(F.transform("a", lambda x: 1))
