"""DataFrame methods beyond select/filter/join: cube, rollup, groupingSets, sample,
randomSplit, sampleBy, replace (and na.replace), toJSON, df.stat (corr, cov, crosstab,
freqItems, approxQuantile), observe, transpose, withColumnsRenamed, hint.

Sampling cannot equal Spark's rows (Spark draws with XORShiftRandom per partition; spate
hashes the seed with the row's position: docs/spark-differences.md D21), so those cases
compare what both engines promise: the fraction within statistical bounds, the same rows
for the same seed, subsets of the input, disjoint splits that cover it."""

from dsl import Differs, case, pins


def _sales(s):
    return s.spark.createDataFrame(
        [("a", 1, 10), ("a", 2, 20), ("b", 1, 5), ("b", None, 7), (None, 3, 1)],
        "g STRING, k INT, v INT")


def _mixed(s):
    return s.spark.createDataFrame(
        [(1, "a", 2.0, True), (2, "b", None, False), (None, "a", 3.5, None), (4, None, 1.0, True)],
        "x INT, s STRING, d DOUBLE, b BOOLEAN")


# ---- cube / rollup / groupingSets ---------------------------------------------------------

@case
def cube_count(s):
    return _sales(s).cube("g", "k").count()


@case
def cube_agg_grouping(s):
    F = s.F
    return _sales(s).cube("g").agg(F.sum("v").alias("total"), F.expr("grouping(g)").alias("gg"),
                                   F.expr("grouping_id()").alias("gid"))


@case
def rollup_agg(s):
    F = s.F
    return _sales(s).rollup("g", "k").agg(F.sum("v"), F.max("v").alias("mx"))


@case
def rollup_columns_and_expression(s):
    F = s.F
    return _sales(s).rollup(F.col("g"), (F.col("v") > 5).alias("big")).agg(F.count("*").alias("n"))


@case
def rollup_grouping_id(s):
    F = s.F
    return _sales(s).rollup("g", "k").agg(F.expr("grouping_id(g, k)").alias("gid"), F.sum("v").alias("s"))


@case
def cube_empty_input(s):
    return _sales(s).limit(0).cube("g").count()


@case
def cube_sum_all_numeric(s):
    return _sales(s).cube("g").sum()


@case
def cube_pivot_refused(s):
    return _sales(s).cube("g").pivot("k").sum("v")


@case
def rollup_agg_dict(s):
    return _sales(s).rollup("g").agg({"v": "sum", "k": "max"})


@case
def grouping_sets(s):
    F = s.F
    return _sales(s).groupingSets([["g"], ["k"], []], "g", "k").agg(F.sum("v").alias("s"))


@case
def grouping_sets_bad_column(s):
    F = s.F
    return _sales(s).groupingSets([["v"]], "g").agg(F.sum("v").alias("s"))


@case
def cube_grouping_functions(s):
    F = s.F
    return _sales(s).cube("g", "k").agg(F.grouping("g").alias("gg"), F.grouping_id().alias("gid"),
                                        F.grouping_id("g", "k").alias("gid2"), F.sum("v").alias("s"))


@case
def rollup_grouping_id_mismatch(s):
    F = s.F
    return _sales(s).rollup("g", "k").agg(F.grouping_id("k").alias("gid"))


@case(ordered=True)
def rollup_sorted_by_grouping(s):
    F = s.F
    df = _sales(s).rollup("g").agg(F.grouping("g").alias("gg"), F.count("*").alias("n"))
    return df.orderBy("gg", F.col("g").asc_nulls_last())


@case
def grouping_sets_reordered_keys(s):
    F = s.F
    return _sales(s).groupingSets([["k"], ["g", "k"]], "g", "k").agg(F.grouping_id().alias("gid"),
                                                                      F.count("*").alias("n"))


@case
def grouping_without_sets(s):
    F = s.F
    return _sales(s).groupBy("g").agg(F.grouping("g"))


# ---- sampling -----------------------------------------------------------------------------

def _ids(df):
    return sorted(r[0] for r in df.collect())


@case
def sample_fraction_and_determinism(s):
    df = s.spark.range(4000)
    a, b = _ids(df.sample(0.25, 42)), _ids(df.sample(fraction=0.25, seed=42))
    # 4000 * 0.25 = 1000, sigma ~27: 6 sigma.
    return {"near_fraction": abs(len(a) - 1000) < 165, "same_seed_same_rows": a == b,
            "subset": set(a) <= set(range(4000)), "distinct": len(set(a)) == len(a),
            "other_seed_differs": a != _ids(df.sample(False, 0.25, 43))}


@case
def sample_edges(s):
    df = s.spark.range(50)
    return {"zero": df.sample(0.0, 1).count(), "one": df.sample(1.0, 1).count(),
            "keeps_schema": df.sample(0.5, 1).columns}


@case
def sample_with_replacement(s):
    df = s.spark.range(3000)
    n = df.sample(True, 2.0, 5).count()
    ids = _ids(df.sample(True, 0.5, 5))
    # Poisson(2) copies per row: 6000 expected, sigma ~77; with fraction 0.5 repeats occur.
    return {"near_fraction": abs(n - 6000) < 470, "repeats": len(set(ids)) < len(ids),
            "same_seed": ids == _ids(df.sample(True, 0.5, 5))}


@case
def sample_fraction_out_of_range(s):
    return s.spark.range(5).sample(1.5, 1)


@case
def sample_negative_with_replacement(s):
    return s.spark.range(5).sample(True, -1.0, 1).collect()


@case
def sample_int_fraction(s):
    return s.spark.range(5).sample(1)


@case
def random_split(s):
    df = s.spark.range(3000)
    parts = df.randomSplit([1.0, 2.0, 3.0], 7)
    ids = [_ids(p) for p in parts]
    allids = sorted(i for p in ids for i in p)
    again = [_ids(p) for p in df.randomSplit([1.0, 2.0, 3.0], 7)]
    return {"cover": allids == list(range(3000)), "parts": len(parts),
            "near_weights": [abs(len(p) - 3000 * w / 6) < 200 for p, w in zip(ids, (1, 2, 3))],
            "same_seed": ids == again, "schema": [p.columns for p in parts]}


@case
def random_split_negative_weight(s):
    return s.spark.range(5).randomSplit([1.0, -1.0], 1)


@case
def random_split_zero_weights(s):
    return [p.count() for p in s.spark.range(5).randomSplit([0.0, 0.0], 1)]


@case
def sample_by(s):
    F = s.F
    df = s.spark.range(6000).withColumn("key", (F.col("id") % 3).cast("int"))
    got = df.sampleBy("key", {0: 0.1, 1: 0.5}, 3)
    counts = {r[0]: r[1] for r in got.groupBy("key").count().collect()}
    return {"keys": sorted(counts), "k0": abs(counts.get(0, 0) - 200) < 90,
            "k1": abs(counts.get(1, 0) - 1000) < 200,
            "same_seed": _ids(got) == _ids(df.stat.sampleBy("key", {0: 0.1, 1: 0.5}, 3))}


# ---- replace ------------------------------------------------------------------------------

@case
def replace_number(s):
    return _mixed(s).replace(1, 10)


@case
def replace_float_into_int_column(s):
    return _mixed(s).replace(2.0, 7.5)


@case
def replace_string(s):
    return _mixed(s).replace("a", "z")


@case
def replace_with_none(s):
    return _mixed(s).replace("a", None)


@case
def replace_dict_subset(s):
    return _mixed(s).replace({"a": "q", "b": "r"}, subset=["s"])


@case
def replace_lists(s):
    return _mixed(s).replace([1, 2], [20, 30], "x")


@case
def replace_bool(s):
    return _mixed(s).replace(True, False)


@case
def na_replace(s):
    return _mixed(s).na.replace(["a", "b"], "c")


@case
def replace_mixed_types(s):
    return _mixed(s).replace([1, "a"], [2, "b"])


@case
def replace_length_mismatch(s):
    return _mixed(s).replace([1, 2], [3])


# ---- toJSON, withColumnsRenamed, hint -------------------------------------------------------

@case
def to_json_strings(s):
    # Classic PySpark returns an RDD of str, spate (as Spark Connect) a DataFrame of `value`:
    # the case compares the JSON text (the shape is pinned by to_json_shape).
    out = s.spark.createDataFrame(
        [(1, "a", None, [1, 2]), (2, None, 1.5, [])], "x INT, s STRING, d DOUBLE, a ARRAY<INT>").toJSON()
    return sorted(r if isinstance(r, str) else r[0] for r in out.collect())


@case
def to_json_shape(s):
    return type(s.spark.range(1).toJSON()).__name__


@case
def with_columns_renamed(s):
    return _mixed(s).withColumnsRenamed({"x": "y", "s": "t", "missing": "z"})


@case
def hint_unknown_is_ignored(s):
    return _mixed(s).hint("no_such_hint", 1, "a").filter("x > 1")


@case
def hint_broadcast_join(s):
    a = _mixed(s)
    return a.join(a.select("x").hint("broadcast"), "x")


@case
def hint_bad_parameter(s):
    return _mixed(s).hint("x", {1: 2})


# ---- df.stat ------------------------------------------------------------------------------

def _numbers(s):
    return s.spark.createDataFrame([(1, 2.0), (2, 4.0), (3, 9.0), (4, 5.0), (5, 15.0)], "x INT, y DOUBLE")


@case
def stat_cov_corr(s):
    df = _numbers(s)
    return {"cov": df.stat.cov("x", "y"), "corr": df.stat.corr("x", "y"), "df_cov": df.cov("y", "x")}


@case
def stat_cov_nulls(s):
    return {"cov": _mixed(s).stat.cov("x", "d"), "corr": _mixed(s).corr("x", "d")}


@case
def stat_corr_string_column(s):
    return _mixed(s).stat.corr("x", "s")


@case
def stat_crosstab(s):
    return _mixed(s).stat.crosstab("s", "x")


@case
def stat_crosstab_numbers(s):
    return _sales(s).crosstab("k", "g")


@case
def stat_approx_quantile(s):
    df = _numbers(s)
    return {"exact": df.approxQuantile("y", [0.0, 0.25, 0.5, 0.75, 1.0], 0.0),
            "cols": df.stat.approxQuantile(["x", "y"], [0.5], 0.0),
            "nulls": _mixed(s).approxQuantile("d", [0.5], 0.0)}


@case
def stat_freq_items(s):
    F = s.F
    out = _mixed(s).freqItems(["s", "x"])
    return out.select(*[F.sort_array(c).alias(c) for c in out.columns])


# ---- observe, transpose -------------------------------------------------------------------

@case
def observe_batch(s):
    F = s.F
    import importlib  # Observation is not in the case environment: each side's own class
    obs = importlib.import_module("spate.sql" if s.side == "spate" else "pyspark.sql").Observation("metrics")
    df = _sales(s).observe(obs, F.count(F.lit(1)).alias("rows"), F.sum("v").alias("total"),
                           F.max("g").alias("top"))
    rows = df.filter("v > 5").count()
    return {"rows": rows, "metrics": obs.get}


@case
def transpose_default_index(s):
    df = s.spark.createDataFrame([("p", 1, 2.5), ("q", 3, None), ("r", None, 4.0)], "name STRING, a INT, b DOUBLE")
    return df.transpose()


@case
def transpose_index_column(s):
    df = s.spark.createDataFrame([(1, "x", "u"), (2, "y", "v")], "id INT, c1 STRING, c2 STRING")
    return df.transpose(indexColumn="id")


# ---- to, zipWithIndex, localCheckpoint, repartitionByRange, Column.isNaN/transform ----------

def _target(s, *fields):
    T = s.T
    return T.StructType([T.StructField(n, t, nullable) for n, t, nullable in fields])


@case
def to_schema_reorders_and_casts(s):
    T = s.T
    return _mixed(s).to(_target(s, ("s", T.StringType(), True), ("x", T.LongType(), True),
                                ("d", T.IntegerType(), True), ("q", T.StringType(), True)))


@case
def to_schema_non_nullable(s):
    T = s.T
    return _mixed(s).to(_target(s, ("x", T.IntegerType(), False)))


@case(ordered=True)
def zip_with_index(s):
    return _mixed(s).zipWithIndex()


@case(ordered=True)
def zip_with_index_named(s):
    return s.spark.range(3, 8).zipWithIndex("pos")


@case
def local_checkpoint(s):
    return _mixed(s).filter("x > 1").localCheckpoint()


@case
def checkpoint_with_dir(s):
    sc = s.spark.sparkContext
    sc.setCheckpointDir(s.tmp + "/checkpoints")
    got = sc.getCheckpointDir()
    return {"rows": _mixed(s).filter("x > 1").checkpoint(), "dir_set": got is not None and
            got.startswith("file:" + s.tmp + "/checkpoints/")}


@case
def repartition_by_range(s):
    return _mixed(s).repartitionByRange(3, "x").select("x", "s")


@case
def repartition_by_range_no_columns(s):
    return _mixed(s).repartitionByRange(2)


@case
def column_is_nan_and_transform(s):
    F = s.F
    df = s.spark.createDataFrame([(1.0,), (float("nan"),), (None,)], "d DOUBLE")
    return df.select(F.col("d").isNaN(), F.col("d").transform(lambda c: c * 2).alias("twice"))


# ---- writeTo (DataFrameWriterV2) ---------------------------------------------------------

def _v2(s, name):
    s.spark.sql("DROP TABLE IF EXISTS %s" % name)
    return s.spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "a", 30)], "id INT, p STRING, v INT")


@case
def write_to_create_and_append(s):
    df = _v2(s, "v2_create")
    df.writeTo("v2_create").using("delta").create()
    df.select("v", "p", "id").filter("id = 1").writeTo("v2_create").append()
    return s.spark.table("v2_create")


@case
def write_to_create_existing(s):
    df = _v2(s, "v2_exists")
    df.writeTo("v2_exists").using("delta").create()
    df.writeTo("v2_exists").using("delta").create()


@case
def write_to_append_missing(s):
    _v2(s, "v2_missing").writeTo("v2_missing").append()


@case
def write_to_replace_missing(s):
    _v2(s, "v2_replace_missing").writeTo("v2_replace_missing").using("delta").replace()


@case
def write_to_create_or_replace(s):
    df = _v2(s, "v2_cor")
    df.writeTo("v2_cor").using("delta").createOrReplace()
    df.selectExpr("id", "p").filter("id > 1").writeTo("v2_cor").using("delta").createOrReplace()
    return s.spark.table("v2_cor")


@case
def write_to_overwrite_condition(s):
    F = s.F
    df = _v2(s, "v2_over")
    df.writeTo("v2_over").using("delta").create()
    df.filter("p = 'a'").withColumn("v", F.col("v") + 1).writeTo("v2_over").overwrite(F.col("p") == "a")
    return s.spark.table("v2_over")


@case
def write_to_overwrite_partitions(s):
    F = s.F
    df = _v2(s, "v2_parts")
    df.writeTo("v2_parts").using("delta").partitionedBy("p").create()
    s.spark.createDataFrame([(9, "a", 90)], "id INT, p STRING, v INT").writeTo("v2_parts").overwritePartitions()
    return s.spark.table("v2_parts")


# ---- GroupedData.applyInPandas ----------------------------------------------------------

@case
def apply_in_pandas(s):
    def centre(pdf):
        pdf["v"] = pdf["v"] - pdf["v"].mean()
        return pdf[["g", "v"]]
    return _sales(s).filter("g IS NOT NULL").groupBy("g").applyInPandas(centre, "g STRING, v DOUBLE")


@case
def apply_in_pandas_with_key(s):
    import pandas as pd

    def summary(key, pdf):
        return pd.DataFrame({"g": [key[0]], "n": [len(pdf)], "total": [int(pdf["v"].sum())]})
    return _sales(s).groupBy("g").applyInPandas(summary, "g STRING, n LONG, total LONG")


# ---- scalar / exists subqueries ------------------------------------------------------------

@case
def scalar_subquery(s):
    F = s.F
    top = s.spark.range(10).agg(F.max("id"))
    return s.spark.range(3).select("id", top.scalar().alias("m"), (F.col("id") + top.scalar()).alias("p"))


@case
def scalar_subquery_no_rows(s):
    return s.spark.range(2).select("id", s.spark.range(0).scalar().alias("none"))


@case
def scalar_subquery_unnamed(s):
    return s.spark.range(1).select(s.spark.range(5, 6).scalar())


@case
def exists_subquery(s):
    return {"where": s.spark.range(3).where(s.spark.range(1).exists()),
            "select": s.spark.range(2).select("id", s.spark.range(0).exists().alias("e"))}


@case
def scalar_subquery_two_columns(s):
    return s.spark.range(2).select(s.spark.range(1).selectExpr("id", "id + 1").scalar())


@case
def map_in_pandas(s):
    def double_big(batches):
        for pdf in batches:
            big = pdf[pdf["v"] > 5]
            yield big.assign(w=big["v"] * 2)[["g", "w"]]
    return _sales(s).mapInPandas(double_big, "g STRING, w LONG")


# ---- mergeInto ----------------------------------------------------------------------------

def _merge_target(s, name):
    s.spark.sql("DROP TABLE IF EXISTS %s" % name)
    s.spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "c", 30)], "id INT, k STRING, v INT") \
        .write.format("delta").saveAsTable(name)
    return s.spark.createDataFrame([(2, "B", 200), (4, "D", 400)], "id INT, k STRING, v INT").alias("src")


@case
def merge_into_upsert(s):
    F = s.F
    src = _merge_target(s, "mi_t1")
    src.mergeInto("mi_t1", F.expr("mi_t1.id = src.id")).whenMatched().updateAll() \
        .whenNotMatched().insertAll().merge()
    return sorted(s.spark.table("mi_t1").collect(), key=lambda r: r.id)


@case
def merge_into_clauses(s):
    F = s.F
    src = _merge_target(s, "mi_t2")
    (src.mergeInto("mi_t2", F.expr("mi_t2.id = src.id"))
        .whenMatched(F.expr("src.v > 100")).update({"v": F.expr("src.v + 1")})
        .whenNotMatched().insert({"id": F.expr("src.id"), "k": F.lit("new"), "v": F.lit(0)})
        .whenNotMatchedBySource(F.expr("mi_t2.id = 1")).delete()
        .whenNotMatchedBySource().update({"k": F.lit("old")})
        .merge())
    return sorted(s.spark.table("mi_t2").collect(), key=lambda r: r.id)


# ---- read.changes, emptyDataFrame ---------------------------------------------------------

@case
def read_changes_delta(s):
    s.spark.sql("DROP TABLE IF EXISTS chg_t")
    s.spark.sql("CREATE TABLE chg_t (id INT, v STRING) USING delta "
                "TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    s.spark.sql("INSERT INTO chg_t VALUES (1, 'a'), (2, 'b')")
    s.spark.sql("UPDATE chg_t SET v = 'z' WHERE id = 2")
    df = s.spark.read.option("startingVersion", "1").changes("chg_t")
    return df.select("id", "v", "_change_type", "_commit_version")


@case(streaming=True)
def read_stream_changes_delta(s):
    s.spark.sql("DROP TABLE IF EXISTS chg_s")
    s.spark.sql("CREATE TABLE chg_s (id INT, v STRING) USING delta "
                "TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    s.spark.sql("INSERT INTO chg_s VALUES (1, 'a'), (2, 'b')")
    s.spark.sql("DELETE FROM chg_s WHERE id = 1")
    q = (s.spark.readStream.option("startingVersion", "1").changes("chg_s")
         .select("id", "v", "_change_type", "_commit_version")
         .writeStream.format("memory").queryName("chg_s_out").trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.table("chg_s_out")


@case
def empty_data_frame(s):
    return s.spark.emptyDataFrame("a INT, b STRING")


@case
def tvf_generators(s):
    F, t = s.F, s.spark.tvf
    return {"range": t.range(2, 5), "explode": t.explode(F.array(F.lit(1), F.lit(2))),
            "explode_outer": t.explode_outer(F.array().cast("array<int>")),
            "posexplode": t.posexplode(F.create_map(F.lit("a"), F.lit(1))),
            "json_tuple": t.json_tuple(F.lit('{"a": 1, "b": "q"}'), F.lit("a"), F.lit("b"))}


@case
def tvf_inline(s):
    F = s.F
    return s.spark.tvf.inline(F.array(F.struct(F.lit(1).alias("a"), F.lit("x").alias("b"))))


# ---- names only Spark Connect has: classic PySpark's error, as spate's ---------------------

@case
def session_client_connect_only(s):
    return s.spark.client


@case
def session_copy_to_fs_connect_only(s):
    return s.spark.copyFromLocalToFs("/tmp/a", "/tmp/b")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'read_changes_delta': Differs("D7", "error", "5b79f3c823"),
    'read_stream_changes_delta': Differs("D7", "error", "865318f093"),
    'to_json_shape': Differs("D21", "value", "062340a647"),
})
