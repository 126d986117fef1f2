"""`neurondbg serve` without a browser: what it binds, what it says, what it refuses."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from neurondbg.commands.serve import command, is_loopback, visitor_command
from tests.dap.client import EXAMPLES, REPO


def test_loopback_hosts() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.4", "::", "example.org"]))


def test_each_visitor_runs_the_tui_on_the_resolved_program() -> None:
    words = shlex.split(visitor_command(EXAMPLES / "loop.asm", None, "dve"))
    assert words[:4] == [sys.executable, "-m", "neurondbg", "tui"]
    assert words[4:] == [str((EXAMPLES / "loop.asm").resolve()), "--engine", "dve"]
    assert shlex.split(visitor_command(None, None, None))[4:] == []  # the demo


def test_missing_program_is_one_line_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(command, [str(tmp_path / "nope.asm"), "--port", "0"])
    assert r.exit_code == 2
    assert r.output.strip() == f"neurondbg: error: {tmp_path / 'nope.asm'}: no such file"


def _first_lines(*args: str, n: int) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.serve", *args],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        return [proc.stderr.readline().rstrip("\n") for _ in range(n)]
    finally:
        proc.terminate()
        proc.wait(30)


def test_loopback_by_default_and_says_so() -> None:
    (line,) = _first_lines("--port", "0", n=1)
    assert line.startswith("neurondbg serve: http://127.0.0.1:")
    assert line.endswith("(loopback only: this machine's browsers)")


def test_another_host_warns_that_there_is_no_authentication() -> None:
    first, warning = _first_lines("--port", "0", "--host", "0.0.0.0", n=2)
    assert first.startswith("neurondbg serve: http://0.0.0.0:")
    assert warning.startswith("neurondbg: warning: --host 0.0.0.0: there is no authentication")
