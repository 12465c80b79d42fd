"""UNION / INTERSECT / EXCEPT (ALL and DISTINCT), unionByName, distinct, dropDuplicates."""

from dsl import pins, Differs, case, sql_case

A = "VALUES (1, 'a'), (1, 'a'), (2, 'b'), (NULL, 'n'), (3, 'c') AS a(x, y)"
B = "VALUES (1, 'a'), (2, 'z'), (NULL, 'n'), (NULL, 'n'), (4, 'd') AS b(x, y)"

for op in ("UNION", "UNION ALL", "UNION DISTINCT", "INTERSECT", "INTERSECT ALL", "INTERSECT DISTINCT",
           "EXCEPT", "EXCEPT ALL", "EXCEPT DISTINCT", "MINUS"):
    sql_case(f"sql/{op}", f"SELECT * FROM {A} {op} SELECT * FROM {B}")
sql_case("union_type_widening", "SELECT 1 AS x UNION ALL SELECT 2.5 UNION ALL SELECT 3L")
sql_case("union_string_int", "SELECT 1 AS x UNION ALL SELECT 'a'")
sql_case("union_column_count", "SELECT 1, 2 UNION SELECT 1")
sql_case("union_names_from_first", "SELECT 1 AS first UNION ALL SELECT 2 AS second")
sql_case("union_order_limit", f"SELECT x FROM {A} UNION SELECT x FROM {B} ORDER BY x NULLS LAST LIMIT 3")
sql_case("chained_setops", f"(SELECT x FROM {A} UNION ALL SELECT x FROM {B}) EXCEPT SELECT 1")
sql_case("intersect_precedence", "SELECT 1 UNION SELECT 2 INTERSECT SELECT 2")
sql_case("distinct_rows", f"SELECT DISTINCT * FROM {A}")
sql_case("union_nested_types", "SELECT array(1) AS a, named_struct('p', 1) AS s UNION ALL SELECT array(2, NULL), named_struct('p', NULL)")


def _ab(s):
    a = s.spark.createDataFrame([(1, "a"), (1, "a"), (2, "b"), (None, "n")], "x INT, y STRING")
    b = s.spark.createDataFrame([(1, "a"), (None, "n"), (4, "d")], "x INT, y STRING")
    return a, b


for method in ("union", "unionAll", "intersect", "intersectAll", "subtract", "exceptAll"):
    def run(s, method=method):
        a, b = _ab(s)
        return getattr(a, method)(b)
    run.__name__ = f"df_{method}"
    case(run)


@case
def df_union_by_name(s):
    a = s.spark.createDataFrame([(1, "a")], "x INT, y STRING")
    b = s.spark.createDataFrame([("b", 2)], "y STRING, x INT")
    return a.unionByName(b)


@case
def df_union_by_name_missing(s):
    a = s.spark.createDataFrame([(1, "a")], "x INT, y STRING")
    b = s.spark.createDataFrame([(2, 2.5)], "x INT, z DOUBLE")
    return a.unionByName(b, allowMissingColumns=True)


@case
def df_union_by_name_missing_error(s):
    a = s.spark.createDataFrame([(1, "a")], "x INT, y STRING")
    b = s.spark.createDataFrame([(2, 2.5)], "x INT, z DOUBLE")
    return a.unionByName(b)


@case
def df_distinct(s):
    a, _ = _ab(s)
    return a.distinct()


@case
def df_drop_duplicates_subset(s):
    df = s.spark.createDataFrame([(1, "a", 1), (1, "a", 1), (2, "b", 2)], "x INT, y STRING, z INT")
    return df.dropDuplicates(["x", "y"])


@case
def df_drop_duplicates_all(s):
    a, _ = _ab(s)
    return a.dropDuplicates()


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'df_union_by_name_missing_error': Differs("D5", "error", "f56a9109cb"),
})
