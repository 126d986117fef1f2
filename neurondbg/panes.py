"""The debugger's panes, each declared once: `PANE_SPECS`.

A pane's entry gives its id, its title, the widget it shows (imported when the screen
is composed, so this module stays free of Textual and the console can list the panes
before the first frame), how that widget takes a snapshot, and its place in each layout
that shows it: its digit and the band of the screen it sits in. From the table come the
screen's panes and their order (neurondbg/screens/arrange.py `compose_panes`), the
digit keys, what each pane is fed after a stop (neurondbg/screens/main.py `feeds`),
`pane NAME` and its completion, the palette's Pane entries and the help's key lists
(neurondbg/screens/help.py). `tests/ui/test_pane_table.py` holds those to the table.

Adding a pane: its widget (a module of views/ whose class takes `id=`) and one entry
here. A size other than an equal share of its band is a rule in views/neurondbg.tcss;
data the snapshot lacks is a field of the snapshot and of what builds it.

Two layouts: one queue (a program) and several (a kernel: the engine strip, the
timeline and the semaphores appear). A pane's number in a layout is its digit key
there (a user who learnt the program's digits keeps Program on 1 and Console on 9);
the tenth is 0. The panes of one band are laid out left to right (a sub-band, such as
`row1/col-side`, top to bottom) in the order of PANE_SPECS.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Layout(StrEnum):
    """Which panes the screen arranges: one engine queue, or several."""

    PROGRAM = "program"
    KERNEL = "kernel"


# Each layout's bands, top to bottom (the widget ids of the screen's rows, which
# views/neurondbg.tcss sizes); "row1/col-side" is a column in band "row1", after its panes.
BANDS: dict[Layout, tuple[str, ...]] = {
    Layout.PROGRAM: ("row1", "row1/col-side", "row2", "row3"),
    Layout.KERNEL: ("core-top", "core-time", "core-mid", "core-low"),
}


@dataclass(frozen=True)
class Place:
    """Where a layout shows a pane: its number (focus order, digit key) and its band."""

    key: int
    band: str
    view: str = ""  # this layout's own widget ("module:name"; "" = the pane's `view`)


@dataclass(frozen=True)
class PaneSpec:
    """One pane: everything the screen, the keys, the console and the help know of it."""

    name: str  # its id: `pane NAME`, the widget's id, `#pane-NAME` its frame's
    title: str
    view: str  # "module:name" of its widget, made as name(id=NAME)
    places: dict[Layout, Place]
    short: str = ""  # for a tab bar too narrow for the titles ("" = the title)
    reads: tuple[str, ...] = ()  # the Snapshot fields it shows (tests/ui/test_pane_table.py)
    feed: str = ""  # the Snapshot field its widget's show() takes ("": the whole snapshot)
    beside: str = ""  # a pane whose widget its show() also takes (the Plot: the SBUF grid)
    late: bool = False  # built after the first frame (its module loads numpy; views.deferred)
    always_fed: bool = False  # fed while hidden too: state a user finds where steps left it
    follows_focus: bool = False  # shows the focused engine: titled with its name
    keys: str = ""  # "module:Class" whose keys the help lists ("": the widget's own)
    fed: bool = True  # shown from snapshots (the Console is not)


PANE_SPECS: tuple[PaneSpec, ...] = (
    PaneSpec("program", "Program", "neurondbg.views.program:ProgramView",
             {Layout.PROGRAM: Place(1, "row1"),
              Layout.KERNEL: Place(1, "core-mid", "neurondbg.views.program:with_partner")},
             always_fed=True, follows_focus=True,
             reads=("lines", "pc_index", "breakpoints", "partner")),
    PaneSpec("engines", "Engines", "neurondbg.views.engines:EnginesView",
             {Layout.KERNEL: Place(2, "core-top")}, feed="engines",
             reads=("engines",)),
    PaneSpec("semaphores", "Semaphores", "neurondbg.views.semaphores:scrolled",
             {Layout.KERNEL: Place(5, "core-top")}, short="Sems",
             reads=("semaphores", "races", "deadlock", "advice")),
    PaneSpec("timeline", "Timeline", "neurondbg.views.timeline:TimelineView",
             {Layout.KERNEL: Place(3, "core-time")}, feed="timeline",
             reads=("timeline",)),
    PaneSpec("races", "Races", "neurondbg.views.races:RacesView",
             {Layout.KERNEL: Place(10, "core-time")},  # key 0
             reads=("race_rows", "races_dropped", "checks_races")),
    PaneSpec("struct", "Struct", "neurondbg.views.struct_view:StructView",
             {Layout.PROGRAM: Place(5, "row2"), Layout.KERNEL: Place(6, "core-mid")},
             follows_focus=True,
             reads=("instruction", "previous_same", "last_run", "halted", "pc")),
    PaneSpec("legality", "Legality", "neurondbg.views.legality:LegalityView",
             {Layout.PROGRAM: Place(6, "row2"), Layout.KERNEL: Place(7, "core-mid")},
             follows_focus=True,
             reads=("instruction", "verdict", "nki_verdict", "disagreements")),
    PaneSpec("memory", "SBUF", "neurondbg.views.memory:MemoryView",
             {Layout.PROGRAM: Place(7, "row3"), Layout.KERNEL: Place(8, "core-low")},
             late=True, always_fed=True,
             reads=("sbuf", "psum", "written", "stale", "steps", "races")),
    PaneSpec("registers", "Registers", "neurondbg.views.registers:RegistersView",
             {Layout.PROGRAM: Place(2, "row1"), Layout.KERNEL: Place(4, "core-low")},
             short="Regs", follows_focus=True,
             reads=("registers", "changed_registers", "pc", "pc_index", "steps")),
    PaneSpec("accum", "DVE acc / idx", "neurondbg.views.accum:AccumView",
             {Layout.PROGRAM: Place(3, "row1/col-side")}, late=True,
             reads=("acc", "idx", "record")),
    PaneSpec("plot", "Plot", "neurondbg.views.plot:PlotView",
             {Layout.PROGRAM: Place(4, "row1/col-side")}, beside="memory", late=True,
             reads=("lanes",)),
    PaneSpec("lanes", "Convert trace", "neurondbg.views.lanes:LanesView",
             {Layout.PROGRAM: Place(8, "row3")}, late=True,
             keys="neurondbg.views.lanes:LaneTable",
             reads=("lanes", "lanes_step", "gen")),
    PaneSpec("console", "Console", "neurondbg.views.console_view:ConsoleView",
             {Layout.PROGRAM: Place(9, "row3"), Layout.KERNEL: Place(9, "core-low")},
             keys="neurondbg.views.console_view:ConsoleInput", fed=False),
)
SPECS: dict[str, PaneSpec] = {p.name: p for p in PANE_SPECS}


def panes_of(layout: Layout) -> dict[str, str]:
    """Pane id -> title of `layout`, in its order (focus order, keys 1..9)."""
    shown = sorted((p.places[layout].key, p.name, p.title) for p in PANE_SPECS
                   if layout in p.places)
    return {name: title for _, name, title in shown}


def in_band(layout: Layout, band: str) -> list[PaneSpec]:
    """The panes `layout` puts in `band`, in their order there."""
    return [p for p in PANE_SPECS if layout in p.places and p.places[layout].band == band]


def view_of(spec: PaneSpec, layout: Layout) -> str:
    """The "module:name" of the widget `layout` shows for pane `spec`."""
    place = spec.places.get(layout)
    return place.view if place is not None and place.view else spec.view


PANES = panes_of(Layout.PROGRAM)  # one queue
CORE_PANES = panes_of(Layout.KERNEL)  # several engine queues
TITLES: dict[str, str] = {p.name: p.title for p in PANE_SPECS}
SHORT_TITLES: dict[str, str] = {p.name: p.short or p.title for p in PANE_SPECS}
# The order panes are fed in: the table's, so that a pane is fed after the one beside it.
FEED_ORDER: tuple[str, ...] = tuple(p.name for p in PANE_SPECS if p.fed)
ALWAYS_FED: tuple[str, ...] = tuple(p.name for p in PANE_SPECS if p.always_fed)
FOLLOW_FOCUS: tuple[str, ...] = tuple(p.name for p in PANE_SPECS if p.follows_focus)


def digit(place: int) -> str:
    """The key of the pane at `place` (1-based): 1..9, then 0."""
    return str(place % 10)


def every_pane() -> list[str]:
    """Every pane id of either layout, each once, program layout first."""
    return list(dict.fromkeys([*PANES, *CORE_PANES]))
