"""`neurondbg validate KERNEL` from the command line: each queue on its own engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neurondbg", "validate", *args],
                          capture_output=True, text=True, timeout=120)


def test_a_kernel_op_on_the_wrong_engine_fails_only_there() -> None:
    out = _cli(str(DATA / "wrong_engine.asm"), "--json")
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["count"] == 4 and doc["invalid"] == 1
    pool, dve = doc["engines"]["pool"], doc["engines"]["dve"]
    assert pool["instructions"][0]["failed"] == ["engine_has_opcode(pool)"]
    assert dve["invalid"] == 0


def test_engine_and_fix_do_not_apply_to_a_kernel(tmp_path: Path) -> None:
    for extra in (["--engine", "dve"], ["--fix", str(tmp_path / "out.asm")]):
        out = _cli(str(DATA / "wrong_engine.asm"), *extra)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "kernel" in out.stderr
    assert not (tmp_path / "out.asm").exists()
