"""Inspect a streaming query's checkpoint folder (``spate checkpoint describe``, ``check``
and ``replay`` from Python).

    from spate import checkpoint
    d = checkpoint.describe("/chk/agg")        # the --json document as a dict
    print(checkpoint.describe("/chk/agg", text=True))
    r = checkpoint.check("/chk/agg", "job_v2.py")   # pre-flight of a changed query
    r["exitCode"]                               # 0 safe, 1 warnings, 2 Spark would refuse
    r = checkpoint.replay("/chk/agg", 3, "job.py")  # batch 3 again, diffed with the sink
    r["equal"]

Read-only; the documents are described in docs/observability.md.
"""

import contextlib
import importlib.util
import json
import os
import runpy
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from spate import _spate


def describe(path: str, text: bool = False) -> Union[Dict[str, Any], str]:
    """The query id, batches, sources and state operators of the checkpoint at ``path``:
    a dict (the ``--json`` document), or with ``text=True`` the text the command prints.
    Raises the engine's error (e.g. SPATE_STREAMING_INVALID) when ``path`` is not one."""
    as_json, as_text = _spate.describeCheckpoint(str(path))
    return as_text if text else json.loads(as_json)


class QueryNotStartedError(Exception):
    """The query file ended without starting a streaming query: nothing to check."""


Query = Union[str, "os.PathLike[str]", Callable[[], Any]]


@contextlib.contextmanager
def _in_folder(cwd: Optional[str]):
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(old)


_SPEC_SUFFIXES = (".yml", ".yaml")


def _run(command: str, path: str, query: Optional[Query], argv: Optional[List[str]],
         batch: Optional[int] = None, out: Optional[str] = None,
         table: str = "") -> Tuple[str, str, int]:
    """check (batch None) or replay of `query` against the checkpoint at `path`. Without
    `query`, the program the checkpoint's query record names runs again, in its working
    folder, with its arguments (a Python script) or its confs (a pipeline's SQL files)."""
    path = os.path.abspath(str(path))
    out = os.path.abspath(out) if out else None
    cwd, texts, confs, spec_args = None, None, {}, []
    if query is None:
        program = json.loads(_spate.recordedProgram(path))
        cwd = program.get("cwd") or None
        confs = {k: v for k, v in program.get("confs", {}).items() if "(redacted)" not in v}
        if program["kind"] == "pipeline" and program["files"][0].endswith(_SPEC_SUFFIXES):
            query, spec_args = program["files"][0], program.get("args", [])
        elif program["kind"] == "pipeline":
            texts = program["files"]
        else:
            query, argv = program["files"][0], program.get("args", [])
    elif not callable(query) and os.fspath(query).endswith(".sql"):
        texts = [os.fspath(query)]
    if not callable(query) and query is not None and os.fspath(query).endswith(_SPEC_SUFFIXES):
        # A spark-pipeline.yml spec (docs/pipelines.md): the flow whose checkpoint this is.
        from pathlib import Path
        from spate.pipelines.cli import checkpoint_command
        storage = spec_args[1] if spec_args[:1] == ["--storage"] else None
        with _in_folder(cwd):
            return checkpoint_command(Path(os.fspath(query)).resolve(), path, batch, out,
                                      storage, [f"{k}={v}" for k, v in confs.items()])
    with _in_folder(cwd):
        from spate.sql import SparkSession, session as _session
        if texts is not None:
            # A pipeline's SQL files (docs/pipelines.md): its streaming table, started as
            # `spate run` starts it, is handed over.
            builder = SparkSession.builder
            for k, v in confs.items():
                builder = builder.config(k, v)
            spark = builder.getOrCreate()
            text = ""
            for t in texts:
                with open(t) as f:
                    text += f.read() + "\n;\n"
            if batch is None:
                return _spate.checkpointCheckSql(spark._js, path, text, table)
            return _spate.checkpointReplaySql(spark._js, path, text, table, int(batch), out)
        saved = dict(_session._submit_conf)
        _session._submit_conf.update(confs)
        try:
            if batch is None:
                return _handed_over(query, argv, lambda: _spate.checkpointCheckEnd(path))
            spark = SparkSession.builder.getOrCreate()
            return _handed_over(query, argv, lambda: _spate.checkpointReplayEnd(
                spark._js, path, int(batch), out))
        finally:
            _session._submit_conf.clear()
            _session._submit_conf.update(saved)


def _handed_over(query: Union[str, "os.PathLike[str]", Callable[[], Any]],
                 argv: Optional[List[str]], end: Callable[[], Any]) -> Tuple[str, str, int]:
    """Runs `query` (a script or a function) with the start hook set, then `end()` (which
    clears the hook and works on the query handed over)."""
    _spate.checkpointCheckBegin()
    result = None
    try:
        try:
            if callable(query):
                query()
            else:
                script = os.fspath(query)
                # A PySpark script runs as under `spate submit`: pyspark's imports are spate's.
                if importlib.util.find_spec("pyspark") is None:
                    from spate.submit import install_aliases
                    install_aliases()
                old_argv, old_path = sys.argv, list(sys.path)
                sys.argv = [script] + list(argv or [])
                sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
                try:
                    runpy.run_path(script, run_name="__main__")
                finally:
                    sys.argv, sys.path[:] = old_argv, old_path
        except SystemExit:
            pass
        except Exception as e:  # the hand-over ends the script; other errors are the script's
            if "SPATE_QUERY_NOT_STARTED" not in str(e):
                raise
    finally:
        result = end()
    if result is None:
        raise QueryNotStartedError(
            "%s started no streaming query (writeStream...start() or toTable())" % (query,))
    return result


def check(path: str, query: Optional[Query] = None, text: bool = False,
          argv: Optional[List[str]] = None, table: str = "") -> Union[Dict[str, Any], str]:
    """Pre-flight of a changed query against the checkpoint at ``path``, before anything
    runs: each change with Spark's verdict (safe, warning, or refused with Spark's error
    class). ``query`` is a Python script (run as ``__main__`` with ``argv``) or a function;
    its first ``writeStream...start()`` / ``toTable()`` does not start the query but hands
    it to the check (the call raises SPATE_QUERY_NOT_STARTED, which ends the script).
    Returns the ``--json`` document as a dict (``exitCode``: 0 safe, 1 warnings, 2 Spark
    would refuse), or with ``text=True`` the text ``spate checkpoint check`` prints.
    ``query`` may also be a pipeline's SQL file (its streaming table ``table``, default the
    one ``path`` is the checkpoint of) or a ``spark-pipeline.yml`` spec (its flow whose
    checkpoint ``path`` is); without it, the program the checkpoint's query record names
    (the script with its arguments, the pipeline's SQL files or spec) is checked
    as its code is now (the engine's SPATE_STREAMING_INVALID when it cannot run: a C++
    program, no record).
    Raises QueryNotStartedError when no query was started, and the script's own errors."""
    as_json, as_text, _ = _run("check", path, query, argv, table=table)
    return as_text if text else json.loads(as_json)


def replay(path: str, batch: int, query: Optional[Query] = None,
           out: Optional[str] = None, text: bool = False,
           argv: Optional[List[str]] = None, table: str = "") -> Union[Dict[str, Any], str]:
    """Runs committed batch ``batch`` of the checkpoint at ``path`` again — on the offsets,
    timestamp, watermark and state version it ran with, against the same sources — with the
    query ``query`` starts (a script or a function, handed over as for ``check``), and
    compares the rows with what its sink committed for that batch (Delta: the table version
    whose txn is (query id, batch); file sink: the batch's ``_spark_metadata`` files). With
    ``out`` the replayed rows are written there as Parquet. Returns the ``--json`` document
    (``equal``; ``exitCode`` 0 equal or nothing to compare, 1 different; ``onlyReplayed`` /
    ``onlyCommitted`` rows) or, with ``text=True``, the text ``spate checkpoint replay``
    prints. ``query`` may be a pipeline's SQL file or spec, or omitted: the program the
    checkpoint's query record names runs again (as for ``check``). Nothing under ``path``
    is written."""
    as_json, as_text, _ = _run("replay", path, query, argv, batch=batch, out=out, table=table)
    return as_text if text else json.loads(as_json)


def _main(args: List[str]) -> int:
    """What `spate checkpoint check|replay` runs for a Python FILE:
        python -m spate.checkpoint check DIR FILE [--json] [-- ARGS...]
        python -m spate.checkpoint replay DIR FILE --batch N [--out DIR] [--json] [-- ARGS...]
    Exit codes: check 0 safe, 1 warnings, 2 Spark would refuse; replay 0 equal (or nothing
    to compare with), 1 different; 3 the command could not run."""
    usage = ("usage: python -m spate.checkpoint check DIR [FILE] [--json] [-- ARGS...]\n"
             "       python -m spate.checkpoint replay DIR [FILE] --batch N [--out DIR] "
             "[--json] [-- ARGS...]\n(without FILE: the program the checkpoint's record names)")
    script_args: List[str] = []
    if "--" in args:
        i = args.index("--")
        args, script_args = args[:i], args[i + 1:]
    opts: Dict[str, Optional[str]] = {"--batch": None, "--out": None}
    rest: List[str] = []
    as_json = False
    it = iter(args)
    for a in it:
        if a == "--json":
            as_json = True
        elif a in opts:
            opts[a] = next(it, None)
        else:
            rest.append(a)
    command = rest[0] if rest else ""
    if len(rest) not in (2, 3) or command not in ("check", "replay") or \
            (command == "replay" and (opts["--batch"] is None or not opts["--batch"].isdigit())):
        print(usage, file=sys.stderr)
        return 3
    directory, script = rest[1], (rest[2] if len(rest) == 3 else None)
    try:
        # The script's prints go to stderr: stdout holds only the result.
        with contextlib.redirect_stdout(sys.stderr):
            batch = int(opts["--batch"]) if command == "replay" else None
            doc, text, code = _run(command, directory, script, script_args if script else None,
                                   batch=batch, out=opts["--out"])
    except BaseException as e:  # a broken script or checkpoint: the command could not run
        print("Error: %s" % e, file=sys.stderr)
        return 3
    sys.stdout.write(doc + "\n" if as_json else text)
    return code


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
