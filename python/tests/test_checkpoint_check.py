"""`spate.checkpoint.check` and `spate checkpoint check` (docs/observability.md): a changed
query handed to the check instead of started, on checkpoints made by real runs. The
verdicts themselves are checked against real Spark restarts in
tests/differential/test_checkpoint_check.py."""

import json
import os
import subprocess
import textwrap

import pytest

from spate import checkpoint
from spate.errors import AnalysisException

from test_monitoring import spate_cli

# A PySpark job (pyspark imports, as spark-submit runs it): VARIANT picks the query.
JOB = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession, functions as F
    root, variant = sys.argv[1], sys.argv[2]
    spark = SparkSession.builder.getOrCreate()
    df = spark.readStream.schema("k STRING, v LONG").json(root + "/in")
    print("building", variant)   # a script's prints never reach the check's stdout
    if variant == "base":
        q = df.groupBy("k").count()
    elif variant == "keys":
        q = df.groupBy("k", "v").count()
    elif variant == "filter":
        q = df.where("v > 0").groupBy("k").count()
    elif variant == "none":
        sys.exit(0)
    (q.writeStream.format("noop").outputMode(sys.argv[3] if len(sys.argv) > 3 else "update")
      .option("checkpointLocation", root + "/chk").trigger(availableNow=True)
      .start().awaitTermination())
    raise SystemExit("not reached under the check: start() hands the query over")
""")


@pytest.fixture
def job(tmp_path, spark):
    """A real run of the base query (two rows landed), then one more file."""
    (tmp_path / "in").mkdir()
    for i in range(2):
        (tmp_path / "in" / f"f{i}.json").write_text(json.dumps({"k": f"k{i}", "v": i}) + "\n")
    script = tmp_path / "job.py"
    script.write_text(JOB)
    df = spark.readStream.schema("k STRING, v LONG").json(str(tmp_path / "in"))
    (df.groupBy("k").count().writeStream.format("noop").outputMode("update")
       .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True)
       .start().awaitTermination())
    (tmp_path / "in" / "f2.json").write_text(json.dumps({"k": "k2", "v": 2}) + "\n")
    return tmp_path, script


def findings(doc):
    return {f["change"]: f for f in doc["findings"]}


def test_script_verdicts(job, spark):
    root, script = job
    chk = str(root / "chk")
    before = sorted(p for p in os.listdir(chk))
    doc = checkpoint.check(chk, str(script), argv=[str(root), "base"])
    assert doc["exitCode"] == 0 and doc["verdict"] == "safe"
    assert "unchanged" in findings(doc)
    assert doc["queryRecord"] is True

    doc = checkpoint.check(chk, str(script), argv=[str(root), "keys"])
    assert doc["exitCode"] == 2 and doc["verdict"] == "refused"
    f = findings(doc)["state_key_schema_changed"]
    assert f["errorClass"] == "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"
    assert "Existing key_schema=struct<k:string> and new key_schema=struct<k:string,v:bigint>" \
        in f["message"]

    doc = checkpoint.check(chk, str(script), argv=[str(root), "filter"])
    assert doc["exitCode"] == 0 and findings(doc)["filter_added"]["verdict"] == "safe"

    doc = checkpoint.check(chk, str(script), argv=[str(root), "base", "complete"])
    assert doc["exitCode"] == 1
    assert findings(doc)["output_mode_changed"]["verdict"] == "warning"

    text = checkpoint.check(chk, str(script), text=True, argv=[str(root), "keys"])
    assert "REFUSED  state_key_schema_changed  [STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE]" in text
    assert text.rstrip().endswith("(exit code 2)")
    # Nothing started, nothing written.
    assert spark.streams.active == []
    assert sorted(os.listdir(chk)) == before


def test_function_and_errors(job, spark):
    root, script = job
    chk = str(root / "chk")

    def changed():
        df = spark.readStream.schema("k STRING, v LONG").json(str(root / "in"))
        (df.dropDuplicates(["k"]).writeStream.format("noop")
           .option("checkpointLocation", chk).start())

    doc = checkpoint.check(chk, changed)
    f = findings(doc)["stateful_operator_changed"]
    assert f["errorClass"] == "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"
    assert "(OperatorId: 0 -> OperatorName: dedupe)" in f["message"]
    # After the check, queries start again.
    q = (spark.readStream.schema("k STRING, v LONG").json(str(root / "in")).writeStream
         .format("noop").start())
    q.stop()

    with pytest.raises(checkpoint.QueryNotStartedError):
        checkpoint.check(chk, str(script), argv=[str(root), "none"])
    # A SQL file is a pipeline's (test_pipelines.py): without a streaming table, no check.
    (root / "q.sql").write_text("SELECT 1")
    with pytest.raises(Exception, match="defines no streaming table"):
        checkpoint.check(chk, str(root / "q.sql"))
    # An error of the script is the script's.
    with pytest.raises(AnalysisException):
        checkpoint.check(chk, lambda: spark.sql("SELECT nope").collect())


def test_new_checkpoint(tmp_path, spark):
    (tmp_path / "in").mkdir()
    doc = checkpoint.check(str(tmp_path / "chk"), lambda: (
        spark.readStream.schema("k STRING").json(str(tmp_path / "in")).groupBy("k").count()
        .writeStream.format("noop").outputMode("update")
        .option("checkpointLocation", str(tmp_path / "chk")).start()))
    assert doc["exitCode"] == 0 and "new_checkpoint" in findings(doc)
    assert not (tmp_path / "chk").exists()


def test_cli(job):
    root, script = job
    chk = str(root / "chk")
    cli = spate_cli()

    def run(*args):
        return subprocess.run([cli, "checkpoint", "check", *args], capture_output=True,
                              text=True, timeout=120)

    r = run(chk, "--query", str(script), "--", str(root), "base")
    assert r.returncode == 0, r.stderr
    assert "Verdict: safe to run on this checkpoint (exit code 0)" in r.stdout
    r = run(chk, "--query", str(script), "--json", "--", str(root), "keys")
    assert r.returncode == 2, r.stderr
    doc = json.loads(r.stdout)  # only the document: the script's print went to stderr
    assert doc["verdict"] == "refused"
    assert "building keys" in r.stderr
    assert findings(doc)["state_key_schema_changed"]["errorClass"] == \
        "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"
    assert doc == checkpoint.check(chk, str(script), argv=[str(root), "keys"])
    r = run(chk, "--query", str(script), "--", str(root), "base", "complete")
    assert r.returncode == 1 and "WARNING  output_mode_changed" in r.stdout
    r = run(chk, "--query", str(script), "--", str(root), "none")
    assert r.returncode == 3 and "started no streaming query" in r.stderr
    (root / "q.sql").write_text("SELECT 1")
    r = run(chk, "--query", str(root / "q.sql"))
    assert r.returncode == 3 and "defines no streaming table" in r.stderr
    r = run(str(root / "missing"), "--query", str(script), "--", str(root), "base")
    assert r.returncode == 0 and "new_checkpoint" in r.stdout


# `spate checkpoint replay`: a PySpark job into a Delta table, batch by batch.
REPLAY_JOB = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    root = sys.argv[1]
    spark = SparkSession.builder.getOrCreate()
    (spark.readStream.schema("k STRING, v LONG").json(root + "/in").groupBy("k").count()
       .writeStream.format("delta").outputMode("complete")
       .option("checkpointLocation", root + "/chk").trigger(availableNow=True)
       .start(root + "/table").awaitTermination())
""")


def test_replay(tmp_path, spark):
    (tmp_path / "in").mkdir()
    script = tmp_path / "job.py"
    script.write_text(REPLAY_JOB)
    for i, rows in enumerate([[("a", 1), ("b", 2)], [("a", 3)]]):
        (tmp_path / "in" / f"f{i}.json").write_text(
            "".join(json.dumps({"k": k, "v": v}) + "\n" for k, v in rows))
        # The job itself, run by spate (not handed over).
        (spark.readStream.schema("k STRING, v LONG").json(str(tmp_path / "in"))
         .groupBy("k").count().writeStream.format("delta").outputMode("complete")
         .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True)
         .start(str(tmp_path / "table")).awaitTermination())
    chk = str(tmp_path / "chk")
    doc = checkpoint.replay(chk, 1, str(script), argv=[str(tmp_path)])
    assert doc["equal"] is True and doc["exitCode"] == 0, doc
    assert doc["sink"]["kind"] == "delta" and doc["committedRows"] == 2
    text = checkpoint.replay(chk, 0, str(script), text=True, argv=[str(tmp_path)])
    assert "equals what the sink committed (exit code 0)" in text

    (tmp_path / "in" / "f1.json").write_text(json.dumps({"k": "c", "v": 3}) + "\n")
    cli = spate_cli()
    out = tmp_path / "rows"
    r = subprocess.run([cli, "checkpoint", "replay", chk, "--batch", "1", "--query", str(script),
                        "--out", str(out), "--", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "- a | 2   (committed, not replayed)" in r.stdout
    assert "+ c | 1   (replayed, not committed)" in r.stdout
    assert sorted(tuple(x) for x in spark.read.parquet(str(out)).collect()) == \
        [("a", 1), ("b", 1), ("c", 1)]
    r = subprocess.run([cli, "checkpoint", "replay", chk, "--batch", "7", "--query", str(script),
                        "--json", "--", str(tmp_path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 3 and "not a committed batch" in r.stderr


def _submit(cli, script, *args, cwd):
    r = subprocess.run([cli, "submit", str(script), *args], capture_output=True, text=True,
                       timeout=180, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def test_replay_and_check_of_the_recorded_script(tmp_path, spark):
    """`spate checkpoint replay DIR --batch N` without --query: the run recorded its
    program (the script, its arguments, working folder) and replay runs it again."""
    work = tmp_path / "work"
    (work / "in").mkdir(parents=True)
    script = tmp_path / "job.py"
    script.write_text(REPLAY_JOB)
    cli = spate_cli()
    for i, rows in enumerate([[("a", 1), ("b", 2)], [("a", 3)]]):
        (work / "in" / f"f{i}.json").write_text(
            "".join(json.dumps({"k": k, "v": v}) + "\n" for k, v in rows))
        _submit(cli, script, ".", cwd=work)  # a relative root: the working folder matters
    chk = str(work / "chk")
    record = json.loads((work / "chk" / "spate-query.json").read_text())
    assert record["program"]["kind"] == "python"
    assert record["program"]["files"] == [str(script)]
    assert record["program"]["args"] == ["."]
    assert record["program"]["cwd"] == str(work)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for batch, rows in ((0, 2), (1, 2)):
        r = subprocess.run([cli, "checkpoint", "replay", chk, "--batch", str(batch), "--json"],
                           capture_output=True, text=True, timeout=120, cwd=elsewhere)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["equal"] is True and doc["sink"]["kind"] == "delta", doc
        assert doc["committedRows"] == rows and doc["replayedRows"] == rows
    doc = checkpoint.replay(chk, 1)  # the same from Python
    assert doc["equal"] is True, doc
    r = subprocess.run([cli, "checkpoint", "check", chk], capture_output=True, text=True,
                       timeout=120, cwd=elsewhere)
    assert r.returncode == 0 and "Verdict: safe" in r.stdout, r.stdout + r.stderr
    # The check runs the program's current code: a changed grouping is refused.
    script.write_text(REPLAY_JOB.replace('groupBy("k")', 'groupBy("k", "v")'))
    r = subprocess.run([cli, "checkpoint", "check", chk], capture_output=True, text=True,
                       timeout=120, cwd=elsewhere)
    assert r.returncode == 2 and "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE" in r.stdout, r.stderr
    assert checkpoint.check(chk)["verdict"] == "refused"
    # --query still overrides the record.
    r = subprocess.run([cli, "checkpoint", "replay", chk, "--batch", "1", "--query",
                        str(script), "--", str(work)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 3 and "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE" in r.stderr, r.stderr
    # A script that no longer exists is named.
    script.unlink()
    r = subprocess.run([cli, "checkpoint", "replay", chk, "--batch", "1"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 3 and f"{script} no longer exists" in r.stderr, r.stderr


def test_replay_without_a_recorded_script(tmp_path, spark):
    """A query started by code that is not a script (here: the test runner) cannot be run
    again: replay without --query says what is missing."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "f.json").write_text('{"k": "a", "v": 1}\n')
    (spark.readStream.schema("k STRING, v LONG").json(str(tmp_path / "in"))
     .writeStream.format("delta").option("checkpointLocation", str(tmp_path / "chk"))
     .trigger(availableNow=True).start(str(tmp_path / "t")).awaitTermination())
    r = subprocess.run([spate_cli(), "checkpoint", "replay", str(tmp_path / "chk"), "--batch",
                        "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "not run from a script" in r.stderr and "Pass --query FILE" in r.stderr
    with pytest.raises(AnalysisException, match="not run from a script"):
        checkpoint.replay(str(tmp_path / "chk"), 0)
    r = subprocess.run([spate_cli(), "checkpoint", "replay", str(tmp_path / "nothing"),
                        "--batch", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "no query record" in r.stderr, r.stderr
