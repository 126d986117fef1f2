"""`neurondbg serve` without a browser: what it binds, what it says, what it refuses."""

from __future__ import annotations

import re
import shlex
import signal
import socket
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


def test_loopback_by_default_and_says_so_with_the_token_in_the_url() -> None:
    (line,) = _first_lines("--port", "0", n=1)
    assert re.fullmatch(r"neurondbg serve: http://127\.0\.0\.1:\d+/\?token=[\w-]{32} "
                        r"\(loopback only: this machine's browsers\)", line), line


def test_each_server_has_its_own_token() -> None:
    (a,) = _first_lines("--port", "0", n=1)
    (b,) = _first_lines("--port", "0", n=1)
    assert a.split("token=")[1] != b.split("token=")[1]


def test_another_host_warns_who_can_reach_it() -> None:
    first, warning = _first_lines("--port", "0", "--host", "0.0.0.0", n=2)
    assert first.startswith("neurondbg serve: http://0.0.0.0:")
    assert first.endswith("(all who can reach this address)")
    assert warning.startswith("neurondbg: warning: --host 0.0.0.0: anyone who reaches port ")
    assert "learns the token (sent in clear over http) runs neurondbg as you" in warning


def test_a_taken_port_is_one_line_exit_2() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        r = CliRunner().invoke(command, ["--port", str(port)])
    assert r.exit_code == 2
    assert r.output.startswith(f"neurondbg: error: --port {port}: cannot listen on 127.0.0.1: ")


def test_ctrl_c_stops_the_server_exit_130() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg", "serve", "--port", "0"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith("neurondbg serve: http://")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
        assert proc.stderr.read().strip().endswith("neurondbg: interrupted")
    finally:
        if proc.poll() is None:
            proc.kill()
