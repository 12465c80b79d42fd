"""TIMESTAMPADD / DATEADD / DATE_ADD (unit, n, ts), TIMESTAMPDIFF / DATEDIFF / DATE_DIFF /
TIMEDIFF (unit, start, end) and the DataFrame API's timestamp_add / timestamp_diff: every
unit, TIMESTAMP vs TIMESTAMP_NTZ vs DATE inputs, month ends, negative amounts, DST days in a
non-UTC session zone, NULLs, the columns' names, the errors of bad units, types and
overflow."""

from dsl import Differs, case, expr_cases, pins, sql_case

UNITS = ("MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "DAYOFYEAR", "WEEK",
         "MONTH", "QUARTER", "YEAR")
TSS = ("VALUES (TIMESTAMP'2024-01-31 10:00:00.123456', 1), (TIMESTAMP'2020-02-29 23:59:59', -1),"
       " (TIMESTAMP'1969-12-31 23:00:00', 13), (NULL, 2), (TIMESTAMP'2023-11-30 00:00:00', NULL)"
       " AS t(ts, n)")

# Every unit, on TIMESTAMP, TIMESTAMP_NTZ and DATE, with negative amounts and NULLs.
expr_cases("add", TSS, [f"timestampadd({u}, n, ts)" for u in UNITS] + [
    "timestampadd(MONTH, n, CAST(ts AS TIMESTAMP_NTZ))", "timestampadd(HOUR, -n, CAST(ts AS TIMESTAMP_NTZ))",
    "timestampadd(WEEK, n, CAST(ts AS DATE))", "timestampadd(MINUTE, n, CAST(ts AS DATE))",
    "timestampadd(QUARTER, -n, ts)", "timestampadd(year, n * 4, ts)", "dateadd(Day, n, ts)",
    "date_add(MILLISECOND, n, ts)", "typeof(timestampadd(DAY, n, CAST(ts AS TIMESTAMP_NTZ)))",
    "typeof(timestampadd(DAY, n, CAST(ts AS DATE)))", "timestampadd(HOUR, CAST(n AS STRING), ts)",
    "timestampadd(DAY, n + 0.9, ts)", "timestampadd(SECOND, n, CAST(ts AS STRING))",
])
# Month ends clamp, as add_months.
expr_cases("add_month_end", "", [
    "timestampadd(MONTH, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(MONTH, -1, TIMESTAMP'2024-03-31 10:00:00')",
    "timestampadd(QUARTER, 1, TIMESTAMP'2023-11-30 10:00:00')",
    "timestampadd(YEAR, 1, TIMESTAMP'2024-02-29 10:00:00')",
    "timestampadd(YEAR, -4, TIMESTAMP_NTZ'2024-02-29 10:00:00')",
    "timestampadd(MONTH, 13, DATE'2023-01-31')",
])
expr_cases("diff", TSS + " CROSS JOIN VALUES (TIMESTAMP'2024-02-29 11:00:00') AS e(e)",
           [f"timestampdiff({u}, ts, e)" for u in UNITS if u != "DAYOFYEAR"] + [
    "timestampdiff(MONTH, e, ts)", "timestampdiff(YEAR, e, ts)", "timestampdiff(WEEK, e, ts)",
    "timestampdiff(SECOND, e, ts)", "datediff(HOUR, CAST(ts AS TIMESTAMP_NTZ), e)",
    "date_diff(Day, CAST(ts AS DATE), CAST(e AS DATE))", "timediff(minute, ts, CAST(e AS STRING))",
])
# Months count whole months: the end's day and time of day must reach the start's.
expr_cases("diff_months", "", [
    "timestampdiff(MONTH, TIMESTAMP'2024-01-31 10:00:00', TIMESTAMP'2024-02-29 10:00:00')",
    "timestampdiff(MONTH, TIMESTAMP'2024-01-15 10:00:00', TIMESTAMP'2024-02-15 09:00:00')",
    "timestampdiff(MONTH, TIMESTAMP'2024-03-31 10:00:00', TIMESTAMP'2024-02-29 11:00:00')",
    "timestampdiff(MONTH, TIMESTAMP'2024-02-29 10:00:00', TIMESTAMP'2024-03-31 10:00:00')",
    "timestampdiff(QUARTER, DATE'2024-01-31', DATE'2024-04-30')",
    "timestampdiff(YEAR, DATE'2024-02-29', DATE'2023-02-28')",
    "timestampdiff(YEAR, TIMESTAMP'2020-02-29 00:00:00', TIMESTAMP'2021-02-28 23:59:59')",
    "timestampdiff(SECOND, TIMESTAMP'2024-01-01 00:00:02.1', TIMESTAMP'2024-01-01 00:00:00.9')",
    "timestampdiff(MILLISECOND, TIMESTAMP'-290000-01-01 00:00:00', TIMESTAMP'290000-01-01 00:00:00')",
    "timestampdiff(DAYOFYEAR, CAST(NULL AS TIMESTAMP), TIMESTAMP'2020-01-01 00:00:00')",
])

# DST in the session zone: DAY / WEEK / MONTH keep the wall clock (a time in the gap moves
# forward; in the overlap the timestamp's own offset stays when it can), HOUR adds a
# duration; differences count wall-clock units. Compared as text and as micros (collect()
# of a TIMESTAMP in another zone differs: D8).
for zone in ("America/Los_Angeles", "Europe/Berlin"):
    expr_cases(f"dst_{zone}", "", [
        "CAST(timestampadd(DAY, 1, TIMESTAMP'2024-03-09 12:00:00') AS STRING)",
        "CAST(timestampadd(HOUR, 24, TIMESTAMP'2024-03-09 12:00:00') AS STRING)",
        "CAST(timestampadd(WEEK, 1, TIMESTAMP'2024-03-09 02:30:00') AS STRING)",
        "CAST(timestampadd(DAY, 1, TIMESTAMP'2024-03-30 02:30:00') AS STRING)",
        "CAST(timestampadd(MONTH, 1, TIMESTAMP'2024-02-10 02:30:00') AS STRING)",
        "unix_micros(timestampadd(DAY, 1, TIMESTAMP'2024-11-02 01:30:00'))",
        "unix_micros(timestampadd(DAY, -1, TIMESTAMP'2024-11-04 01:30:00'))",
        "unix_micros(timestampadd(DAY, -1, TIMESTAMP'2024-10-28 02:30:00'))",
        "unix_micros(timestampadd(DAY, 0, TIMESTAMP'2024-11-03 01:30:00 -08:00'))",
        "unix_micros(timestampadd(DAY, -1, timestampadd(HOUR, 1, TIMESTAMP'2024-11-03 01:30:00 -07:00')))",
        "unix_micros(timestampadd(MONTH, 1, TIMESTAMP'2024-09-27 02:30:00 +02:00'))",
        "timestampdiff(HOUR, TIMESTAMP'2024-03-10 00:00:00', TIMESTAMP'2024-03-11 00:00:00')",
        "timestampdiff(MINUTE, TIMESTAMP'2024-03-31 00:00:00', TIMESTAMP'2024-03-31 04:00:00')",
        "timestampdiff(DAY, TIMESTAMP'2024-03-10 00:30:00', TIMESTAMP'2024-03-11 00:00:00')",
        "timestampdiff(MINUTE, TIMESTAMP'2024-11-03 01:30:00 -07:00', TIMESTAMP'2024-11-03 01:30:00 -08:00')",
        "timestampdiff(HOUR, TIMESTAMP_NTZ'2024-03-10 00:00:00', TIMESTAMP_NTZ'2024-03-11 00:00:00')",
        "timestampdiff(HOUR, TIMESTAMP_NTZ'2024-03-10 02:30:00', TIMESTAMP'2024-03-10 05:00:00')",
        "CAST(timestampadd(DAY, 1, TIMESTAMP_NTZ'2024-03-09 02:30:00') AS STRING)",
        "CAST(timestampadd(HOUR, 1, DATE'2024-03-10') AS STRING)",
        "timestampdiff(HOUR, DATE'2024-03-10', DATE'2024-03-11')",
    ], conf={"spark.sql.session.timeZone": zone})

# Names: the unit as written, under every alias of the function.
sql_case("names", "SELECT timestampadd(HOUR, 2, TIMESTAMP'2024-01-31 10:00:00'),"
         " dateadd(Minute, -1, TIMESTAMP_NTZ'2024-01-31 10:00:00'), date_add(day, 1 + 1, DATE'2024-01-31'),"
         " timestampdiff(week, DATE'2024-01-01', DATE'2024-01-25'), DATEDIFF(DAY, DATE'2024-01-01', DATE'2024-01-05'),"
         " date_diff(Month, TIMESTAMP'2024-01-01 00:00:00', TIMESTAMP'2024-05-01 00:00:00'),"
         " Timediff(microsecond, DATE'2024-01-01', DATE'2024-01-02'), timestampadd(HOUR, 1, '2024-01-31 10:00:00'),"
         " timestampadd(HOUR, NULL, TIMESTAMP'2024-01-31 10:00:00'), timestampdiff(HOUR, NULL, NULL)")
sql_case("names_columns", "SELECT timestampadd(HOUR, n, ts), timestampdiff(SECOND, ts, ts) AS d FROM " + TSS)
sql_case("two_argument_forms", "SELECT date_add(DATE'2024-01-01', 1), dateadd(DATE'2024-01-01', 1),"
         " datediff(DATE'2024-01-05', DATE'2024-01-01'), date_diff(DATE'2024-01-05', DATE'2024-01-01')")
sql_case("unit_keyword_beats_column", "SELECT timestampadd(HOUR, 2, TIMESTAMP'2024-01-31 10:00:00')"
         " FROM VALUES (1) AS t(HOUR)")

# Errors.
expr_cases("errors", "", [
    "timestampadd(FOO, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(YEARS, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(`HOUR`, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(HOUR, 1)", "timestampadd(HOUR, 1, TIMESTAMP'2024-01-31 10:00:00', 3)",
    "timediff(FOO, DATE'2024-01-01', DATE'2024-01-02')",
    "datediff(FOO, DATE'2024-01-31', DATE'2024-02-01')",
    "date_add(FOO, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd('HOUR', 1, TIMESTAMP'2024-01-31 10:00:00')",
    "DATEDIFF('DAY', DATE'2024-01-01', DATE'2024-01-05')",
    "Date_Add(\"x\", 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampdiff(DAYOFYEAR, DATE'2020-01-01', DATE'2020-01-02')",
    "timestampadd(HOUR, true, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(DAY, INTERVAL '1' DAY, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(HOUR, 2, 5)", "timestampdiff(HOUR, 1, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampdiff(HOUR, TIMESTAMP'2024-01-31 10:00:00', 1)",
    "timestampadd(HOUR, 'x', TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(YEAR, 300000, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(year, 300000, TIMESTAMP_NTZ'2024-01-31 10:00:00')",
    "timestampadd(Day, 300000000, DATE'2024-01-31')",
    "timestampadd(MONTH, 2147483648, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(DAY, 106751992, TIMESTAMP'1970-01-01 00:00:00')",
    "timestampadd(MICROSECOND, 9223372036854775807, TIMESTAMP'2024-01-31 10:00:00.5')",
    # Spark: a plain java.lang.ArithmeticException "long overflow" (D5).
    "timestampdiff(MICROSECOND, TIMESTAMP'-290000-01-01 00:00:00', TIMESTAMP'290000-01-01 00:00:00')",
])
# Overflow fails with ANSI off too; a quantity that does not cast is then NULL.
expr_cases("non_ansi", "", [
    "timestampadd(YEAR, 300000, TIMESTAMP'2024-01-31 10:00:00')",
    "timestampadd(YEAR, 'x', TIMESTAMP'2024-01-31 10:00:00')",
    "timestampdiff(HOUR, 'x', TIMESTAMP'2024-01-31 10:00:00')",
], conf={"spark.sql.ansi.enabled": "false"})


def _frame(s):
    import datetime
    return s.spark.createDataFrame(
        [(datetime.datetime(2016, 3, 11, 9, 0, 7), 2, datetime.datetime(2024, 4, 2, 9, 0, 7)),
         (datetime.datetime(2024, 1, 31, 0, 0, 0), -3, None)], ["ts", "q", "ts2"])


@case
def dataframe_timestamp_add(s):
    F, df = s.F, _frame(s)
    return df.select("*", F.timestamp_add("year", "q", "ts"), F.timestamp_add("WEEK", F.lit(5), df.ts),
                     F.timestamp_add("day", F.lit(-5), "ts"), F.timestamp_add("Month", "q", "ts").alias("m"),
                     F.timestamp_add("DAYOFYEAR", "q", F.to_date("ts")))


@case
def dataframe_timestamp_diff(s):
    F, df = s.F, _frame(s)
    return df.select(F.timestamp_diff("year", "ts", "ts2"), F.timestamp_diff("WEEK", "ts", "ts2"),
                     F.timestamp_diff("day", df.ts2, df.ts), F.timestamp_diff("month", "ts", "ts2"),
                     F.timestamp_diff("QUARTER", F.to_date("ts"), "ts2").alias("qq"))


@case
def dataframe_bad_unit_add(s):
    F, df = s.F, _frame(s)
    return df.select(F.timestamp_add("FOO", "q", "ts"))


@case
def dataframe_quoted_unit(s):
    F, df = s.F, _frame(s)
    return df.select(F.timestamp_add("'DAY'", "q", "ts"))


@case
def dataframe_bad_unit_diff(s):
    F, df = s.F, _frame(s)
    return df.select(F.timestamp_diff("DAYOFYEAR", "ts", "ts2"))


@case
def dataframe_bad_unit_no_rows(s):
    # The unit is checked per row: none, no error.
    F, df = s.F, _frame(s)
    return df.where("q > 5").select(F.timestamp_add("FOO", "q", "ts"), F.timestamp_diff("", "ts", "ts2"))


@case(conf={"spark.sql.session.timeZone": "America/Los_Angeles"})
def dataframe_dst_day(s):
    F = s.F
    df = s.spark.sql("SELECT TIMESTAMP'2024-03-09 12:00:00' AS ts")
    return df.select(F.timestamp_add("DAY", F.lit(1), "ts").cast("string").alias("day"),
                     F.timestamp_add("HOUR", F.lit(24), "ts").cast("string").alias("hours"),
                     F.timestamp_diff("HOUR", "ts", F.timestamp_add("DAY", F.lit(1), "ts")).alias("d"))


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    "errors/timestampdiff(MICROSECOND, TIMESTAMP'-290000-01-01 00:00:00', TIMESTAMP'290000-01-01 00:00:00')": Differs("D5", "error", "d892fc9ed3"),
})
