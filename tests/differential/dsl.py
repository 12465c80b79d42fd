"""The vocabulary of differential cases (tests/differential/cases/*.py).

A case is a PySpark program written once and run twice: by the pytest process against spate
(`spate.sql`) and by the Spark server (spark_server.py) against real Spark (`pyspark.sql`).
This module imports neither engine, so both processes load the same case files.

    @case(ordered=True)
    def upper_lower(s):                  # s: Env (s.spark, s.F, s.T, s.Window, s.Row, s.tmp)
        return s.spark.sql("SELECT upper('a') AS u ORDER BY u")

A case returns a DataFrame (its schema, rows and show() text are compared), a plain value,
or a dict of them; an exception it raises is compared by error class. Its full name is
"<module>/<function>"; generated cases name themselves (sql_case by its name, expr_cases
"<module>/<family>/<expression>").

A case that differs from Spark carries `differs=Differs(id, aspect, pin)` (or is listed in its
module's `pins({...})`, for generated cases): `id`
is a heading of docs/spark-differences.md, `aspect` the first aspect that differs
(schema, rows, show, error, value) and `pin` a hash of both sides of it, so the test fails
when the difference disappears or changes (the failure prints the new pin).
"""

import dataclasses
import sys
from typing import Any, Callable, Dict, List, Optional

# Session configuration every case starts from (both sides); a case adds its own `conf`.
BASE_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.ansi.enabled": "true",
}


@dataclasses.dataclass(frozen=True)
class Differs:
    id: str
    aspect: str
    pin: str


@dataclasses.dataclass
class Case:
    name: str
    fn: Callable[["Env"], Any]
    ordered: bool = False
    conf: Dict[str, str] = dataclasses.field(default_factory=dict)
    differs: Optional[Differs] = None
    # Compare show() text (off for cases whose show text is not deterministic).
    show: bool = True
    streaming: bool = False


@dataclasses.dataclass
class Env:
    """What a case program sees: one engine's modules and a fresh session."""
    spark: Any
    F: Any
    T: Any
    Window: Any
    Row: Any
    errors: Any
    tmp: str
    side: str  # "spate" or "spark"; for the rare case that must know (never to fake a result)
    DeltaTable: Any = None  # delta.tables.DeltaTable / spate.delta.DeltaTable


REGISTRY: Dict[str, Case] = {}
PINS: Dict[str, Differs] = {}


def _module_name(depth: int = 2) -> str:
    name = sys._getframe(depth).f_globals["__name__"]
    return name.rsplit(".", 1)[-1]


def _register(c: Case) -> Case:
    if c.name in REGISTRY:
        raise ValueError(f"duplicate differential case {c.name}")
    REGISTRY[c.name] = c
    return c


def case(fn: Optional[Callable] = None, *, ordered: bool = False,
         conf: Optional[Dict[str, str]] = None, differs: Optional[Differs] = None,
         show: bool = True, streaming: bool = False, name: Optional[str] = None):
    """Registers a case function; usable as @case or @case(ordered=True, ...)."""
    module = _module_name()

    def wrap(f: Callable) -> Callable:
        _register(Case(f"{module}/{name or f.__name__}", f, ordered, dict(conf or {}), differs,
                       show, streaming))
        return f

    return wrap(fn) if fn is not None else wrap


def sql_case(name: str, sql: str, *, ordered: Optional[bool] = None,
             conf: Optional[Dict[str, str]] = None, differs: Optional[Differs] = None,
             show: bool = True, setup: Optional[List[str]] = None) -> Case:
    """A case that runs SQL statements (`setup`, then `sql`) and compares the last result.
    It compares rows in order when the query has an ORDER BY (unless told otherwise)."""
    module = _module_name()
    statements = list(setup or [])
    if ordered is None:
        ordered = _orders(sql)

    def run(s: Env) -> Any:
        for st in statements:
            s.spark.sql(st)
        return s.spark.sql(sql)

    return _register(Case(f"{module}/{name}", run, ordered, dict(conf or {}), differs, show))


def _orders(sql: str) -> bool:
    """Whether the statement has an ORDER BY outside parentheses (not one inside OVER (...)
    or a subquery) and outside string literals."""
    depth, quoted, top = 0, False, []
    for ch in sql:
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        top.append(ch if depth == 0 and not quoted and ch not in "()" else " ")
    return " ORDER BY " in " ".join("".join(top).upper().split()).join("  ")


def expr_cases(family: str, table: str, exprs: List[str], *,
               conf: Optional[Dict[str, str]] = None) -> None:
    """One case per expression, named "<family>/<expression>": `SELECT *, <expr> AS r FROM
    <table>` (a table, a VALUES list or a subquery; without a table `SELECT <expr> AS r`)."""
    module = _module_name()
    for expr in exprs:
        sql = f"SELECT *, {expr} AS r FROM {table}" if table else f"SELECT {expr} AS r"
        _register(Case(f"{module}/{family}/{expr}", _sql_runner(sql), False, dict(conf or {})))


def pins(differences: Dict[str, Differs]) -> None:
    """Pins the known differences of a module's cases, by case name without the module."""
    module = _module_name()
    for name, d in differences.items():
        PINS[f"{module}/{name}"] = d


def differs_of(c: Case) -> Optional[Differs]:
    return c.differs or PINS.get(c.name)


def _sql_runner(sql: str) -> Callable[[Env], Any]:
    return lambda s: s.spark.sql(sql)
