"""The files a streaming query leaves in its checkpoint and sink logs, compared with the ones
real Spark writes for the same query: `metadata`, `offsets/N` (version line, batch metadata
with the pinned confs, source offsets), `commits/N`, the file source's `sources/0/N`, the file
sink's `_spark_metadata/N`, and which state store versions each partition keeps (the state
files' contents are each engine's own). A checkpoint of a stateless query moves between the
engines only if these agree.

What is run-specific is replaced before comparing: the query id, timestamps, absolute paths
(the input file's name is kept), part-file names and sizes."""

import json
import os
import re

from dsl import case

SCHEMA = "id INT, k STRING, ts TIMESTAMP"


def _land(s, n, rows):
    src = os.path.join(s.tmp, "in")
    os.makedirs(src, exist_ok=True)
    f = os.path.join(src, f"part-{n:04d}.json")
    with open(f, "w") as out:
        out.write("".join(json.dumps(r) + "\n" for r in rows))
    os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))
    return src


def _rows(n0, n):
    return [{"id": i, "k": "abc"[i % 3], "ts": f"2024-01-01 00:{i:02d}:00"} for i in range(n0, n0 + n)]


_VOLATILE = {"batchTimestampMs", "timestamp", "modificationTime", "id", "runId"}


def _scrub(v, key=None):
    if isinstance(v, dict):
        return {k: _scrub(x, k) for k, x in sorted(v.items())}
    if isinstance(v, list):
        return [_scrub(x) for x in v]
    if key in _VOLATILE:
        return f"<{type(v).__name__}>"
    if key == "path" and isinstance(v, str):
        name = os.path.basename(v)
        # Part files are named by each engine (task ids, uuids): only their extension counts.
        return "<part>" + os.path.splitext(name)[1] if name.startswith("part-0000") and "-" in name[10:] else name
    if key == "size":
        return "<size>"
    return v


def _log_file(path):
    """A log file: its version line, then each JSON line scrubbed."""
    with open(path) as f:
        lines = f.read().split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        if line == "":
            continue
        try:
            out.append(_scrub(json.loads(line)))
        except ValueError:
            out.append(line)
    return out


def _listing(root):
    """Relative paths of the files under root, without checksum files; numbered state files
    kept by name (which versions exist is part of the format)."""
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".crc"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)
            out.append(re.sub(r"part-0000[^/]*", "<part>", rel))
    return sorted(out)


def _checkpoint(chk, sources=True):
    # spate-query.json: spate's record of the program that ran (docs/observability.md);
    # Spark ignores files it does not know.
    out = {"files": [f for f in _listing(chk)
                     if not f.startswith("state/") and f != "spate-query.json"]}
    with open(os.path.join(chk, "metadata")) as f:
        out["metadata"] = _scrub(json.loads(f.read()))
    for sub in ("offsets", "commits") + (("sources/0",) if sources else ()):
        folder = os.path.join(chk, sub)
        for n in sorted(os.listdir(folder)):
            if n.isdigit():
                out[f"{sub}/{n}"] = _log_file(os.path.join(folder, n))
    return out


@case
def file_source_to_file_sink(s):
    """Two batches (maxFilesPerTrigger=1) from JSON files into a Parquet file sink."""
    src = _land(s, 0, _rows(0, 3))
    _land(s, 1, _rows(3, 2))
    out, chk = os.path.join(s.tmp, "out"), os.path.join(s.tmp, "chk")
    df = s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
    q = (df.writeStream.format("parquet").option("checkpointLocation", chk)
         .trigger(availableNow=True).start(out))
    q.awaitTermination()
    result = _checkpoint(chk)
    meta = os.path.join(out, "_spark_metadata")
    result["sink_log_files"] = sorted(f for f in os.listdir(meta) if not f.endswith(".crc"))
    for n in result["sink_log_files"]:
        result[f"_spark_metadata/{n}"] = _log_file(os.path.join(meta, n))
    result["rows"] = s.spark.read.parquet(out).orderBy("id")
    return result


@case
def windowed_aggregation_state_files(s):
    """A windowed count with a watermark in append mode, two batches and the no-data batch
    that closes the first window: offsets carry the watermark, commits the next one, and the
    state store keeps a delta file per version and partition."""
    src = _land(s, 0, _rows(0, 4))
    _land(s, 1, [{"id": 99, "k": "a", "ts": "2024-01-01 01:00:00"}])
    chk = os.path.join(s.tmp, "chk")
    df = (s.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
          .withWatermark("ts", "10 minutes")
          .groupBy(s.F.window("ts", "5 minutes")).count())
    q = (df.writeStream.format("memory").queryName("chk_window").outputMode("append")
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    result = _checkpoint(chk)
    # Which versions each partition keeps; the files' contents and the schema / operator
    # metadata files are each engine's own (state is not portable: docs/spark-differences.md
    # D18, docs/state.md).
    result["state_files"] = [f for f in _listing(os.path.join(chk, "state"))
                             if "_metadata" not in f]
    result["rows"] = s.spark.sql("SELECT window.start, count FROM chk_window ORDER BY 1")
    return result
