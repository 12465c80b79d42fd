"""`pip install .` and `pip wheel .` (pyproject.toml, python/build_backend/spate_build.py):
in a fresh virtual environment, `import spate`, the `spate` command and `spate submit` work
without PYTHONPATH. The wheel packs the build this test suite runs against
(SPATE_PREBUILT), so nothing is compiled again."""
import os
import subprocess
import sys
import zipfile

import spate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# build/<preset>/python/spate/__init__.py -> build/<preset>
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(spate.__file__))))


def run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPATE_PYTHON")}
    env.update(kw.pop("env", {}))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, **kw)
    assert out.returncode == 0, f"{cmd}: {out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return out.stdout


def test_wheel_installs_into_a_fresh_venv(tmp_path):
    prebuilt = {"SPATE_PREBUILT": BUILD}
    run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "--no-index", "--no-cache-dir",
         "-w", str(tmp_path / "dist")], env=prebuilt, cwd=ROOT)
    wheels = os.listdir(tmp_path / "dist")
    tag = "cp%d%d" % sys.version_info[:2]
    assert wheels == [f"spate-0.1.0-{tag}-{tag}-linux_x86_64.whl"]
    names = zipfile.ZipFile(tmp_path / "dist" / wheels[0]).namelist()
    for n in ("spate/__init__.py", "spate/sql/functions.py", "spate/cli.py", "spate/bin/spate",
              "spate-0.1.0.dist-info/RECORD", "spate-0.1.0.dist-info/entry_points.txt"):
        assert n in names, n
    assert any(n.startswith("spate/_spate.") and n.endswith(".so") for n in names)

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    # `pip install .` from the source tree, as a user installs it.
    run([str(venv / "bin" / "pip"), "install", "--no-index", "--no-cache-dir", ROOT], env=prebuilt,
        cwd=ROOT)
    py = str(venv / "bin" / "python")
    out = run([py, "-c", "import spate, os\n"
               "from spate.sql import SparkSession, functions as F\n"
               "s = SparkSession.builder.getOrCreate()\n"
               "print(os.path.dirname(spate.__file__))\n"
               "print(s.range(4).select(F.aggregate(F.array('id', 'id'), F.lit(0).cast('bigint'),"
               " lambda a, x: a + x).alias('r')).agg(F.sum('r')).collect()[0][0])"], cwd=str(tmp_path))
    where, total = out.split()
    assert where.startswith(str(venv)), where
    assert total == "12"
    assert "[10, 20]" in run([str(venv / "bin" / "spate"), "sql", "-S", "-e",
                              "SELECT transform(array(1, 2), x -> x * 10)"], cwd=str(tmp_path))
    job = tmp_path / "job.py"
    job.write_text("import sys\nfrom pyspark.sql import SparkSession\n"
                   "spark = SparkSession.builder.getOrCreate()\n"
                   "print(spark.conf.get('spark.app.name'), spark.range(int(sys.argv[1])).count())\n")
    out = run([str(venv / "bin" / "spate"), "submit", "--name", "packaged", str(job), "5"],
              cwd=str(tmp_path))
    assert out.split() == ["packaged", "5"]
