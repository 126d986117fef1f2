"""What the panes render: one plain, frozen object per stop, pushed down by the App.

Panes never call the model; the App (through its session) builds a `Snapshot` after
every stop and hands it to each pane's `show(snapshot)`. The per-engine part (listing,
registers, legality, memory) comes from debug.snapshot_build for a program and for the
focused engine of a kernel alike; a kernel adds the rows of its own panes (engines,
semaphores, timeline, races), which stay empty for one queue. Arrays are the
machine's own (not copies): panes only read them, and the snapshot itself cannot be
changed by a pane.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from neurondbg.debug.program_line import ProgramLine
from neurondbg.machine.dtypes import DEFAULT_GEN

if TYPE_CHECKING:  # annotations only: a pane module need not load the model to import this
    import numpy as np

    from neurondbg.machine.core.races import Race, RaceRow
    from neurondbg.machine.engines.record import Lanes, StepRecord
    from neurondbg.machine.isa.codec import Instruction
    from neurondbg.machine.legality.nki.bridge import Disagreement
    from neurondbg.machine.legality.result import Verdict


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
class EngineRow:
    """One line of the engine strip."""

    engine: str
    pc: int
    instruction: str  # the listing form of the instruction at the PC ("" past the end)
    status: str  # running | waiting | halted | faulted
    waiting: str  # "sem[0] >= 1" when waiting, else ""
    steps: int
    focused: bool
    progress: str = ""  # a DMA queue's "2/3 done" (entries completed / triggered), shown
    # instead of its PC (which counts its completions); "" for an engine: its PC


@dataclass(frozen=True)
class SemRow:
    """One non-zero (or waited-on) semaphore."""

    index: int
    value: int
    updated_by: str  # "pool 0x0 step 3" or "" (not within the kept history)
    waiters: tuple[str, ...]  # "dve at 0x0 (sem[0] >= 1)"
    role: str = ""  # a NEFF semaphore's role: "qSPIO0[1]", "DVE done" (machine.neff.roles)


@dataclass(frozen=True)
class Cell:
    """What one engine did at one global step of the timeline."""

    kind: str  # run | wait | ready | halted | future
    text: str = ""  # the mnemonic of a run cell


@dataclass(frozen=True)
class Edge:
    """A semaphore edge: the update at `src` made the wait at `dst` pass."""

    sem: int
    src: int  # global step of the update
    src_engine: str
    dst: int  # global step of the wait that passed
    dst_engine: str


class TimelineSource(Protocol):
    """Computes timeline cells for a range of steps (only the visible ones are asked)."""

    def columns(self, lo: int, hi: int) -> list[list[Cell]]: ...

    def edges(self, lo: int, hi: int) -> list[Edge]: ...


@dataclass(frozen=True)
class TimelineData:
    """The schedule taken, as the Timeline pane asks for it (columns on demand)."""

    engines: tuple[str, ...]
    steps: int  # the current global step (columns before it are the past)
    horizon: int  # columns known: the past plus a future already taken and undone
    origin: int  # the first kept step (earlier ones were folded into checkpoints)
    source: TimelineSource | None = None  # cells and edges of any range, on demand
    races: tuple[tuple[int, int, int], ...] = ()  # (race number, step a, step b)
    linked: frozenset[str] = frozenset()  # engines the focused one synchronises with
    focus: str = ""

    def columns(self, lo: int, hi: int) -> list[list[Cell]]:
        """Cells of steps [lo, hi) for every engine (engine order)."""
        if self.source is None or hi <= lo:
            return [[] for _ in self.engines]
        return self.source.columns(lo, hi)

    def edges(self, lo: int, hi: int) -> list[Edge]:
        """The semaphore edges whose wait passed at a step in [lo, hi)."""
        return [] if self.source is None or hi <= lo else self.source.edges(lo, hi)


@dataclass(frozen=True)
class RaceView:
    """A race as the stop view shows it: both instructions and the overlap."""

    text: str  # the one-line report
    a_line: str  # "pool 0x0 CAST (write)  file.asm:12"
    b_line: str
    a_listing: str  # the instruction's listing line, in full
    b_listing: str
    space: str
    partitions: tuple[int, int]
    bytes: tuple[int, int]
    missing: str


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
    # A kernel's own rows (empty for one queue: the screen then shows no engine strip,
    # timeline or semaphores)
    title: str = ""  # the window's sub-title ("" = program name, gen and engine)
    schedule: str = ""  # the scheduling policy ("" = one queue, nothing to schedule)
    engines: Sequence[EngineRow] = ()
    semaphores: Sequence[SemRow] = ()
    timeline: TimelineData | None = None
    races: Sequence[RaceView] = ()  # the races the last stop found
    race_rows: Sequence[RaceRow] = ()  # every race found so far (the Races pane)
    races_dropped: int = 0  # races found beyond the kept rows
    checks_races: bool = False  # the kernel runs the race detector
    deadlock: Sequence[str] = ()  # the wait-for lines of a deadlock stop
    advice: str = ""  # the fix, in words, for a race or deadlock stop
    partner: Snapshot | None = None  # the engine shown beside this one (maximised)

    @property
    def changed_registers(self) -> frozenset[int]:
        if self.prev_registers is None:
            return frozenset()
        return frozenset(i for i, (a, b) in enumerate(
            zip(self.registers, self.prev_registers, strict=False)) if a != b)


def race_view(race: Race, where_a: str, where_b: str, listing_a: str,
              listing_b: str) -> RaceView:
    """A RaceView of one race: `where_*` name the two accesses, `listing_*` are the two
    instructions' listing lines."""
    a, b = race.a, race.b
    return RaceView(
        text=(f"{a.engine} {a.opcode} at {a.pc:#x} ({a.kind}) and {b.engine} {b.opcode} at "
              f"{b.pc:#x} ({b.kind}) on {race.space}[{race.partitions[0]}:{race.partitions[1]}"
              f", {race.bytes[0]:#x}:{race.bytes[1]:#x}]"),
        a_line=where_a, b_line=where_b, a_listing=listing_a, b_listing=listing_b,
        space=race.space, partitions=race.partitions,
        bytes=race.bytes, missing=race.missing)
