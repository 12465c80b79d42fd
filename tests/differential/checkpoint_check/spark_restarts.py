"""Real Spark's side of the checkpoint-check differential test (run under
build/spark-venv's python): for each case, the original variant of query.py runs on a fresh
checkpoint (availableNow), its checkpoint is copied to chk-original, one more input file
lands, and the changed variant runs on the same checkpoint. Prints one JSON object: case -> {"ran": true} or {"ran": false,
"errorClass": <the cause's class, or null>, "message": <the cause's message>}.

Usage: spark_restarts.py WORK JARS_DIR CASE:ORIGINAL:CHANGED ...
"""

import glob
import json
import os
import re
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # Spark's and py4j's prints go to stderr

from pyspark.sql import SparkSession  # noqa: E402

import query  # noqa: E402
from land import land  # noqa: E402


def cause(e: Exception) -> dict:
    """The error a restart failed with: StreamingQueryException's cause, with its class."""
    text = str(e)
    m = re.search(r"terminated with exception: (.*)", text, re.S)
    inner = m.group(1) if m else text
    inner = inner.split("\n=== Streaming Query ===")[0]
    inner = re.sub(r"( SQLSTATE: \w+)+\s*$", "", inner.strip())
    c = re.match(r"\[([A-Z_][A-Z0-9_.]*)\] ", inner)
    return {"ran": False, "errorClass": c.group(1) if c else None,
            "message": inner[c.end():] if c else inner}


def session(jars: str) -> SparkSession:
    """The local Spark both sides of the checkpoint-check test run on (UTC, 2 partitions)."""
    b = (SparkSession.builder.master("local[2]").appName("spate-checkpoint-check")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
    jar_files = sorted(glob.glob(os.path.join(jars, "*.jar")))
    if jar_files:
        b = b.config("spark.jars", ",".join(jar_files))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    work, jars = sys.argv[1], sys.argv[2]
    spark = session(jars)
    out = {}
    for spec in sys.argv[3:]:
        case, original, changed = spec.split(":")
        root = os.path.join(work, case)
        shutil.rmtree(root, ignore_errors=True)
        land(root, 0)
        land(root, 1)
        query.start(spark, root, original).awaitTermination()
        # Spark's checkpoint of the original, for spate's check of a Spark-made checkpoint.
        shutil.copytree(os.path.join(root, "chk"), os.path.join(root, "chk-original"))
        land(root, 2)
        try:
            query.start(spark, root, changed).awaitTermination()
            out[case] = {"ran": True}
        except Exception as e:  # noqa: BLE001 (the verdict is the error)
            out[case] = cause(e)
    answers.write(json.dumps(out) + "\n")
    answers.flush()
    spark.stop()


if __name__ == "__main__":
    main()
