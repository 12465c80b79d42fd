"""Input files of the checkpoint-check test: land(root, i) writes ROOT/in/f<i>.json and
ROOT/in2/f<i>.json, three rows each (k, v, ts)."""

import json
import os


def land(root: str, i: int) -> None:
    for name in ("in", "in2"):
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.json"), "w") as f:
            for j in range(3):
                f.write(json.dumps({"k": f"k{j % 2}", "v": i * 10 + j,
                                    "ts": f"2026-01-01T00:0{i}:0{j}Z"}) + "\n")
