#!/usr/bin/env python3
"""PySpark's public API beside spate's: which names of real pyspark's classes and modules
spate has, which it refuses with a reason, which it lacks.

    python3 scripts/pyspark_coverage.py           # rewrites the table in docs/python.md
    python3 scripts/pyspark_coverage.py --check   # exits 1 when docs/python.md is stale
    python3 scripts/pyspark_coverage.py --print   # prints the table only

The two sides run in their own interpreters, each in a subprocess that prints JSON: real
pyspark under build/spark-venv/bin/python (scripts/install-spark.sh), spate under
/usr/bin/python3 with PYTHONPATH=build/release/python. A public name is one without a
leading underscore: dir() of a class, `__all__` of a module (for `functions` also the
functions its package defines outside `__all__`, the deprecated camelCase aliases).

A spate name is "refused" when calling it raises PySparkNotImplementedError naming it (the
name cannot apply to spate: SparkContext, RDDs, the JVM); spate marks those with
spate.sql.utils.refused, whose wrapper carries `_spate_refused` (the reason). Every other
name spate has counts as present."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage_doc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPARK_PYTHON = os.path.join(ROOT, "build", "spark-venv", "bin", "python")
SPATE_PYTHON = os.environ.get("SPATE_PYTHON", "/usr/bin/python3")
SPATE_PATH = os.path.join(ROOT, "build", "release", "python")
DOC = os.path.join(ROOT, "docs", "python.md")
BEGIN = "<!-- pyspark-coverage:begin (scripts/pyspark_coverage.py writes this table) -->"
END = "<!-- pyspark-coverage:end -->"

# label -> (where pyspark has it, where spate has it); "module:attr.attr" or "module".
TARGETS = [
    ("SparkSession", "pyspark.sql:SparkSession", "spate.sql:SparkSession"),
    ("SparkSession.Builder", "pyspark.sql:SparkSession.Builder", "spate.sql:SparkSession.Builder"),
    ("DataFrame", "pyspark.sql:DataFrame", "spate.sql:DataFrame"),
    ("Column", "pyspark.sql:Column", "spate.sql:Column"),
    ("GroupedData", "pyspark.sql:GroupedData", "spate.sql:GroupedData"),
    ("functions", "pyspark.sql.functions", "spate.sql.functions"),
    ("Window", "pyspark.sql:Window", "spate.sql:Window"),
    ("WindowSpec", "pyspark.sql:WindowSpec", "spate.sql:WindowSpec"),
    ("types", "pyspark.sql.types", "spate.sql.types"),
    ("Row", "pyspark.sql:Row", "spate.sql:Row"),
    ("DataFrameReader", "pyspark.sql:DataFrameReader", "spate.sql.readwriter:DataFrameReader"),
    ("DataFrameWriter", "pyspark.sql:DataFrameWriter", "spate.sql.readwriter:DataFrameWriter"),
    ("DataFrameWriterV2", "pyspark.sql:DataFrameWriterV2", "spate.sql.readwriter:DataFrameWriterV2"),
    ("DataFrameNaFunctions", "pyspark.sql:DataFrameNaFunctions",
     "spate.sql.dataframe:DataFrameNaFunctions"),
    ("DataFrameStatFunctions", "pyspark.sql:DataFrameStatFunctions",
     "spate.sql.dataframe:DataFrameStatFunctions"),
    ("DataStreamReader", "pyspark.sql.streaming:DataStreamReader",
     "spate.sql.streaming:DataStreamReader"),
    ("DataStreamWriter", "pyspark.sql.streaming:DataStreamWriter",
     "spate.sql.streaming:DataStreamWriter"),
    ("StreamingQuery", "pyspark.sql.streaming:StreamingQuery", "spate.sql.streaming:StreamingQuery"),
    ("StreamingQueryManager", "pyspark.sql.streaming:StreamingQueryManager",
     "spate.sql.streaming:StreamingQueryManager"),
    ("Catalog", "pyspark.sql.catalog:Catalog", "spate.sql:Catalog"),
]


def _resolve(where):
    """The object at "module:attr.attr" (or the module), or None when it does not exist."""
    import importlib
    module, _, path = where.partition(":")
    obj = importlib.import_module(module)  # a side that cannot import its package fails
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _public_names(obj):
    import inspect
    if not inspect.ismodule(obj):
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    names = set(getattr(obj, "__all__", ()))
    if not names:
        names = {n for n in dir(obj) if not n.startswith("_")}
    # Functions the package defines but leaves out of __all__ (deprecated aliases).
    package = obj.__name__
    for n in dir(obj):
        v = getattr(obj, n, None)
        if (not n.startswith("_") and inspect.isfunction(v)
                and (v.__module__ or "").startswith(package)):
            names.add(n)
    return sorted(names)


def collect_spark():
    """Runs under real pyspark: {label: [public names]}."""
    import pyspark
    out = {"version": pyspark.__version__, "names": {}}
    for label, where, _ in TARGETS:
        obj = _resolve(where)
        if obj is None:
            raise SystemExit(f"pyspark has no {where}")
        out["names"][label] = _public_names(obj)
    return out


def _refusal(obj, name):
    """The reason spate gives for refusing `name`, or None when it implements it."""
    import inspect
    try:
        raw = inspect.getattr_static(obj, name)
    except AttributeError:
        raw = getattr(obj, name)  # a module's __getattr__
    for f in (raw, getattr(raw, "fget", None), getattr(raw, "__func__", None)):
        reason = getattr(f, "_spate_refused", None)
        if reason:
            return reason
    return None


def collect_spate(spark_names):
    """Runs under spate: {label: {"present": [...], "refused": {name: reason}}}."""
    out = {}
    for label, _, where in TARGETS:
        obj = _resolve(where)
        present, refused = [], {}
        for name in spark_names[label]:
            if obj is None or not hasattr(obj, name):
                continue
            reason = _refusal(obj, name)
            if reason:
                refused[name] = reason
            else:
                present.append(name)
        out[label] = {"present": present, "refused": refused}
    return out


def _run(python, mode, env=None, stdin=None):
    return coverage_doc.run_side(os.path.abspath(__file__), python, mode, env, stdin, ROOT)


def gather():
    if not os.path.exists(SPARK_PYTHON):
        raise SystemExit(f"{SPARK_PYTHON} not found: run scripts/install-spark.sh")
    spark = _run(SPARK_PYTHON, "spark")
    env = dict(os.environ, PYTHONPATH=SPATE_PATH + os.pathsep + os.environ.get("PYTHONPATH", ""))
    spate = _run(SPATE_PYTHON, "spate", env, json.dumps(spark["names"]))
    return spark, spate


def _pct(n, total):
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def table(spark, spate):
    lines = [BEGIN, "",
             f"PySpark {spark['version']}'s public names (see the script's docstring) that "
             "spate has. *Refused*: the name exists and raises an error naming it and why "
             "(it cannot apply to spate: python/spate/sql/refusals.py); covered = present + "
             "refused.", "",
             "| class / module | names | present | refused with a reason | missing | covered |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    tot = [0, 0, 0]
    details = []
    for label, _, _ in TARGETS:
        names = spark["names"][label]
        have = spate[label]
        present, refused = len(have["present"]), len(have["refused"])
        missing = [n for n in names if n not in have["present"] and n not in have["refused"]]
        tot[0] += len(names)
        tot[1] += present
        tot[2] += refused
        lines.append(f"| `{label}` | {len(names)} | {present} | {refused} | {len(missing)} | "
                     f"{_pct(present + refused, len(names))} |")
        if missing or have["refused"]:
            details.append(f"- `{label}`")
            if missing:
                details.append("  - missing: " + ", ".join(f"`{n}`" for n in missing))
            if have["refused"]:
                details.append("  - refused: " + ", ".join(
                    f"`{n}` ({r})" for n, r in sorted(have["refused"].items())))
    missing_total = tot[0] - tot[1] - tot[2]
    lines.append(f"| **all** | {tot[0]} | {tot[1]} | {tot[2]} | {missing_total} | "
                 f"**{_pct(tot[1] + tot[2], tot[0])}** |")
    lines += ["", f"Overall: {_pct(tot[1], tot[0])} present, {_pct(tot[1] + tot[2], tot[0])} "
              "covered.", "", "Missing and refused names:", ""] + details + ["", END]
    return "\n".join(lines) + "\n"


def main():
    return coverage_doc.main(__doc__.split("\n\n")[0], DOC, BEGIN, END, "PySpark API coverage",
                             "scripts/pyspark_coverage.py", collect_spark, collect_spate,
                             lambda doc: table(*gather()))


if __name__ == "__main__":
    sys.exit(main())
