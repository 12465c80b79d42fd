"""Log lines of streaming queries (spate.log.level / spate.log.format, api/query_log.h,
docs/observability.md "Log lines"): one JSON object per line with a level, per batch,
secrets redacted; nothing at the default level."""
import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import sys
    from spate.sql import SparkSession
    work, fmt, level = sys.argv[1], sys.argv[2], sys.argv[3]
    spark = SparkSession.builder.getOrCreate()
    if fmt:
        spark.conf.set("spate.log.format", fmt)
    if level:
        spark.sparkContext.setLogLevel(level)
    with open(work + "/in/a.json", "w") as f:
        f.write('{"k": "a", "v": 1}\\n{"k": "b", "v": 2}\\n')
    q = (spark.readStream.schema("k STRING, v LONG").json(work + "/in")
         .groupBy("k").count().writeStream.outputMode("complete").format("memory")
         .queryName("counts").option("checkpointLocation", work + "/chk")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    def fail(df, batch_id):
        raise RuntimeError("cannot connect: password=hunter2")
    q = (spark.readStream.schema("k STRING, v LONG").json(work + "/in").writeStream
         .foreachBatch(fail).option("checkpointLocation", work + "/chk2").start())
    try:
        q.awaitTermination()
    except Exception:
        pass
    print("done")
''')


def run(work, fmt, level):
    (work / "in").mkdir(parents=True)
    (work / "job.py").write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(work / "job.py"), str(work), fmt, level],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "done" in r.stdout, r.stderr
    return [l for l in r.stderr.splitlines() if "spate.streaming" in l]


def test_json_lines_per_batch_with_levels_and_redaction(tmp_path):
    lines = [json.loads(l) for l in run(tmp_path / "json", "json", "INFO")]
    msgs = [(l["level"], l["msg"]) for l in lines]
    assert ("INFO", "Streaming query started") in msgs
    progress = [l for l in lines if l["msg"] == "Streaming query made progress"]
    assert progress, lines
    first = progress[0]
    assert first["queryName"] == "counts" and first["batchId"] == 0
    assert first["numInputRows"] == 2 and first["stateRows"] == 2
    assert first["sources"][0].startswith("FileStreamSource[")
    assert "progress" not in first  # DEBUG only
    assert all(set(l) >= {"ts", "level", "logger", "msg"} for l in lines)
    failed = [l for l in lines if l["level"] == "ERROR"]
    assert len(failed) == 1 and failed[0]["msg"] == "Streaming query failed", lines
    assert "hunter2" not in failed[0]["exception"], failed[0]
    assert "*********(redacted)" in failed[0]["exception"]
    assert ("INFO", "Streaming query terminated") in msgs


def test_levels_and_text_format(tmp_path):
    # WARN by default: only the failure (an ERROR line, on one line), nothing per batch.
    for level in ("", "ERROR"):
        errors = run(tmp_path / ("default" if not level else level), "", level)
        assert len(errors) == 1, errors
        assert " ERROR spate.streaming: Streaming query failed" in errors[0]
        assert "hunter2" not in errors[0] and "Traceback (most recent call last):\\n" in errors[0]
    assert run(tmp_path / "off", "", "OFF") == []
    debug = run(tmp_path / "debug", "text", "DEBUG")
    batch = [l for l in debug if "made progress" in l]
    assert batch and "batchId=0" in batch[0] and "numInputRows=2" in batch[0], debug
    assert debug[0][:4].isdigit() and debug[0][10] == " "   # 2026-12-06 09:30:00.123 INFO ...
