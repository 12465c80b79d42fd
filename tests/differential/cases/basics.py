"""First cases: DataFrame basics, created data, show() and errors."""

from dsl import case, sql_case


@case(ordered=True)
def range_with_columns(s):
    return s.spark.range(5).withColumn("k", s.F.col("id") % 2).orderBy("id")


@case
def create_dataframe_tuples(s):
    return s.spark.createDataFrame([(14, "Tom"), (23, "Alice"), (16, "Bob")], ["age", "name"])


@case
def group_by_sum(s):
    df = s.spark.range(10).withColumn("k", s.F.col("id") % 3)
    return df.groupBy("k").agg(s.F.sum("id").alias("s"), s.F.count("*").alias("n"))


sql_case("divide_by_zero", "SELECT 1 / 0 AS x")
sql_case("unresolved_column", "SELECT nope FROM range(3)")

# A doubled quote inside a quoted literal is one quote (Spark 4's lexer); a raw literal
# has no such escape, so r'don''t' is two adjacent literals.
sql_case("string_literal_doubled_quotes",
         "SELECT 'It''s' AS a, \"don\"\"t\" AS b, '''' AS c, 'ab''' 'x' AS d, "
         "'a\\'''b' AS e, r'don''t' AS f")
