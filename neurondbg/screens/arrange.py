"""Where the debugger screen puts its panes: by the number of queues, and by size.

By queues (neurondbg.panes.Layout): one queue (a program) shows three bands, every
pane of the program layout; several (a kernel) put the engine strip and the
semaphores on top, the timeline and the races found under them, then the focused engine's program,
struct and legality, then SBUF, registers and the console. views/neurondbg.tcss draws
both (the screen's id, `debugger` or `core`, selects the rules).

By size:
- wide (>= WIDE): every pane visible.
- compact (>= MINIMUM, e.g. 100x30): Program on top and Console at the bottom stay
  (a kernel's Engines strip and Timeline, collapsed to the focused engine and its
  semaphore partners, too, while the rows hold them: `fit_rows`); the other panes
  collapse into tabs that share one slot.
- tiny (< MINIMUM): one line "terminal too small: need 80x24, have 70x20".

The Program pane keeps PROGRAM_ROWS listing rows at every size from MINIMUM up, in
both layouts: the current instruction and a few lines of context, what a gdb or pudb
user expects of the code pane. Its band and it have that minimum height (LAYOUT_CSS);
the bands of fixed height give way to it (`fit_rows`): a tour's note shrinks (it
scrolls), a kernel's Engines strip (five engines and a NEFF's DMA queues) shrinks down
to STRIP_ROWS rows that scroll with the focused one in view, then the Timeline becomes
a tab, then the strip too (as below NARROW columns).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from textual.app import ComposeResult
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from neurondbg.panes import BANDS, Layout, PaneSpec, in_band, view_of
from neurondbg.views.chrome import KeyFooter, TitleBar
from neurondbg.views.deferred import Deferred
from neurondbg.views.kept import Column, Row
from neurondbg.views.pane import Pane

WIDE = Size(150, 44)  # the three bands: 66 + 34 + a listing; 19 + 15 rows + the data band
MINIMUM = Size(80, 24)  # below it no layout is usable
NARROW = 100  # columns below which (compact) a kernel keeps only Program and Console
PROGRAM_ALWAYS = ("program", "console")  # never in a compact layout's tabs
KERNEL_ALWAYS = ("program", "console", "engines", "timeline")  # a kernel's, room allowing

# The rows the layout rule (`fit_rows`) counts with; LAYOUT_CSS sizes the bands by them.
FRAME = 2  # a pane's border, top and bottom
PROGRAM_ROWS = 5  # the Program pane's listing rows, at any size from MINIMUM up
# its height: the listing's rows, a row for the horizontal scrollbar a line wider than
# the pane brings (a NEFF's DMA triggers, `f`'s full text), and the frame
PROGRAM_HEIGHT = PROGRAM_ROWS + 1 + FRAME
SLOT_ROWS = 2  # a compact kernel layout's shown tab (Registers...) keeps at least these
STRIP_ROWS = 3  # a shrunk Engines strip's fewest: the focused row and one each side
STRIP_MOST = {"compact": 7, "wide": 12}  # the strip's most rows; more scroll
WIDE_TOP = 7  # a kernel's top band, wide, for five rows or fewer: the Semaphores' height
TIMELINE_ROWS = 8  # the Timeline's most: the ruler, five lanes, the marks, the detail line
# the bottom band: a kernel's (compact: the Console alone), a program's Console (compact)
LOW_ROWS = {Layout.KERNEL: {"compact": 5, "wide": 15}, Layout.PROGRAM: {"compact": 8}}
CHROME_ROWS = {"compact": 3, "wide": 2}  # the title bar, the tab bar (compact), the footer
# a tour's note band (above the footer): its most rows, frame included, and its least,
# one line that scrolls (in the compact layout the Console repeats each note whole)
NOTE_MOST = {"compact": 6, "wide": 9}
NOTE_LEAST = 1 + FRAME

# Sizes the stylesheet (views/neurondbg.tcss, which overrides these where a tab is shown
# in their place) takes from the rule's numbers: the screen's DEFAULT_CSS.
LAYOUT_CSS = f"""
#pane-program, #row1, #core-mid {{ min-height: {PROGRAM_HEIGHT}; }}
#core-top {{ height: {WIDE_TOP}; }}
#core-time, #pane-timeline {{ max-height: {TIMELINE_ROWS + FRAME}; }}
#core-low {{ height: {LOW_ROWS[Layout.KERNEL]["wide"]}; }}
#core.-compact #core-low, #core.-compact #pane-console {{
    height: {LOW_ROWS[Layout.KERNEL]["compact"]};
}}
#debugger.-compact #row3, #debugger.-compact #pane-console {{
    height: {LOW_ROWS[Layout.PROGRAM]["compact"]};
}}
"""


def layout_for(size: Size) -> str:
    """'wide', 'compact' or 'tiny' for a terminal of `size`."""
    if size.width < MINIMUM.width or size.height < MINIMUM.height:
        return "tiny"
    if size.width < WIDE.width or size.height < WIDE.height:
        return "compact"
    return "wide"


@dataclass(frozen=True)
class RowFit:
    """The rows of the screen's bands of fixed height at one terminal size."""

    strip: int  # a kernel's Engines band, its frame included (0: a tab, or no kernel)
    timeline: bool  # a kernel's Timeline is on screen (False: a tab, or no kernel)
    note: int = 0  # a tour's note band, at most (0: no tour)


def fit_rows(size: Size, layout: Layout, rows: int = 0, tour: bool = False) -> RowFit:
    """The rows of the bands of fixed height for a terminal of `size`: a kernel's of
    `rows` queues (engines and DMA queues: a row of the strip and a lane of the
    Timeline each), and a tour's note band. The Program keeps PROGRAM_ROWS, and the
    Console its band, first; then a tour's note (NOTE_LEAST up to NOTE_MOST) and the
    compact layout's shown tab (SLOT_ROWS). The Engines strip shrinks next, down to
    STRIP_ROWS; then the Timeline becomes a tab (its height is reserved whole, so a
    step does not move the Program); then the strip too. The wide layout has no tabs:
    there the note gives way to the strip and the Timeline instead. A program's wide
    layout gives the Program a fixed band taller than its least."""
    kind = layout_for(size)
    if kind == "tiny":
        return RowFit(0, False)
    if layout is not Layout.KERNEL:
        rest = size.height - CHROME_ROWS[kind] - LOW_ROWS[layout].get(kind, 0) - PROGRAM_HEIGHT
        note = NOTE_MOST[kind] if kind == "wide" else min(NOTE_MOST[kind], rest)
        return RowFit(0, False, max(NOTE_LEAST, note) if tour else 0)
    rest = size.height - CHROME_ROWS[kind] - LOW_ROWS[layout][kind] - PROGRAM_HEIGHT
    least = min(rows, STRIP_ROWS) + FRAME
    timeline = min(rows + 3, TIMELINE_ROWS) + FRAME  # TimelineView.line_count
    strip = min(rows, STRIP_MOST[kind]) + FRAME
    if kind == "wide":
        least, strip = max(least, WIDE_TOP), max(strip, WIDE_TOP)
        note = max(NOTE_LEAST, min(NOTE_MOST[kind], rest - least - timeline)) if tour else 0
        return RowFit(min(strip, rest - note - timeline), True, note)
    note = max(NOTE_LEAST, min(NOTE_MOST[kind], rest)) if tour else 0
    room = rest - note - SLOT_ROWS - FRAME
    if room < least or size.width < NARROW:
        return RowFit(0, False, note)
    keeps = room >= least + timeline
    return RowFit(min(strip, room - (timeline if keeps else 0)), keeps, note)


def always_shown(layout: Layout, fit: RowFit) -> tuple[str, ...]:
    """The panes a compact layout never puts in a tab (a kernel's: as `fit` says)."""
    if layout is not Layout.KERNEL:
        return PROGRAM_ALWAYS
    return (*PROGRAM_ALWAYS, *(("engines",) if fit.strip else ()),
            *(("timeline",) if fit.timeline else ()))


def too_small_text(size: Size) -> str:
    return (f"terminal too small: need {MINIMUM.width}x{MINIMUM.height}, "
            f"have {size.width}x{size.height}")


def make_view(path: str, name: str, **options: object) -> Widget:
    """The widget "module:name" `path` names, made with `id=name` (and `options`)."""
    module, _, attr = path.partition(":")
    made = getattr(importlib.import_module(module), attr)(id=name, **options)
    assert isinstance(made, Widget), path
    return made


def _pane(layout: Layout, spec: PaneSpec, options: dict[str, object]) -> Pane:
    """Pane `spec` framed, its widget made now or, `late`, after the first frame
    (views.deferred: its module imports numpy, the conversion model or textual_plotext);
    a pane `layout` always shows is in no tab."""
    make = partial(make_view, view_of(spec, layout), spec.name, **options)
    view = Deferred(make) if spec.late else make()
    tab = spec.name not in (KERNEL_ALWAYS if layout is Layout.KERNEL else PROGRAM_ALWAYS)
    return Pane(spec.title, view, id=f"pane-{spec.name}", classes="tab" if tab else "")


def compose_panes(layout: Layout, words: Sequence[str],
                  complete_line: Callable[[str], Sequence[str]] | None) -> ComposeResult:
    """The widgets of the screen for `layout`, top to bottom: each band of it
    (neurondbg.panes.BANDS) and in it the panes the table puts there, in its order."""
    options: dict[str, dict[str, object]] = {
        "console": {"words": words, "complete_line": complete_line}}
    yield TitleBar()
    yield Static("", id="pane-bar")
    bands = BANDS[layout]
    for band in (b for b in bands if "/" not in b):
        with Row(id=band):
            yield from (_pane(layout, p, options.get(p.name, {})) for p in in_band(layout, band))
            for inner in (b for b in bands if b.startswith(f"{band}/")):
                with Column(id=inner.rpartition("/")[2]):
                    yield from (_pane(layout, p, options.get(p.name, {}))
                                for p in in_band(layout, inner))
    yield Static("", id="too-small", markup=False)
    yield KeyFooter()
