"""Streaming progress bookkeeping that does not depend on timing: how many progresses
recentProgress keeps (spark.sql.streaming.numRecentProgressUpdates), and what a run that
finds nothing new reports. Idle reporting over time (noDataProgressEventInterval, idle
events) is pinned by the C++ test StreamTest.IdleTriggersReportAsSpark with a manual clock,
from what real Spark 4.2 showed."""

import json
import os

from dsl import case


def _land(s, n):
    path = os.path.join(s.tmp, "in")
    os.makedirs(path, exist_ok=True)
    for i in range(n):
        f = os.path.join(path, f"part-{i:04d}.json")
        with open(f, "w") as out:
            out.write(json.dumps({"id": i}) + "\n")
        os.utime(f, (1_700_000_000 + i, 1_700_000_000 + i))
    return path


def _run(s, chk):
    q = (s.spark.readStream.schema("id INT").option("maxFilesPerTrigger", 1)
         .json(os.path.join(s.tmp, "in"))
         .writeStream.format("noop").option("checkpointLocation", chk)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return [(p["batchId"], p["numInputRows"], p["sink"]["numOutputRows"], "addBatch" in p["durationMs"])
            for p in q.recentProgress]


@case(conf={"spark.sql.streaming.numRecentProgressUpdates": "3"})
def recent_progress_retention(s):
    _land(s, 6)
    return {"progress": _run(s, os.path.join(s.tmp, "chk"))}


@case
def restart_with_nothing_new(s):
    _land(s, 2)
    chk = os.path.join(s.tmp, "chk")
    first = _run(s, chk)
    return {"first": first, "again": _run(s, chk)}
