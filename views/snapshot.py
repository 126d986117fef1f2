"""What the panes render: one plain, frozen object per stop, pushed down by the App.

Panes never call the model; the App (through views.session.Session) builds a
`Snapshot` from the machine after every stop (views.snapshot_build) and hands it to
each pane's `show(snapshot)`. Arrays are the machine's own (not copies): panes only
read them, and the snapshot itself cannot be changed by a pane.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from machine.dtypes import DEFAULT_GEN

if TYPE_CHECKING:  # annotations only: a pane module need not load the model to import this
    import numpy as np

    from machine.engines.record import Lanes, StepRecord
    from machine.isa.codec import Instruction
    from machine.legality.nki.bridge import Disagreement
    from machine.legality.result import Verdict


@dataclass(frozen=True)
class ProgramLine:
    """One record of the listing."""

    index: int
    offset: int  # byte address (PC value) of the record
    text: str  # disassembly
    valid: bool | None = None  # legality verdict; None = not judged
    label: str | None = None
    failed: tuple[str, ...] = ()
    listing: str = ""  # the listing form (machine.isa.listing); "" = the disassembly


@dataclass(frozen=True)
class WrittenRegion:
    """Cells one step wrote in SBUF or PSUM: partitions [p0, p1) x byte columns."""

    space: str
    p0: int
    p1: int
    columns: np.ndarray | slice  # byte offsets within each partition
    fmt: str | None = None  # element format of the written data, when the step knows it

    def byte_mask(self, nbytes: int) -> np.ndarray:
        import numpy as np  # only a drawn SBUF/PSUM needs it: not the first frame's panes

        mask = np.zeros(nbytes, bool)
        mask[self.columns] = True
        return mask


@dataclass(frozen=True)
class Snapshot:
    """The machine as the views see it at one stop."""

    program_name: str = "<none>"
    gen: str = DEFAULT_GEN.label
    engine: str = "pool"
    lines: Sequence[ProgramLine] = ()
    pc: int = 0
    pc_index: int | None = 0
    steps: int = 0
    registers: Sequence[int] = (0,) * 64
    prev_registers: Sequence[int] | None = None
    breakpoints: frozenset[int] = frozenset()
    instruction: Instruction | None = None  # the instruction at the PC
    previous_same: Instruction | None = None  # the last one executed with the same opcode
    # where the PC holds no instruction (past a HALT, outside the program): the last one
    # the machine executed, read from its journal (None if folded away or none ran)
    last_run: Instruction | None = None
    verdict: Verdict | None = None  # wire level
    nki_verdict: Verdict | None = None  # the NKI-intrinsic verdict where one applies
    disagreements: tuple[Disagreement, ...] = ()  # where the two levels' rules differ
    sbuf: np.ndarray | None = None
    psum: np.ndarray | None = None
    acc: np.ndarray | None = None
    idx: np.ndarray | None = None
    written: tuple[WrittenRegion, ...] = ()
    record: StepRecord | None = None  # the last StepRecord
    lanes: Lanes | None = None  # the last conversion's lanes (kept while runs pass it)
    lanes_step: int | None = None  # the step that made `lanes`
    stop: str = ""  # why the machine stopped last ("breakpoint at 0x80", "halt", ...)
    fault: str | None = None
    halted: bool = False
    # memory whose values may not be the hardware's, by space ("sbuf", "psum"): the
    # note to show with it (a NEFF's opaque instructions: machine.neff.stale)
    stale: tuple[tuple[str, str], ...] = ()

    @property
    def changed_registers(self) -> frozenset[int]:
        if self.prev_registers is None:
            return frozenset()
        return frozenset(i for i, (a, b) in enumerate(
            zip(self.registers, self.prev_registers, strict=False)) if a != b)
