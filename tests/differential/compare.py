"""Compares the outcomes of one case on spate and on Spark (see runner.py for their shape)."""

import hashlib
import json
from typing import Any, List, Optional, Tuple

Difference = Tuple[str, Any, Any]  # (aspect, spate's side, Spark's side)


def _key(v: Any) -> str:
    return json.dumps(v, sort_keys=True)


def _show_lines(text: str, ordered: bool, rows: int) -> List[str]:
    lines = text.rstrip("\n").split("\n")
    if ordered or len(lines) <= 4:
        return lines
    if rows > 20:
        # Which 20 rows an unordered show() prints is the engine's choice: the header only.
        return lines[:3]
    # Header (3 lines), body, closing border: the body's order is the engine's.
    return lines[:3] + sorted(lines[3:-1]) + lines[-1:]


_NULLABILITY = ("nullable", "containsNull", "valueContainsNull")


def _without_nullability(t: Any) -> Any:
    if isinstance(t, dict):
        return {k: _without_nullability(x) for k, x in t.items() if k not in _NULLABILITY}
    if isinstance(t, list):
        return [_without_nullability(x) for x in t]
    return t


def _compare_df(a: dict, b: dict, ordered: bool, show: bool, out: List[Difference],
                where: str) -> None:
    # Names and types first, then the values, and nullability last, so that a case whose
    # only difference is a nullable flag still has its rows and show() text compared.
    ta, tb = _without_nullability(a["schema"]), _without_nullability(b["schema"])
    if ta != tb:
        out.append((where + "schema", ta, tb))
        return
    ra, rb = a["rows"], b["rows"]
    if not ordered:
        ra, rb = sorted(ra, key=_key), sorted(rb, key=_key)
    if ra != rb:
        out.append((where + "rows", a["rows"], b["rows"]))
        return
    n = len(ra)
    if show and _show_lines(a["show"], ordered, n) != _show_lines(b["show"], ordered, n):
        out.append((where + "show", a["show"], b["show"]))
        return
    if a["schema"] != b["schema"]:
        out.append((where + "nullability", a["schema"], b["schema"]))


def _compare_value(a: Any, b: Any, ordered: bool, show: bool, out: List[Difference],
                   where: str) -> None:
    if isinstance(a, dict) and isinstance(b, dict) and "df" in a and "df" in b:
        _compare_df(a["df"], b["df"], ordered, show, out, where)
    elif isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            _compare_value(a[k], b[k], ordered, show, out, f"{where}{k}.")
            if out:
                return
    elif a != b:
        out.append((where + "value", a, b))


def _error_identity(outcome: dict) -> dict:
    """An error is its error class; one without (a plain JVM or Python exception) its type."""
    e = outcome.get("error")
    if e is None:
        return {"value": outcome.get("value")}
    return {"class": e["class"]} if e["class"] else {"type": e["type"]}


def first_difference(spate: dict, spark: dict, ordered: bool, show: bool) -> Optional[Difference]:
    out: List[Difference] = []
    if "error" in spate or "error" in spark:
        sa, sb = _error_identity(spate), _error_identity(spark)
        if sa != sb:
            out.append(("error", sa, sb))
    else:
        _compare_value(spate["value"], spark["value"], ordered, show, out, "")
    return out[0] if out else None


def pin(d: Difference) -> str:
    """A short stable hash of a difference (aspect and both sides)."""
    return hashlib.sha1(_key(list(d)).encode()).hexdigest()[:10]


def render(d: Difference) -> str:
    aspect, a, b = d

    def text(v: Any) -> str:
        if isinstance(v, str):
            return v
        s = json.dumps(v, indent=None, sort_keys=True)
        return s if len(s) < 4000 else s[:4000] + " ..."
    return f"aspect: {aspect}\n--- spate:\n{text(a)}\n--- spark:\n{text(b)}"


def pin_failure(name: str, d: Optional[Difference], pinned: Any, documented: set,
                detail: str = "") -> Optional[str]:
    """Why a test comparing `name` fails (None: it passes): a difference that is not pinned, a
    pinned one (dsl.Differs) that is gone or changed, or a pin not documented. `detail` is
    printed after an unpinned difference (the sides' errors)."""
    if pinned is None:
        if d is None:
            return None
        return (f"{name}: spate and Spark disagree:\n{render(d)}\n{detail}\n"
                f"(pin: \"{name}\": Differs(\"D?\", \"{d[0]}\", \"{pin(d)}\"))")
    if pinned.id not in documented:
        return f"{name}: {pinned.id} is not a heading of docs/spark-differences.md"
    if d is None:
        return f"{name}: the pinned difference {pinned.id} is gone: remove the pin"
    if (d[0], pin(d)) != (pinned.aspect, pinned.pin):
        return (f"{name}: the pinned difference {pinned.id} changed:\n{render(d)}\n"
                f"(new pin: Differs(\"{pinned.id}\", \"{d[0]}\", \"{pin(d)}\"))")
    return None
