"""Real Spark's side of the aggregation-buffer cases (run under build/spark-venv's python):
for each entry of aggregates.AGGREGATES, the query runs on a fresh checkpoint
(WORK/<index>) and the state value schema Spark wrote (state/0/0/_metadata/schema) is read.
Prints one JSON object: index -> {"value": [[type, nullable], ...]} or {"error": message}.

Usage: spark_aggregates.py WORK JARS_DIR
"""

import json
import os
import shutil
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
# Importing spark_restarts sends Spark's and py4j's prints to stderr (`answers`: stdout).
from spark_restarts import answers, session  # noqa: E402

import aggregates  # noqa: E402


def read_state_schema(path):
    """Spark's schema file: writeUTF(version), then (v2) per schema an int32 count of
    writeUTF chunks of its JSON, or (v1) one writeUTF each; returns (key, value) JSON."""
    b = open(path, "rb").read()
    at = 0

    def utf():
        nonlocal at
        n = struct.unpack(">H", b[at:at + 2])[0]
        at += 2 + n
        return b[at - n:at].decode()

    version = utf()
    if version == "v1":
        return json.loads(utf()), json.loads(utf())
    out = []
    for _ in range(2):
        chunks = struct.unpack(">i", b[at:at + 4])[0]
        at += 4
        out.append(json.loads("".join(utf() for _ in range(chunks))))
    return out[0], out[1]


def main() -> None:
    work, jars = sys.argv[1], sys.argv[2]
    spark = session(jars)
    out = {}
    for index in range(len(aggregates.AGGREGATES)):
        root = os.path.join(work, str(index))
        shutil.rmtree(root, ignore_errors=True)
        aggregates.land(root)
        try:
            aggregates.start(spark, root, index).awaitTermination()
            _, value = read_state_schema(os.path.join(root, "chk", "state", "0", "0",
                                                      "_metadata", "schema"))
            out[index] = {"value": [[f["type"], f["nullable"]] for f in value["fields"]]}
        except Exception as e:  # noqa: BLE001 (reported to the test)
            out[index] = {"error": str(e).splitlines()[0]}
    answers.write(json.dumps(out) + "\n")
    answers.flush()
    spark.stop()


if __name__ == "__main__":
    main()
