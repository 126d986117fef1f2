"""What the core panes render: the engines, the semaphores and the timeline of one stop.

A `CoreSnapshot` wraps the focused engine's `Snapshot` (the Program, Registers,
Struct, Legality and SBUF panes read it unchanged) with plain rows for the core's own
panes. Everything is read from the machine.core model (views.core_session builds it);
nothing here runs the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from views.snapshot import Snapshot

if TYPE_CHECKING:
    from machine.core.races import Race


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
class CoreSnapshot:
    """The core at one stop: the focused engine's Snapshot plus the core's own rows."""

    focused: Snapshot
    title: str = ""
    schedule: str = "rr"
    engines: Sequence[EngineRow] = ()
    semaphores: Sequence[SemRow] = ()
    timeline: TimelineData | None = None
    races: Sequence[RaceView] = ()
    deadlock: Sequence[str] = field(default_factory=tuple)  # the wait-for lines
    advice: str = ""  # the fix, in words, for a race or deadlock stop
    stop: str = ""
    partner: Snapshot | None = None  # the engine shown beside the focused one (maximised)

    @property
    def registers(self) -> Sequence[int]:
        """The focused engine's registers (what `info registers` reads)."""
        return self.focused.registers

    @property
    def changed_registers(self) -> frozenset[int]:
        return self.focused.changed_registers


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
