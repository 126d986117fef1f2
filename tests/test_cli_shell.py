"""The CLI shell: help lists the commands, unknown ones exit 2."""

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neurondbg", *args],
                          capture_output=True, text=True)


def test_help_and_unknown_command() -> None:
    assert run("--help").returncode == 0
    bad = run("frobnicate")
    assert bad.returncode == 2
    assert "No such command" in bad.stderr
    assert "Traceback" not in bad.stderr
