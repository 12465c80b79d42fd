"""Lateral column aliases (a SELECT item naming an alias defined to its left) and named
function arguments (`explode(collection => a)`, `mask(str => s, digitChar => 'D')`)."""

from dsl import Differs, case, pins, sql_case

sql_case("lca_basic", "SELECT 'x' AS s, s LIKE 'x%' AS t")
sql_case("lca_chain_names", "SELECT 1 AS a, a + 1 AS b, b * 2")
sql_case("lca_with_column", "SELECT id AS a, a + id FROM range(3)")
sql_case("lca_column_wins", "SELECT id + 1 AS id, id FROM range(2)")
sql_case("lca_struct_field", "SELECT named_struct('f', 1, 'g', 'x') AS s, s.f, s.g AS g2")
sql_case("lca_after_only", "SELECT a + 1, 1 AS a")
sql_case("lca_ambiguous", "SELECT 1 AS a, 2 AS a, a")
sql_case("lca_not_in_where", "SELECT 1 AS a FROM range(1) WHERE a = 1")
sql_case("lca_in_window", "SELECT 1 AS a, sum(a) OVER ()")
sql_case("lca_aggregate", "SELECT count(*) AS c, c * 2 FROM range(3)")
sql_case("lca_aggregate_group_key", "SELECT id % 2 AS k, count(*) AS c, c + k FROM range(5) GROUP BY k")
sql_case("lca_in_lambda", "SELECT 10 AS a, transform(array(1, 2), x -> x + a)")
sql_case("lca_case_insensitive", "SELECT 2 AS Big, big * 3 AS r")
sql_case("lca_nondeterministic_once", "SELECT count(*) AS n FROM (SELECT rand() AS r, r AS r2, "
         "r + 1 AS r3 FROM range(50)) WHERE r = r2 AND r3 = r + 1")
sql_case("lca_qualified_column_table", "SELECT t.v * 2 AS d, d + 1 AS e FROM VALUES (1), (2) AS t(v)")


@case
def lca_dataframe_select(s):
    F = s.F
    return s.spark.range(2).select(F.lit(5).alias("a"), (F.col("a") + F.col("id")).alias("b"),
                                   F.col("a") * 2)


sql_case("named_explode", "SELECT explode(collection => array(1, 2))")
sql_case("named_posexplode_outer", "SELECT posexplode_outer(collection => array('a', 'b'))")
sql_case("named_explode_map", "SELECT explode(collection => map('k', 1))")
sql_case("named_inline", "SELECT inline(input => array(struct(1, 'a'), struct(2, 'b')))")
sql_case("named_not_supported", "SELECT abs(input => 1)")
sql_case("named_unknown_parameter", "SELECT explode(coll => array(1))")
sql_case("named_positional_after_named", "SELECT mask(str => 'a', 'b')")
sql_case("named_twice", "SELECT mask(str => 'a', str => 'b')")
sql_case("named_both_positional_and_named", "SELECT explode(array(1), collection => array(2))")
sql_case("named_required_missing", "SELECT mask(upperChar => 'X')")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
})
