"""Observability from Python (issue 16): the monitoring server started by the session conf
(as in C++), /metrics checked by promtool, /api/v1 against the queries' own progress, and
`spate checkpoint describe` on checkpoints made by real runs."""

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

import spate
from spate import checkpoint
from spate.errors import AnalysisException
from spate.sql import SparkSession

from conftest import missing_peer


def land(folder, name, rows):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w") as f:
        for k, v in rows:
            f.write(json.dumps({"k": k, "v": v}) + "\n")


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def spate_cli():
    """The `spate` command built beside the Python package (build/<preset>/cli/spate)."""
    path = os.environ.get("SPATE_CLI") or os.path.normpath(
        os.path.join(os.path.dirname(spate.__file__), "..", "..", "cli", "spate"))
    if not os.access(path, os.X_OK):
        missing_peer(f"the spate command is not built at {path} (set SPATE_CLI)")
    return path


@pytest.fixture
def ui(spark):
    s = (SparkSession.builder.config("spark.ui.enabled", "true").config("spark.ui.port", "0")
         .config("spark.hadoop.fs.s3a.secret.key", "s3cr3t").getOrCreate())
    yield s
    s.stop()  # stops the monitoring server
    for k in ("spark.ui.enabled", "spark.ui.port", "spark.hadoop.fs.s3a.secret.key"):
        s.conf.unset(k)


def test_ui_is_off_unless_asked_for(spark):
    assert spark.sparkContext.uiWebUrl is None


def test_ui_confs_are_checked(spark):
    for k, v, msg in [("spark.ui.enabled", "yes", "spark.ui.enabled should be boolean"),
                      ("spark.ui.port", "http", "spark.ui.port should be an integer")]:
        with pytest.raises(Exception, match=msg):
            SparkSession.builder.config("spark.ui.enabled", "true").config(k, v).getOrCreate()
        spark.conf.unset("spark.ui.enabled")
        spark.conf.unset(k)
    assert spark.sparkContext.uiWebUrl is None


def test_monitoring_server(ui, tmp_path):
    url = ui.sparkContext.uiWebUrl
    assert url is not None and url.startswith("http://127.0.0.1:")
    landing = tmp_path / "landing"
    land(landing, "a.json", [("a", 1), ("b", 2)])
    land(landing, "b.json", [("a", 3)])
    q = (ui.readStream.schema("k STRING, v INT").option("maxFilesPerTrigger", 1).json(str(landing))
         .groupBy("k").count()
         .writeStream.format("memory").queryName("py_obs_agg").outputMode("complete")
         .option("checkpointLocation", str(tmp_path / "chk"))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    progress = q.recentProgress
    assert len(progress) == 2

    status, ctype, body = get(url + "/metrics")
    assert status == 200 and ctype == "text/plain; version=0.0.4; charset=utf-8"
    labels = '{query_id="%s",query_name="py_obs_agg"}' % q.id
    assert f"spate_stream_active{labels} 0\n" in body
    assert f"spate_stream_batches_total{labels} 2\n" in body
    assert f"spate_stream_input_rows_total{labels} 3\n" in body
    assert f"spate_stream_state_rows{labels} 2\n" in body
    assert "# TYPE spate_stream_batch_duration_seconds histogram\n" in body
    promtool = shutil.which("promtool")
    if promtool is None:
        missing_peer("promtool is missing (Debian package prometheus)")
    check = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                           text=True)
    assert check.returncode == 0 and check.stdout + check.stderr == "", check.stdout + check.stderr

    runs = json.loads(get(url + "/api/v1/streams")[2])
    run = next(r for r in runs if r["runId"] == q.runId)
    assert run["status"] == "FINISHED" and run["name"] == "py_obs_agg"
    assert run["id"] == q.id and run["latestBatchId"] == 1
    assert json.loads(get(url + "/api/v1/streams?status=finished")[2])[0]["runId"] == q.runId
    served = json.loads(get(url + f"/api/v1/streams/{q.runId}/progress")[2])
    assert served == [json.loads(p.json) for p in progress]

    app = json.loads(get(url + "/api/v1/applications")[2])[0]
    env = json.loads(get(url + f"/api/v1/applications/{app['id']}/environment")[2])
    props = dict(env["sparkProperties"])
    assert props["spark.hadoop.fs.s3a.secret.key"] == "*********(redacted)"
    assert "s3cr3t" not in json.dumps(env)

    # The live page (tests/ui checks it in a browser): "/" leads to it; it loads its own
    # script, which reads the endpoints above.
    status, ctype, page = get(url + "/")
    assert status == 200 and ctype == "text/html; charset=utf-8"
    assert '<script src="/static/spate-streaming.js"' in page
    assert get(url + f"/StreamingQuery/statistics/?id={q.runId}")[2] == page
    assert "window.spateStreaming" in get(url + "/static/spate-streaming.js")[2]

    with pytest.raises(urllib.error.HTTPError) as e:
        get(url + "/api/v1/streams/no-such-run")
    assert e.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(urllib.request.Request(url + "/metrics", data=b"x"), timeout=30)
    assert e.value.code == 405


def test_checkpoint_describe_cli(spark, tmp_path):
    cli = spate_cli()
    landing = tmp_path / "landing"
    land(landing, "a.json", [("a", 1), ("b", 2), ("a", 5)])
    chk = tmp_path / "chk"
    s = spark.newSession()
    s.conf.set("spark.sql.shuffle.partitions", "2")
    q = (s.readStream.schema("k STRING, v INT").json(str(landing))
         .groupBy("k").count()
         .writeStream.format("memory").queryName("py_describe").outputMode("update")
         .option("checkpointLocation", str(chk)).trigger(availableNow=True).start())
    q.awaitTermination()
    out = subprocess.run([cli, "checkpoint", "describe", str(chk), "--json"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["queryId"] == q.id
    assert d["lastCommittedBatch"] == q.lastProgress.batchId
    assert [b["committed"] for b in d["batches"]] == [True] * len(d["batches"])
    assert d["sources"][0]["log"]["entries"] == 1
    assert d["sources"][0]["committedOffset"] == json.loads(q.lastProgress.json)["sources"][0]["endOffset"]
    op = d["state"]["operators"][0]
    assert op["numPartitions"] == 2 and op["numRowsTotal"] == 2
    assert op["keySchema"] == "struct<k:string>"
    text = subprocess.run([cli, "checkpoint", "describe", str(chk)], capture_output=True,
                          text=True)
    assert text.returncode == 0
    assert f"  query id:              {q.id}\n" in text.stdout
    assert "operator 0: 2 partitions, 2 rows" in text.stdout
    bad = subprocess.run([cli, "checkpoint", "describe", str(landing)], capture_output=True,
                         text=True)
    assert bad.returncode == 1 and "is not a streaming checkpoint" in bad.stderr

    # The same from Python.
    assert checkpoint.describe(str(chk)) == d
    assert checkpoint.describe(chk, text=True) == text.stdout
    with pytest.raises(AnalysisException, match="is not a streaming checkpoint"):
        checkpoint.describe(str(landing))
