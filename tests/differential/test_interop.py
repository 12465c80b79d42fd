"""Tables and files crossing between spate and real Spark: every writer of interop.py runs on
one engine, then both engines read the result and must agree (rows as multisets, column
names and types, show() text; DESCRIBE HISTORY's length for Delta). Known differences are
pinned in interop.PINS (docs/spark-differences.md)."""

import os
import shutil

import pytest

import compare
import dsl
import interop
import runner
from conftest import WORK
from test_differential import DOCUMENTED, _spate_modules


def _run(side, oracle, spate_session, op, writer, path):
    if side == "spark":
        return oracle.ask({"op": op, "writer": writer, "path": path})
    c = dsl.Case(f"interop/{writer}/{op}", interop.step(op, writer, path))
    env = runner.new_env(spate_session, _spate_modules(), c, os.path.join(WORK, "spate", "asked"), "spate")
    return runner.run(c, env)


@pytest.mark.parametrize("by", ["spate", "spark"])
@pytest.mark.parametrize("writer", sorted(interop.WRITERS))
def test_interop(writer, by, oracle, spate_session):
    name = f"{writer}/written_by_{by}"
    path = os.path.join(WORK, "interop", writer + "-" + by)
    shutil.rmtree(os.path.dirname(path) + f"/{writer}-{by}", ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    written = _run(by, oracle, spate_session, "write", writer, path)
    pinned = interop.PINS.get(name)
    if "error" in written:
        d = ("write", {"writer": by, "error": written["error"]["class"] or written["error"]["type"]}, None)
    else:
        ours = _run("spate", oracle, spate_session, "read", writer, path)
        theirs = _run("spark", oracle, spate_session, "read", writer, path)
        d = compare.first_difference(ours, theirs, ordered=False, show=True)
        if d is None:
            d = compare.first_difference(
                _run("spate", oracle, spate_session, "history", writer, path),
                _run("spark", oracle, spate_session, "history", writer, path), False, True)
    why = compare.pin_failure(name, d, pinned, DOCUMENTED, written.get("error", {}).get("message", ""))
    if why:
        pytest.fail(why, pytrace=False)


@pytest.mark.parametrize("by", ["spate", "spark"])
def test_table_properties(by, oracle, spate_session):
    """CREATE TABLE ... TBLPROPERTIES, then ALTER TABLE SET / UNSET TBLPROPERTIES, by either
    engine: both read every property back from the table's metaData.configuration
    (delta-spark's DESCRIBE DETAIL included)."""
    path = os.path.join(WORK, "interop", "table_properties-" + by)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    written = _run(by, oracle, spate_session, "write", "delta_table_properties", path)
    assert "error" not in written, written["error"]
    for side in ("spate", "spark"):
        got = _run(side, oracle, spate_session, "properties", "delta_table_properties", path)
        assert got.get("value") == {"properties": [
            ["delta.appendOnly", "false"], ["quality", "gold"], ["stage", "two"]]}, \
            (side, got)


# One table, both engines writing in turn (appends, UPDATE, DELETE, MERGE by each side):
# after every step both read the same rows, and the history has every commit.
MIXED_STEPS = [("spate", "mixed_create"), ("spark", "mixed_append"), ("spate", "mixed_append"),
               ("spark", "mixed_update"), ("spate", "mixed_delete"), ("spark", "mixed_merge"),
               ("spate", "mixed_merge"), ("spate", "mixed_update"), ("spark", "mixed_delete"),
               ("spark", "mixed_append")]


@pytest.mark.parametrize("create", ["mixed_create", "mixed_create_dv"])
def test_mixed_writers(create, oracle, spate_session):
    """mixed_create_dv: the same steps on a table with deletion vectors (DELETE / UPDATE /
    MERGE of either engine mark rows in DVs the other wrote)."""
    path = os.path.join(WORK, "interop", "mixed_writers-" + create)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    steps = [(MIXED_STEPS[0][0], create)] + MIXED_STEPS[1:]
    for i, (by, step_name) in enumerate(steps):
        written = _run(by, oracle, spate_session, "write", step_name, path)
        assert "error" not in written, f"step {i} {step_name} by {by}: {written['error']}"
        ours = _run("spate", oracle, spate_session, "read", step_name, path)
        theirs = _run("spark", oracle, spate_session, "read", step_name, path)
        d = compare.first_difference(ours, theirs, ordered=False, show=True)
        assert d is None, f"after step {i} ({step_name} by {by}):\n{compare.render(d)}"
    for side in ("spate", "spark"):
        h = _run(side, oracle, spate_session, "history", create, path)
        # (CREATE TABLE and its first append are two commits.)
        assert h["value"] == {"versions": len(MIXED_STEPS) + (create != "mixed_create")}, (side, h)


@pytest.mark.parametrize("by", ["spate", "spark"])
def test_tombstones_in_checkpoint(by, oracle, spate_session):
    """The removes of a checkpoint (spate writes them from its compact tombstone list) are
    read back by either engine: with the commits before the checkpoint gone and every data
    file a month old, VACUUM DRY RUN keeps what OPTIMIZE and DELETE removed minutes ago
    (within the 7-day retention) and lists only the two orphan files."""
    writer = "delta_tombstones_in_checkpoint"
    path = os.path.join(WORK, "interop", "tombstones-" + by)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    written = _run(by, oracle, spate_session, "write", writer, path)
    assert "error" not in written, written["error"]
    removed = sum(1 for _ in _data_files(path)) - 2 - _active_files(oracle, path)
    assert removed >= 8, removed  # the compacted and rewritten files are still there
    for side in ("spate", "spark"):
        got = _run(side, oracle, spate_session, "vacuum", writer, path)
        assert got.get("value") == {"vacuum": ["orphan.txt",
                                               "p=0/part-00000-orphan.snappy.parquet"]}, \
            (side, got)


def _data_files(path):
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != "_delta_log"]
        yield from files


def _active_files(oracle, path):
    got = oracle.ask({"op": "files", "writer": "", "path": path})
    return got["value"]["files"]
