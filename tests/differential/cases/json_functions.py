"""JSON and CSV functions: from_json / to_json / get_json_object / json_tuple / schema_of_*."""

from dsl import Differs, case, expr_cases, pins, sql_case

DOCS = ("VALUES ('{\"a\": 1, \"b\": [1, 2], \"c\": {\"d\": \"x\"}}'), ('{\"a\": \"nope\"}'),"
        " ('not json'), (NULL), ('{\"a\": null, \"e\": 1.5}'), ('[1, 2]') AS t(j)")

expr_cases("json", DOCS, [
    "get_json_object(j, '$.a')", "get_json_object(j, '$.b[1]')", "get_json_object(j, '$.c.d')",
    "get_json_object(j, '$.c')", "get_json_object(j, '$[0]')", "json_array_length(j)",
    "json_object_keys(j)", "from_json(j, 'a INT, e DOUBLE')", "from_json(j, 'a STRING')",
    "from_json(j, 'b ARRAY<INT>, c STRUCT<d: STRING>')", "from_json(j, 'a INT', map('mode', 'PERMISSIVE'))",
    "to_json(from_json(j, 'a INT, b ARRAY<INT>'))", "schema_of_json('{\"a\": 1}')",
    "from_json(j, 'MAP<STRING, STRING>')",
])
expr_cases("json_literal", "", [
    "to_json(named_struct('a', 1, 'b', 'x', 'n', NULL))", "to_json(array(1, 2))",
    "to_json(map('k', array(1.5D)))", "to_json(named_struct('d', DATE'2020-01-05', 't', TIMESTAMP'2020-01-05 10:00:00'))",
    "to_json(named_struct('b', x'0102', 'dec', 1.50))", "to_json(array(named_struct('a', 1)))",
    "to_json(named_struct('t', TIMESTAMP'2020-01-05 10:00:00'), map('timestampFormat', 'dd/MM/yyyy'))",
    "schema_of_json('[{\"a\": 1.5, \"b\": [\"x\"]}]')", "schema_of_json('{\"a\": 10000000000}')",
    "schema_of_csv('1,abc,2.5')", "from_csv('1,x', 'a INT, b STRING')", "to_csv(named_struct('a', 1, 'b', 'x,y'))",
    "from_json('{\"a\": 1}', 'a INT', map('mode', 'FAILFAST'))", "from_json('{bad', 'a INT', map('mode', 'FAILFAST'))",
    "from_json('{\"a\": \"2020-01-05\"}', 'a DATE')", "from_json('{\"a\": 1e400}', 'a DOUBLE')",
    "from_json('{\"A\": 1}', 'a INT')", "get_json_object('{\"a\": {\"b\": 1}}', '$.a.b')",
    "get_json_object('{\"a\": \"x\\\\ny\"}', '$.a')", "get_json_object('{\"a\": 1}', 'bad')",
    "json_array_length('[1, [2, 3], {}]')", "json_object_keys('{\"b\": 1, \"a\": 2}')",
    "from_json('[1, 2, null]', 'ARRAY<INT>')", "from_json('{\"a\": [1, \"x\"]}', 'a ARRAY<INT>')",
])
sql_case("json_tuple", f"SELECT json_tuple(j, 'a', 'e') FROM {DOCS}")
sql_case("from_json_star", "SELECT from_json('{\"a\": 1, \"b\": \"x\"}', 'a INT, b STRING').*")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    "json/from_json(j, 'MAP<STRING, STRING>')": Differs("D9", "rows", "aa9713cd3e"),
})
