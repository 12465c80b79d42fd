"""Every case of cases/ run on spate and on real Spark, compared (compare.py)."""

import json
import os
import re

import pytest

import compare
import dsl
import runner
from conftest import ROOT, WORK

CASES = runner.load_cases()
DIFFERENCES_DOC = os.path.join(ROOT, "docs", "spark-differences.md")


def _documented_ids():
    try:
        text = open(DIFFERENCES_DOC).read()
    except FileNotFoundError:
        return set()
    return set(re.findall(r"^#+\s+(D\d+)\b", text, re.M))


DOCUMENTED = _documented_ids()


def _spate_modules():
    import spate.errors
    from spate.delta import DeltaTable
    from spate.sql import Row, Window, functions, types
    return {"F": functions, "T": types, "Window": Window, "Row": Row, "errors": spate.errors,
            "DeltaTable": DeltaTable}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name, oracle, spate_session):
    c = CASES[name]
    differs = dsl.differs_of(c)
    env = runner.new_env(spate_session, _spate_modules(), c, os.path.join(WORK, "spate", "cases"),
                         "spate")
    ours = runner.run(c, env)
    answer = oracle.answer(name)
    theirs = answer["result"]
    if answer["mismatch"] is not None:
        pytest.fail(f"the recorded answer of Spark differs from live Spark {oracle.version} "
                    f"(tests/differential/answers/{name.split('/', 1)[0]}.json; re-record with "
                    f"scripts/record-spark-answers.sh, or the case is not deterministic):\n"
                    f"{compare.render(answer['mismatch'])}", pytrace=False)
    d = compare.first_difference(ours, theirs, c.ordered, c.show)
    if d is not None and (differs is None or (d[0], compare.pin(d)) != (differs.aspect, differs.pin)
                          or os.environ.get("SPATE_DIFF_RECORD_ALL")):
        _record(name, d, ours, theirs)
    if differs is None:
        if d is not None:
            pytest.fail(f"spate differs from Spark {answer['spark']}"
                        f"{' (its recorded answer)' if answer['recorded'] else ''}:\n{compare.render(d)}\n"
                        f"(pin: \"{name.split('/', 1)[1]}\": Differs(\"D?\", \"{d[0]}\", \"{compare.pin(d)}\"))"
                        + _traces(ours, theirs), pytrace=False)
        return
    assert differs.id in DOCUMENTED, f"{differs.id} is not a heading of {DIFFERENCES_DOC}"
    if d is None:
        with open(os.path.join(WORK, "differences.jsonl"), "a") as f:
            f.write(json.dumps({"case": name, "gone": True}) + "\n")
        pytest.fail(f"the pinned difference {differs.id} is gone: spate now agrees with Spark; "
                    f"remove the pin (and the entry in docs/spark-differences.md if it is the "
                    f"last case)", pytrace=False)
    if (d[0], compare.pin(d)) != (differs.aspect, differs.pin):
        pytest.fail(f"the pinned difference {differs.id} changed:\n{compare.render(d)}\n"
                    f"(new pin: Differs(\"{differs.id}\", \"{d[0]}\", \"{compare.pin(d)}\"))",
                    pytrace=False)


def _record(name, d, ours, theirs):
    """Appends a difference to build/differential/differences.jsonl (for triage)."""
    msg = {"case": name, "aspect": d[0], "pin": compare.pin(d), "spate": d[1], "spark": d[2],
           "spate_error": ours.get("error", {}).get("message"),
           "spark_error": theirs.get("error", {}).get("message")}
    with open(os.path.join(WORK, "differences.jsonl"), "a") as f:
        f.write(json.dumps(msg) + "\n")


def _traces(ours: dict, theirs: dict) -> str:
    out = ""
    for side, r in (("spate", ours), ("spark", theirs)):
        if "error" in r:
            out += f"\n--- {side} error: {r['error']['message']}\n{r['error'].get('trace', '')}"
    return out
