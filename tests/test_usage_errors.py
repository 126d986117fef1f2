"""Usage errors as a user sees them: one line, one `neurondbg: error:` prefix (then the
subcommand, when there is one), exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from neurondbg.errors import usage_line


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neurondbg", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "line"), [
    (("--x",), "neurondbg: error: no such option: --x (see `neurondbg --help`)"),
    (("frobnicate",),
     "neurondbg: error: No such command 'frobnicate'. (see `neurondbg --help`)"),
    (("valdate",), "neurondbg: error: No such command 'valdate'; did you mean 'validate'? "
                   "(see `neurondbg --help`)"),
    (("validate", "--x"), "neurondbg: error: validate: no such option: --x; did you mean "
                          "--fix? (see `neurondbg validate --help`)"),
    (("disasm", "--qqq"),
     "neurondbg: error: disasm: no such option: --qqq (see `neurondbg disasm --help`)"),
    (("asm", "x.asm"), "neurondbg: error: asm: Missing option '-o' / '--output'. "
                       "(see `neurondbg asm --help`)"),
])
def test_one_prefix(args: tuple[str, ...], line: str) -> None:
    out = run(*args)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", line + "\n")


@pytest.mark.parametrize(("where", "line"), [
    ("neurondbg", "neurondbg: error: m (see `neurondbg --help`)"),
    ("neurondbg run", "neurondbg: error: run: m (see `neurondbg run --help`)"),
    ("serve", "neurondbg: error: serve: m (see `serve --help`)"),  # a command run on its own
])
def test_usage_line(where: str, line: str) -> None:
    assert usage_line(where, " m \n") == line
