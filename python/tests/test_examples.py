"""The examples in examples/python run unchanged and print what PySpark would print."""
import os
import subprocess
import sys

import spate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED_QUICKSTART = """root
 |-- name: string (nullable = false)
 |-- event: string (nullable = true)
 |-- amount: double (nullable = true)
 |-- ts: timestamp (nullable = true)

+----------+-----+---+-----+
|       day| name|  n|total|
+----------+-----+---+-----+
|2024-05-01|alice|  2| 20.0|
|2024-05-02|carol|  1| 30.0|
|2024-05-02|  bob|  1|  5.0|
+----------+-----+---+-----+

+----------+-----+-----+
|       day| name|total|
+----------+-----+-----+
|2024-05-01|alice| 20.0|
|2024-05-02|carol| 30.0|
+----------+-----+-----+

rows written: 3
Row(day=datetime.date(2024, 5, 1), name='alice', n=2, total=20.0)
+-----+-----+
| name|spent|
+-----+-----+
|carol| 30.0|
|alice| 20.0|
|  bob|  5.0|
+-----+-----+

"""


def test_quickstart_example(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__)))
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "quickstart.py"),
                             str(tmp_path / "daily")], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED_QUICKSTART
