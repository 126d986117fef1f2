"""Shared fixtures: a small looping program with data, on a small machine's one-queue
core (the one debugger a program runs on)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.program import load_program

CAST = ("CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] "
        "dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]")
PROGRAM = f"""\
.data sb[0:4, 0] fp32 1 1.00390625 3.4e38 -2 0.1 7 8 9
    MOVE R1=0 R2=4 R7=0x40
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3
    {CAST}
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""
SMALL = MachineConfig(sbuf_bytes=4096, psum_bytes=1024)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    p = tmp_path / "prog" / "loop.asm"
    p.parent.mkdir()
    p.write_text(PROGRAM)
    return p


def make_machine(path: Path, config: MachineConfig = SMALL) -> Machine:
    prog, data, labels = load_program(path, Gen.CAYMAN)
    return Machine(prog, config, data=data, labels=labels)


def make_core(path: Path, config: MachineConfig = SMALL,
              sbuf: np.ndarray | None = None) -> Core:
    """The program at `path` on a one-queue core, `sbuf` placed before the first step."""
    m = make_machine(path, config)
    if sbuf is not None:
        m.load_sbuf(sbuf)
    return Core.of_program(m, path)


def queue(core: Core) -> Machine:
    """A program core's one queue (its config, records, labels)."""
    return core.machines[core.engines[0]]


@pytest.fixture
def machine(program: Path) -> Machine:
    return make_machine(program)


@pytest.fixture
def core(program: Path) -> Core:
    return make_core(program)


def sbuf_image() -> np.ndarray:
    return np.arange(3 * 40, dtype=np.uint8).reshape(3, 40)

