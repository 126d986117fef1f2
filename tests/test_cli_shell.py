"""The CLI shell: help lists the commands; every usage error is one line, exit 2."""

import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neurondbg", *args],
                          capture_output=True, text=True)


def test_help_lists_the_commands() -> None:
    out = run("--help")
    assert out.returncode == 0
    for name in ("tui", "run", "validate", "asm", "disasm", "check-nki", "replay", "tour",
                 "convert"):
        assert f"  {name} " in out.stdout


@pytest.mark.parametrize(("args", "message"), [
    (("frobnicate",), "neurondbg: error: No such command 'frobnicate'."),
    (("valdate",), "neurondbg: error: No such command 'valdate'; did you mean "
                   "'validate'?"),
    (("tui", "--gen", "foo"), "neurondbg: error: tui: Invalid value for '--gen'"),
    (("run", "x.asm", "--max-steps", "-3"), "Invalid value for '--max-steps'"),
    (("asm", "x.asm"), "neurondbg: error: asm: Missing option '-o' / '--output'."),
])
def test_usage_errors_are_one_line(args: tuple[str, ...], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert out.stdout == "" and len(out.stderr.splitlines()) == 1
    assert message in out.stderr and "Traceback" not in out.stderr
