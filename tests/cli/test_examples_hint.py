"""A README path under examples/ that is missing (a regular install, run from another
folder) gets the hint to copy the examples out; other missing paths do not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from neurondbg.errors import EXAMPLES_HINT, examples_hint


@pytest.mark.parametrize("message, hinted", [
    ("examples/loop.asm: no such file", True),
    ("examples/kernels/deadlock.asm: no such program", True),
    ("./examples/nki_calls.json: no such calls file", True),
    ("examples/loop.asm: cannot read: No such file or directory", True),
    ("mine/loop.asm: no such file", False),
    ("examples/loop.asm: line 3:1: undefined label 'lop'", False),
    ("examplesx/loop.asm: no such file", False),
])
def test_examples_hint(tmp_path: Path, monkeypatch, message: str, hinted: bool) -> None:
    monkeypatch.chdir(tmp_path)
    want = f"{message} ({EXAMPLES_HINT})" if hinted else message
    assert examples_hint(message) == want


def test_an_existing_examples_path_gets_no_hint(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "loop.asm").write_text("HALT\n")
    assert examples_hint("examples/loop.asm: no such file") == \
        "examples/loop.asm: no such file"


@pytest.mark.parametrize("args", [["validate", "examples/loop.asm"],
                                  ["run", "examples/kernels/deadlock.asm"]])
def test_the_cli_says_how_to_get_the_examples(tmp_path: Path, args: list[str]) -> None:
    res = subprocess.run([sys.executable, "-m", "neurondbg", *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"neurondbg: error: {args[1]}: no such {'program' if args[0] == 'validate' else 'file'}"
        f" ({EXAMPLES_HINT})"]
