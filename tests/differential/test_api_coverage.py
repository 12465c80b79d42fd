"""docs/python.md's PySpark API coverage table is what scripts/pyspark_coverage.py computes
now (real pyspark's public names beside spate's). Fails when the table is stale: run
    python3 scripts/pyspark_coverage.py
and commit docs/python.md. Needs the Spark venv (scripts/install-spark.sh) and the built
package; without them the test is skipped, or fails when CI=true (as conftest.py)."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "pyspark_coverage.py")
VENV_PYTHON = os.path.join(ROOT, "build", "spark-venv", "bin", "python")


def test_coverage_table_is_current():
    why = None
    if not os.path.exists(VENV_PYTHON):
        why = f"{VENV_PYTHON} not found (run scripts/install-spark.sh)"
    else:
        try:
            import spate.sql  # noqa: F401
        except ImportError as e:
            why = f"spate's Python package is not importable ({e}); set PYTHONPATH=build/release/python"
    if why:
        if os.environ.get("CI") in ("true", "1"):
            pytest.fail(why)
        pytest.skip(why)
    r = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, SPATE_PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr + r.stdout
