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
  semaphore partners, too, while the rows hold them: `kernel_fit`); the other panes
  collapse into tabs that share one slot.
- tiny (< MINIMUM): one line "terminal too small: need 80x24, have 70x20".

The Program pane keeps PROGRAM_ROWS listing rows at every size from MINIMUM up, in
both layouts: the current instruction and a few lines of context, what a gdb or pudb
user expects of the code pane. Its band and it have that minimum height (LAYOUT_CSS);
a kernel's rows of fixed height, the Engines strip (five engines and a NEFF's DMA
queues) and the Timeline, give way to it (`kernel_fit`): the strip shrinks, down to
STRIP_ROWS rows that scroll with the focused one in view, then the Timeline becomes a
tab, then the strip too (as below NARROW columns).
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

# The rows the layout rule (`kernel_fit`) counts with; LAYOUT_CSS sizes the bands by them.
FRAME = 2  # a pane's border, top and bottom
PROGRAM_ROWS = 5  # the Program pane's listing rows, at any size from MINIMUM up
# its height: the listing's rows, a row for the horizontal scrollbar a line wider than
# the pane brings (a NEFF's DMA triggers, `f`'s full text), and the frame
PROGRAM_HEIGHT = PROGRAM_ROWS + 1 + FRAME
SLOT_ROWS = 2  # a compact kernel layout's shown tab (Registers...) keeps at least these
STRIP_ROWS = 3  # a shrunk Engines strip's fewest: the focused row and one each side
STRIP_MOST = {"compact": 7, "wide": 12}  # the strip's most rows; more scroll
TIMELINE_ROWS = 8  # the Timeline's most: the ruler, five lanes, the marks, the detail line
LOW_ROWS = {"compact": 5, "wide": 15}  # a kernel's bottom band (compact: the Console alone)
CHROME_ROWS = {"compact": 3, "wide": 2}  # the title bar, the tab bar (compact), the footer

# Sizes the stylesheet (views/neurondbg.tcss, which overrides these where a tab is shown
# in their place) takes from the rule's numbers: the screen's DEFAULT_CSS.
LAYOUT_CSS = f"""
#pane-program, #row1, #core-mid {{ min-height: {PROGRAM_HEIGHT}; }}
#core-time, #pane-timeline {{ max-height: {TIMELINE_ROWS + FRAME}; }}
#core-low {{ height: {LOW_ROWS["wide"]}; }}
#core.-compact #core-low, #core.-compact #pane-console {{ height: {LOW_ROWS["compact"]}; }}
"""


def layout_for(size: Size) -> str:
    """'wide', 'compact' or 'tiny' for a terminal of `size`."""
    if size.width < MINIMUM.width or size.height < MINIMUM.height:
        return "tiny"
    if size.width < WIDE.width or size.height < WIDE.height:
        return "compact"
    return "wide"


@dataclass(frozen=True)
class KernelFit:
    """A kernel screen's rows of fixed height at one terminal size."""

    strip: int  # the Engines pane's height, its frame included (0: a tab)
    timeline: bool  # the Timeline is on screen (False: a tab)


def kernel_fit(size: Size, rows: int) -> KernelFit:
    """The Engines strip's height and the Timeline's place for a terminal of `size` and
    a kernel of `rows` queues (engines and DMA queues: a row of the strip and a lane of
    the Timeline each): what the rows hold once the Program has its PROGRAM_ROWS (and a
    compact layout's Console and shown tab theirs). The strip shrinks first, down to
    STRIP_ROWS; then the Timeline becomes a tab (its height is reserved whole, so a
    step does not move the Program); then the strip too."""
    kind = layout_for(size)
    if kind == "tiny":
        return KernelFit(0, False)
    slot = SLOT_ROWS + FRAME if kind == "compact" else 0
    room = size.height - CHROME_ROWS[kind] - LOW_ROWS[kind] - PROGRAM_HEIGHT - slot
    least = min(rows, STRIP_ROWS) + FRAME
    if room < least or (kind == "compact" and size.width < NARROW):
        return KernelFit(0, False)
    timeline = min(rows + 3, TIMELINE_ROWS) + FRAME  # TimelineView.line_count
    keeps = room >= least + timeline
    strip = min(rows, STRIP_MOST[kind]) + FRAME
    return KernelFit(min(strip, room - (timeline if keeps else 0)), keeps)


def always_shown(layout: Layout, fit: KernelFit) -> tuple[str, ...]:
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
