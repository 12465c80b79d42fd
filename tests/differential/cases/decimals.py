"""Decimal arithmetic: result precision and scale, rounding, overflow (ANSI on and off)."""

from dsl import pins, Differs, expr_cases

DECS = ("VALUES (CAST(1.25 AS decimal(5,2))), (CAST(-0.05 AS decimal(5,2))), (NULL),"
        " (CAST(999.99 AS decimal(5,2))), (CAST(0 AS decimal(5,2))) AS t(x)")

expr_cases("decimal", DECS, [
    "x + 1", "x + 1.5", "x * x", "x / 3", "x / 3.0", "x % 0.3", "x * 1000000", "-x",
    "abs(x)", "round(x, 1)", "bround(x, 1)", "round(x, -1)", "ceil(x)", "floor(x)",
    "cast(x AS int)", "cast(x AS double)", "cast(x AS decimal(3,1))", "cast(x AS decimal(10,4))",
    "x + 0.001D", "x > 1", "x = 1.250", "typeof(x * x)", "typeof(x / x)", "typeof(x + 1L)",
    "x * CAST(1 AS decimal(38,10))", "pmod(x, 1)", "greatest(x, 1.5)", "coalesce(x, 0)",
])
expr_cases("decimal_literal", "", [
    "1.0 / 3", "typeof(1.0 / 3)", "2 / 3.00", "1.1 * 1.1", "0.1 + 0.2", "typeof(0.1 + 0.2)",
    "CAST(1 AS decimal(38,0)) / 3", "CAST(1 AS decimal(38,18)) * CAST(1 AS decimal(38,18))",
    "CAST(99999999999999999999999999999999999999 AS decimal(38,0)) + 1",
    "CAST(1e37 AS decimal(38,0)) * 100", "12345678901234567890.123 * 1000",
    "CAST(123.45 AS decimal(5,2)) * CAST(10 AS decimal(2,0))", "1.23E2BD", "typeof(1.23E2BD)",
    "round(123.456, 2)", "round(-123.455, 2)", "bround(-123.455, 2)", "round(9.99, 0)",
    "typeof(round(9.99, 0))", "ceil(9.01)", "typeof(ceil(9.01))", "floor(-9.01)",
    "CAST('123.456' AS decimal(5,1))", "CAST(0.5 AS decimal(1,1)) + 0.5", "1.5 % 1",
    "10.0 div 3", "try_add(CAST(9.9 AS decimal(2,1)), CAST(9.9 AS decimal(2,1)))",
    "CAST(1 AS decimal(3,0)) / CAST(7 AS decimal(3,0))", "1.000 = 1",
])
# Comparisons of a decimal with an integral literal: Spark casts the literal to DECIMAL(its
# digits, 0) first, a cast it marks nullable unless that holds every value of the type.
expr_cases("decimal_compare_literal", "", [
    "1 = 1.0", "1.5 > 2L", "1.0 = 1000000000", "1.0 = 10000000000", "1.0 <=> 1", "100 = 1.0",
    "1.0 IN (1, 2)", "-7 < 1.5", "1.0 = CAST(1 AS TINYINT)",
])
expr_cases("decimal_compare_columns", "VALUES (CAST(1 AS DECIMAL(4,2)), 3, 2L) AS t(m, i, l)", [
    "m = 1", "m + 1", "i = 1.5", "m = i", "m >= l", "m <> 99", "l < 2.5",
])
expr_cases("decimal_ansi_off", "", [
    "CAST(99999999999999999999999999999999999999 AS decimal(38,0)) + 1",
    "CAST(1e37 AS decimal(38,0)) * 100", "CAST(123.456 AS decimal(2,1))", "CAST('abc' AS decimal(5,2))",
    "CAST(12345.6 AS decimal(5,2))",
], conf={"spark.sql.ansi.enabled": "false"})


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
})
