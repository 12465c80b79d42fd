"""The PEP 517 build backend of `pip install .` / `pip wheel .` (stdlib only: pip needs
nothing from PyPI to build spate).

The wheel holds the `spate` package: its pure-Python sources (python/spate), the pybind11
extension `spate._spate` from a CMake build tree (<build>/python/spate, as
python/CMakeLists.txt lays it out) and the `spate` command of that build as spate/bin/spate,
started by the console script `spate` (spate.cli). The build tree is, in order:
  * $SPATE_PREBUILT, an existing build folder (for example build/release) -- nothing is
    compiled, its files are packed as they are;
  * else build/release of the source tree, configured and built here with the project's
    CMake preset (`cmake --preset release`, then the `_spate` and `spate` targets), which
    needs the Debian packages of scripts/install-deps.sh.
The wheel is tagged for the interpreter that runs the build (cp311-cp311-linux_x86_64 here):
the extension is built for it, and the engine links Debian's shared libraries.
"""
import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile

NAME = "spate"
VERSION = "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{plat}"


def _build_tree():
    pre = os.environ.get("SPATE_PREBUILT")
    if pre:
        tree = os.path.abspath(pre)
    else:
        tree = os.path.join(ROOT, "build", "release")
        env = dict(os.environ, CCACHE_BASEDIR=ROOT, CCACHE_NOHASHDIR="1")
        subprocess.run(["cmake", "--preset", "release"], cwd=ROOT, check=True, env=env,
                       stdout=sys.stderr)
        subprocess.run(["cmake", "--build", "--preset", "release", "--target", "_spate", "spate"],
                       cwd=ROOT, check=True, env=env, stdout=sys.stderr)
    package = os.path.join(tree, "python", "spate")
    binary = os.path.join(tree, "cli", "spate")
    if not any(f.startswith("_spate.") and f.endswith(".so") for f in os.listdir(package)):
        raise RuntimeError(f"no spate._spate extension in {package}: build the _spate target")
    if not os.path.exists(binary):
        raise RuntimeError(f"no spate command at {binary}: build the spate target")
    return package, binary


def _metadata():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: A stream-processing engine with Spark Structured Streaming's model, in one "
            "process\nRequires-Python: >=3.11\nLicense: Apache-2.0\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def _dist_info_files():
    wheel = (f"Wheel-Version: 1.0\nGenerator: spate_build {VERSION}\nRoot-Is-Purelib: false\n"
             f"Tag: {_tag()}\n")
    entry_points = "[console_scripts]\nspate = spate.cli:main\n"
    return {"METADATA": _metadata(), "WHEEL": wheel, "entry_points.txt": entry_points}


def _digest(data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={h}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name = f"{NAME}-{VERSION}.dist-info"
    os.makedirs(os.path.join(metadata_directory, name), exist_ok=True)
    for f, text in _dist_info_files().items():
        with open(os.path.join(metadata_directory, name, f), "w", encoding="utf-8") as out:
            out.write(text)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package, binary = _build_tree()
    wheel_name = f"{NAME}-{VERSION}-{_tag()}.whl"
    dist_info = f"{NAME}-{VERSION}.dist-info"
    records = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        def add(arcname, data, mode=0o644):
            info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            records.append(f"{arcname},{_digest(data)},{len(data)}")

        # The pure-Python sources from the source tree (the build tree links them, but only
        # those that existed when it was configured), the extension from the build tree.
        sources = os.path.join(ROOT, "python", NAME)
        for dirpath, dirnames, filenames in os.walk(sources):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for f in sorted(filenames):
                if not f.endswith(".py"):
                    continue
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, os.path.dirname(sources)).replace(os.sep, "/")
                with open(full, "rb") as fh:
                    add(rel, fh.read())
        for f in sorted(os.listdir(package)):
            if f.startswith("_spate.") and f.endswith(".so"):
                with open(os.path.join(package, f), "rb") as fh:
                    add(f"{NAME}/{f}", fh.read(), 0o755)
        with open(binary, "rb") as fh:
            add(f"{NAME}/bin/spate", fh.read(), 0o755)
        for f, text in _dist_info_files().items():
            add(f"{dist_info}/{f}", text.encode("utf-8"))
        record = "\n".join(records + [f"{dist_info}/RECORD,,"]) + "\n"
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o100644) << 16
        z.writestr(info, record, compress_type=zipfile.ZIP_DEFLATED)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("spate ships no sdist: build a wheel from the source tree "
                       "(pip wheel . / pip install .)")
