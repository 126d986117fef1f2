"""The debugger's panes: one declaration of each pane's id, title and the layouts that
show it. The screen, the digit keys, `pane NAME`, its completion and its help read it;
kept free of Textual so the console can list the panes before the first frame.

Two layouts: one queue (a program) and several (a kernel: the engine strip, the
timeline and the semaphores appear). A pane's number in a layout is its digit key
there (a user who learnt the program's digits keeps Program on 1 and Console on 9);
the tenth is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Layout(StrEnum):
    """Which panes the screen arranges: one engine queue, or several."""

    PROGRAM = "program"
    KERNEL = "kernel"


@dataclass(frozen=True)
class PaneSpec:
    """One pane: its id, its title, and its place (digit) in each layout that shows it."""

    name: str
    title: str
    places: dict[Layout, int]
    short: str = ""  # for a tab bar too narrow for the titles ("" = the title)


PANE_SPECS: tuple[PaneSpec, ...] = (
    PaneSpec("program", "Program", {Layout.PROGRAM: 1, Layout.KERNEL: 1}),
    PaneSpec("engines", "Engines", {Layout.KERNEL: 2}),
    PaneSpec("timeline", "Timeline", {Layout.KERNEL: 3}),
    PaneSpec("registers", "Registers", {Layout.PROGRAM: 2, Layout.KERNEL: 4}, "Regs"),
    PaneSpec("accum", "DVE acc / idx", {Layout.PROGRAM: 3}),
    PaneSpec("plot", "Plot", {Layout.PROGRAM: 4}),
    PaneSpec("semaphores", "Semaphores", {Layout.KERNEL: 5}, "Sems"),
    PaneSpec("struct", "Struct", {Layout.PROGRAM: 5, Layout.KERNEL: 6}),
    PaneSpec("legality", "Legality", {Layout.PROGRAM: 6, Layout.KERNEL: 7}),
    PaneSpec("memory", "SBUF", {Layout.PROGRAM: 7, Layout.KERNEL: 8}),
    PaneSpec("lanes", "Convert trace", {Layout.PROGRAM: 8}),
    PaneSpec("console", "Console", {Layout.PROGRAM: 9, Layout.KERNEL: 9}),
    PaneSpec("races", "Races", {Layout.KERNEL: 10}),  # key 0
)


def panes_of(layout: Layout) -> dict[str, str]:
    """Pane id -> title of `layout`, in its order (focus order, keys 1..9)."""
    shown = sorted((p.places[layout], p.name, p.title) for p in PANE_SPECS
                   if layout in p.places)
    return {name: title for _, name, title in shown}


PANES = panes_of(Layout.PROGRAM)  # one queue
CORE_PANES = panes_of(Layout.KERNEL)  # several engine queues
TITLES: dict[str, str] = {p.name: p.title for p in PANE_SPECS}
SHORT_TITLES: dict[str, str] = {p.name: p.short or p.title for p in PANE_SPECS}


def digit(place: int) -> str:
    """The key of the pane at `place` (1-based): 1..9, then 0."""
    return str(place % 10)


def every_pane() -> list[str]:
    """Every pane id of either layout, each once, program layout first."""
    return list(dict.fromkeys([*PANES, *CORE_PANES]))
