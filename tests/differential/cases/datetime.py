"""Date and timestamp functions, formats and session time zones."""

from dsl import pins, Differs, case, expr_cases

DATES = ("VALUES (DATE'2020-02-29'), (DATE'2021-12-31'), (DATE'1969-07-20'), (NULL),"
         " (DATE'2024-01-01') AS t(d)")
TSS = ("VALUES (TIMESTAMP'2020-02-29 23:59:59.123456'), (TIMESTAMP'2021-03-14 02:30:00'),"
       " (TIMESTAMP'1970-01-01 00:00:00'), (NULL), (TIMESTAMP'2024-11-03 01:30:00') AS t(ts)")

expr_cases("date", DATES, [
    "date_add(d, 1)", "date_sub(d, 30)", "d + 1", "d - 1", "datediff(d, DATE'2020-01-01')",
    "add_months(d, 1)", "add_months(d, -12)", "months_between(d, DATE'2020-01-31')",
    "last_day(d)", "next_day(d, 'MON')", "next_day(d, 'sunday')", "trunc(d, 'MM')",
    "trunc(d, 'YEAR')", "trunc(d, 'week')", "date_trunc('quarter', d)", "year(d)", "month(d)",
    "day(d)", "dayofmonth(d)", "dayofweek(d)", "weekday(d)", "dayofyear(d)", "weekofyear(d)",
    "quarter(d)", "extract(YEAR FROM d)", "date_part('doy', d)", "unix_date(d)",
    "date_format(d, 'yyyy/MM/dd EEE')", "date_format(d, 'MMMM d, y')", "date_format(d, 'D w u')",
    "cast(d AS timestamp)", "to_date(cast(d AS string))", "d > DATE'2021-01-01'",
    "make_date(year(d), month(d), 1)", "d - DATE'2020-01-01'",
])
expr_cases("timestamp", TSS, [
    "hour(ts)", "minute(ts)", "second(ts)", "date_trunc('hour', ts)", "date_trunc('MINUTE', ts)",
    "date_trunc('week', ts)", "date_trunc('millisecond', ts)", "cast(ts AS date)",
    "cast(ts AS string)", "unix_timestamp(ts)", "unix_micros(ts)", "unix_millis(ts)",
    "unix_seconds(ts)", "date_format(ts, 'yyyy-MM-dd HH:mm:ss.SSS')",
    "date_format(ts, 'h:mm a')", "date_format(ts, 'yyyy-MM-dd''T''HH:mm:ssXXX')",
    "from_utc_timestamp(ts, 'Asia/Tokyo')", "to_utc_timestamp(ts, 'America/New_York')",
    "ts + INTERVAL 1 DAY", "ts - INTERVAL '1:30' HOUR TO MINUTE", "ts + INTERVAL 1 MONTH",
    "extract(SECOND FROM ts)", "date_part('hour', ts)", "cast(ts AS timestamp_ntz)",
    "ts > TIMESTAMP'2021-01-01'", "ts - TIMESTAMP'2020-01-01 00:00:00'",
    "datediff(ts, TIMESTAMP'2020-01-01 12:00:00')", "months_between(ts, TIMESTAMP'2020-01-01 00:00:00')",
    "window(ts, '1 hour').start",
])
expr_cases("datetime_literal", "", [
    "to_date('2020-01-05')", "to_date('05/01/2020', 'dd/MM/yyyy')", "to_date('2020-13-01')",
    "try_to_date('2020-13-01')", "to_date('junk', 'yyyy')",
    "to_timestamp('2020-01-05 10:11:12')", "to_timestamp('05.01.2020 10:11', 'dd.MM.yyyy HH:mm')",
    "to_timestamp('2020-01-05T10:11:12.5+01:00')", "try_to_timestamp('x')",
    "unix_timestamp('2020-01-05 00:00:00')", "unix_timestamp('2020-01-05', 'yyyy-MM-dd')",
    "from_unixtime(0)", "from_unixtime(1600000000, 'yyyy-MM-dd HH:mm')", "timestamp_seconds(1600000000)",
    "timestamp_millis(1600000000123)", "timestamp_micros(1600000000123456)",
    "date_from_unix_date(18000)", "make_timestamp(2020, 1, 5, 10, 11, 12.5)",
    "make_timestamp(2020, 2, 30, 0, 0, 0)", "make_date(2020, 2, 30)", "make_timestamp_ntz(2020, 1, 5, 1, 2, 3)",
    "make_dt_interval(1, 2, 3, 4.5)", "make_ym_interval(1, 2)", "to_timestamp_ntz('2020-01-05 10:11:12')",
    "to_timestamp_ltz('2020-01-05 10:11:12')", "add_months(DATE'2020-01-31', 1)",
    "months_between(TIMESTAMP'2020-03-31 00:00:00', TIMESTAMP'2020-02-29 00:00:00')",
    "months_between(DATE'2020-03-15', DATE'2020-02-01', false)", "next_day(DATE'2020-01-05', 'xx')",
    "last_day(DATE'2020-02-10')", "date_add(DATE'2020-01-01', 2147483647)", "datediff(DATE'2020-01-01', DATE'2021-01-01')",
    "DATE'2020-01-01' + INTERVAL 1 DAY", "INTERVAL 1 DAY + INTERVAL 2 HOURS", "INTERVAL '1' YEAR * 3",
    "date_format(TIMESTAMP'2020-01-05 10:11:12', 'QQQ yy LLL')", "date_format(DATE'2020-01-05', 'E')",
    "extract(DAYOFWEEK FROM DATE'2020-01-05')", "extract(WEEK FROM DATE'2021-01-01')",
    "extract(MONTH FROM INTERVAL '1-5' YEAR TO MONTH)", "cast(TIMESTAMP_NTZ'2020-01-05 10:00:00' AS timestamp)",
    "typeof(current_date())", "typeof(now())", "current_timezone()",
])

# DATE / TIMESTAMP / TIMESTAMP_NTZ literals read their text with CAST's parser (Spark's
# AstBuilder calls stringToDate / stringToTimestamp / stringToTimestampWithoutTimeZone):
# each of these was read differently by spate's former literal-only parser.
expr_cases("typed_literal_text", "", [
    "DATE '2024-01-01\x7f'", "DATE '\x012024-01-01'", "cast(DATE '5881580-01-01' AS string)",
    "DATE '2024-01-01junk'", "TIMESTAMP_NTZ '2024-01-01 10:00:00+01:00'",
    "TIMESTAMP_NTZ '2024-01-01 10:00:00 Europe/Paris'", "TIMESTAMP_NTZ '2024-01-01 10:00:00 junk'",
    "TIMESTAMP '2024-01-01T10:00:00.1234567891'", "TIMESTAMP '1234567-01-01'",
    "cast(TIMESTAMP '123456-01-01' AS string)", "TIMESTAMP '2024-01-01 10:00:00 America/Los_Angeles'",
    "TIMESTAMP '2024-01-01 10'", "TIMESTAMP '2024-01-01Z'", "TIMESTAMP '2024-01-01 +01:00'",
    "TIMESTAMP '2024-01-01T10:00:00z'", "hour(TIMESTAMP 'T10:30')",
    "TIMESTAMP '2024-01-01 10:00:00 +01:00:30'", "TIMESTAMP '2024-01-01 10:00:00 utc'",
])

# Session time zones: the same instants seen from other zones.
for zone in ("America/Los_Angeles", "Asia/Kolkata", "+05:45"):
    expr_cases(f"zone_{zone}", "", [
        "cast(TIMESTAMP'2021-03-14 10:00:00' AS string)", "current_timezone()",
        "cast(timestamp_seconds(0) AS string)", "hour(timestamp_seconds(0))",
        "date_format(timestamp_seconds(1600000000), 'yyyy-MM-dd HH:mm:ss XXX')",
        "unix_timestamp('2021-03-14 02:30:00')", "from_unixtime(0)",
        "cast(cast(TIMESTAMP'2020-06-01 00:00:00' AS date) AS string)",
        "cast(TIMESTAMP_NTZ'2020-06-01 00:00:00' AS timestamp) = TIMESTAMP'2020-06-01 00:00:00'",
        "to_utc_timestamp(TIMESTAMP'2020-06-01 00:00:00', 'UTC')",
        "date_trunc('DAY', timestamp_seconds(1600000000))",
        "cast(TIMESTAMP'2020-01-01 00:00:00+00:00' AS string)",
    ], conf={"spark.sql.session.timeZone": zone})


@case(conf={"spark.sql.session.timeZone": "America/Los_Angeles"})
def collect_timestamps_in_zone(s):
    # collect() of TIMESTAMP: pyspark gives naive datetimes in the process's zone (TZ=UTC here).
    return s.spark.sql("SELECT TIMESTAMP'2021-03-14 10:00:00' AS ts, DATE'2021-03-14' AS d")


@case
def dataframe_date_functions(s):
    F = s.F
    df = s.spark.createDataFrame([("2020-02-29",), ("2021-07-04",)], ["s"])
    return df.select(F.to_date("s").alias("d"), F.date_add(F.to_date("s"), 3).alias("p"),
                     F.date_format(F.to_date("s"), "dd MMM yyyy").alias("f"),
                     F.year(F.col("s")).alias("y"), F.last_day(F.col("s")).alias("l"))


# make_dt_interval's result is NULL only from an input, with ANSI on or off.
expr_cases("datetime_non_ansi", "(SELECT 1 AS d, CAST(NULL AS INT) AS n)", [
    "make_dt_interval(1, 2, 3, 4.5)", "make_dt_interval(d, 2)", "make_dt_interval(n)"],
    conf={"spark.sql.ansi.enabled": "false"})
expr_cases("datetime_ansi_nullability", "(SELECT 1 AS d, CAST(NULL AS INT) AS n)", [
    "make_dt_interval(d, 2)", "make_dt_interval(n)"])


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'collect_timestamps_in_zone': Differs("D8", "rows", "dfb4c56bbb"),
    "datetime_literal/INTERVAL '1' YEAR * 3": Differs("D7", "error", "39d9db2e8d"),
    'datetime_literal/make_ym_interval(1, 2)': Differs("D7", "error", "fb3ab34c4d"),
    "zone_+05:45/date_trunc('DAY', timestamp_seconds(1600000000))": Differs("D8", "rows", "a9d7701cba"),
    "zone_+05:45/to_utc_timestamp(TIMESTAMP'2020-06-01 00:00:00', 'UTC')": Differs("D8", "rows", "2dae2b7f41"),
    "zone_America/Los_Angeles/date_trunc('DAY', timestamp_seconds(1600000000))": Differs("D8", "rows", "c25cd6b789"),
    "zone_America/Los_Angeles/to_utc_timestamp(TIMESTAMP'2020-06-01 00:00:00', 'UTC')": Differs("D8", "rows", "940fb2039e"),
    "zone_Asia/Kolkata/date_trunc('DAY', timestamp_seconds(1600000000))": Differs("D8", "rows", "269f2460b9"),
    "zone_Asia/Kolkata/to_utc_timestamp(TIMESTAMP'2020-06-01 00:00:00', 'UTC')": Differs("D8", "rows", "4a9c71f2f4"),
})
