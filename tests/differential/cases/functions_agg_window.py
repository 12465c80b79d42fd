"""Aggregates, window functions and generators added from real Spark's SHOW FUNCTIONS
(docs/functions.md): try_sum / try_avg (NULL on overflow, also through partial / merged
states, windows and streaming state), nth_value, stack, and the WITHIN GROUP aggregates
percentile_cont, percentile_disc, listagg and string_agg.

Rows whose result would depend on how Spark splits a VALUES list over its two partitions
(an overflow that a partial sum may or may not see, listagg without WITHIN GROUP over
several values) are left out: each case is partition independent."""

import os

from dsl import case, sql_case

MAXL = "9223372036854775807L"
D38 = "CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0))"
D28 = "CAST('9999999999999999999999999999' AS DECIMAL(28,0))"

# ---- try_sum / try_avg -------------------------------------------------------------------
sql_case("try_sum/ints", "SELECT try_sum(x), try_avg(x), sum(x), avg(x) FROM VALUES (1), (2), (NULL) t(x)")
sql_case("try_sum/long_overflow", f"SELECT try_sum(x) FROM VALUES ({MAXL}), (1L) t(x)")
# Averages near 2^62 are compared as BIGINT: Spark on Java 17 prints (and casts through
# text) such doubles with more digits than the shortest form (docs/spark-differences.md D3).
sql_case("try_sum/long_avg_no_overflow", f"SELECT CAST(try_avg(x) AS BIGINT) FROM VALUES ({MAXL}), (1L) t(x)")
sql_case("try_sum/tinyint", "SELECT try_sum(x), try_avg(x) FROM VALUES (1Y), (127Y) t(x)")
sql_case("try_sum/int_past_int", "SELECT try_sum(x), try_avg(x) FROM VALUES (2147483647), (1), (5) t(x)")
sql_case("try_sum/doubles", "SELECT try_sum(x), try_avg(x) FROM VALUES (1.5D), (2.5D) t(x)")
sql_case("try_sum/floats", "SELECT try_sum(x), try_avg(x) FROM VALUES (1.5F), (2.5F) t(x)")
sql_case("try_sum/double_inf_nan", "SELECT try_sum(x), try_avg(x) FROM VALUES (1e308D), (1e308D) t(x)")
sql_case("try_sum/nan", "SELECT try_sum(x) FROM VALUES (double('NaN')), (1D) t(x)")
sql_case("try_sum/decimal", "SELECT try_sum(x), try_avg(x) FROM VALUES (CAST(1.5 AS DECIMAL(5,2))), (2.25) t(x)")
sql_case("try_sum/decimal_overflow", f"SELECT try_sum(x), try_avg(x) FROM VALUES ({D38}), (CAST(1 AS DECIMAL(38,0))) t(x)")
sql_case("try_sum/decimal_wide", f"SELECT try_sum(x), try_avg(x) FROM VALUES ({D28}), ({D28}) t(x)")
sql_case("try_sum/decimal_avg_out_of_range",
         "SELECT try_avg(x) FROM VALUES (CAST('9999999999999999999999999999999999999' AS DECIMAL(38,0))), "
         "(CAST('9999999999999999999999999999999999999' AS DECIMAL(38,0))) t(x)")
sql_case("try_sum/avg_decimal_ansi_error",
         "SELECT avg(x) FROM VALUES (CAST('9999999999999999999999999999999999999' AS DECIMAL(38,0))), "
         "(CAST('9999999999999999999999999999999999999' AS DECIMAL(38,0))) t(x)")
sql_case("try_sum/types", "SELECT typeof(try_sum(x)), typeof(try_avg(x)), typeof(avg(x)) FROM VALUES "
         "(CAST(1 AS DECIMAL(38,10))) t(x)")
sql_case("try_sum/decimal_null", "SELECT try_sum(x), try_avg(x) FROM VALUES (CAST(NULL AS DECIMAL(10,2))) t(x)")
sql_case("try_sum/day_time", "SELECT try_sum(x), try_avg(x), sum(x), avg(x) FROM VALUES "
         "(INTERVAL 1 DAY), (INTERVAL 2 HOUR) t(x)")
sql_case("try_sum/day_time_rounding", "SELECT CAST(avg(x) AS STRING) a, CAST(try_avg(y) AS STRING) b FROM VALUES "
         "(INTERVAL '1' DAY, INTERVAL '-1' DAY), (INTERVAL '0.000001' SECOND, INTERVAL '-0.000001' SECOND), "
         "(INTERVAL '0.000001' SECOND, INTERVAL '-0.000001' SECOND) t(x, y)")
sql_case("try_sum/year_month", "SELECT CAST(try_sum(x) AS STRING) a, CAST(try_avg(x) AS STRING) b, "
         "CAST(sum(x) AS STRING) c, CAST(avg(x) AS STRING) d FROM VALUES "
         "(INTERVAL '1' MONTH), (INTERVAL '2' MONTH), (INTERVAL '2' MONTH) t(x)")
sql_case("try_sum/year_month_negative", "SELECT CAST(try_avg(x) AS STRING) a, CAST(avg(x) AS STRING) b FROM VALUES "
         "(INTERVAL '-1' MONTH), (INTERVAL '-2' MONTH), (INTERVAL '-2' MONTH) t(x)")
sql_case("try_sum/interval_types", "SELECT typeof(try_sum(x)), typeof(try_avg(x)), typeof(try_sum(y)), "
         "typeof(try_avg(y)) FROM VALUES (INTERVAL '1' SECOND, INTERVAL '1' YEAR) t(x, y)")
sql_case("try_sum/year_month_overflow", "SELECT CAST(try_sum(x) AS STRING) a, CAST(try_avg(x) AS STRING) b "
         "FROM VALUES (INTERVAL '178956970-7' YEAR TO MONTH), (INTERVAL 1 MONTH) t(x)")
sql_case("try_sum/day_time_overflow", "SELECT try_sum(x), try_avg(x) FROM VALUES "
         "(INTERVAL '106751991 04' DAY TO HOUR), (INTERVAL 1 DAY) t(x)")
sql_case("try_sum/sum_interval_overflow_error", "SELECT sum(x) FROM VALUES "
         "(INTERVAL '178956970-7' YEAR TO MONTH), (INTERVAL 1 MONTH) t(x)")
sql_case("try_sum/sum_interval_overflow_error_legacy", "SELECT avg(x) FROM VALUES "
         "(INTERVAL '178956970-7' YEAR TO MONTH), (INTERVAL 1 MONTH) t(x)",
         conf={"spark.sql.ansi.enabled": "false"})
sql_case("try_sum/strings", "SELECT try_sum(x), try_avg(x), sum(x), avg(x) FROM VALUES ('1'), ('2.5') t(x)")
sql_case("try_sum/all_null", "SELECT try_sum(x), try_avg(x) FROM VALUES (NULL), (NULL) t(x)")
sql_case("try_sum/boolean_error", "SELECT try_sum(x) FROM VALUES (true) t(x)")
sql_case("try_avg/boolean_error", "SELECT try_avg(x) FROM VALUES (true) t(x)")
sql_case("try_sum/two_args_error", "SELECT try_sum(x, 1) FROM VALUES (1) t(x)")
sql_case("try_sum/empty", "SELECT try_sum(x), try_avg(x) FROM VALUES (1) t(x) WHERE x > 5")
sql_case("try_sum/distinct", "SELECT try_sum(DISTINCT x), try_avg(DISTINCT x) FROM VALUES (1), (1), (2) t(x)")
sql_case("try_sum/group_by", f"SELECT k, try_sum(x), CAST(try_avg(x) AS BIGINT) FROM VALUES (1, {MAXL}), (1, 1L), (2, 5L), "
         "(2, -7L) t(k, x) GROUP BY k")
sql_case("try_sum/group_by_many", "SELECT id % 7 AS k, try_sum(id), try_avg(id) FROM range(1000) GROUP BY 1")
sql_case("try_sum/window_running", f"SELECT i, try_sum(x) OVER (ORDER BY i) s, "
         "try_cast(try_avg(x) OVER (ORDER BY i) AS BIGINT) a "
         f"FROM VALUES (1, {MAXL}), (2, 1L), (3, 5L) t(i, x)")
sql_case("try_sum/window_sliding", f"SELECT i, try_sum(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) s "
         f"FROM VALUES (1, {MAXL}), (2, 1L), (3, 5L), (4, 6L) t(i, x)")
sql_case("try_sum/window_partition", "SELECT k, x, try_sum(x) OVER (PARTITION BY k) s, "
         "CAST(try_avg(y) OVER (PARTITION BY k) AS STRING) a FROM VALUES "
         "(1, 1, INTERVAL '1' MONTH), (1, 2, INTERVAL '2' MONTH), (2, 3, INTERVAL '3' MONTH) t(k, x, y)")
sql_case("try_sum/legacy_long", f"SELECT try_sum(x), sum(x) FROM VALUES ({MAXL}), (1L) t(x)",
         conf={"spark.sql.ansi.enabled": "false"})
sql_case("try_sum/legacy_decimal", f"SELECT try_sum(x), sum(x), try_avg(x), avg(x) FROM VALUES ({D38}), "
         "(CAST(1 AS DECIMAL(38,0))) t(x)", conf={"spark.sql.ansi.enabled": "false"})


@case
def try_sum_dataframe(s):
    F = s.F
    df = s.spark.createDataFrame([(1, 9223372036854775807), (1, 1), (2, 4), (2, 5)], "k int, v long")
    return df.groupBy("k").agg(F.try_sum("v").alias("s"), F.try_avg("v").cast("bigint").alias("a"),
                               F.sum("k").alias("n"))


@case
def try_sum_streaming_state(s):
    """try_sum / try_avg in streaming aggregation state: one file per micro-batch, so the
    overflow of group 'a' happens when batch 2's rows merge into batch 1's state."""
    F = s.F
    src = os.path.join(s.tmp, "in")
    os.makedirs(src)
    batches = [[("a", 9223372036854775806), ("b", 1)], [("a", 5), ("b", 2)], [("b", 3)]]
    for n, rows in enumerate(batches):
        path = os.path.join(src, f"part-{n}.json")
        with open(path, "w") as f:
            f.write("".join('{"g": "%s", "v": %d}\n' % r for r in rows))
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))
    df = s.spark.readStream.schema("g string, v long").option("maxFilesPerTrigger", 1).json(src)
    q = (df.groupBy("g").agg(F.try_sum("v").alias("s"), F.try_avg("v").cast("bigint").alias("a"),
                             F.count("*").alias("n"))
         .writeStream.format("memory").queryName("try_sum_state").outputMode("complete")
         .option("checkpointLocation", os.path.join(s.tmp, "chk")).trigger(availableNow=True).start())
    q.awaitTermination()
    return s.spark.sql("SELECT * FROM try_sum_state")


# ---- nth_value ---------------------------------------------------------------------------
NV = "VALUES (1), (2), (3), (NULL) t(x)"
sql_case("nth_value/default_frame", f"SELECT x, nth_value(x, 2) OVER (ORDER BY x) r FROM {NV}")
sql_case("nth_value/whole_frame", f"SELECT x, nth_value(x, 2) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING "
         f"AND UNBOUNDED FOLLOWING) r FROM {NV}")
sql_case("nth_value/ignore_nulls", f"SELECT x, nth_value(x, 2) IGNORE NULLS OVER (ORDER BY x ROWS BETWEEN "
         f"UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) r FROM {NV}")
sql_case("nth_value/respect_nulls", "SELECT x, nth_value(x, 2) RESPECT NULLS OVER (ORDER BY x) r FROM VALUES (1), (2) t(x)")
sql_case("nth_value/third_arg", "SELECT x, nth_value(x, 2, true) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND "
         "1 FOLLOWING) r, nth_value(x, 2, false) OVER (ORDER BY x) f FROM VALUES (1), (2), (3), (NULL), (5) t(x)")
sql_case("nth_value/following_frame", "SELECT x, nth_value(x, 1) OVER (PARTITION BY x % 2 ORDER BY x ROWS BETWEEN "
         "1 FOLLOWING AND 2 FOLLOWING) r FROM VALUES (1), (2), (3), (4), (5), (6), (7) t(x)")
sql_case("nth_value/range_frame", "SELECT x, nth_value(x, 2) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND "
         "CURRENT ROW) r FROM VALUES (1), (2), (3), (4), (6) t(x)")
sql_case("nth_value/strings_ignore_nulls", "SELECT i, s, nth_value(s, 3) IGNORE NULLS OVER (ORDER BY i) r FROM VALUES "
         "(1, 'a'), (2, NULL), (3, 'b'), (4, NULL), (5, 'c'), (6, 'd') t(i, s)")
sql_case("nth_value/past_the_frame", "SELECT i, nth_value(i, 10) OVER (ORDER BY i) r FROM range(5) t(i)")
sql_case("nth_value/long_offset", "SELECT x, nth_value(x, 2L) OVER (ORDER BY x) r FROM VALUES (1), (2) t(x)")
sql_case("nth_value/string_offset", "SELECT x, nth_value(x, '2') OVER (ORDER BY x) r FROM VALUES (1), (2) t(x)")
sql_case("nth_value/big_partitions", "SELECT id, nth_value(id, 3) OVER (PARTITION BY id % 3 ORDER BY id ROWS "
         "BETWEEN 5 PRECEDING AND CURRENT ROW) r FROM range(40)")
sql_case("nth_value/unordered_error", "SELECT x, nth_value(x, 2) OVER (PARTITION BY x) FROM VALUES (1), (2) t(x)")
sql_case("nth_value/zero_error", "SELECT nth_value(x, 0) OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/negative_error", "SELECT nth_value(x, -1) OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/non_foldable_error", "SELECT nth_value(x, x) OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/null_offset_error", "SELECT nth_value(x, NULL) OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/one_arg_error", "SELECT nth_value(x) OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/bad_ignore_error", "SELECT nth_value(x, 2, 'yes') OVER (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("nth_value/no_over_error", "SELECT nth_value(x, 2) FROM VALUES (1) t(x)")
sql_case("nth_value/offset_overflow_error", "SELECT nth_value(x, 2147483648) OVER (ORDER BY x) FROM VALUES (1) t(x)")


@case
def nth_value_dataframe(s):
    F, W = s.F, s.Window
    df = s.spark.createDataFrame([("a", 1, None), ("a", 2, 20), ("a", 3, 30), ("b", 1, 5)], "g string, o int, v int")
    w = W.partitionBy("g").orderBy("o")
    whole = w.rowsBetween(W.unboundedPreceding, W.unboundedFollowing)
    return df.select("g", "o", F.nth_value("v", 2).over(w).alias("n2"),
                     F.nth_value("v", 2, ignoreNulls=True).over(whole).alias("n2i"))


# ---- stack ---------------------------------------------------------------------------------
sql_case("stack/two_rows", "SELECT stack(2, 1, 'a', 2, 'b')")
sql_case("stack/padded", "SELECT stack(3, 1, 2, 3, 4, 5)")
sql_case("stack/one_row", "SELECT stack(1, 1, 2)")
sql_case("stack/nulls", "SELECT stack(2, 1, NULL, NULL, 2)")
sql_case("stack/nested", "SELECT stack(2, array(1), map(1, 2), array(2), map(3, 4))")
sql_case("stack/with_other_column", "SELECT stack(2, 1, 'a', 2, 'b'), 1")
sql_case("stack/aliases", "SELECT x, stack(2, x, 'p', x + 1, 'q') AS (a, b) FROM VALUES (1), (10) t(x)")
sql_case("stack/lateral_view", "SELECT t.x, s.* FROM VALUES (1), (10) t(x) LATERAL VIEW stack(2, x, x * 2) s AS v")
sql_case("stack/lateral_view_outer", "SELECT t.x, v FROM VALUES (1), (10) t(x) LATERAL VIEW OUTER stack(2, x, x * 2) s AS v")
sql_case("stack/from", "SELECT * FROM stack(2, 1, 2)")
sql_case("stack/diff_types_error", "SELECT stack(2, 1, 2L, 3, 4)")
sql_case("stack/diff_types_error_strings", "SELECT stack(2, 1, 'a', 'x', 2)")
sql_case("stack/zero_error", "SELECT stack(0, 1, 2)")
sql_case("stack/one_arg_error", "SELECT stack(1)")
sql_case("stack/non_foldable_error", "SELECT stack(x, 1, 2) FROM VALUES (1) t(x)")
sql_case("stack/string_n_error", "SELECT stack('2', 1, 2)")
sql_case("stack/nested_error", "SELECT stack(2, 1, 2) + 1")


@case
def stack_dataframe(s):
    F = s.F
    df = s.spark.createDataFrame([(1, "x", 2, "y")], "a int, b string, c int, d string")
    return df.select(F.stack(F.lit(2), "a", "b", "c", "d"))


@case
def stack_select_expr(s):
    df = s.spark.createDataFrame([(1, 2, 3, 4)], "q1 int, q2 int, q3 int, q4 int")
    return df.selectExpr("stack(2, 'first', q1 + q2, 'second', q3 + q4) AS (name, total)")


# ---- percentile_cont / percentile_disc -------------------------------------------------------
sql_case("percentile_cont/basic", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) c, "
         "percentile_disc(0.5) WITHIN GROUP (ORDER BY x) d FROM VALUES (1), (2), (3), (4), (NULL) t(x)")
sql_case("percentile_cont/desc", "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC), "
         "percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) FROM VALUES (1), (2), (3), (4) t(x)")
sql_case("percentile_cont/array", "SELECT percentile_cont(array(0.25, 0.5)) WITHIN GROUP (ORDER BY x) FROM "
         "VALUES (1), (2), (3), (4) t(x)")
sql_case("percentile_disc/edges", "SELECT percentile_disc(0.0) WITHIN GROUP (ORDER BY x), percentile_disc(1.0) "
         "WITHIN GROUP (ORDER BY x), percentile_disc(0.3) WITHIN GROUP (ORDER BY x) FROM VALUES (1), (2), (3), (4), (5) t(x)")
sql_case("percentile_disc/cume_dist", "SELECT percentile_disc(0.55) WITHIN GROUP (ORDER BY x) a, percentile_disc(0.45) "
         "WITHIN GROUP (ORDER BY x) b, percentile_disc(0.3) WITHIN GROUP (ORDER BY x) c, percentile_disc(0.66) "
         "WITHIN GROUP (ORDER BY x) d, percentile_disc(0.67) WITHIN GROUP (ORDER BY x) e FROM VALUES (1), (2), (3) t(x)")
sql_case("percentile_disc/four", "SELECT percentile_disc(0.6) WITHIN GROUP (ORDER BY x) a, percentile_disc(0.5) "
         "WITHIN GROUP (ORDER BY x DESC) b, percentile_disc(0.6) WITHIN GROUP (ORDER BY x DESC) c, "
         "percentile_disc(0.34) WITHIN GROUP (ORDER BY x) d FROM VALUES (1), (2), (3), (4) t(x)")
sql_case("percentile_disc/range", "SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY id DESC) a, percentile_disc(0.7) "
         "WITHIN GROUP (ORDER BY id DESC) b, percentile_cont(0.3) WITHIN GROUP (ORDER BY id DESC) c, "
         "percentile_disc(0.7) WITHIN GROUP (ORDER BY id) d FROM range(1, 11)")
sql_case("percentile_cont/day_time", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) "
         "WITHIN GROUP (ORDER BY x) FROM VALUES (INTERVAL 1 DAY), (INTERVAL 2 DAY) t(x)")
sql_case("percentile_disc/day_time_array", "SELECT percentile_disc(array(0.5, 0.25)) WITHIN GROUP (ORDER BY x) FROM "
         "VALUES (INTERVAL 1 DAY), (INTERVAL 2 DAY), (INTERVAL 5 DAY) t(x)")
sql_case("percentile_cont/year_month", "SELECT CAST(percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS STRING) c, "
         "typeof(percentile_disc(0.5) WITHIN GROUP (ORDER BY x)) t FROM VALUES (INTERVAL 1 MONTH), (INTERVAL 3 MONTH) t(x)")
sql_case("percentile_cont/types", "SELECT typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)), "
         "typeof(percentile_disc(0.5) WITHIN GROUP (ORDER BY x)), typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY y)) "
         "FROM VALUES (CAST(1 AS DECIMAL(5,2)), 1Y) t(x, y)")
sql_case("percentile_cont/nulls_last_named", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x NULLS LAST) "
         "FROM VALUES (1), (2) t(x)")
sql_case("percentile_cont/null_only", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM VALUES "
         "(CAST(NULL AS INT)) t(x)")
sql_case("percentile_cont/nan", "SELECT median(x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM VALUES "
         "(1.5D), (double('NaN')), (2D) t(x)")
sql_case("percentile_cont/group_by", "SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) c, "
         "percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC) d FROM VALUES (1, 1), (1, 5), (2, 3) t(k, x) GROUP BY k")
sql_case("percentile_cont/filter", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1) FROM "
         "VALUES (1), (2), (3) t(x)")
sql_case("percentile_cont/window", "SELECT k, x, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) OVER (PARTITION BY k) p "
         "FROM VALUES (1, 1), (1, 5), (2, 3) t(k, x)")
sql_case("percentile_disc/window_order_error", "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) OVER "
         "(PARTITION BY k ORDER BY x) FROM VALUES (1, 1) t(k, x)")
sql_case("percentile_cont/out_of_range_error", "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("percentile_cont/two_orderings_error", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x, y) FROM "
         "VALUES (1, 2) t(x, y)")
sql_case("percentile_cont/missing_within_group_error", "SELECT percentile_cont(0.5) FROM VALUES (1) t(x)")
sql_case("percentile_disc/missing_within_group_error", "SELECT percentile_disc(0.5) FROM VALUES (1) t(x)")
sql_case("percentile_cont/non_foldable_error", "SELECT percentile_cont(x) WITHIN GROUP (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("percentile_cont/distinct_error", "SELECT percentile_cont(DISTINCT 0.5) WITHIN GROUP (ORDER BY x) FROM "
         "VALUES (1) t(x)")
sql_case("percentile_cont/timestamp_error", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM VALUES "
         "(TIMESTAMP'2020-01-01 00:00:00') t(x)")
sql_case("percentile_cont/two_args_error", "SELECT percentile_cont(0.5, 1) WITHIN GROUP (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("within_group/unsupported_aggregate_error", "SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM VALUES (1) t(x)")
sql_case("within_group/unsupported_scalar_error", "SELECT upper(s) WITHIN GROUP (ORDER BY s) FROM VALUES ('a') t(s)")

# ---- listagg / string_agg ------------------------------------------------------------------
LA = "VALUES ('a', 3), ('b', 1), (NULL, 0), ('c', 2) t(s, k)"
sql_case("listagg/order_by_value_desc", f"SELECT listagg(s, ',') WITHIN GROUP (ORDER BY s DESC) FROM {LA}")
sql_case("listagg/order_by_key", f"SELECT listagg(s, ',') WITHIN GROUP (ORDER BY k) FROM {LA}")
sql_case("listagg/no_delimiter", f"SELECT listagg(s) WITHIN GROUP (ORDER BY s) a, string_agg(s) WITHIN GROUP "
         f"(ORDER BY k DESC) b FROM {LA}")
sql_case("listagg/string_agg_named_listagg", f"SELECT string_agg(s, '-') WITHIN GROUP (ORDER BY s) FROM {LA}")
sql_case("listagg/two_keys", "SELECT listagg(s, ',') WITHIN GROUP (ORDER BY s, k DESC) FROM VALUES ('a', 3), "
         "('b', 1), ('a', 5) t(s, k)")
sql_case("listagg/null_keys", "SELECT listagg(s, ',') WITHIN GROUP (ORDER BY k) a, listagg(s, ',') WITHIN GROUP "
         "(ORDER BY k DESC) b, listagg(s, ',') WITHIN GROUP (ORDER BY k DESC NULLS FIRST) c FROM VALUES "
         "('a', 3), ('b', CAST(NULL AS INT)) t(s, k)")
sql_case("listagg/distinct", "SELECT listagg(DISTINCT s, ',') WITHIN GROUP (ORDER BY s) FROM VALUES ('a'), ('b'), "
         "('a'), ('c'), (NULL) t(s)")
sql_case("listagg/distinct_desc", "SELECT listagg(DISTINCT s, ',') WITHIN GROUP (ORDER BY s DESC) FROM VALUES "
         "('a'), ('b'), ('a'), ('c'), (NULL) t(s)")
sql_case("listagg/distinct_ints", "SELECT listagg(DISTINCT x, '-') WITHIN GROUP (ORDER BY x) FROM VALUES (2), (10), (2) t(x)")
sql_case("listagg/distinct_no_order", "SELECT listagg(DISTINCT s) a, string_agg(DISTINCT s, '/') b FROM VALUES "
         "('b'), ('b') t(s)")
sql_case("listagg/single_value_names", "SELECT listagg(s), string_agg(s), listagg(s, ', '), string_agg(s, '-'), "
         "listagg(s, NULL) FROM VALUES ('a') t(s)")
sql_case("listagg/ints", "SELECT listagg(x) WITHIN GROUP (ORDER BY x) a, listagg(x, 5) WITHIN GROUP (ORDER BY x) b "
         "FROM VALUES (1), (2) t(x)")
sql_case("listagg/doubles", "SELECT listagg(x, ',') WITHIN GROUP (ORDER BY x) FROM VALUES (1.5D), (2D) t(x)")
sql_case("listagg/other_types", "SELECT listagg(d, ',') WITHIN GROUP (ORDER BY d) a, listagg(b, ',') WITHIN GROUP "
         "(ORDER BY b) b FROM VALUES (DATE'2020-01-01', true), (DATE'2021-02-03', false) t(d, b)")
sql_case("listagg/binary", "SELECT listagg(b) WITHIN GROUP (ORDER BY b) a, listagg(b, X'FF') WITHIN GROUP "
         "(ORDER BY b) c, typeof(listagg(b)) t FROM VALUES (X'01'), (X'02') t(b)")
sql_case("listagg/empty", "SELECT listagg(s) FROM VALUES ('a') t(s) WHERE s = 'z'")
sql_case("listagg/all_null", "SELECT listagg(s, ',') WITHIN GROUP (ORDER BY s) FROM VALUES (CAST(NULL AS STRING)) t(s)")
sql_case("listagg/group_by", "SELECT k, listagg(s, '|') WITHIN GROUP (ORDER BY s) FROM VALUES (1, 'y'), (1, 'x'), "
         "(2, 'z'), (3, NULL) t(k, s) GROUP BY k")
sql_case("listagg/group_by_many", "SELECT id % 5 AS k, listagg(CAST(id AS STRING), ',') WITHIN GROUP (ORDER BY id DESC) "
         "FROM range(60) GROUP BY 1")
sql_case("listagg/filter", "SELECT listagg(s) WITHIN GROUP (ORDER BY s) FILTER (WHERE s <> 'b') FROM VALUES "
         "('a'), ('b'), ('c') t(s)")
sql_case("listagg/window_partition", "SELECT s, listagg(s, '|') WITHIN GROUP (ORDER BY s) OVER (PARTITION BY k) w "
         "FROM VALUES (1, 'x'), (1, 'y'), (2, 'z') t(k, s)")
sql_case("listagg/window_running", "SELECT s, listagg(s, '|') OVER (ORDER BY s) w FROM VALUES (1, 'x'), (1, 'y'), "
         "(2, 'z') t(k, s)")
sql_case("listagg/window_order_error", "SELECT listagg(s, '') WITHIN GROUP (ORDER BY s) OVER (ORDER BY s) FROM "
         "VALUES ('a') t(s)")
sql_case("listagg/window_distinct_error", "SELECT listagg(DISTINCT s) WITHIN GROUP (ORDER BY s) OVER (PARTITION BY 1) "
         "FROM VALUES ('b') t(s)")
sql_case("listagg/distinct_mismatch_error", "SELECT listagg(DISTINCT s, ',') WITHIN GROUP (ORDER BY k) FROM "
         "VALUES ('a', 3) t(s, k)")
sql_case("listagg/distinct_unsafe_cast_error", "SELECT listagg(DISTINCT x) WITHIN GROUP (ORDER BY x) FROM "
         "VALUES (1.5D) t(x)")
sql_case("listagg/non_foldable_delimiter_error", "SELECT listagg(s, d) FROM VALUES ('a', ',') t(s, d)")
sql_case("listagg/binary_string_error", "SELECT listagg(b, ',') FROM VALUES (X'01') t(b)")
sql_case("listagg/string_binary_error", "SELECT listagg(s, X'01') FROM VALUES ('a') t(s)")
sql_case("listagg/array_error", "SELECT listagg(a) FROM VALUES (array(1)) t(a)")
sql_case("listagg/three_args_error", "SELECT listagg(s, ',', 3) FROM VALUES ('a') t(s)")
sql_case("listagg/map_key_error", "SELECT listagg(s, '') WITHIN GROUP (ORDER BY a) FROM VALUES ('a', map(1, 2)) t(s, a)")


@case
def listagg_dataframe(s):
    F = s.F
    df = s.spark.createDataFrame([(1, "a"), (1, "a"), (2, "b"), (3, None)], "k int, s string")
    return df.groupBy("k").agg(F.listagg("s").alias("l"), F.listagg("s", "-").alias("d"),
                               F.listagg_distinct("s", ",").alias("ld"), F.string_agg("s", "/").alias("sa"),
                               F.string_agg_distinct("s").alias("sd"))


@case
def listagg_dataframe_names(s):
    F = s.F
    df = s.spark.createDataFrame([("a",)], "s string")
    return df.select(F.listagg("s"), F.listagg("s", ","), F.string_agg("s"), F.listagg_distinct("s"))
