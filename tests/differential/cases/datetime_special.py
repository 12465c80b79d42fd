"""Spark's special date and timestamp values ('epoch', 'now', 'today', 'tomorrow',
'yesterday'): in typed literals (AstBuilder's convertSpecialDate / convertSpecialTimestamp /
convertSpecialTimestampNTZ) and in a CAST of a constant string (the optimizer's
SpecialDatetimeValues), not in a CAST of a column. Values that depend on the clock are
compared through current_date() / current_timestamp(), never row for row."""

from dsl import case, expr_cases

expr_cases("typed_literal", "", [
    "DATE 'epoch'", "DATE ' EPOCH '", "DATE 'Epoch\t'", "DATE '\x01epoch\x01'",
    "DATE 'today' = current_date()", "DATE 'ToDaY' = current_date()",
    "DATE 'now' = current_date()", "DATE 'yesterday' = date_sub(current_date(), 1)",
    "DATE 'tomorrow' = date_add(current_date(), 1)",
    "TIMESTAMP 'epoch'", "TIMESTAMP_LTZ 'epoch'", "TIMESTAMP_NTZ 'epoch'",
    "TIMESTAMP 'today' = cast(current_date() AS timestamp)",
    "TIMESTAMP 'yesterday' = cast(date_sub(current_date(), 1) AS timestamp)",
    "TIMESTAMP 'Tomorrow' = cast(date_add(current_date(), 1) AS timestamp)",
    "TIMESTAMP_NTZ 'today' = cast(current_date() AS timestamp_ntz)",
    "TIMESTAMP_NTZ 'yesterday' = cast(date_sub(current_date(), 1) AS timestamp_ntz)",
    "TIMESTAMP_NTZ 'tomorrow' = cast(date_add(current_date(), 1) AS timestamp_ntz)",
    "TIMESTAMP 'now' <= current_timestamp()",
    "abs(unix_micros(TIMESTAMP 'now') - unix_micros(current_timestamp())) < 60000000",
    "abs(unix_micros(cast(TIMESTAMP_NTZ 'NOW' AS timestamp))"
    " - unix_micros(current_timestamp())) < 60000000",
    "typeof(DATE 'today')", "typeof(TIMESTAMP 'now')", "typeof(TIMESTAMP_LTZ 'today')",
    "typeof(TIMESTAMP_NTZ 'now')",
    "DATE 'today' - DATE 'yesterday'", "DATE 'tomorrow' > DATE 'today'",
])

# A zone after the word (spaces or tabs between, or none before a sign) must be a valid
# zone id (case-sensitive, as Java's ZoneId.of) and is then ignored; never after 'now'.
# Anything else is INVALID_TYPED_LITERAL, as is text the date parser does not read.
expr_cases("typed_literal_zone", "", [
    "DATE 'epoch UTC'", "DATE 'epoch +01:00'", "DATE 'epoch\tEurope/Paris'",
    "DATE 'epoch+01:00'", "DATE 'epoch    GMT+1'", "DATE 'epoch EST'", "DATE 'epoch Z'",
    "TIMESTAMP 'epoch +1:00'", "TIMESTAMP 'epoch  UTC '", "TIMESTAMP_NTZ 'epoch +05:00'",
    "DATE 'today UTC' = current_date()", "TIMESTAMP 'yesterday +05:00'"
    " = cast(date_sub(current_date(), 1) AS timestamp)",
    "DATE 'epoch utc'", "DATE 'epoch est'", "DATE 'epoch europe/paris'", "DATE 'epoch -25:00'",
    "DATE 'now UTC'", "TIMESTAMP 'now UTC'", "TIMESTAMP_NTZ 'now +01:00'",
    "DATE 'epochUTC'", "DATE 'epoch1'", "DATE 'epoch.'", "DATE 'epoch junk'",
    "DATE 'epoch \x01UTC'", "DATE 'today\x7f'", "DATE 'ep'", "DATE 'foo'", "DATE 'épique'",
    "TIMESTAMP 'noon'", "TIMESTAMP_NTZ 'tonight'",
])

# CAST of a constant string reads them (Spark's optimizer rule SpecialDatetimeValues): an
# explicit CAST, try_cast, '::', the casts implicit in functions and comparisons.
expr_cases("cast_constant", "", [
    "CAST('epoch' AS DATE)", "CAST(' Today ' AS DATE) = current_date()",
    "try_cast('epoch' AS TIMESTAMP)", "'epoch'::timestamp_ntz", "CAST('EPOCH UTC' AS DATE)",
    "CAST(concat('ep', 'och') AS DATE)", "CAST(CAST('epoch' AS VARCHAR(10)) AS DATE)",
    "date_add('today', 1) = date_add(current_date(), 1)", "DATE '2024-01-01' < 'today'",
    "to_date('epoch')", "to_date('today') = current_date()", "try_to_date(' Epoch ')",
    "to_timestamp('epoch')", "try_to_timestamp('epoch')", "to_timestamp_ntz('epoch')",
    "to_timestamp_ltz('epoch')", "to_date('epoch', 'yyyy-MM-dd')",
    "try_to_date('epoch', 'yyyy-MM-dd')", "unix_timestamp('epoch')",
    "date('yesterday') = date_sub(current_date(), 1)",
    "timestamp('epoch')", "CAST('now' AS TIMESTAMP) IS NOT NULL",
    "CAST('tomorrow' AS TIMESTAMP_NTZ) = cast(date_add(current_date(), 1) AS timestamp_ntz)",
    "CAST('now UTC' AS TIMESTAMP)", "try_cast('now UTC' AS TIMESTAMP)",
    "CAST('epoch junk' AS DATE)",
])

# Not in a CAST of a column: CAST_INVALID_INPUT (ANSI) or NULL.
expr_cases("cast_column", "VALUES ('epoch'), ('today'), (NULL) AS t(s)", [
    "try_cast(s AS DATE)", "try_cast(s AS TIMESTAMP)", "try_to_date(s)",
])
expr_cases("cast_column_ansi", "VALUES ('epoch') AS t(s)", ["CAST(s AS DATE)"])
expr_cases("cast_column_non_ansi", "VALUES ('epoch'), ('now') AS t(s)", [
    "CAST(s AS DATE)", "CAST(s AS TIMESTAMP_NTZ)", "CAST('epoch' AS DATE)",
], conf={"spark.sql.ansi.enabled": "false"})

# 'today' and its neighbours are days of the session zone; 'epoch' is one instant. A zone
# 14 hours east of UTC has another date than UTC for most of the day.
for zone in ("Pacific/Kiritimati", "Etc/GMT+12"):
    expr_cases(f"zone_{zone}", "", [
        "DATE 'today' = current_date()", "DATE 'today UTC' = current_date()",
        "TIMESTAMP 'today' = cast(current_date() AS timestamp)",
        "TIMESTAMP 'tomorrow' = cast(date_add(current_date(), 1) AS timestamp)",
        "TIMESTAMP_NTZ 'today' = cast(current_date() AS timestamp_ntz)",
        "cast(TIMESTAMP 'epoch' AS string)", "cast(TIMESTAMP_NTZ 'epoch' AS string)",
        "CAST('today' AS DATE) = current_date()",
        "CAST('yesterday' AS TIMESTAMP) = cast(date_sub(current_date(), 1) AS timestamp)",
        "hour(TIMESTAMP 'today')",
    ], conf={"spark.sql.session.timeZone": zone})


@case
def dataframe_api(s):
    F = s.F
    df = s.spark.range(1)
    return df.select(F.lit("epoch").cast("date").alias("d"),
                     F.lit(" tomorrow ").cast("date").eqNullSafe(
                         F.date_add(F.current_date(), 1)).alias("t"),
                     (F.expr("DATE 'today'") == F.current_date()).alias("e"),
                     F.expr("TIMESTAMP_NTZ 'epoch'").alias("n"))


@case
def select_list_twice(s):
    # Each literal reads the clock once; the same day either way.
    return s.spark.sql("SELECT DATE 'today' = DATE 'today' AS a,"
                       " TIMESTAMP 'epoch' = TIMESTAMP 'epoch' AS b")
