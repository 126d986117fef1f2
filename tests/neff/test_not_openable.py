"""The program loader refuses a NEFF in one line naming the commands that open one."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.machine.asm.loader import UnreadableProgram, read_program
from neurondbg.machine.neff.writer import write_neff
from tests.neff.synth import vector_add


def test_the_loader_refuses_a_neff_by_its_header_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "kernel.bin"  # named like a program: the header decides
    write_neff(path, [vector_add()], target="sunda")
    with pytest.raises(UnreadableProgram) as got:
        read_program(path)
    assert str(got.value) == (f"{path}: a NEFF file: this command does not open a NEFF "
                              "yet; `neurondbg run`, `tui`, `validate` and `disasm` read it")
