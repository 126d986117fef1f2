"""Counts and their words agree: "1 step", "2 steps", "1 entry is"."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.machine.words import counted, plural


@pytest.mark.parametrize(("n", "expected"), [
    (0, "0 steps"), (1, "1 step"), (2, "2 steps"), (1024, "1,024 steps"), (-1, "-1 steps"),
])
def test_counted_steps(n: int, expected: str) -> None:
    assert counted(n, "step") == expected


def test_irregular_plurals() -> None:
    assert [plural(n, "entry", "entries") for n in (0, 1, 2)] == ["entries", "entry", "entries"]
    assert [plural(n, "is", "are") for n in (1, 3)] == ["is", "are"]
    assert counted(1, "entry", "entries") == "1 entry"


def test_validate_of_one_unassigned_byte_names_it_once(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from neurondbg.cli import cli

    rec = bytearray(64)
    rec[0], rec[1] = 0xFC, 16  # a byte no generation assigns, a well-formed length
    (tmp_path / "fc.bin").write_bytes(bytes(rec))
    r = CliRunner().invoke(cli, ["validate", str(tmp_path / "fc.bin")])
    assert r.exit_code == 1
    assert "opcode 0xFC (OP_FC) is not a member" in r.output
    assert "(opcode 0xFC)" not in r.output
    assert r.output.strip().splitlines()[-1].startswith("1 instruction, 1 invalid")
