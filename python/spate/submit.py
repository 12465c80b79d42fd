"""`spate submit`: runs an unmodified PySpark script on spate, shaped like spark-submit.

    spate submit [options] job.py [job arguments]
    python3 -m spate.submit [options] job.py [job arguments]

The script runs as ``python3 job.py`` would (``__name__ == "__main__"``, ``sys.argv`` is
the script's absolute path and its arguments), with imports of ``pyspark``,
``pyspark.sql`` (and its ``functions``, ``types``, ``window``, ``streaming``, ...),
``pyspark.errors``, ``delta`` and ``delta.tables`` resolving to spate's modules.
``--conf``, ``--properties-file`` and ``--name`` become the defaults of the script's
``SparkSession.builder...getOrCreate()`` (its own ``.config()`` wins, as under
spark-submit); ``--py-files`` go on ``sys.path``; cluster options (``--master``,
``--executor-memory``, ``--packages``, ...) are accepted and ignored with a note.

``--retries N`` runs the job as a supervised series of attempts, each in a fresh child
process: a failed attempt (non-zero exit) is run again after ``--backoff`` seconds,
doubling each time up to ``--max-backoff``, and continues from its checkpoints. Ctrl-C or
SIGTERM stops the running attempt and never leads to a retry; the exit status is the last
attempt's. The attempt number (1, 2, ...) is in the environment as SPATE_SUBMIT_ATTEMPT.
SIGTERM ends the script as ``sys.exit(143)`` does (finally blocks and atexit run), even when
it comes just as the script blocks in a call such as ``time.sleep``.
"""

import atexit
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from typing import Dict, List, Optional, Tuple

import spate
from spate.sql import session as _session

__all__ = ["main", "install_aliases"]

ATTEMPT_ENV = "SPATE_SUBMIT_ATTEMPT"

USAGE = """\
Usage: spate submit [options] <python file> [app arguments]

Options:
  --conf, -c PROP=VALUE       A Spark configuration property: a default of the script's
                              SparkSession.builder (its own .config() wins).
  --properties-file FILE      A file of properties (spark-defaults.conf format).
  --name NAME                 The application's name (spark.app.name).
  --py-files PY_FILES         Comma-separated .py, .zip or .egg files to put on sys.path.
  --retries N                 Run the script again after a failure, up to N times, each
                              attempt in a fresh process (default 0).
  --backoff SECONDS           The wait before the first retry; it doubles after each
                              (default 1).
  --max-backoff SECONDS       The longest wait between attempts (default 60).
  --verbose, -v               Print the parsed arguments and the properties used.
  --version                   Print spate's version.
  --help, -h                  Show this message.

Accepted and ignored, with a note (spate runs the job in this process, without a JVM):
  --master, --deploy-mode, --remote, --class, --jars, --packages, --exclude-packages,
  --repositories, --files, --archives, --driver-memory, --driver-java-options,
  --driver-library-path, --driver-class-path, --driver-cores, --executor-memory,
  --executor-cores, --num-executors, --total-executor-cores, --proxy-user, --principal,
  --keytab, --queue, --supervise, --load-spark-defaults
"""

# spark-submit's options with a value that spate does not act on: the Spark property each
# sets (None: none), and why it does not apply.
_IN_PROCESS = "spate runs the job in this process, on this machine's cores"
_NO_JVM = "spate has no JVM"
_IGNORED: Dict[str, Tuple[Optional[str], str]] = {
    "--master": ("spark.master", _IN_PROCESS),
    "--deploy-mode": ("spark.submit.deployMode", _IN_PROCESS),
    "--remote": (None, _IN_PROCESS),
    "--driver-cores": ("spark.driver.cores", _IN_PROCESS),
    "--executor-memory": ("spark.executor.memory", _IN_PROCESS),
    "--executor-cores": ("spark.executor.cores", _IN_PROCESS),
    "--num-executors": ("spark.executor.instances", _IN_PROCESS),
    "--total-executor-cores": ("spark.cores.max", _IN_PROCESS),
    "--proxy-user": (None, _IN_PROCESS),
    "--principal": ("spark.kerberos.principal", _IN_PROCESS),
    "--keytab": ("spark.kerberos.keytab", _IN_PROCESS),
    "--queue": ("spark.yarn.queue", _IN_PROCESS),
    "--class": (None, _NO_JVM),
    "--jars": ("spark.jars", _NO_JVM),
    "--packages": ("spark.jars.packages", _NO_JVM),
    "--exclude-packages": ("spark.jars.excludes", _NO_JVM),
    "--repositories": ("spark.jars.repositories", _NO_JVM),
    "--driver-memory": ("spark.driver.memory", _NO_JVM),
    "--driver-java-options": ("spark.driver.extraJavaOptions", _NO_JVM),
    "--driver-library-path": ("spark.driver.extraLibraryPath", _NO_JVM),
    "--driver-class-path": ("spark.driver.extraClassPath", _NO_JVM),
    "--files": ("spark.files", "the job reads files where they are"),
    "--archives": ("spark.archives", "the job reads files where they are"),
}
_IGNORED_FLAGS = {
    "--supervise": "use --retries to run a failed job again",
    "--load-spark-defaults": "spate reads no conf/spark-defaults.conf; use --properties-file",
}
# Options whose value spate uses (-c is --conf's short form).
_VALUE_OPTIONS = {"--conf", "-c", "--properties-file", "--name", "--py-files"}
# The supervisor's own options: a child attempt runs without them.
_RETRY_OPTIONS = {"--retries", "--backoff", "--max-backoff"}
_NOT_SUPPORTED = {"--kill", "--status"}


class _UsageError(Exception):
    pass


class _Done(Exception):
    """--help or --version: print and exit 0."""


class _Options:
    def __init__(self) -> None:
        self.confs: List[Tuple[str, str]] = []     # --conf, in order
        self.option_confs: Dict[str, str] = {}     # set by named options (--name, --master, ...)
        self.properties_file: Optional[str] = None
        self.py_files: List[str] = []
        self.retries = 0
        self.backoff = 1.0
        self.max_backoff = 60.0
        self.verbose = False
        self.notes: List[str] = []                 # options ignored
        self.warnings: List[str] = []              # properties dropped
        self.script: Optional[str] = None
        self.args: List[str] = []
        self.child_argv: List[str] = []            # the arguments of one attempt


def _number(option: str, value: str, kind: type) -> float:
    try:
        n = kind(value)
    except ValueError:
        n = -1
    if n < 0:
        what = "a non-negative integer" if kind is int else "a non-negative number of seconds"
        raise _UsageError(f"{option} expects {what}, got '{value}'")
    return n


def _parse(argv: List[str]) -> _Options:
    o = _Options()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in ("--help", "-h"):
            raise _Done(USAGE)
        if name == "--version":
            raise _Done(f"spate {spate.__version__}\n")
        if name in ("--verbose", "-v"):
            o.verbose = True
            o.child_argv.append(arg)
            i += 1
            continue
        if name in _IGNORED_FLAGS:
            o.notes.append(f"{name} is ignored ({_IGNORED_FLAGS[name]})")
            i += 1
            continue
        if name not in _VALUE_OPTIONS and name not in _RETRY_OPTIONS and name not in _IGNORED \
                and name not in _NOT_SUPPORTED:
            raise _UsageError(f"Unrecognized option: {arg}")
        if eq:
            value, used = inline, 1
        elif i + 1 < len(argv):
            value, used = argv[i + 1], 2
        else:
            raise _UsageError(f"Missing argument for option '{name}'.")
        if name not in _RETRY_OPTIONS:
            o.child_argv.extend(argv[i:i + used])
        i += used
        if name in ("--conf", "-c"):
            key, eq, val = value.partition("=")
            if not eq:
                raise _UsageError(f"Invalid argument to --conf: {value}")
            o.confs.append((key, val))
        elif name == "--properties-file":
            o.properties_file = value
        elif name == "--name":
            o.option_confs["spark.app.name"] = value
        elif name == "--py-files":
            o.py_files.extend(p for p in value.split(",") if p)
            o.option_confs["spark.submit.pyFiles"] = value
        elif name == "--retries":
            o.retries = int(_number(name, value, int))
        elif name == "--backoff":
            o.backoff = _number(name, value, float)
        elif name == "--max-backoff":
            o.max_backoff = _number(name, value, float)
        elif name in _NOT_SUPPORTED:
            raise _UsageError(f"{name} is not supported: spate submits no driver to a cluster")
        else:
            key, why = _IGNORED[name]
            if key is not None:
                o.option_confs[key] = value
            o.notes.append(f"{name} {value} is ignored ({why})")
    if i == len(argv):
        raise _UsageError("Missing application resource.")
    o.script, o.args = argv[i], argv[i + 1:]
    if o.script.endswith((".jar", ".R", ".r")):
        raise _UsageError(f"spate submit runs Python scripts, not {o.script}")
    o.child_argv.extend(argv[i:])
    return o


def _read_properties(path: str) -> List[Tuple[str, str]]:
    """key/value pairs of a Java properties file (spark-defaults.conf): `key value`,
    `key=value` or `key: value` a line, `#` and `!` comments, `\\` continuing a line."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        raise _UsageError(f"Invalid properties file '{path}'.") from None
    out = []
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if not line or line[0] in "#!":
            continue
        if line.endswith("\\"):
            pending = line[:-1]
            continue
        end = 0
        while end < len(line) and line[end] not in " \t=:":
            end += 1
        key, rest = line[:end], line[end:].lstrip(" \t")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t")
        out.append((key, rest.strip()))
    return out


def _spark_properties(o: _Options) -> Dict[str, str]:
    """The properties the script's sessions start from: the properties file, under --conf,
    under the named options, as spark-submit; keys not starting with `spark.` are dropped
    with spark-submit's warning (in o.warnings); spark.app.name defaults to the script's
    file name."""
    props: Dict[str, str] = {}
    for key, value in (_read_properties(o.properties_file) if o.properties_file else []) + o.confs:
        if key.startswith("spark."):
            props[key] = value
        else:
            o.warnings.append(f"Warning: Ignoring non-Spark config property: {key}")
    props.update(o.option_confs)
    props.setdefault("spark.app.name", os.path.basename(o.script))
    return props


# ---- imports of pyspark and delta ------------------------------------------------------------

class SparkConf:
    """pyspark.SparkConf: properties for ``SparkSession.builder.config(conf=...)``; it starts
    from spate submit's properties, as PySpark's starts from spark-submit's."""

    def __init__(self, loadDefaults: bool = True, _jvm=None, _jconf=None) -> None:
        self._conf: Dict[str, str] = dict(_session._submit_conf) if loadDefaults else {}

    def set(self, key: str, value) -> "SparkConf":
        self._conf[key] = _session._conf_str(value)
        return self

    def setIfMissing(self, key: str, value) -> "SparkConf":
        if key not in self._conf:
            self.set(key, value)
        return self

    def setAll(self, pairs) -> "SparkConf":
        for k, v in pairs:
            self.set(k, v)
        return self

    def setMaster(self, value: str) -> "SparkConf":
        return self.set("spark.master", value)

    def setAppName(self, value: str) -> "SparkConf":
        return self.set("spark.app.name", value)

    def get(self, key: str, defaultValue: Optional[str] = None) -> Optional[str]:
        return self._conf.get(key, defaultValue)

    def getAll(self) -> List[Tuple[str, str]]:
        return list(self._conf.items())

    def contains(self, key: str) -> bool:
        return key in self._conf

    def toDebugString(self) -> str:
        return "\n".join(f"{k}={v}" for k, v in self._conf.items())


def _pyspark_module() -> types.ModuleType:
    from spate.sql import Row
    from spate.sql.session import SparkContext
    m = types.ModuleType("pyspark", "pyspark under spate submit: spate's modules.")
    m.__path__ = []  # a package: pyspark.sql is found by _AliasFinder
    m.__version__ = spate.__version__
    from spate.storagelevel import StorageLevel
    m.SparkConf, m.SparkContext, m.Row = SparkConf, SparkContext, Row
    m.StorageLevel = StorageLevel
    m.__all__ = ["SparkConf", "SparkContext", "Row", "StorageLevel"]

    def __getattr__(name: str):
        raise AttributeError(f"module 'pyspark' has no attribute '{name}' under spate submit "
                             "(spate runs PySpark's DataFrame API: pyspark.sql)")
    m.__getattr__ = __getattr__
    return m


def _delta_module() -> types.ModuleType:
    import spate.delta
    m = types.ModuleType("delta", "delta (delta-spark) under spate submit: spate.delta.")
    m.__path__ = []

    def configure_spark_with_delta_pip(spark_session_builder, extra_packages=None):
        """delta-spark's helper adds its Maven package to the builder; spate needs none."""
        return spark_session_builder
    m.configure_spark_with_delta_pip = configure_spark_with_delta_pip
    m.DeltaTable = spate.delta.DeltaTable
    m.tables = spate.delta
    m.__all__ = ["DeltaTable", "configure_spark_with_delta_pip"]
    return m


# pyspark's and delta-spark's modules that are spate's under another name.
_RENAMES = (("pyspark.sql", "spate.sql"), ("pyspark.errors", "spate.errors"),
            ("pyspark.pipelines", "spate.pipelines"), ("delta.tables", "spate.delta"))


class _AliasLoader(importlib.abc.Loader):
    """Loads a module that already exists under another name (the same object), keeping its
    own __spec__ (the import system would overwrite it with the alias's)."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module) -> None:
        if self._spec is not None:
            module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves pyspark's and delta-spark's module names to spate's modules."""

    def __init__(self) -> None:
        self._made: Dict[str, types.ModuleType] = {}

    def find_spec(self, fullname: str, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in ("pyspark", "delta"):
            return None
        if fullname in ("pyspark", "delta"):
            if fullname not in self._made:
                self._made[fullname] = _pyspark_module() if top == "pyspark" else _delta_module()
            module = self._made[fullname]
        else:
            module = self._import_renamed(fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))

    @staticmethod
    def _import_renamed(fullname: str) -> types.ModuleType:
        for theirs, ours in _RENAMES:
            if fullname == theirs or fullname.startswith(theirs + "."):
                name = ours + fullname[len(theirs):]
                try:
                    return importlib.import_module(name)
                except ModuleNotFoundError as e:
                    if e.name != name:
                        raise
                break
        raise ModuleNotFoundError(
            f"No module named '{fullname}' under spate submit: spate provides pyspark.sql, "
            "pyspark.errors, delta and delta.tables", name=fullname)


def install_aliases() -> None:
    """Makes `import pyspark.sql`, `from delta.tables import DeltaTable`, ... import spate's
    modules in this interpreter."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())


# ---- running the script ----------------------------------------------------------------------

def _note(message: str) -> None:
    print(f"spate submit: {message}", file=sys.stderr, flush=True)


def _put_py_files(py_files: List[str]) -> None:
    """Puts --py-files on sys.path after the script's folder: .zip and .egg files themselves,
    .py files copied into a temporary folder (spark-submit ships them likewise)."""
    copies = None
    at = 1
    for p in py_files:
        path = os.path.abspath(p)
        if not os.path.exists(path):
            raise _UsageError(f"--py-files: {p} does not exist")
        if path.endswith(".py"):
            if copies is None:
                copies = tempfile.mkdtemp(prefix="spate-submit-pyfiles-")
                atexit.register(shutil.rmtree, copies, True)
            shutil.copy(path, copies)
            path = copies
        if path not in sys.path:
            sys.path.insert(at, path)
            at += 1


# ---- signals ---------------------------------------------------------------------------------
#
# CPython runs a Python signal handler in the main thread between bytecodes; the C-level
# handler only marks it due (and writes the signal's number to the wakeup fd, if one is set).
# A signal that arrives after the main thread's last check but before it enters a blocking
# call (time.sleep, waitpid, a read), or that the kernel hands to another thread, leaves the
# main thread blocked and the handler due until that call returns by itself: SIGTERM to a
# script in time.sleep(60) acted on a minute later, SIGTERM to the runner blocked in waitpid
# passed on only once the attempt has ended by itself (a streaming job does not). Both
# processes learn of the signal from the wakeup fd instead.


def _drain(fd: int) -> None:
    """Reads a non-blocking pipe empty."""
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


class _SigtermExit:
    """SIGTERM's handler in the process that runs the script: the script ends as by
    ``sys.exit(128 + 15)``, so its finally blocks and the atexit hook that stops queries
    run. Once: a SIGTERM while it winds down is ignored (SIGKILL ends it at once).

    A watcher thread reads the wakeup fd; while a SIGTERM has come and the handler has not
    run, the main thread is blocked in a call the signal did not interrupt, and the watcher
    sends SIGTERM to the main thread itself (each one interrupts the call: the handler runs,
    and runs once however many arrive)."""

    def __init__(self) -> None:
        self.ran = False
        self._main = threading.main_thread().ident
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)

    def install(self) -> None:
        # The wakeup fd before the handler: no SIGTERM reaches the handler unseen.
        previous = signal.set_wakeup_fd(self._write)
        if previous != -1:  # someone else's: not ours to replace (no watcher)
            signal.set_wakeup_fd(previous)
            os.close(self._read)
            os.close(self._write)
        else:
            os.register_at_fork(after_in_child=self._forked)
            threading.Thread(target=self._watch, name="spate-submit-sigterm", daemon=True).start()
        signal.signal(signal.SIGTERM, self)

    def __call__(self, signum: int, frame) -> None:
        if self.ran:
            return
        self.ran = True  # no check between the test and this: a nested call returns above
        raise SystemExit(128 + signum)

    def _watch(self) -> None:
        while True:
            try:
                data = os.read(self._read, 512)
            except OSError:
                return
            if not data:
                return
            if signal.SIGTERM not in data:
                continue
            while not self.ran and signal.getsignal(signal.SIGTERM) is self:
                time.sleep(0.05)  # the usual case: the handler has run by then
                if not self.ran:
                    signal.pthread_kill(self._main, signal.SIGTERM)

    def _forked(self) -> None:
        # A forked child (multiprocessing) has no watcher; its signals must not wake this
        # process's (the pipe is shared). Its own children have nothing left to close.
        if self._read < 0:
            return
        try:
            current = signal.set_wakeup_fd(-1)
            if current != self._write:
                signal.set_wakeup_fd(current)
        except ValueError:
            pass
        os.close(self._read)
        os.close(self._write)
        self._read = self._write = -1


def _run(o: _Options, props: Dict[str, str]) -> int:
    """Runs the script in this interpreter, as `python3 job.py args` would."""
    script = os.path.abspath(o.script)
    if not os.path.isfile(script):
        print(f"{os.path.basename(sys.executable)}: can't open file '{script}': "
              "[Errno 2] No such file or directory", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(script))
    _put_py_files(o.py_files)
    install_aliases()
    _session._submit_conf.clear()
    _session._submit_conf.update(props)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        _SigtermExit().install()
    sys.argv = [script] + o.args
    runpy.run_path(script, run_name="__main__")
    return 0


def _describe(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def _supervise(o: _Options) -> int:
    """Runs the script as up to 1 + retries attempts, each a child `python3 -m spate.submit`
    without the retry options; returns the last attempt's status (negative: its signal)."""
    attempts = o.retries + 1
    cmd = [sys.executable, "-m", "spate.submit"] + o.child_argv
    env = dict(os.environ)
    # The child imports spate from where this process did.
    root = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    state: Dict[str, object] = {"child": None, "signal": None}

    def on_signal(signum, frame):
        child = state["child"]
        if child is not None and child.poll() is None:
            # The first signal is passed on; a second one kills the attempt.
            if state["signal"] is None:
                child.send_signal(signum)
            else:
                child.kill()
        state["signal"] = signum

    # Signals ignored at start (a job started in the background, nohup) stay ignored.
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(s) is not signal.SIG_IGN}
    # The waits below are select() on the wakeup fd, which every handled signal writes to,
    # the attempt's end (SIGCHLD) included: a signal just before the select ends it at once.
    # Before each select the pipe is read and the handlers of what was read have run.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    previous_wakeup = signal.set_wakeup_fd(wake_write)
    previous_chld = signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    rc = 0
    delay = o.backoff
    try:
        for attempt in range(1, attempts + 1):
            _note(f"attempt {attempt} of {attempts}: {' '.join([o.script] + o.args)}")
            env[ATTEMPT_ENV] = str(attempt)
            child = subprocess.Popen(cmd, env=env)
            state["child"] = child
            if state["signal"] is not None:  # arrived while the child was starting
                child.send_signal(state["signal"])
            while True:
                _drain(wake_read)
                status = child.poll()
                if status is not None:
                    break
                select.select([wake_read], [], [])
            rc = status
            state["child"] = None
            what = f"attempt {attempt} of {attempts}"
            if rc == 0:
                _note(f"{what} succeeded")
                break
            stopped = state["signal"] or (signal.SIGINT if rc == -signal.SIGINT else None)
            if stopped:
                _note(f"{what} stopped by {signal.Signals(stopped).name} ({_describe(rc)}); "
                      "not retrying")
                break
            if attempt == attempts:
                _note(f"{what} failed ({_describe(rc)}); no retries left")
                break
            wait = min(delay, o.max_backoff)
            _note(f"{what} failed ({_describe(rc)}); next attempt in {wait:g} s")
            end = time.monotonic() + wait
            while True:
                _drain(wake_read)
                left = end - time.monotonic()
                if state["signal"] is not None or left <= 0:
                    break
                select.select([wake_read], [], [], left)
            if state["signal"] is not None:
                _note(f"stopped by {signal.Signals(state['signal']).name}; not retrying")
                break
            delay *= 2
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        signal.signal(signal.SIGCHLD, previous_chld)
        for s, handler in previous.items():
            signal.signal(s, handler)
        os.close(wake_read)
        os.close(wake_write)
    return rc


def main(argv: Optional[List[str]] = None) -> int:
    """Runs `spate submit` with these arguments (default: sys.argv[1:]); returns the exit
    status, negative when the last attempt was killed by a signal."""
    argv = sys.argv[1:] if argv is None else list(argv)
    supervised = ATTEMPT_ENV in os.environ
    try:
        o = _parse(argv)
        props = _spark_properties(o)
        if not supervised:  # an attempt's runner has said it already
            for w in o.warnings:
                print(w, file=sys.stderr)
            for n in o.notes:
                _note(n)
            if o.verbose:
                _note("properties used:\n" + "".join(f"  {k}={v}\n" for k, v in sorted(props.items())))
        if o.retries > 0:
            return _supervise(o)
        return _run(o, props)
    except _Done as d:
        sys.stdout.write(str(d))
        return 0
    except _UsageError as e:
        print(f"Error: {e}\n\n{USAGE}", file=sys.stderr, end="")
        return 1


def _exit(rc: int) -> None:
    """Exits with this status; a negative one (an attempt killed by a signal) by the same
    signal, as a shell reports it."""
    if rc < 0:
        signal.signal(-rc, signal.SIG_DFL)
        os.kill(os.getpid(), -rc)
        rc = 128 - rc
    sys.exit(rc)


if __name__ == "__main__":
    _exit(main())
