"""CAST from and to every type, with ANSI mode on and off (and try_cast)."""

from dsl import pins, Differs, expr_cases

STRS = ("VALUES ('12'), (' 12 '), ('1.5'), ('abc'), (''), (NULL), ('-0'), ('1e3'),"
        " ('2147483648'), ('+7') AS t(s)")
DATES = ("VALUES ('2020-02-29'), ('2020-02-30'), ('2020-1-5'), ('2020-01-05 10:00:00'),"
         " ('20200105'), ('x'), (NULL), ('  2021-12-31  '), ('2021') AS t(s)")
TS = ("VALUES ('2020-01-05 10:11:12'), ('2020-01-05T10:11:12.123456Z'), ('2020-01-05'),"
      " ('2020-01-05 25:00:00'), ('2020-01-05 10:11:12+02:00'), ('junk'), (NULL) AS t(s)")
BOOLS = ("VALUES ('true'), ('TRUE'), ('t'), ('yes'), ('1'), ('0'), ('n'), ('x'), (' false '),"
         " (NULL) AS t(s)")

for ansi in ("true", "false"):
    suffix = "ansi" if ansi == "true" else "legacy"
    conf = {"spark.sql.ansi.enabled": ansi}
    expr_cases(f"cast_{suffix}/string", STRS, [
        "cast(s AS int)", "cast(s AS bigint)", "cast(s AS tinyint)", "cast(s AS double)",
        "cast(s AS float)", "cast(s AS decimal(5,2))", "cast(s AS decimal(38,0))",
        "try_cast(s AS int)", "try_cast(s AS decimal(3,1))",
    ], conf=conf)
    expr_cases(f"cast_{suffix}/date", DATES, [
        "cast(s AS date)", "try_cast(s AS date)", "cast(s AS timestamp)",
    ], conf=conf)
    expr_cases(f"cast_{suffix}/timestamp", TS, [
        "cast(s AS timestamp)", "cast(s AS timestamp_ntz)", "try_cast(s AS timestamp)",
        "cast(cast(s AS timestamp) AS date)", "cast(cast(s AS timestamp) AS long)",
    ], conf=conf)
    expr_cases(f"cast_{suffix}/boolean", BOOLS, [
        "cast(s AS boolean)", "try_cast(s AS boolean)",
    ], conf=conf)
    expr_cases(f"cast_{suffix}/numeric", "", [
        "cast(1e20D AS int)", "cast(-129 AS tinyint)", "cast(3.99D AS int)", "cast(-3.99D AS long)",
        "cast(123.456 AS decimal(4,1))", "cast(123.456 AS decimal(2,1))", "cast(1.5F AS int)",
        "cast(9223372036854775807L AS int)", "cast(double('NaN') AS int)",
        "cast(double('Infinity') AS long)", "cast(true AS int)", "cast(0 AS boolean)",
        "cast(2.5D AS boolean)", "cast(12345678901234567890 AS bigint)",
        "cast(1 AS timestamp)", "cast(1.5D AS timestamp)", "cast(TIMESTAMP'2020-01-01 00:00:01' AS double)",
        "cast(DATE'2020-01-01' AS int)", "cast(DATE'2020-01-01' AS timestamp)",
    ], conf=conf)

expr_cases("cast_to_string", "", [
    "cast(1.0D AS string)", "cast(1e10D AS string)", "cast(1.0E-5D AS string)",
    "cast(123456789.123D AS string)", "cast(1e7D AS string)", "cast(1e6D AS string)",
    "cast(0.1F AS string)", "cast(1.0E20F AS string)", "cast(-0.0D AS string)",
    "cast(1.50 AS string)", "cast(0.000001 AS string)", "cast(1E-8BD AS string)",
    "cast(true AS string)", "cast(x'414243' AS string)", "cast(DATE'2020-01-05' AS string)",
    "cast(TIMESTAMP'2020-01-05 10:11:12.5' AS string)", "cast(TIMESTAMP'2020-01-05 10:11:12' AS string)",
    "cast(TIMESTAMP_NTZ'2020-01-05 10:11:12.000001' AS string)",
    "cast(array(1, NULL, 3) AS string)", "cast(map('a', 1, 'b', NULL) AS string)",
    "cast(named_struct('x', 1, 'y', 'z') AS string)", "cast(array(array('a'), array()) AS string)",
    "cast(INTERVAL '1-2' YEAR TO MONTH AS string)", "cast(INTERVAL '1 02:03:04' DAY TO SECOND AS string)",
    "cast(NULL AS string)", "cast('abc' AS binary)", "cast(array(1.5D) AS array<string>)",
    "cast(array('1', 'x') AS array<int>)", "cast(map('1', '2') AS map<int, int>)",
    "cast(named_struct('a', '1') AS struct<a: int>)", "cast(12 AS decimal(4,2))",
    "cast(100 AS decimal(4,2))", "cast('1.23456789' AS double)", "cast(1 AS interval day)",
])


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'cast_legacy/string/cast(s AS float)': Differs("D3", "show", "91d2872ea2"),
    "cast_to_string/cast(map('1', '2') AS map<int, int>)": Differs("D6", "error", "2897106bb2"),
})
