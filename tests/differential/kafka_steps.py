"""Kafka queries run by both engines against one broker (test_kafka.py): each step is a PySpark
program `step(s, a)` (s: dsl.Env, a: the step's arguments, plain JSON: the bootstrap address,
topics, folders) that returns what is compared: DataFrames, progress fields and checkpoint
files. The topics are written once per session by kcat (test_kafka.py), so both engines read
the same records, timestamps included; a step that writes uses a topic of its own engine's."""

import glob
import json
import os
import subprocess
from typing import Any, Callable, Dict, List

STEPS: Dict[str, Callable] = {}

COLUMNS = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]


def step(fn: Callable) -> Callable:
    STEPS[fn.__name__] = fn
    return fn


def program(name: str, args: Dict[str, Any]) -> Callable:
    """The step as a case program (spark_server.py's {"op": "kafka"} requests)."""
    return lambda s: STEPS[name](s, args)


def _reader(s, a, stream: bool):
    r = (s.spark.readStream if stream else s.spark.read).format("kafka")
    r = r.option("kafka.bootstrap.servers", a["bootstrap"])
    for k, v in a.get("options", {}).items():
        r = r.option(k, v)
    return r.load()


def _progress(q) -> List[Dict[str, Any]]:
    """What both engines must agree on in each progress event of a Kafka source."""
    out = []
    for p in q.recentProgress:
        src = p["sources"][0]
        out.append({"batchId": p["batchId"], "numInputRows": p["numInputRows"],
                    "description": src["description"], "startOffset": _json(src["startOffset"]),
                    "endOffset": _json(src["endOffset"]), "latestOffset": _json(src["latestOffset"]),
                    "metrics": {k: str(v) for k, v in sorted((src.get("metrics") or {}).items())}})
    return out


def _json(v: Any) -> Any:
    """An offset as progress shows it: a JSON text (Spark) or already parsed (either)."""
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def _checkpoint(chk: str) -> Dict[str, Any]:
    """The Kafka source's lines of the checkpoint: every offsets/N file's source offsets (its
    lines after the version and the batch metadata) and the initial offsets sources/0/0."""
    offsets = {}
    for f in sorted(glob.glob(os.path.join(chk, "offsets", "[0-9]*")), key=lambda x: int(os.path.basename(x))):
        with open(f) as fh:
            lines = fh.read().split("\n")
        offsets[os.path.basename(f)] = {"version": lines[0], "sources": lines[2:]}
    with open(os.path.join(chk, "sources", "0", "0")) as fh:
        initial = fh.read()
    return {"offsets": offsets, "sources/0/0": initial}


def _run_stream(s, a, df, chk, out, trigger):
    w = df.writeStream.format("delta").option("checkpointLocation", chk)
    if trigger == "availableNow":
        q = w.trigger(availableNow=True).start(out)
        q.awaitTermination()
    else:
        q = w.start(out)
        q.processAllAvailable()
        q.stop()
    return q


@step
def batch(s, a):
    """spark.read.format("kafka"): every column, rows and schema."""
    return {"rows": _reader(s, a, False)}


@step
def stream(s, a):
    """readStream.format("kafka") into a Delta table: its rows, each progress event's offsets
    and metrics, and the checkpoint's offsets files."""
    chk, out = os.path.join(s.tmp, "chk"), os.path.join(s.tmp, "out")
    q = _run_stream(s, a, _reader(s, a, True), chk, out, a.get("trigger", "availableNow"))
    return {"rows": s.spark.read.format("delta").load(out), "progress": _progress(q),
            **_checkpoint(chk)}


def _produce(bootstrap: str, topic: str, partition: int, lines: List[str]) -> None:
    subprocess.run(["kcat", "-b", bootstrap, "-P", "-t", topic, "-p", str(partition), "-K", "\t",
                    "-X", "enable.idempotence=true"],
                   input="".join(x + "\n" for x in lines), text=True, check=True)


@step
def stream_latest(s, a):
    """startingOffsets latest on a topic of this engine's own: a first run before any new
    record (batch 0 resolves "latest"), records produced while the query is stopped, and a
    restart that reads them. The topic's name (it differs by engine) and the timestamps
    (produce times) are left out of what is compared."""
    topic = a["topic"] + "-" + s.side
    _produce(a["bootstrap"], topic, 0, ["before\tb0"])
    chk, out = os.path.join(s.tmp, "chk"), os.path.join(s.tmp, "out")
    progress = []

    def run():
        df = _reader(s, dict(a, options={"subscribe": topic, "startingOffsets": "latest"}), True)
        q = (df.select("key", "value", "partition", "offset").writeStream.format("delta")
             .option("checkpointLocation", chk).start(out))
        q.processAllAvailable()
        q.stop()
        progress.extend(p for p in _progress(q) if p["numInputRows"] or p["batchId"] == 0)
    run()
    _produce(a["bootstrap"], topic, 0, ["k0\tv0", "k1\tv1"])
    _produce(a["bootstrap"], topic, 1, ["k2\tv2"])
    run()
    got = {"rows": s.spark.read.format("delta").load(out), "progress": progress, **_checkpoint(chk)}
    return json.loads(json.dumps(_describe(got)).replace(topic, "<topic>"))


def _describe(v):
    """DataFrames described now (stream_latest renames the topic in the description)."""
    import runner
    return {k: runner.normalize(x) for k, x in v.items()}


@step
def sink_write(s, a):
    """df.write.format("kafka"): key, value, partition and headers columns to a["topic"]."""
    df = s.spark.createDataFrame(
        [("k1", "v1", 0, [("h", bytearray(b"1"))]), (None, "v2", 1, []),
         ("k3", None, 0, None), ("k4", "v4", 1, [("a", None), ("b", bytearray(b"xy"))])],
        "key STRING, value STRING, partition INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>")
    df.write.format("kafka").option("kafka.bootstrap.servers", a["bootstrap"]) \
        .option("topic", a["topic"]).save()
    return True


@step
def sink_read(s, a):
    """What the sink wrote (a batch read without the topic name and the timestamps)."""
    df = _reader(s, dict(a, options={"subscribe": a["topic"], "includeHeaders": "true"}), False)
    return {"rows": df.select(*a.get("columns", ["key", "value", "partition", "offset",
                                                  "timestampType", "headers"]))}


@step
def handover(s, a):
    """One run of a rate-limited Kafka -> Delta stream on a shared checkpoint (the two engines
    take turns); returns its progress."""
    df = _reader(s, dict(a, options={"subscribe": a["topic"], "startingOffsets": "earliest",
                                     "maxOffsetsPerTrigger": "3"}), True)
    q = _run_stream(s, a, df.selectExpr("partition", "offset", "CAST(value AS STRING) AS v"),
                    a["chk"], a["out"], "availableNow")
    return {"progress": _progress(q)}


@step
def delta_rows(s, a):
    return {"rows": s.spark.read.format("delta").load(a["out"])}
