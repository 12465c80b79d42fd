"""The oracle: one long-lived real Spark (local[2], pyspark + delta-spark from
build/spark-venv) serving many differential cases.

Run by conftest.py under the venv's python. Requests arrive on stdin, one JSON object a line
({"case": name, "tmp": dir}, an interop step {"case": id, "op", "writer", "path", "tmp"}
or a Kafka step {"case": id, "op": "kafka", "step", "args", "tmp"}); each answer is one JSON line ({"case", "result", "seconds"}) on
the file descriptor that was stdout at start. fd 1 itself is pointed at stderr, so prints of
case programs, the JVM and py4j never mix with the answers. EOF on stdin stops Spark.

Usage: spark_server.py JARS_DIRS WAREHOUSE_DIR (JARS_DIRS: folders joined by os.pathsep)
"""

import glob
import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import dsl  # noqa: E402
import interop  # noqa: E402
import kafka_steps  # noqa: E402
import runner  # noqa: E402
from pyspark.sql import DataFrame, Row, SparkSession, Window, functions, types  # noqa: E402
import pyspark.errors  # noqa: E402


def start_spark(jars_dir: str, warehouse: str) -> SparkSession:
    jars = sorted(j for d in jars_dir.split(os.pathsep) for j in glob.glob(os.path.join(d, "*.jar")))
    if not jars:
        raise SystemExit(f"spark_server: no Delta jars in {jars_dir} (run scripts/install-spark.sh)")
    b = (SparkSession.builder.master("local[2]").appName("spate-differential")
         .config("spark.jars", ",".join(jars))
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog",
                 "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.driver.memory", "2g")
         .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.default.parallelism", "2")
         .config("spark.sql.warehouse.dir", warehouse)
         .config("spark.databricks.delta.snapshotPartitions", "2")
         # Tiny inputs: adaptive re-planning only adds jobs.
         .config("spark.sql.adaptive.enabled", "false"))
    for k, v in dsl.BASE_CONF.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_once(df: DataFrame) -> DataFrame:
    """The query's result as a local relation: executed once (one Spark job), after which
    collect() and show() on it run no job. This halves the stage's time."""
    jvm, session = df.sparkSession._jvm, df.sparkSession
    qe = df._jdf.queryExecution()
    rows = jvm.scala.collection.immutable.ArraySeq.unsafeWrapArray(qe.executedPlan().executeCollect())
    plan = jvm.org.apache.spark.sql.catalyst.plans.logical.LocalRelation(
        qe.analyzed().output(), rows, False, jvm.scala.Option.empty())
    return DataFrame(jvm.org.apache.spark.sql.classic.Dataset.ofRows(session._jsparkSession, plan),
                     session)


def main() -> None:
    jars_dir, warehouse = sys.argv[1], sys.argv[2]
    spark = start_spark(jars_dir, warehouse)
    cases = runner.load_cases()
    runner.RUN_ONCE = run_once
    from delta.tables import DeltaTable
    modules = {"F": functions, "T": types, "Window": Window, "Row": Row,
               "errors": pyspark.errors, "DeltaTable": DeltaTable}
    answers.write(json.dumps({"ready": spark.version}) + "\n")
    answers.flush()
    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.monotonic()
        c = cases.get(req["case"])
        if req.get("op") == "kafka":  # test_kafka.py
            c = dsl.Case(req["case"], kafka_steps.program(req["step"], req["args"]))
        elif "op" in req:  # an interop step (test_interop.py)
            c = dsl.Case(req["case"], interop.step(req["op"], req["writer"], req["path"]))
        if c is None:
            result = {"error": {"class": "NO_SUCH_CASE", "type": "", "message": req["case"]}}
        else:
            env = runner.new_env(spark, modules, c, req["tmp"], "spark")
            result = runner.run(c, env)
        answers.write(json.dumps({"case": req["case"], "result": result,
                                  "seconds": round(time.monotonic() - t0, 3)}) + "\n")
        answers.flush()
    spark.stop()


if __name__ == "__main__":
    main()
