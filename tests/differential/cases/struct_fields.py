"""Column.withField and Column.dropFields (Spark's UpdateFields): set, append and drop struct
fields, nested paths, case-insensitive names, duplicated names, NULL structs, chains (merged
into one update_fields as Spark names them), the errors, and use in select / withColumn /
filter / groupBy / a streaming query."""

import json
import os

from dsl import pins, Differs, case

_ROWS = ("SELECT 1 AS id, named_struct('a', 1, 'b', 'x', 'c', named_struct('d', 2, 'e', 3)) AS s "
         "UNION ALL SELECT 2, NULL "
         "UNION ALL SELECT 3, named_struct('a', 4, 'b', 'y', 'c', NULL)")


def _df(s):
    return s.spark.sql(_ROWS)


def _with(s, *cols):
    return _df(s).select("id", *cols)


# ---- withField ----------------------------------------------------------------------------

@case
def with_field_replace(s):
    return _with(s, s.F.col("s").withField("a", s.F.lit(10)))


@case
def with_field_append(s):
    return _with(s, s.F.col("s").withField("z", s.F.col("id")))


@case
def with_field_change_type(s):
    return _with(s, s.F.col("s").withField("a", s.F.lit("text")))


@case
def with_field_null_value(s):
    return _with(s, s.F.col("s").withField("a", s.F.lit(None).cast("int")))


@case
def with_field_nested_replace(s):
    return _with(s, s.F.col("s").withField("c.d", s.F.lit(10)))


@case
def with_field_nested_append(s):
    return _with(s, s.F.col("s").withField("c.z", s.F.lit("q")))


@case
def with_field_case_insensitive(s):
    return _with(s, s.F.col("s").withField("A", s.F.lit(10)), s.F.col("s").withField("C.D", s.F.lit(0)))


@case(conf={"spark.sql.caseSensitive": "true"})
def with_field_case_sensitive(s):
    return _with(s, s.F.col("s").withField("A", s.F.lit(10)), s.F.col("s").dropFields("A"))


@case
def with_field_backticked_name(s):
    return _with(s, s.F.col("s").withField("`a.b`", s.F.lit(1)))


@case
def with_field_empty_name(s):
    return _with(s, s.F.col("s").withField("", s.F.lit(1)))


@case
def with_field_reads_the_struct(s):
    F = s.F
    return _with(s, F.col("s").withField("b", F.upper(F.col("s").getField("b"))))


@case
def with_field_duplicate_names_all_replaced(s):
    return s.spark.sql("SELECT named_struct('a', 1, 'a', 2, 'b', 3) AS s").select(
        s.F.col("s").withField("a", s.F.lit(9)), s.F.col("s").dropFields("a"))


@case
def with_field_on_struct_function(s):
    F = s.F
    return s.spark.range(2).select(F.struct(F.col("id").alias("x")).withField("y", F.lit(2)))


@case
def with_field_nested_nullability(s):
    return s.spark.sql("SELECT named_struct('a', named_struct('x', 1)) AS s UNION ALL SELECT NULL") \
        .select(s.F.col("s").withField("a.y", s.F.lit(9)))


# ---- dropFields ---------------------------------------------------------------------------

@case
def drop_fields_one(s):
    return _with(s, s.F.col("s").dropFields("a"))


@case
def drop_fields_several_and_nested(s):
    return _with(s, s.F.col("s").dropFields("a", "c.d"))


@case
def drop_fields_nested_then_top(s):
    return _with(s, s.F.col("s").dropFields("c.d", "b"))


@case
def drop_fields_missing_is_noop(s):
    return _with(s, s.F.col("s").dropFields("zz"), s.F.col("s").dropFields("a", "a"))


# ---- chains -------------------------------------------------------------------------------

@case
def chain_with_and_drop(s):
    F = s.F
    return _with(s, F.col("s").withField("a", F.lit(1)).withField("z", F.col("id") + 1).dropFields("b"))


@case
def chain_same_field_twice(s):
    F = s.F
    return _with(s, F.col("s").withField("a", F.lit(1)).withField("a", F.lit(2)),
                 F.col("s").withField("z", F.lit(1)).withField("a", F.lit(2)).withField("z", F.lit(3)))


@case
def chain_drop_then_add(s):
    F = s.F
    return _with(s, F.col("s").dropFields("a").withField("a", F.lit("n")),
                 F.col("s").withField("a", F.lit(1)).dropFields("a").withField("a", F.lit(2)))


@case
def chain_nested_paths(s):
    F = s.F
    return _with(s, F.col("s").withField("c.d", F.col("id")).withField("c.f", F.lit(5)))


@case
def chain_then_nested(s):
    F = s.F
    return _with(s, F.col("s").withField("a", F.lit(1)).withField("b", F.lit(2)).withField("c.d", F.lit(3)))


@case
def chain_nested_then_top(s):
    F = s.F
    return _with(s, F.col("s").withField("c.d", F.lit(3)).withField("a", F.lit(1)))


@case
def chain_deep_drop(s):
    F = s.F
    return _with(s, F.col("s").withField("c.x", F.struct(F.lit(1).alias("y"), F.lit(2).alias("z")))
                 .dropFields("c.x.y"))


@case
def chain_through_alias(s):
    F = s.F
    return _with(s, F.col("s").withField("a", F.lit(2)).alias("q").withField("b", F.lit("y")))


@case
def chain_inside_function(s):
    F = s.F
    return _with(s, F.to_json(F.col("s").withField("a", F.lit(1)).withField("b", F.lit(2))),
                 F.col("s").withField("a", F.lit(2)).getField("a"),
                 F.col("s").withField("a", F.lit(1)).isNull())


# ---- in DataFrame operations --------------------------------------------------------------

@case
def aliased(s):
    return _with(s, s.F.col("s").withField("a", s.F.lit(1)).alias("t"))


@case
def in_with_column(s):
    F = s.F
    return _df(s).withColumn("s", F.col("s").withField("a", F.col("id") * 10).dropFields("c"))


@case
def in_filter(s):
    F = s.F
    return _df(s).filter(F.col("s").withField("a", F.col("id") * 10).getField("a") > 15)


@case
def in_group_by(s):
    F = s.F
    return _df(s).groupBy(F.col("s").dropFields("a").alias("g")).agg(F.count("*").alias("n"))


@case
def in_select_expr_frame(s):
    F = s.F
    return _df(s).selectExpr("id", "s AS t").select(
        "id", F.col("t").withField("a", F.col("t").getField("a") + 1))


@case(streaming=True)
def in_streaming_query(s):
    F = s.F
    src = os.path.join(s.tmp, "in")
    os.makedirs(src)
    with open(os.path.join(src, "part-0.json"), "w") as out:
        for r in [{"id": 1, "s": {"a": 5, "b": "x"}}, {"id": 2, "s": None}, {"id": 3, "s": {"a": 7}}]:
            out.write(json.dumps(r) + "\n")
    q = (s.spark.readStream.schema("id INT, s STRUCT<a: INT, b: STRING>").json(src)
         .select("id", F.col("s").withField("a", F.col("id") + 1).withField("c", F.lit(True))
                 .dropFields("b").alias("t"))
         .writeStream.format("memory").queryName("struct_fields_out").trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.table("struct_fields_out")


@case
def get_field_names(s):
    F = s.F
    df = _df(s)
    return df.select(F.col("s").getField("c"), F.col("s.c"), F.col("s").c.d, df.s.a)


# ---- errors -------------------------------------------------------------------------------

@case
def error_not_a_struct(s):
    return _with(s, s.F.col("id").withField("x", s.F.lit(1)))


@case
def error_drop_not_a_struct(s):
    return _with(s, s.F.col("id").dropFields("x"))


@case
def error_nested_not_a_struct(s):
    return _with(s, s.F.col("s").withField("a.x", s.F.lit(1)))


@case
def error_deep_not_a_struct(s):
    return _with(s, s.F.col("s").withField("a.x.y", s.F.lit(1)))


@case
def error_nested_missing(s):
    return _with(s, s.F.col("s").withField("zz.x", s.F.lit(1)))


@case
def error_drop_nested_missing(s):
    return _with(s, s.F.col("s").dropFields("zz.x"))


@case
def error_drop_all(s):
    return _with(s, s.F.col("s").dropFields("a", "b", "c"))


@case
def error_drop_all_nested(s):
    return _with(s, s.F.col("s").dropFields("c.d", "c.e"))


@case
def error_nested_ambiguous(s):
    return s.spark.sql("SELECT named_struct('a', named_struct('x', 1), 'a', named_struct('x', 2)) AS s") \
        .select(s.F.col("s").withField("a.x", s.F.lit(9)))


@case
def error_path_syntax(s):
    return _with(s, s.F.col("s").withField("a..b", s.F.lit(1)))


@case
def error_value_not_a_column(s):
    return _with(s, s.F.col("s").withField("a", 1))


@case
def error_name_not_a_string(s):
    return _with(s, s.F.col("s").withField(None, s.F.lit(1)))


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'chain_through_alias': Differs("D9", "schema", "6ead3fb5ac"),
})
