"""What the panes render: one plain object per stop, pushed down by the App.

Panes never call the model; the App (through views.adapter) builds a
`Snapshot` from the machine after every stop and hands it to each pane's
`show(snapshot)`. Arrays are the machine's own (not copies): panes only read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ProgramLine:
    """One record of the listing."""

    index: int
    offset: int  # byte address (PC value) of the record
    text: str  # disassembly
    valid: bool | None = None  # legality verdict; None = not judged
    label: str | None = None
    failed: tuple[str, ...] = ()


@dataclass(frozen=True)
class WrittenRegion:
    """Cells one step wrote in SBUF or PSUM: partitions [p0, p1) x byte columns."""

    space: str
    p0: int
    p1: int
    columns: np.ndarray | slice  # byte offsets within each partition
    fmt: str | None = None  # element format of the written data, when the step knows it

    def byte_mask(self, nbytes: int) -> np.ndarray:
        mask = np.zeros(nbytes, bool)
        mask[self.columns] = True
        return mask


@dataclass
class Snapshot:
    """The machine as the views see it at one stop."""

    program_name: str = "<none>"
    gen: str = "cayman"
    engine: str = "pool"
    lines: Sequence[ProgramLine] = ()
    pc: int = 0
    pc_index: int | None = 0
    steps: int = 0
    registers: Sequence[int] = (0,) * 64
    prev_registers: Sequence[int] | None = None
    breakpoints: frozenset[int] = frozenset()
    instruction: Any | None = None  # machine.isa.codec.Instruction at the PC
    previous_same: Any | None = None  # the last instruction executed with the same opcode
    verdict: Any | None = None  # machine.legality Verdict (wire level)
    nki_verdict: Any | None = None  # the NKI-intrinsic verdict where one applies
    sbuf: np.ndarray | None = None
    psum: np.ndarray | None = None
    acc: np.ndarray | None = None
    idx: np.ndarray | None = None
    written: tuple[WrittenRegion, ...] = ()
    record: Any | None = None  # the last StepRecord
    lanes: Any | None = None  # record.lanes: flags arrays + trace(partition, element)
    stop: str = ""  # why the machine stopped last ("breakpoint at 0x80", "halt", ...)
    fault: str | None = None
    halted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def changed_registers(self) -> frozenset[int]:
        if self.prev_registers is None:
            return frozenset()
        return frozenset(i for i, (a, b) in enumerate(
            zip(self.registers, self.prev_registers, strict=False)) if a != b)
