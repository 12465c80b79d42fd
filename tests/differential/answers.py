"""Real Spark's recorded answers to the differential cases (tests/differential/answers/).

Spark is pinned (scripts/spark-versions.env) and a case is a fixed program over its own
data, so Spark's outcome for a case is a function of the case's module, the suite's shared
code (dsl.py, runner.py, spark_server.py) and the pinned versions. A live run records each
outcome it got from Spark; later runs compare spate with the recording instead of asking
Spark again, as long as that fingerprint is unchanged. What keeps the recordings honest:

* a module whose file (or the suite's shared code, or the pinned versions) changed has no
  valid recording: every case of it is asked live until it is recorded again;
* every run still starts Spark and asks it live for a sample of the recorded cases
  (`SPATE_DIFF_VERIFY`, a fraction, default 0.05; chosen by the commit, so each commit checks
  other cases): a recording that differs from live Spark fails its test;
* `SPATE_DIFF_LIVE=all` asks Spark for every case (the recordings are then only checked);
* `SPATE_DIFF_RECORD=1` writes the live answers of the run into the recordings
  (scripts/record-spark-answers.sh runs every case live and records them all).

Whole tests that are not cases record Spark's outcome the same way (`spark_outcome`: the
declarative pipeline project, the Nexmark queries). Interop steps, Kafka steps, the examples
and the checkpoint-check tests (which read the files Spark writes) run live every time.

One JSON file per case module: {"key": fingerprint, "spark": version, "answers": {case:
outcome}}; error outcomes keep their class, type and first message line (not the trace)."""

import hashlib
import json
import os
import subprocess
import sys
from typing import Any, Dict, Iterable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STORE = os.path.join(HERE, "answers")
# The suite's code both sides run, and the pins of Spark: a change to any of them can change
# an answer.
SHARED = [os.path.join(HERE, f) for f in ("dsl.py", "runner.py", "spark_server.py")] + [
    os.path.join(ROOT, "scripts", "spark-versions.env")]


def _digest(paths: Iterable[str]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(os.path.relpath(p, ROOT).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _entries(entries: Dict[str, Any]) -> str:
    """A JSON object with one entry a line, sorted, so a re-recording's diff names the
    entries it changed."""
    lines = [f"{json.dumps(n)}: {json.dumps(o, sort_keys=True)}" for n, o in sorted(entries.items())]
    return "{\n" + ",\n".join(lines) + "\n}"


def module_of(case_name: str) -> str:
    return case_name.split("/", 1)[0]


def module_key(module: str) -> str:
    return _digest(SHARED + [os.path.join(HERE, "cases", module + ".py")])


def _trimmed(outcome: Dict[str, Any]) -> Dict[str, Any]:
    if "error" not in outcome:
        return outcome
    e = outcome["error"]
    return {"error": {"class": e.get("class"), "type": e.get("type"),
                      "message": e.get("message", "")}}


def _salt() -> str:
    """What picks the verified sample: the commit under test (else the working tree's files)."""
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return _digest(SHARED)


class Store:
    """The recordings of one run: which cases have a valid one, which are verified live, and
    the live answers to write back (SPATE_DIFF_RECORD=1)."""

    def __init__(self, case_names: Iterable[str]):
        self.live_all = os.environ.get("SPATE_DIFF_LIVE", "") == "all"
        self.record = os.environ.get("SPATE_DIFF_RECORD", "") in ("1", "true")
        self.fraction = float(os.environ.get("SPATE_DIFF_VERIFY", "0.05"))
        self.salt = _salt()
        self.keys: Dict[str, str] = {}
        self.files: Dict[str, dict] = {}
        self.fresh: Dict[str, Dict[str, Any]] = {}
        for m in sorted({module_of(n) for n in case_names}):
            if not os.path.exists(os.path.join(HERE, "cases", m + ".py")):
                continue
            self.keys[m] = module_key(m)
            try:
                with open(os.path.join(STORE, m + ".json")) as f:
                    self.files[m] = json.load(f)
            except FileNotFoundError:
                pass

    def recorded(self, name: str) -> Optional[Dict[str, Any]]:
        """The valid recording of a case, if any."""
        m = module_of(name)
        f = self.files.get(m)
        if f is None or f.get("key") != self.keys.get(m):
            return None
        return f["answers"].get(name)

    def version_of(self, name: str) -> Optional[str]:
        return self.files.get(module_of(name), {}).get("spark")

    def verified(self, name: str) -> bool:
        """Whether a recorded case is asked live too this run (the sample, or every case)."""
        if self.live_all:
            return True
        h = hashlib.sha256((self.salt + "\0" + name).encode()).digest()
        return int.from_bytes(h[:8], "big") < self.fraction * 2 ** 64

    def add_live(self, name: str, outcome: Dict[str, Any]) -> None:
        if module_of(name) in self.keys:
            self.fresh[name] = _trimmed(outcome)

    def save(self, version: Optional[str], all_names: Iterable[str]) -> int:
        """Writes the live answers of this run into the recordings (their modules' files,
        keeping valid older answers of cases still defined); returns how many were written."""
        if not self.record or not self.fresh:
            return 0
        defined = set(all_names)
        os.makedirs(STORE, exist_ok=True)
        by_module: Dict[str, Dict[str, Any]] = {}
        for n, o in self.fresh.items():
            by_module.setdefault(module_of(n), {})[n] = o
        for m, fresh in by_module.items():
            old = self.files.get(m)
            kept = old["answers"] if old and old.get("key") == self.keys[m] else {}
            merged = {n: o for n, o in {**kept, **fresh}.items() if n in defined}
            with open(os.path.join(STORE, m + ".json"), "w") as f:
                f.write(f'{{"key": {json.dumps(self.keys[m])}, "spark": {json.dumps(version)},'
                        f' "answers": {_entries(merged)}}}\n')
        return len(self.fresh)


TESTS_FILE = os.path.join(STORE, "_tests.json")


def spark_outcome(name: str, inputs: Iterable[str], live, extra: str = "") -> Any:
    """Real Spark's outcome (JSON data) of a test that is not a case (a whole pipeline, the
    Nexmark queries): recorded in answers/_tests.json under `name`, valid while the files
    `inputs` (the test and what it runs, besides the suite's shared code and the pinned
    versions) and `extra` (a digest of generated input data, say) are unchanged. `live()`
    runs Spark and returns the outcome: called when there is no valid recording, for the
    verified sample (SPATE_DIFF_VERIFY; the outcome must then equal the recording) and under
    SPATE_DIFF_LIVE=all; SPATE_DIFF_RECORD=1 records what it returns."""
    store = Store([])
    key = _digest(SHARED + sorted(inputs)) + hashlib.sha256(extra.encode()).hexdigest()[:8]
    try:
        with open(TESTS_FILE) as f:
            recorded = json.load(f)
    except FileNotFoundError:
        recorded = {}
    entry = recorded.get(name)
    valid = entry is not None and entry.get("key") == key
    if valid and not store.verified(name):
        return entry["outcome"]
    outcome = json.loads(json.dumps(live()))  # the outcome as the recording would hold it
    if valid and outcome != entry["outcome"]:
        raise AssertionError(
            f"the recorded outcome of Spark for {name} ({TESTS_FILE}) differs from live Spark:"
            f" re-record with SPATE_DIFF_RECORD=1, or the test is not deterministic\n"
            f"recorded: {json.dumps(entry['outcome'])[:3000]}\nlive: {json.dumps(outcome)[:3000]}")
    if store.record:
        recorded[name] = {"key": key, "outcome": outcome}
        os.makedirs(STORE, exist_ok=True)
        with open(TESTS_FILE, "w") as f:
            f.write(_entries(recorded) + "\n")
    return outcome


if __name__ == "__main__":
    # `python3 tests/differential/answers.py`: which modules' recordings are valid.
    sys.path.insert(0, HERE)
    if os.path.exists(TESTS_FILE):
        with open(TESTS_FILE) as f:
            print(f"{'(tests)':24s} {len(json.load(f))} outcomes (validity checked by each test)")
    for m in sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "cases"))
                    if f.endswith(".py") and not f.startswith("_")):
        p = os.path.join(STORE, m + ".json")
        state = "none"
        if os.path.exists(p):
            with open(p) as f:
                d = json.load(f)
            state = (f"{len(d['answers'])} answers, "
                     + ("valid" if d.get("key") == module_key(m) else "STALE"))
        print(f"{m:24s} {state}")
