"""The differential suite's fixtures: the Spark oracle (spark_server.py under the venv's
python, one process for the whole run) and the spate session (this process).

Set up with scripts/install-spark.sh; run with the built package on the path:
    PYTHONPATH=build/release/python /usr/bin/python3 -m pytest -q tests/differential
Without the venv or the jars the suite is skipped, or fails when CI=true."""

import json
import os
import shutil
import subprocess
import sys
import threading
from typing import Dict, List, Optional

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import answers as recordings  # noqa: E402
import compare  # noqa: E402
import runner  # noqa: E402

VENV_PYTHON = os.path.join(ROOT, "build", "spark-venv", "bin", "python")
JARS = os.path.join(ROOT, "build", "spark-jars")
# Spark's Kafka connector (scripts/install-spark.sh), on the server's class path too.
KAFKA_JARS = os.path.join(ROOT, "build", "spark-kafka-jars")
# The run's scratch folder (both engines' case folders, logs); SPATE_DIFF_WORK gives a run
# its own, so two runs on one tree do not delete each other's files.
WORK = os.environ.get("SPATE_DIFF_WORK") or os.path.join(ROOT, "build", "differential")
# One case may take this long on Spark (the first ones also pay for the JVM's warm-up).
CASE_TIMEOUT = float(os.environ.get("SPATE_DIFF_TIMEOUT", "180"))


class Oracle:
    """The Spark server: requests are sent up front, so Spark works through the cases while
    this process runs them on spate; answers are collected by a reader thread. Cases with a
    valid recording of Spark's answer (answers.py) are answered from it, except a sample
    that is asked live too and must equal the recording."""

    def __init__(self, names: List[str]):
        self.store = recordings.Store(names)
        self.names = set(names)
        self.recorded: Dict[str, dict] = {}
        live = []
        for n in names:
            r = self.store.recorded(n)
            if r is None or self.store.verified(n):
                live.append(n)
            if r is not None:
                self.recorded[n] = r
        self.live = set(live)
        names = live
        for side in ("spark", "spate"):
            shutil.rmtree(os.path.join(WORK, side), ignore_errors=True)
            os.makedirs(os.path.join(WORK, side, "warehouse"))
        if os.path.exists(os.path.join(WORK, "differences.jsonl")):
            os.remove(os.path.join(WORK, "differences.jsonl"))
        self.log_path = os.path.join(WORK, "spark-server.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ, TZ="UTC", PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=HERE, PYSPARK_PYTHON=VENV_PYTHON)
        self.proc = subprocess.Popen(
            [VENV_PYTHON, os.path.join(HERE, "spark_server.py"), JARS + os.pathsep + KAFKA_JARS,
             os.path.join(WORK, "spark", "warehouse")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            env=env, cwd=os.path.join(WORK, "spark"))
        self.answers: Dict[str, dict] = {}
        self.seconds: Dict[str, float] = {}
        self.version: Optional[str] = None
        self.done = False
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        tmp = os.path.join(WORK, "spark", "cases")
        for n in names:
            self.proc.stdin.write(json.dumps({"case": n, "tmp": tmp}) + "\n")
        self.proc.stdin.flush()

    def _read(self) -> None:
        for line in self.proc.stdout:
            msg = json.loads(line)
            with self.cond:
                if "ready" in msg:
                    self.version = msg["ready"]
                else:
                    self.answers[msg["case"]] = msg
                    self.seconds[msg["case"]] = msg["seconds"]
                self.cond.notify_all()
        with self.cond:
            self.done = True
            self.cond.notify_all()

    def ask(self, request: dict) -> dict:
        """Sends one more request (after those sent up front) and waits for its outcome."""
        with self.cond:
            self.asked = getattr(self, "asked", 0) + 1
            rid = f"ask/{self.asked}"
        msg = dict(request, case=rid, tmp=os.path.join(WORK, "spark", "asked"))
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self._live_answer(rid)["result"]

    def answer(self, name: str) -> dict:
        """Spark's answer to a case: {"result", "recorded": bool, "mismatch": difference or
        None (a live answer that differs from the case's recording)}."""
        if name in self.recorded and name not in self.live:
            return {"result": self.recorded[name], "recorded": True, "mismatch": None,
                    "spark": self.store.version_of(name)}
        msg = self._live_answer(name)
        if name in self.names:
            self.store.add_live(name, msg["result"])
        mismatch = None
        if name in self.recorded:
            c = runner.load_cases().get(name)
            mismatch = compare.first_difference(self.recorded[name], msg["result"],
                                                c.ordered if c else False,
                                                c.show if c else True)
        return dict(msg, recorded=False, mismatch=mismatch, spark=self.version)

    def _live_answer(self, name: str) -> dict:
        with self.cond:
            ok = self.cond.wait_for(lambda: name in self.answers or self.done, CASE_TIMEOUT)
            if name in self.answers:
                return self.answers.pop(name)
        tail = open(self.log_path).read()[-3000:]
        what = "timed out" if not ok else f"exited with {self.proc.poll()}"
        raise RuntimeError(f"the Spark server {what} before answering {name}; "
                           f"log {self.log_path}:\n{tail}")

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except Exception:
            self.proc.kill()
        self.log.close()
        # Spark's time per case, slowest first (what to look at when the stage grows).
        with open(os.path.join(WORK, "spark-seconds.txt"), "w") as f:
            for n, t in sorted(self.seconds.items(), key=lambda x: -x[1]):
                f.write(f"{t:8.3f} {n}\n")
        written = self.store.save(self.version, runner.load_cases())
        if written:
            print(f"\nrecorded {written} answers of Spark {self.version} in "
                  f"{recordings.STORE}", file=sys.stderr)


def _missing() -> Optional[str]:
    if not os.path.exists(VENV_PYTHON):
        return f"{VENV_PYTHON} not found"
    if not any(f.endswith(".jar") for f in os.listdir(JARS)) if os.path.isdir(JARS) else True:
        return f"no Delta jars in {JARS}"
    try:
        import spate.sql  # noqa: F401
    except ImportError as e:
        return f"spate's Python package is not importable ({e}); set PYTHONPATH=build/release/python"
    return None


def missing_peer(msg):
    """A tool, server or package a test needs is missing: fails under CI=true (CI must not
    pass by skipping), else skips."""
    if os.environ.get("CI") in ("true", "1"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def oracle(request):
    why = _missing()
    if why:
        missing_peer(f"real Spark is not set up: {why} (run scripts/install-spark.sh)")
    names = [item.callspec.params["name"] for item in request.session.items
             if hasattr(item, "callspec") and "name" in item.callspec.params]
    o = Oracle(names)
    yield o
    o.close()


@pytest.fixture(scope="session")
def spate_session():
    from spate.sql import SparkSession
    b = SparkSession.builder.appName("spate-differential").config(
        "spark.sql.warehouse.dir", os.path.join(WORK, "spate", "warehouse"))
    return b.getOrCreate()
