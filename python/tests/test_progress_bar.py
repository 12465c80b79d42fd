"""The shell's console progress bar (cli/progress_bar.h): Spark's `[Stage N:==>  (d + r) / n]`
on a terminal (a pty here) while a CTAS over many files and an OPTIMIZE run, cleared at the
end; nothing when stderr is not a terminal. The first delay and the redraw interval are set
to 0 so that every stage is drawn (no timing in the test)."""
import os
import pty
import re
import subprocess

from test_monitoring import spate_cli

BAR = re.compile(r"\[Stage \d+:[=> ]*\(\d+ \+ \d+\) / \d+\]")


def statements(tmp_path):
    src = tmp_path / "in"
    src.mkdir(parents=True)
    for i in range(40):
        (src / f"part-{i:03}.json").write_text(
            "".join(f'{{"id": {i * 100 + j}, "k": "k{j % 7}"}}\n' for j in range(100)))
    return [f"--conf", f"spark.sql.warehouse.dir={tmp_path}/wh",
            "--conf", "spate.ui.consoleProgress.delayMs=0",
            "--conf", "spark.ui.consoleProgress.update.interval=0",
            "-e", f"CREATE TABLE t AS SELECT * FROM read_files('{src}', format => 'json'); "
                  "OPTIMIZE t; SELECT count(*) AS n FROM t"]


def run_on_pty(cmd):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(cmd[0], cmd)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


def test_progress_bar_on_a_terminal_only(tmp_path):
    cli = spate_cli()
    out = run_on_pty([cli, "sql", "-S", *statements(tmp_path / "tty")])
    bars = BAR.findall(out)
    assert bars, out
    # Spark's format: 80 columns, the tasks finished and running of the stage's total.
    assert all(len(b) == 80 for b in bars), bars
    assert any(re.search(r"\((\d+) \+ 0\) / \1\]", b) for b in bars), bars  # a stage done
    assert "\r" + " " * 80 + "\r" in out                                   # cleared
    assert re.search(r"\|\s*4000\s*\|", out), out                         # the count
    piped = subprocess.run([cli, "sql", "-S", *statements(tmp_path / "pipe")],
                           capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "[Stage" not in piped.stderr + piped.stdout
    assert re.search(r"\|\s*4000\s*\|", piped.stdout), piped.stdout
