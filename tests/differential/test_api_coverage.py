"""The generated coverage tables are what their scripts compute now: docs/python.md's PySpark
API coverage (scripts/pyspark_coverage.py: real pyspark's public names beside spate's) and
docs/functions.md's function coverage (scripts/function_coverage.py: real Spark's SHOW
FUNCTIONS beside the functions spate resolves). Fails when a table is stale: run the script
and commit the document. Needs the Spark venv (scripts/install-spark.sh) and the built
package; without them the test is skipped, or fails when CI=true (as conftest.py)."""

import os
import subprocess
import sys

import pytest

from conftest import missing_peer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV_PYTHON = os.path.join(ROOT, "build", "spark-venv", "bin", "python")


@pytest.mark.parametrize("script", ["pyspark_coverage.py", "function_coverage.py"])
def test_coverage_table_is_current(script):
    why = None
    if not os.path.exists(VENV_PYTHON):
        why = f"{VENV_PYTHON} not found (run scripts/install-spark.sh)"
    else:
        try:
            import spate.sql  # noqa: F401
        except ImportError as e:
            why = f"spate's Python package is not importable ({e}); set PYTHONPATH=build/release/python"
    if why:
        missing_peer(why)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script), "--check"],
                       capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, SPATE_PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr + r.stdout
