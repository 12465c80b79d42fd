"""Joins of every type, in SQL and through DataFrame.join, with duplicate and NULL keys."""

from dsl import pins, Differs, case, sql_case

L = "VALUES (1, 'a'), (2, 'b'), (2, 'b2'), (NULL, 'n'), (4, 'd') AS l(k, lv)"
R = "VALUES (2, 'x'), (2, 'x2'), (3, 'y'), (NULL, 'm'), (4, 'z') AS r(k, rv)"

for kind in ("JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL JOIN",
             "FULL OUTER JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN", "SEMI JOIN", "ANTI JOIN"):
    cols = "l.*" if "SEMI" in kind or "ANTI" in kind else "l.k AS lk, lv, r.k AS rk, rv"
    name = kind.lower().replace(" ", "_")
    sql_case(f"sql_{name}", f"SELECT {cols} FROM {L} {kind} {R} ON l.k = r.k")
    sql_case(f"sql_{name}_extra_condition",
             f"SELECT {cols} FROM {L} {kind} {R} ON l.k = r.k AND rv <> 'x2'")
sql_case("sql_cross_join", f"SELECT * FROM {L} CROSS JOIN {R}")
sql_case("sql_comma_join_where", f"SELECT lv, rv FROM {L}, {R} WHERE l.k = r.k")
sql_case("sql_non_equi_join", f"SELECT lv, rv FROM {L} JOIN {R} ON l.k < r.k")
sql_case("sql_left_non_equi_join", f"SELECT lv, rv FROM {L} LEFT JOIN {R} ON l.k > r.k + 1")
sql_case("sql_using", f"SELECT * FROM {L} JOIN {R} USING (k)")
sql_case("sql_left_using", f"SELECT * FROM {L} LEFT JOIN {R} USING (k)")
sql_case("sql_full_using", f"SELECT * FROM {L} FULL JOIN {R} USING (k)")
sql_case("sql_natural_join", "SELECT * FROM VALUES (1, 'a') AS a(k, v) NATURAL JOIN VALUES (1, 'a'), (1, 'b') AS b(k, v)")
sql_case("sql_null_safe_join", f"SELECT lv, rv FROM {L} JOIN {R} ON l.k <=> r.k")
sql_case("sql_self_join", "SELECT a.id, b.id AS id2 FROM range(4) a JOIN range(4) b ON a.id = b.id + 1")
sql_case("sql_three_way_join", f"SELECT l.k, lv, rv, t.n FROM {L} JOIN {R} ON l.k = r.k "
         "JOIN VALUES (2, 20), (4, 40) AS t(k, n) ON t.k = r.k")
sql_case("sql_join_expression_key", "SELECT a.id, b.id AS b FROM range(6) a JOIN range(3) b ON a.id % 3 = b.id")
sql_case("sql_join_ambiguous", f"SELECT k FROM {L} JOIN {R} ON l.k = r.k")
sql_case("sql_join_type_coercion", "SELECT * FROM VALUES (1) AS a(k) JOIN VALUES (1L), (2L) AS b(k) ON a.k = b.k")
sql_case("sql_join_decimal_double", "SELECT * FROM VALUES (1.5) AS a(k) JOIN VALUES (1.5D) AS b(k) ON a.k = b.k")
sql_case("sql_join_string_keys", "SELECT * FROM VALUES ('a'), ('B') AS a(k) JOIN VALUES ('A'), ('B') AS b(k) ON a.k = b.k")


def _frames(s):
    left = s.spark.createDataFrame([(1, "a"), (2, "b"), (2, "b2"), (None, "n"), (4, "d")],
                                   "k INT, lv STRING")
    right = s.spark.createDataFrame([(2, "x"), (2, "x2"), (3, "y"), (None, "m"), (4, "z")],
                                    "k INT, rv STRING")
    return left, right


def _join_case(how):
    def run(s):
        left, right = _frames(s)
        return left.join(right, "k", how)
    run.__name__ = f"df_join_on_name_{how}"
    case(run)

    def run_cond(s):
        left, right = _frames(s)
        return left.join(right, left.k == right.k, how)
    run_cond.__name__ = f"df_join_on_condition_{how}"
    case(run_cond)


for how in ("inner", "left", "leftouter", "left_outer", "right", "rightouter", "outer",
            "full", "fullouter", "full_outer", "semi", "leftsemi", "left_semi", "anti",
            "leftanti", "left_anti", "cross"):
    _join_case(how)


@case
def df_cross_join(s):
    left, right = _frames(s)
    return left.select("lv").crossJoin(right.select("rv"))


@case
def df_join_list_of_names(s):
    a = s.spark.createDataFrame([(1, 1, "p"), (1, 2, "q")], "x INT, y INT, v STRING")
    b = s.spark.createDataFrame([(1, 2, "r")], "x INT, y INT, w STRING")
    return a.join(b, ["x", "y"], "left")


@case
def df_join_bad_how(s):
    left, right = _frames(s)
    return left.join(right, "k", "sideways")


@case
def df_join_alias(s):
    left, right = _frames(s)
    return (left.alias("a").join(right.alias("b"), s.F.col("a.k") == s.F.col("b.k"))
            .select("a.lv", "b.rv"))


@case
def df_join_compound_condition(s):
    left, right = _frames(s)
    return left.join(right, (left.k == right.k) & (right.rv != "x"), "left")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'df_join_bad_how': Differs("D5", "error", "79ec658246"),
})
