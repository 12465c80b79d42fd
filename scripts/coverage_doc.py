"""Shared by the coverage scripts (pyspark_coverage.py, function_coverage.py): splicing a
generated table into a document between its markers, and writing or checking it."""

import argparse
import json
import sys


def splice(doc, block, begin, end, heading):
    """`doc` with the text between `begin` and `end` replaced by `block` (which carries the
    markers), or with `block` appended under `heading` when the markers are absent."""
    if begin in doc and end in doc:
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        return head + block.rstrip("\n") + tail
    return doc.rstrip("\n") + f"\n\n## {heading}\n\n" + block


def update(path, doc, new, check, script):
    """Writes `new` to `path` (when it changed), or with `check` returns 1 when it is stale."""
    if check:
        if new != doc:
            sys.stderr.write(f"{path}'s table is stale: run python3 {script}\n")
            return 1
        return 0
    if new != doc:
        with open(path, "w") as f:
            f.write(new)
    return 0


def run_side(script, python, mode, env, stdin, cwd):
    """Runs `script --collect mode` under `python` and returns the JSON it prints."""
    import json
    import subprocess
    r = subprocess.run([python, script, "--collect", mode], input=stdin, capture_output=True,
                       text=True, env=env, cwd=cwd)
    if r.returncode != 0:
        raise SystemExit(f"collecting the {mode} side with {python} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout)


def main(description, path, begin, end, heading, script, collect_spark, collect_spate, block_of):
    """The command line both scripts share: `--collect spark|spate` (one side, as JSON, for
    the other interpreter), `--print`, `--check`, or writing the table into `path`.
    `block_of(doc)` builds the table (the document is passed for the lists it keeps)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--collect", choices=["spark", "spate"], help=argparse.SUPPRESS)
    ap.add_argument("--check", action="store_true", help=f"fail when {path} is stale")
    ap.add_argument("--print", action="store_true", help="print the table, write nothing")
    a = ap.parse_args()
    if a.collect == "spark":
        json.dump(collect_spark(), sys.stdout)
        return 0
    if a.collect == "spate":
        json.dump(collect_spate(json.load(sys.stdin)), sys.stdout)
        return 0
    with open(path) as f:
        doc = f.read()
    block = block_of(doc)
    if a.print:
        sys.stdout.write(block)
        return 0
    return update(path, doc, splice(doc, block, begin, end, heading), a.check, script)
