"""The `spate` console script of an installed wheel: runs the `spate` command shipped in the
package (spate/bin/spate), with this interpreter as the one `spate submit` starts."""
import os
import sys


def main() -> None:
    binary = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "spate")
    if not os.path.exists(binary):
        sys.exit("spate: the spate command is not part of this installation (%s)" % binary)
    os.environ.setdefault("SPATE_PYTHON", sys.executable)
    os.execv(binary, [binary] + sys.argv[1:])


if __name__ == "__main__":
    main()
