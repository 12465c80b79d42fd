"""File reads: JSON, CSV, text and Parquet with their options, and malformed input in each
parse mode. Each case writes its input files into its own folder (s.tmp) on both sides."""

import os

from dsl import pins, Differs, case

JSON_LINES = ('{"id": 1, "name": "a", "score": 1.5, "tags": ["x"], "when": "2020-01-05"}\n'
              '{"id": 2, "name": "b", "extra": true}\n'
              '{"id": "three", "name": null, "score": 2}\n'
              'not json at all\n'
              '{"id": 4, "nested": {"k": [1, 2]}}\n')
CSV_TEXT = ("id,name,score,day\n1,a,1.5,2020-01-05\n2,\"b, quoted\",,2020-02-30\n"
            "x,c,3.0,2020-03-01\n4,d,4.5\n5,e,5.5,2020-05-05,extra\n")


def _write(s, name, text):
    path = os.path.join(s.tmp, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def _reader_case(name, fmt, text, options=None, schema=None, ordered_by=None):
    def run(s):
        path = _write(s, f"in/data.{fmt}", text)
        r = s.spark.read.format(fmt)
        if schema:
            r = r.schema(schema)
        for k, v in (options or {}).items():
            r = r.option(k, v)
        df = r.load(os.path.dirname(path))
        return df.orderBy(ordered_by) if ordered_by else df
    run.__name__ = name
    case(run, ordered=bool(ordered_by))


JSON_SCHEMA = "id INT, name STRING, score DOUBLE, tags ARRAY<STRING>, `when` DATE"
CORRUPT_SCHEMA = JSON_SCHEMA + ", _corrupt_record STRING"
_reader_case("json_inferred", "json", JSON_LINES)
_reader_case("json_schema_permissive", "json", JSON_LINES, schema=JSON_SCHEMA)
_reader_case("json_schema_corrupt_column", "json", JSON_LINES, schema=CORRUPT_SCHEMA)
_reader_case("json_dropmalformed", "json", JSON_LINES, {"mode": "DROPMALFORMED"}, schema=JSON_SCHEMA)
_reader_case("json_failfast", "json", JSON_LINES, {"mode": "FAILFAST"}, schema=JSON_SCHEMA)
_reader_case("json_inferred_dropmalformed", "json", JSON_LINES, {"mode": "DROPMALFORMED"})
_reader_case("json_primitives_as_string", "json", '{"a": 1, "b": true, "c": 1.5}\n',
             {"primitivesAsString": "true"})
_reader_case("json_prefers_decimal", "json", '{"a": 1.25}\n{"a": 10.5}\n', {"prefersDecimal": "true"})
_reader_case("json_multiline", "json", '[{"a": 1,\n "b": "x"},\n {"a": 2}]\n', {"multiLine": "true"})
_reader_case("json_allow_comments", "json", '/* c */ {"a": 1}\n', {"allowComments": "true"})
_reader_case("json_comments_not_allowed", "json", '/* c */ {"a": 1}\n{"a": 2}\n')
_reader_case("json_single_quotes", "json", "{'a': 'q'}\n")
_reader_case("json_unquoted_field_names", "json", "{a: 1}\n", {"allowUnquotedFieldNames": "true"})
_reader_case("json_date_format", "json", '{"d": "05/01/2020"}\n', {"dateFormat": "dd/MM/yyyy"}, schema="d DATE")
_reader_case("json_timestamp_format", "json", '{"t": "2020-01-05 10:11"}\n',
             {"timestampFormat": "yyyy-MM-dd HH:mm"}, schema="t TIMESTAMP")
_reader_case("json_timestamp_default", "json", '{"t": "2020-01-05T10:11:12.345Z"}\n', schema="t TIMESTAMP")
_reader_case("json_infer_mixed_types", "json", '{"a": 1}\n{"a": 1.5}\n{"a": "s"}\n{"a": null}\n')
_reader_case("json_infer_nested", "json", '{"s": {"x": 1, "y": [true]}}\n{"s": {"x": 2, "z": "q"}}\n')
_reader_case("json_empty_lines", "json", '{"a": 1}\n\n\n{"a": 2}\n')
_reader_case("json_schema_wrong_type", "json", '{"a": "x"}\n{"a": 5}\n', schema="a INT, _corrupt_record STRING")
_reader_case("json_case_sensitive_fields", "json", '{"A": 1, "a": 2}\n')

_reader_case("csv_no_header", "csv", CSV_TEXT)
_reader_case("csv_header", "csv", CSV_TEXT, {"header": "true"})
_reader_case("csv_header_infer", "csv", CSV_TEXT, {"header": "true", "inferSchema": "true"})
CSV_SCHEMA = "id INT, name STRING, score DOUBLE, day DATE"
_reader_case("csv_schema_permissive", "csv", CSV_TEXT, {"header": "true"}, schema=CSV_SCHEMA)
_reader_case("csv_schema_corrupt_column", "csv", CSV_TEXT, {"header": "true"},
             schema=CSV_SCHEMA + ", _corrupt_record STRING")
_reader_case("csv_dropmalformed", "csv", CSV_TEXT, {"header": "true", "mode": "DROPMALFORMED"}, schema=CSV_SCHEMA)
_reader_case("csv_failfast", "csv", CSV_TEXT, {"header": "true", "mode": "FAILFAST"}, schema=CSV_SCHEMA)
_reader_case("csv_sep", "csv", "a;b\n1;x\n2;y\n", {"header": "true", "sep": ";"})
_reader_case("csv_tab_sep", "csv", "a\tb\n1\tx\n", {"header": "true", "delimiter": "\t"})
_reader_case("csv_quote_escape", "csv", "a,b\n'x,y',\"q\"\n'it\\'s',z\n", {"header": "true", "quote": "'", "escape": "\\"})
_reader_case("csv_null_value", "csv", "a,b\nNA,1\nx,NA\n", {"header": "true", "nullValue": "NA"})
_reader_case("csv_empty_value", "csv", "a,b\n,1\n\"\",2\n", {"header": "true"})
_reader_case("csv_date_format", "csv", "d\n05/01/2020\n", {"header": "true", "dateFormat": "dd/MM/yyyy"}, schema="d DATE")
_reader_case("csv_comment", "csv", "a\n#skip\n1\n", {"header": "true", "comment": "#"})
_reader_case("csv_ignore_whitespace", "csv", "a,b\n  x  ,  y\n",
             {"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"})
_reader_case("csv_multiline", "csv", 'a,b\n"line1\nline2",2\n', {"header": "true", "multiLine": "true"})
_reader_case("csv_infer_types", "csv", "i,d,b,s,t\n1,1.5,true,x,2020-01-05 10:00:00\n2,2.0,false,y,2020-01-06 11:00:00\n",
             {"header": "true", "inferSchema": "true"})
_reader_case("csv_duplicate_header", "csv", "a,a,b\n1,2,3\n", {"header": "true"})
_reader_case("csv_short_rows_schema", "csv", "1\n1,2,3\n", schema="a INT, b INT")

_reader_case("text_lines", "text", "first\nsecond line\n\nlast")
_reader_case("text_whole", "text", "a\nb\n", {"wholetext": "true"})


@case
def json_shortcut_with_keywords(s):
    path = _write(s, "k/data.json", JSON_LINES)
    return s.spark.read.json(os.path.dirname(path), schema=JSON_SCHEMA, mode="DROPMALFORMED")


@case
def csv_shortcut_with_keywords(s):
    path = _write(s, "k/data.csv", CSV_TEXT)
    return s.spark.read.csv(os.path.dirname(path), header=True, inferSchema=True, mode="PERMISSIVE")


@case
def csv_several_files(s):
    _write(s, "m/a.csv", "x,y\n1,a\n")
    _write(s, "m/b.csv", "x,y\n2,b\n")
    return s.spark.read.option("header", "true").csv(os.path.join(s.tmp, "m"))


# Schema inference (docs/schema-inference.md): merges across files, NULL roots, Jackson's
# BigDecimal for prefersDecimal, Java's order of field names, CSV's fold within a file.
_reader_case("json_infer_null_root", "json", 'null\n{"a": 1}\n')
_reader_case("json_infer_prefers_decimal_exponent", "json", '{"a": 1.5e3, "b": 0.001, "c": 1E-50}\n',
             {"prefersDecimal": "true"})
_reader_case("json_infer_field_order", "json", '{"\uff41": 1, "\U0001F600": 2, "b": 3}\n')
_reader_case("json_infer_root_arrays", "json", '[{"a": 1}, {"b": 2.5}]\n[]\n{"a": 12345678901234567890}\n')
_reader_case("csv_infer_decimal_then_long", "csv", "9223372036854775808\n5000000000\n12\n",
             {"inferSchema": "true"})
_reader_case("csv_infer_boolean_then_int", "csv", "true\n1\n2\n", {"inferSchema": "true"})


def _files_case(name, fmt, files, options=None):
    """A read with inference over several files (name -> text) in one folder."""
    def run(s):
        for file, text in files.items():
            _write(s, f"many/{file}", text)
        r = s.spark.read
        for k, v in (options or {}).items():
            r = r.option(k, v)
        return r.format(fmt).load(os.path.join(s.tmp, "many"))
    run.__name__ = name
    case(run)


_files_case("json_infer_across_files", "json", {
    "a.json": '{"n": 1, "s": {"x": 1}, "arr": [1]}\n{"d": 12345678901234567890}\n',
    "b.json": '{"n": 2.5, "s": {"y": true}, "arr": [null, 2.5]}\n{"d": 0.5}\n',
    "c.json": '{"s": "text", "e": null}\n\n[]\n'})
_files_case("json_infer_across_files_prefers_decimal", "json", {
    "a.json": '{"n": 1, "arr": [1]}\n{"d": 12345678901234567890}\n',
    "b.json": '{"n": 2.5, "arr": [null, 2.5]}\n{"d": 0.5}\n'}, {"prefersDecimal": "true"})
# Spark packs small files into partitions (largest first), folds within, merges across.
_files_case("csv_infer_across_files", "csv", {
    "a.csv": "k,x,y\n1,1,1\n", "b.csv": "k,x,y\n5000000000,2.5,true\n",
    "c.csv": "k,x,y\n3,,2020-01-05\n"}, {"header": "true", "inferSchema": "true"})
_files_case("csv_infer_across_files_dates", "csv", {
    "a.csv": "k,x,y,z_with_a_long_name\n1,1,1,2020-01-01\n",
    "b.csv": "k,x,y,z_with_a_long_name\n2,2.5,true,2020-01-01 10:00:00\n",
    "c.csv": "k,x,y,z_with_a_long_name\n3,,,\n"}, {"header": "true", "inferSchema": "true"})


@case
def read_missing_path(s):
    return s.spark.read.json(os.path.join(s.tmp, "nowhere"))


def _parquet_roundtrip(name, sql, **write_options):
    def run(s):
        path = os.path.join(s.tmp, "pq")
        s.spark.sql(sql).write.options(**write_options).parquet(path)
        return s.spark.read.parquet(path)
    run.__name__ = name
    case(run)


_parquet_roundtrip("parquet_primitives", "SELECT 1Y AS b, 2S AS s, 3 AS i, 4L AS l, 1.5F AS f, 2.5D AS d, "
                   "true AS z, 'x' AS str, x'0102' AS bin, DATE'2020-01-05' AS dt, "
                   "TIMESTAMP'2020-01-05 10:11:12.123456' AS ts, TIMESTAMP_NTZ'2020-01-05 10:11:12' AS ntz")
_parquet_roundtrip("parquet_decimals", "SELECT CAST(1.5 AS decimal(5,2)) AS a, CAST(123456789012.34 AS decimal(18,2)) AS b, "
                   "CAST(1234567890123456789012345678.9 AS decimal(38,1)) AS c")
_parquet_roundtrip("parquet_nested", "SELECT array(1, NULL) AS a, map('k', array(named_struct('x', 1))) AS m, "
                   "named_struct('p', named_struct('q', 'deep'), 'r', array(map(1, 'one'))) AS s")
_parquet_roundtrip("parquet_nulls", "SELECT CAST(NULL AS int) AS i, CAST(NULL AS string) AS s, "
                   "CAST(NULL AS array<int>) AS a FROM range(3)")
_parquet_roundtrip("parquet_compression_gzip", "SELECT id, cast(id AS string) AS s FROM range(50)",
                   compression="gzip")
_parquet_roundtrip("parquet_compression_none", "SELECT id FROM range(5)", compression="none")


@case
def parquet_partitioned(s):
    path = os.path.join(s.tmp, "pp")
    s.spark.sql("SELECT id, id % 3 AS k, CAST(id % 2 AS string) AS p FROM range(9)") \
        .write.partitionBy("k", "p").parquet(path)
    return s.spark.read.parquet(path)


# Partition discovery's type inference (spark.sql.sources.partitionColumnTypeInference):
# each case is one folder per raw value `k=<value>` holding a JSON file (and a Parquet
# read of the same layout); the column's type is the widest of its values' types.
PARTITION_VALUES = {
    "ints": ["1", "-2"], "long": ["1", "3000000000"], "decimal": ["1", "123456789012345678901234"],
    "below_long": ["-9223372036854775809", "0"], "exponent": ["1e3", "2"], "signs": ["+1", "-0", "01"],
    "double": ["1.5", "2"], "double_forms": [" 1", "1.5d", "NaN", "-Infinity"], "hex": ["0x10", "2"],
    "too_wide": ["1" + "0" * 38, "0"], "decimal_and_double": ["1.5", "123456789012345678901234"],
    "date": ["2020-01-01", "2021-12-31"], "not_dates": ["2020-1-1", "2020-02-30", "2020-01-01T"],
    "timestamp": ["2020-01-01 00%3A00%3A00", "2020-01-01 01%3A02%3A03.5"],
    "date_and_timestamp": ["2020-01-01", "2020-03-08 10%3A00%3A00.1"],
    "not_timestamps": ["2020-01-01T00%3A00%3A00", "2020-01-01 00%3A00%3A00.12",
                       "2020-01-01 00%3A00%3A00+01%3A00"],
    "int_and_date": ["1", "2020-01-01"], "booleans": ["true", "false"],
    "with_null": ["__HIVE_DEFAULT_PARTITION__", "3"],
    "all_null": ["__HIVE_DEFAULT_PARTITION__"], "escaped": ["a%2Fb", "c%3Dd"],
}


def _partition_case(name, values, fmt, conf=None, select=None):
    def run(s):
        for i, v in enumerate(values):
            _write(s, f"p/k={v}/part-{i}.json", f'{{"id": {i}}}\n')
        if fmt == "parquet":
            s.spark.read.json(os.path.join(s.tmp, "p")).write.partitionBy("k").parquet(
                os.path.join(s.tmp, "pq"))
            return s.spark.read.parquet(os.path.join(s.tmp, "pq"))
        df = s.spark.read.json(os.path.join(s.tmp, "p"))
        return df.selectExpr(*select) if select else df
    run.__name__ = name
    case(run, conf=conf)


for _name, _values in PARTITION_VALUES.items():
    _partition_case(f"partition_inference/{_name}", _values, "json")
_partition_case("partition_inference/disabled", PARTITION_VALUES["date"], "json",
                {"spark.sql.sources.partitionColumnTypeInference.enabled": "false"})
_partition_case("partition_inference/disabled_parquet", PARTITION_VALUES["ints"], "parquet",
                {"spark.sql.sources.partitionColumnTypeInference.enabled": "false"})
_partition_case("partition_inference/parquet_rewritten", ["2020-01-01", "1e3"], "parquet")
# Wall-clock times in the session's zone (compared as instants and text: collect() differs, D8).
_partition_case("partition_inference/timestamp_session_zone", PARTITION_VALUES["timestamp"], "json",
                {"spark.sql.session.timeZone": "America/Los_Angeles"},
                ["id", "unix_micros(k) AS micros", "CAST(k AS STRING) AS text"])


@case
def partition_inference_read_option(s):
    """The conf's name as a read option is no setting (Spark reads the session's only)."""
    for i, v in enumerate(["1", "2"]):
        _write(s, f"p/k={v}/part-{i}.json", f'{{"id": {i}}}\n')
    return s.spark.read.option("spark.sql.sources.partitionColumnTypeInference.enabled", "false") \
        .json(os.path.join(s.tmp, "p"))


@case
def parquet_filter_pushdown(s):
    path = os.path.join(s.tmp, "pf")
    s.spark.range(100).write.parquet(path)
    return s.spark.read.parquet(path).filter("id % 10 = 3 AND id > 50")


@case
def parquet_merge_schema(s):
    path = os.path.join(s.tmp, "pm")
    s.spark.sql("SELECT 1 AS a").write.parquet(os.path.join(path, "x=1"))
    s.spark.sql("SELECT 2 AS a, 'b' AS b").write.parquet(os.path.join(path, "x=2"))
    return s.spark.read.option("mergeSchema", "true").parquet(path)


@case
def write_modes(s):
    path = os.path.join(s.tmp, "wm")
    s.spark.range(3).write.parquet(path)
    s.spark.range(2).write.mode("append").parquet(path)
    first = s.spark.read.parquet(path).count()
    s.spark.range(1).write.mode("overwrite").parquet(path)
    s.spark.range(7).write.mode("ignore").parquet(path)
    return {"after_append": first, "after_overwrite": s.spark.read.parquet(path).count()}


@case
def write_error_if_exists(s):
    path = os.path.join(s.tmp, "we")
    s.spark.range(3).write.parquet(path)
    s.spark.range(3).write.parquet(path)


@case
def json_write_read(s):
    path = os.path.join(s.tmp, "jw")
    s.spark.sql("SELECT id, named_struct('a', id) AS s, array(id) AS arr, DATE'2020-01-05' AS d FROM range(3)") \
        .write.json(path)
    return s.spark.read.schema("id LONG, s STRUCT<a: LONG>, arr ARRAY<LONG>, d DATE").json(path)


@case
def csv_write_read_header(s):
    path = os.path.join(s.tmp, "cw")
    s.spark.sql("SELECT id, concat('v,', id) AS v, NULL AS n FROM range(3)").write.option("header", "true").csv(path)
    return s.spark.read.option("header", "true").csv(path)


# TIMESTAMP_NTZ text with a zone is invalid to the readers (Spark's
# parseWithoutTimeZone(s, allowTimeZone = false)), though CAST ignores the zone.
NTZ_TEXT = ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00", "2024-01-01 10:00:00+01:00",
            "2024-01-01 10:00:00 UTC", "2024-01-01", " 2024-01-01 10:00:00.1234567 "]
_reader_case("json_timestamp_ntz_with_zone", "json",
             "".join('{"t": "%s", "u": "%s"}\n' % (v, v) for v in NTZ_TEXT),
             schema="t TIMESTAMP_NTZ, u STRING")
_reader_case("csv_timestamp_ntz_with_zone", "csv", "".join(f"{v},{v}\n" for v in NTZ_TEXT),
             schema="t TIMESTAMP_NTZ, u STRING")


# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py.
pins({
    'csv_failfast': Differs("D5", "error", "7a3764a4ab"),
    'csv_write_read_header': Differs("D7", "error", "6b716337cd"),
    'json_case_sensitive_fields': Differs("D7", "error", "1ab3cbe0e4"),
    'json_failfast': Differs("D5", "error", "7a3764a4ab"),
    'parquet_nested': Differs("D10", "nullability", "1c7b7f7e32"),
})
