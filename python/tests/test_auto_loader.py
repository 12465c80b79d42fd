"""Auto Loader: readStream.format("cloudFiles") (docs/auto-loader.md)."""

import json
import os

import pytest

from spate.errors import (IllegalArgumentException, StreamingQueryException)
from spate.sql.types import StructType


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def lines(*records):
    return "".join(json.dumps(r) + "\n" for r in records)


class Loader:
    """One Auto Loader stream definition over `tmp_path`, run with availableNow into a
    foreachBatch that keeps (batch id, rows)."""

    def __init__(self, spark, tmp_path, fmt="json", **options):
        self.spark = spark
        self.base = tmp_path
        self.src = str(tmp_path / "in")
        self.chk = str(tmp_path / "chk")
        self.schema_loc = str(tmp_path / "schema")
        os.makedirs(self.src, exist_ok=True)
        self.options = {"cloudFiles.format": fmt, "cloudFiles.schemaLocation": self.schema_loc}
        self.options.update(options)

    def df(self, schema=None):
        r = self.spark.readStream.format("cloudFiles").options(**self.options)
        if schema is not None:
            r = r.schema(schema)
        return r.load(self.src)

    def run(self, schema=None):
        """Defines the stream again (as a restart does) and runs it; returns
        (schema, batches, error message or None)."""
        df = self.df(schema)
        batches = []
        q = (df.writeStream
             .foreachBatch(lambda b, i: batches.append((i, [r.asDict(recursive=True)
                                                            for r in b.collect()])))
             .option("checkpointLocation", self.chk).trigger(availableNow=True).start())
        err = None
        try:
            q.awaitTermination()
        except StreamingQueryException as e:
            err = str(e)
        self.last_query = q
        return df.schema, batches, err

    def rows(self, batches):
        return [r for _, rs in batches for r in rs]


def names(schema: StructType):
    return [f.name for f in schema.fields]


def types(schema: StructType):
    return {f.name: f.dataType.simpleString() for f in schema.fields}


def test_infers_strings_by_default_and_stores_schema(spark, tmp_path):
    al = Loader(spark, tmp_path)
    write(al.src + "/f1.json", lines({"a": 1, "b": "x", "s": {"p": 1.5}}))
    schema, batches, err = al.run()
    assert err is None
    # JSON columns are STRING (structs kept) and the rescued column comes last.
    assert types(schema) == {"a": "string", "b": "string", "s": "struct<p:string>",
                             "_rescued_data": "string"}
    assert al.rows(batches) == [{"a": "1", "b": "x", "s": {"p": "1.5"}, "_rescued_data": None}]
    text = open(al.schema_loc + "/_schemas/0").read()
    header, entry = text.split("\n", 1)
    assert header == "v1"
    stored = json.loads(json.loads(entry)["dataSchemaJson"])
    assert [f["name"] for f in stored["fields"]] == ["a", "b", "s"]
    assert json.loads(json.loads(entry)["partitionSchemaJson"]) == {"type": "struct", "fields": []}


def test_infer_column_types(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.inferColumnTypes": "true"})
    write(al.src + "/f1.json", lines({"a": 1, "b": "x", "d": 2.5, "t": True}))
    schema, batches, err = al.run()
    assert err is None
    assert types(schema) == {"a": "bigint", "b": "string", "d": "double", "t": "boolean",
                             "_rescued_data": "string"}
    assert al.rows(batches) == [{"a": 1, "b": "x", "d": 2.5, "t": True, "_rescued_data": None}]


def test_csv_strings_by_default_and_typed(spark, tmp_path):
    al = Loader(spark, tmp_path / "s", fmt="csv", header="true")
    write(al.src + "/f1.csv", "id,name\n1,Ann\n2,Bob\n")
    schema, batches, err = al.run()
    assert err is None
    assert types(schema) == {"id": "string", "name": "string", "_rescued_data": "string"}
    assert al.rows(batches) == [{"id": "1", "name": "Ann", "_rescued_data": None},
                                {"id": "2", "name": "Bob", "_rescued_data": None}]
    typed = Loader(spark, tmp_path / "t", fmt="csv", header="true",
                   **{"cloudFiles.inferColumnTypes": "true"})
    write(typed.src + "/f1.csv", "id,name\n1,Ann\n")
    schema, batches, err = typed.run()
    assert types(schema) == {"id": "int", "name": "string", "_rescued_data": "string"}
    assert typed.rows(batches) == [{"id": 1, "name": "Ann", "_rescued_data": None}]


def test_parquet(spark, tmp_path):
    al = Loader(spark, tmp_path, fmt="parquet")
    spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"]).write.parquet(al.src + "/p1")
    schema, batches, err = al.run()
    assert err is None
    assert types(schema) == {"id": "bigint", "v": "string"}
    assert sorted(r["id"] for r in al.rows(batches)) == [1, 2]


def test_schema_hints(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.schemaHints": "a INT, s.p DOUBLE, z DATE"})
    write(al.src + "/f1.json", lines({"a": 1, "b": "x", "s": {"p": 1.5, "q": 1}}))
    schema, batches, err = al.run()
    assert err is None
    # Hinted types win; other columns stay STRING; a hint for a missing column adds it.
    assert types(schema) == {"a": "int", "b": "string", "s": "struct<p:double,q:string>",
                             "z": "date", "_rescued_data": "string"}
    assert al.rows(batches) == [{"a": 1, "b": "x", "s": {"p": 1.5, "q": "1"}, "z": None,
                                 "_rescued_data": None}]


def test_bad_schema_hint(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.schemaHints": "a NOT_A_TYPE"})
    write(al.src + "/f1.json", lines({"a": 1}))
    with pytest.raises(IllegalArgumentException, match="not a valid schema hint: a NOT_A_TYPE"):
        al.df()


def test_schema_location_required_without_schema(spark, tmp_path):
    os.makedirs(tmp_path / "in")
    r = spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
    with pytest.raises(IllegalArgumentException,
                       match=r"\[SPATE_CLOUD_FILES_INVALID\].*cloudFiles.schemaLocation"):
        r.load(str(tmp_path / "in"))
    # With a schema none is needed.
    df = r.schema("a STRING").load(str(tmp_path / "in"))
    assert names(df.schema) == ["a"]


def test_format_is_required_and_unknown_options_fail(spark, tmp_path):
    os.makedirs(tmp_path / "in")
    with pytest.raises(IllegalArgumentException, match="cloudFiles.format is required"):
        spark.readStream.format("cloudFiles").schema("a STRING").load(str(tmp_path / "in"))
    with pytest.raises(Exception, match="cloudFiles.bogus"):
        (spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
         .option("cloudFiles.bogus", "1").schema("a STRING").load(str(tmp_path / "in")))


def test_empty_folder_cannot_be_inferred(spark, tmp_path):
    al = Loader(spark, tmp_path)
    with pytest.raises(Exception, match="UNABLE_TO_INFER_SCHEMA"):
        al.df()


def test_stored_schema_is_reused_without_inference(spark, tmp_path):
    al = Loader(spark, tmp_path)
    write(al.src + "/f1.json", lines({"a": 1}))
    assert names(al.df().schema) == ["a", "_rescued_data"]
    # A file with another column arrives: defining the stream again reads _schemas/0 and
    # does not infer the folder again.
    write(al.src + "/f2.json", lines({"a": 2, "c": 3}))
    assert names(al.df().schema) == ["a", "_rescued_data"]
    # The stored schema is what counts: edited, it changes the stream.
    path = al.schema_loc + "/_schemas/0"
    text = open(path).read().replace('"name\\":\\"a\\"', '"name\\":\\"renamed\\"')
    write(path, text)
    assert names(al.df().schema) == ["renamed", "_rescued_data"]


def test_add_new_columns_fails_then_restart_picks_up_the_column(spark, tmp_path):
    al = Loader(spark, tmp_path)
    write(al.src + "/f1.json", lines({"a": 1, "b": "x"}))
    schema, batches, err = al.run()
    assert err is None and al.rows(batches) == [{"a": "1", "b": "x", "_rescued_data": None}]

    write(al.src + "/f2.json", lines({"a": 2, "b": "y", "c": "new"}, {"a": 3, "b": "z"}))
    schema, batches, err = al.run()
    assert batches == []
    assert "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH]" in err
    assert "Encountered unknown fields during parsing: [c]" in err
    assert "which can be fixed by an automatic retry: true" in err
    assert "f2.json" in err
    # The evolved schema is recorded before the failure.
    assert sorted(os.listdir(al.schema_loc + "/_schemas")) == ["0", "1"]

    # The restart reads _schemas/1 and runs the failed batch again with the new column:
    # nothing lost, nothing read twice.
    schema, batches, err = al.run()
    assert err is None
    assert names(schema) == ["a", "b", "c", "_rescued_data"]
    assert al.rows(batches) == [
        {"a": "2", "b": "y", "c": "new", "_rescued_data": None},
        {"a": "3", "b": "z", "c": None, "_rescued_data": None}]
    # And once more: nothing new.
    schema, batches, err = al.run()
    assert err is None and batches == []


def test_add_new_columns_nested_field(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.inferColumnTypes": "true"})
    write(al.src + "/f1.json", lines({"s": {"p": 1}}))
    assert al.run()[2] is None
    write(al.src + "/f2.json", lines({"s": {"p": 2, "q": "n"}}))
    err = al.run()[2]
    assert "unknown fields during parsing: [s.q]" in err
    schema, batches, err = al.run()
    assert err is None
    assert types(schema)["s"] == "struct<p:bigint,q:string>"
    assert al.rows(batches) == [{"s": {"p": 2, "q": "n"}, "_rescued_data": None}]


def test_type_mismatch_is_rescued_in_add_new_columns_mode(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.inferColumnTypes": "true"})
    write(al.src + "/f1.json", lines({"a": 1, "b": "x"}))
    assert al.run()[2] is None
    write(al.src + "/f2.json", lines({"a": "oops", "b": "y"}))
    schema, batches, err = al.run()
    assert err is None
    [row] = al.rows(batches)
    assert row["a"] is None and row["b"] == "y"
    assert json.loads(row["_rescued_data"]) == {
        "a": "oops", "_file_path": "file://" + al.src + "/f2.json"}


def test_fail_on_new_columns(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.schemaEvolutionMode": "failOnNewColumns"})
    write(al.src + "/f1.json", lines({"a": 1}))
    assert al.run()[2] is None
    write(al.src + "/f2.json", lines({"a": 2, "c": 3}))
    for _ in range(2):  # the schema is not updated: a restart fails again
        schema, batches, err = al.run()
        assert "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH]" in err
        assert "automatic retry: false" in err
        assert names(schema) == ["a", "_rescued_data"]
        assert os.listdir(al.schema_loc + "/_schemas") == ["0"]


def test_rescue_mode(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.schemaEvolutionMode": "rescue",
                                    "cloudFiles.inferColumnTypes": "true"})
    write(al.src + "/f1.json", lines({"a": 1, "b": "x"}))
    assert al.run()[2] is None
    # An unknown field, a type mismatch and a field whose case differs are rescued.
    write(al.src + "/f2.json", lines({"a": 2, "b": "y", "c": [1, 2]},
                                     {"a": "two", "b": "z"},
                                     {"A": 5, "b": "w"},
                                     {"a": 4, "b": "v"}))
    schema, batches, err = al.run()
    assert err is None
    assert names(schema) == ["a", "b", "_rescued_data"]
    rows = al.rows(batches)
    fp = "file://" + al.src + "/f2.json"
    assert [(r["a"], r["b"]) for r in rows] == [(2, "y"), (None, "z"), (None, "w"), (4, "v")]
    assert [r["_rescued_data"] and json.loads(r["_rescued_data"]) for r in rows] == [
        {"c": [1, 2], "_file_path": fp}, {"a": "two", "_file_path": fp},
        {"A": 5, "_file_path": fp}, None]
    # The schema never evolves.
    assert os.listdir(al.schema_loc + "/_schemas") == ["0"]


def test_none_mode_ignores_new_columns(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.schemaEvolutionMode": "none"})
    write(al.src + "/f1.json", lines({"a": 1}))
    schema, batches, err = al.run()
    assert err is None and names(schema) == ["a"]  # no rescued column in mode none
    write(al.src + "/f2.json", lines({"a": 2, "c": 3}))
    schema, batches, err = al.run()
    assert err is None and names(schema) == ["a"]
    assert al.rows(batches) == [{"a": "2"}]
    # Unless one is named.
    al2 = Loader(spark, tmp_path / "r", **{"cloudFiles.schemaEvolutionMode": "none",
                                           "cloudFiles.rescuedDataColumn": "_extra"})
    write(al2.src + "/f1.json", lines({"a": 1}))
    assert names(al2.df().schema) == ["a", "_extra"]
    write(al2.src + "/f2.json", lines({"a": 2, "c": 3}))
    rows = al2.rows(al2.run()[1])
    assert [json.loads(r["_extra"])["c"] if r["_extra"] else None for r in rows] == [None, 3]


def test_user_schema(spark, tmp_path):
    al = Loader(spark, tmp_path)
    del al.options["cloudFiles.schemaLocation"]
    write(al.src + "/f1.json", lines({"a": 1, "b": "x", "c": 1}))
    schema, batches, err = al.run(schema="a INT, b STRING")
    # Mode none by default: no rescued column, c ignored.
    assert err is None and names(schema) == ["a", "b"]
    assert al.rows(batches) == [{"a": 1, "b": "x"}]
    with pytest.raises(IllegalArgumentException, match="addNewColumns is not supported when "
                                                       "the schema is specified"):
        al.options["cloudFiles.schemaEvolutionMode"] = "addNewColumns"
        al.df("a INT")
    al.options["cloudFiles.schemaEvolutionMode"] = "rescue"
    al.chk = str(tmp_path / "chk2")
    schema, batches, err = al.run(schema="a INT, b STRING")
    assert names(schema) == ["a", "b", "_rescued_data"]
    assert json.loads(al.rows(batches)[0]["_rescued_data"])["c"] == 1


def test_include_existing_files_false(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.includeExistingFiles": "false"})
    write(al.src + "/old.json", lines({"a": "old"}))
    schema, batches, err = al.run()  # the schema is inferred from it, its rows skipped
    assert err is None and batches == []
    write(al.src + "/new1.json", lines({"a": "new1"}))
    schema, batches, err = al.run()  # a restart: only files that arrived since
    assert al.rows(batches) == [{"a": "new1", "_rescued_data": None}]
    write(al.src + "/new2.json", lines({"a": "new2"}))
    assert al.rows(al.run()[1]) == [{"a": "new2", "_rescued_data": None}]
    # The default takes existing files.
    al2 = Loader(spark, tmp_path / "d")
    write(al2.src + "/old.json", lines({"a": "old"}))
    assert al2.rows(al2.run()[1]) == [{"a": "old", "_rescued_data": None}]


def test_max_files_per_trigger(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.maxFilesPerTrigger": "1"})
    for i in range(3):
        write(al.src + "/f%d.json" % i, lines({"a": i}))
        os.utime(al.src + "/f%d.json" % i, (1000 + i, 1000 + i))
    schema, batches, err = al.run()
    assert err is None
    assert [(i, [r["a"] for r in rs]) for i, rs in batches] == [(0, ["0"]), (1, ["1"]),
                                                              (2, ["2"])]
    # Databricks' progress: the source's name and its backlog after each trigger.
    progress = al.last_query.recentProgress
    src = [p["sources"][0] for p in progress]
    assert src[0]["description"] == "CloudFilesSource[file://" + al.src + "]"
    assert [s["metrics"] for s in src] == [
        {"numBytesOutstanding": str(2 * len(lines({"a": 0}))), "numFilesOutstanding": "2"},
        {"numBytesOutstanding": str(len(lines({"a": 0}))), "numFilesOutstanding": "1"},
        {"numBytesOutstanding": "0", "numFilesOutstanding": "0"}]


def test_max_bytes_per_trigger(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.maxBytesPerTrigger": "1b"})
    for i in range(2):
        write(al.src + "/f%d.json" % i, lines({"a": i}))
        os.utime(al.src + "/f%d.json" % i, (1000 + i, 1000 + i))
    schema, batches, err = al.run()
    assert [len(rs) for _, rs in batches] == [1, 1]
    with pytest.raises(IllegalArgumentException, match="maxBytesPerTrigger"):
        Loader(spark, tmp_path / "x", **{"cloudFiles.maxBytesPerTrigger": "lots"}).df()


def test_restart_neither_loses_nor_duplicates_files(spark, tmp_path):
    al = Loader(spark, tmp_path, **{"cloudFiles.maxFilesPerTrigger": "2"})
    seen = []
    for round_ in range(3):
        for i in range(3):
            write(al.src + "/r%d_%d.json" % (round_, i), lines({"a": "%d.%d" % (round_, i)}))
        seen += [r["a"] for r in al.rows(al.run()[1])]
    assert sorted(seen) == sorted("%d.%d" % (r, i) for r in range(3) for i in range(3))


def test_csv_new_column_fails_then_restart_reads_it(spark, tmp_path):
    al = Loader(spark, tmp_path, fmt="csv", header="true")
    write(al.src + "/f1.csv", "id,name\n1,Ann\n")
    assert al.run()[2] is None
    write(al.src + "/f2.csv", "id,name,city\n2,Bob,Oslo\n")
    err = al.run()[2]
    assert "unknown fields during parsing: [city]" in err and "f2.csv" in err
    schema, batches, err = al.run()
    assert err is None and names(schema) == ["id", "name", "city", "_rescued_data"]
    assert al.rows(batches) == [{"id": "2", "name": "Bob", "city": "Oslo",
                                 "_rescued_data": None}]


def test_parquet_new_column_fails_then_restart_reads_it(spark, tmp_path):
    al = Loader(spark, tmp_path, fmt="parquet")
    spark.createDataFrame([(1,)], ["id"]).write.parquet(al.src + "/p1")
    assert al.run()[2] is None
    spark.createDataFrame([(2, "x")], ["id", "v"]).write.parquet(al.src + "/p2")
    assert "unknown fields during parsing: [v]" in al.run()[2]
    schema, batches, err = al.run()
    assert err is None and types(schema) == {"id": "bigint", "v": "string"}
    assert al.rows(batches) == [{"id": 2, "v": "x"}]


def test_rescued_data_column_on_batch_json_reads(spark, tmp_path):
    write(str(tmp_path / "b.json"), lines({"a": 1, "x": 2}, {"a": "no"}))
    df = spark.read.schema("a INT").option("rescuedDataColumn", "_rescued_data").json(
        str(tmp_path / "b.json"))
    assert names(df.schema) == ["a", "_rescued_data"]
    fp = "file://" + str(tmp_path / "b.json")
    assert [(r.a, json.loads(r._rescued_data)) for r in df.collect()] == [
        (1, {"x": 2, "_file_path": fp}), (None, {"a": "no", "_file_path": fp})]


def test_malformed_record_is_not_a_new_column(spark, tmp_path):
    al = Loader(spark, tmp_path)
    write(al.src + "/f1.json", lines({"a": 1}))
    assert al.run()[2] is None
    write(al.src + "/f2.json", '{"a": 2}\n{broken\n')
    schema, batches, err = al.run()
    assert err is None and names(schema) == ["a", "_rescued_data"]
    assert al.rows(batches) == [{"a": "2", "_rescued_data": None},
                                {"a": None, "_rescued_data": None}]


def test_bronze_delta_with_schema_location_in_the_checkpoint(spark, tmp_path):
    # The course's pattern: schemaLocation = checkpointLocation, a Delta sink with
    # mergeSchema; the new column reaches the table after the restart.
    src, chk, table = str(tmp_path / "in"), str(tmp_path / "chk"), str(tmp_path / "bronze")
    write(src + "/f1.json", lines({"id": 1, "v": "x"}))

    def run():
        df = (spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
              .option("cloudFiles.schemaLocation", chk).load(src))
        q = (df.writeStream.format("delta").option("mergeSchema", "true")
             .option("checkpointLocation", chk).trigger(availableNow=True).start(table))
        try:
            q.awaitTermination()
            return None
        except StreamingQueryException as e:
            return str(e)

    assert run() is None
    write(src + "/f2.json", lines({"id": 2, "v": "y", "extra": True}))
    assert "NEW_FIELDS_IN_RECORD_WITH_FILE_PATH" in run()
    assert run() is None
    rows = spark.read.format("delta").load(table).orderBy("id").collect()
    assert [r.asDict() for r in rows] == [
        {"id": "1", "v": "x", "_rescued_data": None, "extra": None},
        {"id": "2", "v": "y", "_rescued_data": None, "extra": "true"}]
    assert sorted(os.listdir(chk + "/_schemas")) == ["0", "1"]


def test_csv_rescue_mode(spark, tmp_path):
    al = Loader(spark, tmp_path, fmt="csv", header="true",
                **{"cloudFiles.schemaEvolutionMode": "rescue",
                   "cloudFiles.inferColumnTypes": "true"})
    write(al.src + "/f1.csv", "id,amount\n1,2.5\n")
    assert al.run()[2] is None
    write(al.src + "/f2.csv", "id,amount,note\n2,lots,hi\n3,4.0,\n")
    schema, batches, err = al.run()
    assert err is None and types(schema) == {"id": "int", "amount": "double",
                                             "_rescued_data": "string"}
    fp = "file://" + al.src + "/f2.csv"
    rows = al.rows(batches)
    assert [(r["id"], r["amount"]) for r in rows] == [(2, None), (3, 4.0)]
    assert [r["_rescued_data"] and json.loads(r["_rescued_data"]) for r in rows] == [
        {"amount": "lots", "note": "hi", "_file_path": fp}, None]


def test_parquet_has_no_rescued_column(spark, tmp_path):
    with pytest.raises(Exception, match="not parquet"):
        Loader(spark, tmp_path, fmt="parquet",
               **{"cloudFiles.schemaEvolutionMode": "rescue"}).df()


def test_late_file_with_an_old_modification_time_is_taken(spark, tmp_path):
    # The file source forgets files 7 days older than the newest (maxFileAge); Auto Loader
    # tracks them for good unless cloudFiles.maxFileAge says otherwise.
    al = Loader(spark, tmp_path)
    write(al.src + "/new.json", lines({"a": "new"}))
    assert al.rows(al.run()[1]) == [{"a": "new", "_rescued_data": None}]
    write(al.src + "/old.json", lines({"a": "old"}))
    os.utime(al.src + "/old.json", (1000, 1000))  # 1970
    assert al.rows(al.run()[1]) == [{"a": "old", "_rescued_data": None}]
    short = Loader(spark, tmp_path / "short", **{"cloudFiles.maxFileAge": "1d"})
    write(short.src + "/new.json", lines({"a": "new"}))
    assert len(short.rows(short.run()[1])) == 1
    write(short.src + "/old.json", lines({"a": "old"}))
    os.utime(short.src + "/old.json", (1000, 1000))
    assert short.run()[1] == []


def test_inference_samples_the_first_files(spark, tmp_path):
    key = "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles"
    spark.conf.set(key, "2")
    try:
        al = Loader(spark, tmp_path)
        write(al.src + "/a1.json", lines({"a": 1}))
        write(al.src + "/a2.json", lines({"b": 1}))
        write(al.src + "/a3.json", lines({"c": 1}))  # beyond the sample
        assert names(al.df().schema) == ["a", "b", "_rescued_data"]
        # c arrives through evolution like any new column.
        assert "unknown fields during parsing: [c]" in al.run()[2]
        schema, batches, err = al.run()
        assert err is None and names(schema) == ["a", "b", "c", "_rescued_data"]
        assert len(al.rows(batches)) == 3
    finally:
        spark.conf.unset(key)


def test_partition_folders_are_columns(spark, tmp_path):
    al = Loader(spark, tmp_path)
    write(al.src + "/day=2024-01-01/f1.json", lines({"a": 1}))
    schema, batches, err = al.run()
    assert err is None and names(schema) == ["a", "day", "_rescued_data"]
    write(al.src + "/day=2024-01-02/f2.json", lines({"a": 2}))
    schema, batches, err = al.run()
    assert [(r["a"], str(r["day"])) for r in al.rows(batches)] == [("2", "2024-01-02")]
