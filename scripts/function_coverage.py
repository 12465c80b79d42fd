#!/usr/bin/env python3
"""Real Spark's built-in functions beside spate's: which of the names `SHOW FUNCTIONS`
lists in real Spark spate has, which it records as not implemented (with the reason), and
which it lacks.

    python3 scripts/function_coverage.py           # rewrites the table in docs/functions.md
    python3 scripts/function_coverage.py --check   # exits 1 when docs/functions.md is stale
    python3 scripts/function_coverage.py --print   # prints the table only

The two sides run in their own interpreters, each in a subprocess that prints JSON: real
Spark (pyspark under build/spark-venv/bin/python, scripts/install-spark.sh) runs
`SHOW FUNCTIONS` (operators such as `+` and `and` included, as Spark lists them); spate
(/usr/bin/python3 with PYTHONPATH=build/release/python) answers for each of those names
whether it has it: a name its function registry holds (`_spate.function_names()`), or one
its SQL resolves (operators and syntax such as `CASE` through a probe expression, other
names by calling them with no arguments: any error but UNRESOLVED_ROUTINE means the name
is known, typically a wrong number of arguments).

A name spate lacks counts as *recorded* when docs/functions.md lists it, with its reason,
between the `functions-not-implemented` markers (hand-written: each line
"- `name`, `name`: why"); covered = present + recorded."""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage_doc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPARK_PYTHON = os.path.join(ROOT, "build", "spark-venv", "bin", "python")
SPATE_PYTHON = os.environ.get("SPATE_PYTHON", "/usr/bin/python3")
SPATE_PATH = os.path.join(ROOT, "build", "release", "python")
DOC = os.path.join(ROOT, "docs", "functions.md")
BEGIN = "<!-- function-coverage:begin (scripts/function_coverage.py writes this table) -->"
END = "<!-- function-coverage:end -->"
RECORDED_BEGIN = "<!-- functions-not-implemented:begin -->"
RECORDED_END = "<!-- functions-not-implemented:end -->"

# Names that are syntax rather than calls: the SQL that uses them.
PROBES = {
    "!": "SELECT !true", "!=": "SELECT 1 != 2", "<>": "SELECT 1 <> 2", "%": "SELECT 5 % 2",
    "&": "SELECT 5 & 3", "*": "SELECT 2 * 3", "+": "SELECT 2 + 3", "-": "SELECT 2 - 3",
    "/": "SELECT 2 / 3", "<": "SELECT 1 < 2", "<=": "SELECT 1 <= 2", "<=>": "SELECT 1 <=> 2",
    "=": "SELECT 1 = 2", "==": "SELECT 1 == 2", ">": "SELECT 1 > 2", ">=": "SELECT 1 >= 2",
    "<<": "SELECT 1 << 2", ">>": "SELECT 8 >> 2", ">>>": "SELECT -8 >>> 2", "^": "SELECT 5 ^ 3",
    "|": "SELECT 5 | 3", "||": "SELECT 'a' || 'b'", "~": "SELECT ~5",
    "and": "SELECT true AND false", "or": "SELECT true OR false", "not": "SELECT NOT true",
    "between": "SELECT 2 BETWEEN 1 AND 3", "in": "SELECT 1 IN (1, 2)",
    "case": "SELECT CASE WHEN true THEN 1 END", "when": "SELECT CASE WHEN true THEN 1 END",
    "cast": "SELECT CAST(1 AS STRING)", "div": "SELECT 5 DIV 2", "like": "SELECT 'a' LIKE 'a'",
    "ilike": "SELECT 'a' ILIKE 'A'", "rlike": "SELECT 'a' RLIKE 'a'",
    "regexp": "SELECT 'a' REGEXP 'a'", "collate": "SELECT 'a' COLLATE UTF8_BINARY",
    "if": "SELECT if(true, 1, 2)",
}
# Table-valued functions: called in FROM when a call in SELECT does not resolve.
TABLE_PROBE = "SELECT * FROM {}()"


def collect_spark():
    """Runs under real pyspark: its version and SHOW FUNCTIONS (built-ins only)."""
    import pyspark
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").appName("function_coverage")
             .config("spark.ui.enabled", "false").getOrCreate())
    names = [r[0] for r in spark.sql("SHOW SYSTEM FUNCTIONS").collect()]
    spark.stop()
    return {"version": pyspark.__version__, "names": sorted(set(names))}


def _unresolved(spark, sql):
    """True when spate's SQL does not know the function `sql` calls."""
    try:
        spark.sql(sql).collect()
    except Exception as e:  # any other error (arguments, types) means the name resolves
        text = str(e)
        return any(c in text for c in ("UNRESOLVED_ROUTINE", "UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                                        "PARSE_SYNTAX_ERROR"))
    return False


def collect_spate(names):
    """Runs under spate: the names of `names` spate has."""
    from spate import _spate
    from spate.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    registry = set(_spate.function_names())
    present = []
    for n in names:
        if n in registry:
            present.append(n)
        elif n in PROBES:
            if not _unresolved(spark, PROBES[n]):
                present.append(n)
        elif re.fullmatch(r"[a-z_][a-z0-9_]*", n):
            if not _unresolved(spark, f"SELECT {n}()") or not _unresolved(spark, TABLE_PROBE.format(n)):
                present.append(n)
    return present


def recorded_names(doc):
    """{name: reason} from the hand-written list between the not-implemented markers."""
    if RECORDED_BEGIN not in doc or RECORDED_END not in doc:
        return {}
    block = doc.split(RECORDED_BEGIN, 1)[1].split(RECORDED_END, 1)[0]
    out = {}
    for line in block.splitlines():
        m = re.match(r"\s*- (.*?):\s+(.*)", line)
        if not m:
            continue
        for name in re.findall(r"`([^`]+)`", m.group(1)):
            out[name] = m.group(2)
    return out


def _run(python, mode, env=None, stdin=None):
    return coverage_doc.run_side(os.path.abspath(__file__), python, mode, env, stdin, ROOT)


def gather():
    if not os.path.exists(SPARK_PYTHON):
        raise SystemExit(f"{SPARK_PYTHON} not found: run scripts/install-spark.sh")
    spark = _run(SPARK_PYTHON, "spark", dict(os.environ, TZ="UTC"))
    env = dict(os.environ, PYTHONPATH=SPATE_PATH + os.pathsep + os.environ.get("PYTHONPATH", ""))
    present = _run(SPATE_PYTHON, "spate", env, json.dumps(spark["names"]))
    return spark, present


def _pct(n, total):
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def _names(names):
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def table(spark, present, recorded):
    names = spark["names"]
    have = set(present)
    rec = [n for n in names if n not in have and n in recorded]
    missing = [n for n in names if n not in have and n not in recorded]
    stale = sorted(n for n in recorded if n in have or n not in names)
    total = len(names)
    lines = [BEGIN, "",
             f"The built-in functions real Spark {spark['version']} lists in `SHOW FUNCTIONS` "
             "(operators included) that spate has. *Recorded*: not implemented, with the reason "
             "below; covered = present + recorded.", "",
             "| functions | present | recorded (not implemented, why below) | missing | present | covered |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |",
             f"| {total} | {len(have)} | {len(rec)} | {len(missing)} | {_pct(len(have), total)} | "
             f"**{_pct(len(have) + len(rec), total)}** |", "",
             "Missing (neither present nor recorded): " + _names(missing) + "."]
    if stale:
        lines += ["", "Recorded but present in spate or unknown to Spark (remove from the list): "
                  + _names(stale) + "."]
    lines += ["", END]
    return "\n".join(lines) + "\n"


def main():
    return coverage_doc.main(__doc__.split("\n\n")[0], DOC, BEGIN, END, "Coverage",
                             "scripts/function_coverage.py", collect_spark, collect_spate,
                             lambda doc: table(*gather(), recorded_names(doc)))


if __name__ == "__main__":
    sys.exit(main())
