"""The examples in examples/python run unchanged and print what PySpark would print."""
import os
import subprocess
import sys

import spate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED_QUICKSTART = """root
 |-- name: string (nullable = false)
 |-- event: string (nullable = true)
 |-- amount: double (nullable = true)
 |-- ts: timestamp (nullable = true)

+----------+-----+---+-----+
|       day| name|  n|total|
+----------+-----+---+-----+
|2024-05-01|alice|  2| 20.0|
|2024-05-02|carol|  1| 30.0|
|2024-05-02|  bob|  1|  5.0|
+----------+-----+---+-----+

+----------+-----+-----+
|       day| name|total|
+----------+-----+-----+
|2024-05-01|alice| 20.0|
|2024-05-02|carol| 30.0|
+----------+-----+-----+

rows written: 3
Row(day=datetime.date(2024, 5, 1), name='alice', n=2, total=20.0)
+-----+-----+
| name|spent|
+-----+-----+
|carol| 30.0|
|alice| 20.0|
|  bob|  5.0|
+-----+-----+

"""


def run_example(name, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    # The PySpark examples run unmodified, as `spate submit` runs them.
    result = subprocess.run([sys.executable, "-m", "spate.submit",
                             os.path.join(ROOT, "examples", "python", name)]
                            + [str(a) for a in args],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_quickstart_example(tmp_path):
    assert run_example("quickstart.py", tmp_path / "daily") == EXPECTED_QUICKSTART


def test_streaming_tutorial_example(tmp_path):
    out = run_example("streaming_tutorial.py", tmp_path / "work")
    runs = out.split("== run ")[1:]
    assert len(runs) == 3
    # Run 1: 500 events in 10 files, 4 files per batch -> 3 batches, 3 table versions.
    assert "bronze rows: 500\n" in runs[0]
    assert "batches this run: 3 rows this run: 500\n" in runs[0]
    assert "table versions: 3\n" in runs[0]
    assert "|purchase|   125|" in runs[0]
    # Run 2: only the 500 new events.
    assert "bronze rows: 1000\n" in runs[1]
    assert "rows this run: 500\n" in runs[1]
    assert "table versions: 6\n" in runs[1]
    assert "|purchase|   250|" in runs[1]
    # Run 3: nothing new -> same rows, no batch, no new version; as Spark, the run reports
    # one progress without rows (the next batch id).
    assert "bronze rows: 1000\n" in runs[2]
    assert "rows this run: 0\n" in runs[2]
    assert "table versions: 6\n" in runs[2]
    # PySpark 4.2 prints lastProgress as json.dumps(..., indent=4) of Spark's JSON.
    assert '"numInputRows": 100' in runs[1] and '"sources": [' in runs[1]
    assert "batches this run: 1 rows this run: 0\n" in runs[2]
    assert "last batch: id=6 rows=0 " in runs[2]


def test_stateful_pipeline_example(tmp_path):
    # Every expected line below is also what real Spark prints for the same program with its
    # imports switched to pyspark (pyspark 4.2.0 + delta-spark 4.4.0, local[2], checked in
    # session 3): counts, state rows, watermarks, rows dropped and the show() table.
    runs = run_example("stateful_pipeline.py", tmp_path / "work").split("== run ")[1:]
    assert len(runs) == 3
    # Run 1: 500 events over 83 minutes of event time; 30-minute windows up to the watermark
    # (01:13:10) are final: two windows x three types. Nine 5-minute windows stay open.
    assert "bronze: 500 silver: 500 gold windows: 6 5-min windows: 42\n" in runs[0]
    assert "5-min state rows: 9 watermark: 2025-03-01T01:13:10.000Z\n" in runs[0]
    assert "|{2025-03-01 00:00:00, 2025-03-01 00:30:00}|buy       |57    |2951.42|" in runs[0]
    # Run 2: only the 500 new events flow through; more windows close.
    assert "bronze: 1000 silver: 1000 gold windows: 15 5-min windows: 93\n" in runs[1]
    # Run 3: the event hours late is kept by bronze, dropped (and counted) by the watermarked
    # operators; every closed 5-minute window equals a batch count over bronze.
    assert "bronze: 1501 silver: 1500 gold windows: 21 5-min windows: 141\n" in runs[2]
    assert "silver dropped late: 1 gold dropped late: 0 5-min dropped late: 1\n" in runs[2]
    assert "late event in bronze: 1\n" in runs[2]
    assert "5-min windows differing from batch: 0\n" in runs[2]


def test_auto_loader_bronze_example(tmp_path):
    out = run_example("auto_loader_bronze.py", tmp_path / "w")
    landing = "file://" + str(tmp_path / "w" / "landing")
    lines = out.replace(landing, "<landing>").splitlines()
    assert lines[0] == ("ingested; schema: "
                        "struct<amount:double,order_id:string,status:string,_rescued_data:string>")
    assert lines[1] == ("stream stopped: terminated with exception: "
                        "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH] "
                        "Encountered unknown fields during parsing: [channel]")
    assert lines[2] == ("ingested; schema: struct<amount:double,order_id:string,status:string,"
                        "channel:string,_rescued_data:string>")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[6:10]]
    assert rows == [["1", "9.5", "new", "NULL", "NULL"],
                    ["2", "20.0", "paid", "NULL", "NULL"],
                    ["3", "5.0", "new", "web", "NULL"],
                    ["4", "NULL", "new", "NULL",
                     '{"amount":"n/a","_file_path":"<landing>/orders_2.json"}']]
    assert lines[-1] == "schema versions: ['0', '1']"
