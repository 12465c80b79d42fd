"""Pins differences found by the last run (build/differential/differences.jsonl) in the case
modules, or drops pins whose difference is gone.

    python3 tests/differential/pin.py D3 'strings/string_literal/rtrim*' ...   # pin as D3
    python3 tests/differential/pin.py --drop-gone                             # unpin fixed ones

Each module keeps its pins in one block at its end, `pins({...})`, rewritten here (sorted);
the id must be a heading of docs/spark-differences.md, which says what differs and why."""

import ast
import fnmatch
import json
import os
import sys
from typing import Dict, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "differential",
                       "differences.jsonl")
MARK = "# Differences from Spark (docs/spark-differences.md), pinned; rewritten by pin.py."

Pin = Tuple[str, str, str]


def read_block(path: str) -> Dict[str, Pin]:
    text = open(path).read()
    if MARK not in text:
        return {}
    tree = ast.parse(text[text.index(MARK):])
    out: Dict[str, Pin] = {}
    for k, v in zip(tree.body[0].value.args[0].keys, tree.body[0].value.args[0].values):
        out[k.value] = tuple(a.value for a in v.args)
    return out


def write_block(path: str, pins: Dict[str, Pin]) -> None:
    text = open(path).read()
    if MARK in text:
        text = text[:text.index(MARK)].rstrip("\n") + "\n"
    if pins:
        lines = [f'    {name!r}: Differs("{i}", "{a}", "{p}"),'
                 for name, (i, a, p) in sorted(pins.items())]
        text += "\n\n" + MARK + "\npins({\n" + "\n".join(lines) + "\n})\n"
        if "Differs" not in text.split(MARK)[0]:
            text = text.replace("from dsl import ", "from dsl import Differs, ", 1)
        if "pins" not in text.split(MARK)[0].split("from dsl import", 1)[1].split("\n")[0]:
            text = text.replace("from dsl import ", "from dsl import pins, ", 1)
    open(path, "w").write(text)


def main(argv) -> None:
    records = [json.loads(line) for line in open(RECORDS)] if os.path.exists(RECORDS) else []
    changes: Dict[str, Dict[str, object]] = {}
    if argv[:1] == ["--drop-gone"]:
        for r in records:
            if r.get("gone"):
                module, name = r["case"].split("/", 1)
                changes.setdefault(module, {})[name] = None
    else:
        ident, patterns = argv[0], argv[1:]
        for r in records:
            if r.get("gone") or not any(fnmatch.fnmatchcase(r["case"], p) for p in patterns):
                continue
            module, name = r["case"].split("/", 1)
            changes.setdefault(module, {})[name] = (ident, r["aspect"], r["pin"])
    for module, edits in changes.items():
        path = os.path.join(HERE, "cases", module + ".py")
        pins = read_block(path)
        for name, p in edits.items():
            if p is None:
                pins.pop(name, None)
            else:
                pins[name] = p
        write_block(path, pins)
        print(f"{module}: {len(edits)} pin(s) changed, {len(pins)} in all")


if __name__ == "__main__":
    main(sys.argv[1:])
