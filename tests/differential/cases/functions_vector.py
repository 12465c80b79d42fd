"""Spark 4.2's vector functions over ARRAY<FLOAT> (vector_inner_product,
vector_cosine_similarity, vector_l2_distance, vector_norm, vector_normalize: bit-equal
single-precision results, NULL / empty / zero-norm vectors, dimension and degree errors,
type errors) and session 13's PySpark names that reach existing engine functions
(bitwise_not, call_udf, json_array_length, json_object_keys, to_json, partition transforms
refused by Delta, DataFrame.storageLevel)."""

from dsl import Differs, case, expr_cases, pins, sql_case

A3 = "array(1.0F, 2.0F, 3.0F)"
B3 = "array(4.0F, 5.0F, 6.0F)"
EMPTY = "CAST(array() AS ARRAY<FLOAT>)"
expr_cases("vector", "", [
    f"vector_inner_product({A3}, {B3})", f"vector_cosine_similarity({A3}, {B3})",
    f"vector_l2_distance({A3}, {B3})", "vector_inner_product(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.6F))",
    "vector_cosine_similarity(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.6F))",
    "vector_l2_distance(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.6F))",
    "vector_inner_product(array(1.0D, 2.0D), array(3.0D, 4.0D))", "vector_inner_product(array(1, 2), array(3, 4))",
    "vector_inner_product(array(1.0F, 2.0F), array(3.0F))", "vector_inner_product(array(1.0F, NULL), array(3.0F, 4.0F))",
    "vector_inner_product(array(), array())", f"vector_inner_product({EMPTY}, {EMPTY})",
    "vector_inner_product(NULL, array(3.0F, 4.0F))", "vector_inner_product(array(1.0F), 'a')",
    "vector_cosine_similarity(array(0.0F, 0.0F), array(3.0F, 4.0F))", f"vector_cosine_similarity({EMPTY}, {EMPTY})",
    "vector_cosine_similarity(array(1.0F, NULL), array(3.0F, 4.0F))", "vector_cosine_similarity(array(1.0F, 2.0F), array(3.0F))",
    f"vector_l2_distance({EMPTY}, {EMPTY})", "vector_l2_distance(array(1.0F, 2.0F), array(3.0F))",
    "vector_l2_distance(array(NULL, 1.0F), array(1.0F, 2.0F, 3.0F))",
    "vector_l2_distance(array(float('nan'), 2.0F), array(3.0F, 1.0F))",
    "vector_norm(array(3.0F, 4.0F), 2.0F)", "vector_norm(array(3.0F, 4.0F), 1.0F)", "vector_norm(array(3.0F, -4.0F), float('inf'))",
    "vector_norm(array(3.0F, 4.0F), 3.0F)", "vector_norm(array(3.0F, 4.0F), 2.0D)", "vector_norm(array(3.0F, 4.0F), 2)",
    "vector_norm(array(3.0F, 4.0F), NULL)", "vector_norm(array(3.0F, 4.0F), float('-inf'))", "vector_norm(array(3.0F, 4.0F), 0.0F)",
    "vector_norm(array(3.0F, 4.0F), float('nan'))", f"vector_norm({EMPTY}, 2.0F)", f"vector_norm({EMPTY}, float('inf'))",
    "vector_norm(array(3.0F, NULL), 2.0F)", "vector_norm(array(3.0F, float('nan')), float('inf'))",
    "vector_norm(array(float('nan'), 3.0F), 1.0F)", "vector_norm(array(1.0F, NULL), 3.0F)",
    "vector_normalize(array(3.0F, 4.0F), 2.0F)", "vector_normalize(array(3.0F, 4.0F), 1.0F)",
    "vector_normalize(array(3.0F, 4.0F), float('inf'))", "vector_normalize(array(0.0F, 0.0F), 2.0F)",
    "vector_normalize(array(0.0F, 0.0F), 1.0F)", f"vector_normalize({EMPTY}, 2.0F)", "vector_normalize(array(3.0F, NULL), 2.0F)",
    "vector_normalize(array(3.0F, 4.0F), 3.0F)", "vector_normalize(array(3.0F, 4.0F), NULL)",
    "vector_normalize(array(1.0F, NULL), 3.0F)", "vector_normalize(array(1e-30F, 1e-30F), 2.0F)",
    "vector_normalize(array(1e30F, 1e30F), 2.0F)", "vector_norm(array(1e30F, 1e30F), 2.0F)",
    "vector_inner_product(array(1e30F, 1e30F), array(1e30F, 1e30F))",
    "vector_cosine_similarity(array(1e30F, 1e30F), array(1e30F, 1e30F))",
    "vector_l2_distance(array(1e30F, 1e30F), array(-1e30F, -1e30F))",
    "vector_normalize(array(0.1F, 0.2F, 0.3F), 2.0F)", "vector_normalize(array(0.1F, 0.2F, 0.3F), 1.0F)",
    "typeof(vector_normalize(array(1.0F), 2.0F))", "typeof(vector_norm(array(1.0F), 2.0F))",
    "vector_norm()", "vector_norm(array(1.0F), 1.0F, 2.0F)", "vector_inner_product(array(1.0F))",
])
# Rows: 20 vectors of 19 elements (8-element blocks and a tail), NULL rows and a degree column.
_VECTORS = ("(SELECT id, transform(sequence(0, 18), i -> CAST(sin(id * 19 + i) * 10 AS FLOAT)) a, "
            "transform(sequence(0, 18), i -> CAST(cos(id * 7 + i) * 3 AS FLOAT)) b, "
            "CASE id % 3 WHEN 0 THEN 1.0F WHEN 1 THEN 2.0F ELSE float('inf') END d FROM range(20) "
            "UNION ALL SELECT 20, NULL, array(1.0F), 2.0F UNION ALL SELECT 21, array(1.0F), array(2.0F), NULL)")
expr_cases("vector_rows", _VECTORS, [
    "vector_inner_product(a, b)", "vector_cosine_similarity(a, b)", "vector_l2_distance(a, b)",
    "vector_norm(a, d)", "vector_normalize(b, d)", "vector_norm(a)", "vector_normalize(a)",
])
sql_case("vector_rows/default_degree_name", "SELECT vector_norm(array(3.0F, 4.0F)), vector_normalize(array(3.0F, 4.0F))")
# D9: Spark's column name shows the default degree, `vector_norm(v, 2.0)`.
pins({"vector_rows/default_degree_name": Differs("D9", "schema", "b0169a9dca")})


# ---- PySpark names over existing engine functions ------------------------------------------

def _df(s):
    return s.spark.createDataFrame([(5, "[1,2,[3]]", '{"x":1,"y":{"z":2}}'), (-1, "{}", "[1]"),
                                    (None, None, None)], "a int, j string, o string")


@case
def bitwise_not_and_alias(s):
    F = s.F
    return _df(s).select(F.bitwise_not("a"), F.bitwiseNOT(F.col("a")).alias("n2"))


@case
def json_array_length_object_keys(s):
    F = s.F
    return _df(s).select(F.json_array_length("j"), F.json_object_keys(F.col("o")))


@case
def to_json_with_options(s):
    F = s.F
    df = s.spark.createDataFrame([(1, "x", None)], "a int, b string, c string")
    return df.select(F.to_json(F.struct("a", "b", "c")),
                     F.to_json(F.struct("a", "c"), {"ignoreNullFields": "false"}).alias("keep"))


@case
def call_udf_registered(s):
    F = s.F
    s.spark.udf.register("plus_one_h10", lambda x: None if x is None else x + 1, "int")
    return _df(s).select(F.call_udf("plus_one_h10", "a"), F.call_udf("abs", F.col("a")))


@case
def call_udf_unknown(s):
    return _df(s).select(s.F.call_udf("no_such_udf_h10", "a"))


def _partitioned_by(unit, transform):
    """writeTo(...).partitionedBy(<transform>).create(): delta-spark refuses every transform."""
    def run(s):
        name = "h10_" + unit
        s.spark.sql("DROP TABLE IF EXISTS %s" % name)
        df = s.spark.sql("SELECT 1 AS id, TIMESTAMP'2024-03-04 05:06:07' AS ts")
        df.writeTo(name).using("delta").partitionedBy(transform(s.F)).create()
    case(run, name="partitioned_by_%s_refused" % unit)


for _unit, _transform in (("years", lambda F: F.years("ts")), ("months", lambda F: F.months("ts")),
                          ("days", lambda F: F.days("ts")), ("hours", lambda F: F.hours("ts")),
                          ("bucket", lambda F: F.bucket(4, "id"))):
    _partitioned_by(_unit, _transform)


@case
def storage_level(s):
    df = s.spark.range(3)
    level = type(df.storageLevel)
    before = repr(df.storageLevel)
    cached = repr(df.cache().storageLevel)
    again = repr(df.persist(level.MEMORY_ONLY).storageLevel)  # the first level stays
    gone = repr(df.unpersist().storageLevel)
    mem = s.spark.range(4).persist(level.MEMORY_ONLY)
    return {"before": before, "cached": cached, "again": again, "gone": gone,
            "memory_only": repr(mem.storageLevel), "text": str(mem.storageLevel),
            "rows": [r[0] for r in mem.collect()]}


# ---- input_file_block_start / input_file_block_length ---------------------------------------

def _blocks(df, F):
    return df.select(F.input_file_block_start().alias("s"), F.input_file_block_length().alias("l"),
                     F.expr("input_file_block_length() > 0").alias("positive")).distinct()


@case
def input_file_block_parquet(s):
    F = s.F
    path = s.tmp + "/pq"
    s.spark.range(5).coalesce(1).write.parquet(path)
    out = _blocks(s.spark.read.parquet(path), F).collect()
    import os
    files = [f for f in os.listdir(path) if f.endswith(".parquet")]
    return {"rows": [(r.s, r.l == os.path.getsize(os.path.join(path, files[0])), r.positive)
                     for r in out], "files": len(files)}


@case
def input_file_block_json(s):
    F = s.F
    path = s.tmp + "/js"
    with open(path + ".json", "w") as f:
        f.write('{"a": 1}\n{"a": 2}\n')
    return _blocks(s.spark.read.json(path + ".json"), F)


@case
def input_file_block_not_a_file(s):
    return _blocks(s.spark.range(3), s.F)


sql_case("input_file_block/sql_no_file", "SELECT input_file_block_start(), input_file_block_length()")
sql_case("input_file_block/wrong_args", "SELECT input_file_block_start(1)")
