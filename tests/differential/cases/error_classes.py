"""Error classes of analysis and runtime failures (the SQL logic tests' `statement error`
records name the same classes; these cases check them against Spark)."""

from dsl import sql_case

_EV = ["CREATE OR REPLACE TEMP VIEW ev AS SELECT TIMESTAMP'2024-01-01 00:00:00' AS ts, 1 AS v",
       "CREATE OR REPLACE TEMP VIEW arrs AS SELECT array(1, 2) AS arr"]

for _name, _sql in {
    "make_date_out_of_bounds": "SELECT make_date(2019, 2, 30)",
    "make_timestamp_out_of_bounds": "SELECT make_timestamp(2019, 2, 30, 0, 0, 0)",
    "approx_count_distinct_rsd_too_large": "SELECT approx_count_distinct(id, 0.5) FROM range(10)",
    "approx_count_distinct_rsd_not_literal": "SELECT approx_count_distinct(id, id) FROM range(10)",
    "lateral_view_alias_count": "SELECT * FROM arrs LATERAL VIEW posexplode(arr) v AS x",
    "lateral_view_alias_count_three": "SELECT * FROM arrs LATERAL VIEW posexplode(arr) v AS x, y, z",
    "window_month_interval": "SELECT window(ts, '1 month') FROM ev",
    "window_duration_not_literal": "SELECT window(ts, v) FROM ev",
    "window_two_windows": "SELECT window(ts, '5 minutes'), window(ts, '10 minutes') FROM ev",
    "sequence_illegal_boundaries": "SELECT sequence(1, 5, -1)",
    "ntile_zero": "SELECT ntile(0) OVER (ORDER BY v) FROM ev",
    "range_zero_step": "SELECT * FROM range(0, 10, 0)",
    "drop_default_schema": "DROP SCHEMA default",
    "drop_missing_view": "DROP VIEW never_existed",
}.items():
    sql_case(_name, _sql, setup=_EV)
