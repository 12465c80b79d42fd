"""DataFrame.colRegex: backticked Java regexes over column names (Spark's UnresolvedRegex),
qualified by a DataFrame alias, case sensitivity, plain names, and where a regex may not
stand."""

from dsl import pins, Differs, case


def _wide(s):
    return s.spark.createDataFrame([("a", 1, 2.0, 3)], ["Col1", "Col2", "col3", "other"])


@case
def prefix(s):
    df = _wide(s)
    return df.select(df.colRegex("`Col.*`"))


@case
def alternatives(s):
    df = _wide(s)
    return df.select(df.colRegex("`(Col1|other)`"))


@case
def possessive_quantifier(s):
    # Spark's documented example: every column but Col1.
    df = _wide(s)
    return df.select(df.colRegex("`(Col1)?+.+`"))


@case
def no_match(s):
    df = _wide(s)
    return df.select(df.colRegex("`zz.*`"))


@case
def any_single_character(s):
    df = _wide(s)
    return df.select(df.colRegex("`.`"), df.colRegex("`.*`"))


@case
def mixed_with_columns(s):
    df = _wide(s)
    return df.select("other", df.colRegex("`Col[12]`"), s.F.lit(1))


@case
def plain_name(s):
    df = _wide(s)
    return df.select(df.colRegex("Col2"), df.colRegex("col2"))


@case
def plain_name_missing(s):
    return _wide(s).colRegex("nope")


@case
def empty_backticks(s):
    return _wide(s).colRegex("``")


@case
def qualified(s):
    t = _wide(s).alias("t")
    return t.select(s.F.col("t.other"), t.colRegex("t.`col.*`"))


@case
def qualified_other_alias(s):
    t = _wide(s).alias("t")
    return t.select(t.colRegex("u.`col.*`"))


@case
def qualified_join(s):
    a, b = _wide(s).alias("a"), _wide(s).alias("b")
    return a.join(b, "other").select("other", b.colRegex("b.`Col.*`"))


@case
def both_sides_of_a_cross_join(s):
    df = _wide(s)
    return df.alias("a").crossJoin(df.alias("b")).select(df.colRegex("`Col1`"))


@case(conf={"spark.sql.caseSensitive": "true"})
def case_sensitive(s):
    df = _wide(s)
    return df.select(df.colRegex("`col.*`"))


@case
def in_with_column(s):
    df = _wide(s)
    return df.withColumn("x", df.colRegex("`Col2`"))


@case
def in_group_by(s):
    df = _wide(s)
    return df.groupBy(df.colRegex("`Col1`")).count()


@case
def in_order_by(s):
    df = _wide(s)
    return df.orderBy(df.colRegex("`Col1`"))


@case
def in_arithmetic(s):
    df = _wide(s)
    return df.select(df.colRegex("`Col2`") + 1)


@case
def in_filter(s):
    df = _wide(s)
    return df.filter(df.colRegex("`Col2`") > 0)


@case
def not_a_string(s):
    return _wide(s).colRegex(1)


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'in_arithmetic': Differs("D6", "error", "9f2e080262"),
    'in_filter': Differs("D6", "error", "a5ec8cd9fd"),
    'possessive_quantifier': Differs("D6", "error", "c135b5188b"),
})
