"""Spark 4.2's sql_keywords() table function: its 423 keywords, `reserved` under
spark.sql.ansi.enforceReservedKeywords (and only with ANSI on), the argument and scalar-use
errors (also for range), and spark.tvf.sql_keywords()."""

from dsl import case, sql_case

ENFORCE = {"spark.sql.ansi.enforceReservedKeywords": "true"}

sql_case("all", "SELECT * FROM sql_keywords()")
sql_case("ordered", "SELECT keyword, reserved FROM sql_keywords() ORDER BY keyword")
sql_case("enforced_ansi_off", "SELECT count_if(reserved), count(*) FROM sql_keywords()",
         conf={**ENFORCE, "spark.sql.ansi.enabled": "false"})


# The reserved flag is read when the query runs. The Spark server's run_once executes a
# case's plan outside its session (the base session's conf applies), so these cases collect
# inside the session, as a user's collect() does, and compare the collected rows.
def _collected(s, sql, schema):
    return s.spark.createDataFrame(s.spark.sql(sql).collect(), schema)


@case(conf=ENFORCE)
def enforced(s):
    return _collected(s, "SELECT * FROM sql_keywords()", "keyword string, reserved boolean")


@case(conf=ENFORCE)
def enforced_counts(s):
    return _collected(s, "SELECT reserved, count(*) AS n FROM sql_keywords() GROUP BY reserved",
                      "reserved boolean, n bigint")


@case(conf=ENFORCE)
def alias_and_filter(s):
    return _collected(s, "SELECT k.keyword FROM sql_keywords() AS k "
                         "WHERE k.keyword LIKE 'CURRENT%' AND k.reserved", "keyword string")


sql_case("join_with_values",
         "SELECT w, keyword IS NOT NULL AS is_keyword FROM VALUES ('select'), ('zone'), ('spate') AS t(w) "
         "LEFT JOIN sql_keywords() ON upper(w) = keyword")
sql_case("with_argument", "SELECT * FROM sql_keywords(1)")
sql_case("as_scalar", "SELECT sql_keywords()")
sql_case("range_as_scalar", "SELECT range(3)")


@case
def tvf_sql_keywords(s):
    return s.spark.tvf.sql_keywords().where("keyword < 'B'")
