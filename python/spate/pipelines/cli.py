"""The pipeline runner: ``spate run spark-pipeline.yml`` / ``python -m spate.pipelines run
--spec spark-pipeline.yml``, as Spark 4.1's ``spark-pipelines run``: the spec (name,
storage, catalog, database/schema, configuration, libraries: glob include) is loaded, its
Python files are imported with ``spark`` in their globals (their decorators register
datasets) and its SQL files are added as they are; then the graph runs once (availableNow)
or, with ``--continuous``, until Ctrl-C."""
import argparse
import datetime
import glob
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from spate import _spate
from spate.errors import PySparkException, PySparkTypeError
from spate.pipelines.api import registration_context

PIPELINE_SPEC_FILE_NAMES = ["spark-pipeline.yaml", "spark-pipeline.yml"]
_ALLOWED = {"name", "storage", "catalog", "database", "schema", "configuration", "libraries"}


def log(line: str) -> None:
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    print(f"{stamp}: {line}", file=sys.stderr, flush=True)


def find_pipeline_spec(current: Path) -> Path:
    """The spec file in ``current`` or its nearest ancestor that has one."""
    while True:
        found = [current / n for n in PIPELINE_SPEC_FILE_NAMES if (current / n).is_file()]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise PySparkException(errorClass="MULTIPLE_PIPELINE_SPEC_FILES_FOUND",
                                   messageParameters={"dir_path": str(current)})
        if current.parent == current:
            raise PySparkException(errorClass="PIPELINE_SPEC_FILE_NOT_FOUND",
                                   messageParameters={"dir_path": str(current)})
        current = current.parent


def load_spec(path: Path) -> Dict[str, Any]:
    try:
        import yaml
    except ImportError as e:  # pragma: no cover - Debian's python3-yaml is a dependency
        raise PySparkException(
            f"reading {path} needs PyYAML (Debian: python3-yaml)") from e
    with path.open() as f:
        data = yaml.safe_load(f) or {}
    for key in data:
        if key not in _ALLOWED:
            raise PySparkException(errorClass="PIPELINE_SPEC_UNEXPECTED_FIELD",
                                   messageParameters={"field_name": key})
    for key in ("name", "storage"):
        if key not in data:
            raise PySparkException(errorClass="PIPELINE_SPEC_MISSING_REQUIRED_FIELD",
                                   messageParameters={"field_name": key})
    conf = data.get("configuration", {}) or {}
    if not isinstance(conf, dict):
        raise PySparkTypeError(errorClass="PIPELINE_SPEC_FIELD_NOT_DICT",
                               messageParameters={"field_name": "configuration",
                                                  "field_type": type(conf).__name__})
    for k, v in conf.items():
        if not isinstance(v, str):
            raise PySparkTypeError(errorClass="PIPELINE_SPEC_DICT_VALUE_NOT_STRING",
                                   messageParameters={"field_name": "configuration",
                                                      "key_name": k,
                                                      "value_type": type(v).__name__})
    includes = []
    for entry in data.get("libraries", []) or []:
        pattern = entry["glob"]["include"]
        if glob.has_magic(pattern):
            if not (pattern.endswith("/**") and not glob.has_magic(pattern[:-3])):
                raise PySparkException(errorClass="PIPELINE_SPEC_INVALID_GLOB_PATTERN",
                                       messageParameters={"glob_pattern": pattern})
            pattern += "/*"
        includes.append(pattern)
    return {"name": data["name"], "storage": data["storage"], "catalog": data.get("catalog"),
            "database": data.get("database", data.get("schema")), "configuration": conf,
            "libraries": includes}


def register_definitions(spec_path: Path, spec: Mapping[str, Any], pipeline: Any,
                         spark: Any) -> None:
    root = spec_path.parent.resolve()
    prev = os.getcwd()
    os.chdir(root)
    try:
        with registration_context(pipeline):
            for pattern in spec["libraries"]:
                files = sorted(p for p in root.glob(pattern)
                               if p.is_file() and "__pycache__" not in p.parts)
                log(f"Found {len(files)} files matching glob '{pattern}'")
                for file in files:
                    if file.suffix == ".py":
                        log(f"Importing {file}...")
                        mspec = importlib.util.spec_from_file_location(file.stem, str(file))
                        module = importlib.util.module_from_spec(mspec)
                        module.__dict__["spark"] = spark
                        mspec.loader.exec_module(module)
                    elif file.suffix == ".sql":
                        log(f"Registering SQL file {file}...")
                        pipeline.add_sql(file.read_text(), str(file.relative_to(root)))
                    else:
                        raise PySparkException(
                            errorClass="PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION",
                            messageParameters={"file_path": str(file)})
    finally:
        os.chdir(prev)


def _pipeline(spec_path: Path, *, continuous: bool = False, storage: Optional[str] = None,
              trigger_interval: str = "10 seconds", confs: Sequence[str] = (),
              full_refresh: Sequence[str] = (), full_refresh_all: bool = False,
              dry_run: bool = False) -> Any:
    """The spec's session and pipeline, its definitions registered (nothing run)."""
    # Unmodified pyspark pipeline files: `from pyspark import pipelines as dp` is spate's.
    from spate.submit import install_aliases
    from spate.sql import SparkSession
    install_aliases()
    log(f"Loading pipeline spec from {spec_path}...")
    spec = load_spec(spec_path)
    builder = SparkSession.builder.appName(spec["name"])
    for k, v in spec["configuration"].items():
        builder = builder.config(k, v)
    for c in confs:
        k, _, v = c.partition("=")
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    root = storage or spec["storage"]
    if root.startswith("file:"):
        root = root[len("file:"):]
        while root.startswith("//"):
            root = root[1:]
    if not os.path.isabs(root):
        root = str(spec_path.parent.resolve() / root)
    log("Creating dataflow graph...")
    pipeline = _spate.Pipeline(spark._js, root, spec["database"], continuous, trigger_interval,
                               list(full_refresh), full_refresh_all, log, dry_run)
    log("Registering graph elements...")
    register_definitions(spec_path, spec, pipeline, spark)
    return pipeline


def run(spec_path: Path, *, continuous: bool = False, storage: Optional[str] = None,
        trigger_interval: str = "10 seconds", confs: Sequence[str] = (),
        full_refresh: Sequence[str] = (), full_refresh_all: bool = False,
        dry_run: bool = False) -> List[Dict[str, Any]]:
    """Runs the pipeline of ``spec_path`` (with ``dry_run``, only resolves its flows);
    returns what each flow did."""
    import json
    pipeline = _pipeline(spec_path, continuous=continuous, storage=storage,
                         trigger_interval=trigger_interval, confs=confs,
                         full_refresh=full_refresh, full_refresh_all=full_refresh_all,
                         dry_run=dry_run)
    # The flows' checkpoints record this run (`spate checkpoint replay DIR` without --query).
    _spate.setQueryProgram(json.dumps({
        "kind": "pipeline", "cwd": os.getcwd(), "files": [str(spec_path.resolve())],
        "args": ["--storage", os.path.abspath(storage)] if storage else [],
        "confs": dict(c.partition("=")[::2] for c in confs)}))
    log("Starting run...")
    return pipeline.run()


def checkpoint_command(spec_path: Path, checkpoint: str, batch: Optional[int] = None,
                       out: Optional[str] = None, storage: Optional[str] = None,
                       confs: Sequence[str] = ()) -> Any:
    """``spate checkpoint check DIR`` (batch None) or ``replay DIR --batch N`` of the flow of
    ``spec_path``'s pipeline whose checkpoint is DIR: (json text, text, exit code)."""
    pipeline = _pipeline(spec_path, storage=storage, confs=confs)
    if batch is None:
        return pipeline.checkpoint_check(checkpoint)
    return pipeline.checkpoint_replay(checkpoint, int(batch), out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="spate run", description="Pipelines CLI")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="Run a pipeline")
    d = sub.add_parser("dry-run", help="Resolve every flow of a pipeline without running it")
    for p in (r, d):
        p.add_argument("--spec", help="Path to the pipeline spec.")
        p.add_argument("--storage", help="Overrides the spec's storage root.")
        p.add_argument("--conf", action="append", default=[])
    r.add_argument("--continuous", action="store_true")
    r.add_argument("--trigger-interval", default="10 seconds")
    r.add_argument("--full-refresh", action="append", default=[])
    r.add_argument("--full-refresh-all", action="store_true")
    args = parser.parse_args(argv)
    spec = Path(args.spec) if args.spec else find_pipeline_spec(Path.cwd())
    dry = args.command == "dry-run"
    refresh = [] if dry else [t.strip() for v in args.full_refresh for t in v.split(",")
                              if t.strip()]
    try:
        results = run(spec, continuous=not dry and args.continuous, storage=args.storage,
                      trigger_interval="10 seconds" if dry else args.trigger_interval,
                      confs=args.conf, full_refresh=refresh,
                      full_refresh_all=not dry and args.full_refresh_all, dry_run=dry)
    except KeyboardInterrupt:
        return 0
    except PySparkException as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    for res in results:
        kind = res["kind"]
        if dry:
            print(f"{res['target']}: resolved")
        elif kind == _spate.PipelineDatasetKind.STREAMING_TABLE:
            print(f"{res['target']}: {res['rows']} rows in {res['batches']} batches")
        elif kind == _spate.PipelineDatasetKind.MATERIALIZED_VIEW:
            print(f"{res['target']}: recomputed")
        else:
            print(f"{res['target']}: view")
    return 0
