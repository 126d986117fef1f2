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
  semaphore partners, too); the other panes collapse into tabs that share one slot.
  Below SMALL (down to 80x24) a kernel keeps only Program and Console out of the tabs:
  kept on screen, the Engines and Timeline took every row a stepped kernel's Program
  needed.
- tiny (< MINIMUM): one line "terminal too small: need 80x24, have 70x20".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from neurondbg.panes import TITLES, Layout
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.deferred import Deferred
from neurondbg.views.engines import EnginesView
from neurondbg.views.legality import LegalityView
from neurondbg.views.pane import Pane
from neurondbg.views.program import ProgramView
from neurondbg.views.races import RacesView
from neurondbg.views.registers import RegistersView
from neurondbg.views.semaphores import SemaphoresView
from neurondbg.views.struct_view import StructView
from neurondbg.views.timeline import TimelineView

WIDE = Size(150, 44)  # the three bands: 66 + 34 + a listing; 19 + 15 rows + the data band
MINIMUM = Size(80, 24)  # below it no layout is usable
SMALL = Size(100, 30)  # below it (compact) a kernel keeps only Program and Console
PROGRAM_ALWAYS = ("program", "console")  # never in a compact layout's tabs
KERNEL_ALWAYS = ("program", "console", "engines", "timeline")  # a kernel's, from SMALL up


def layout_for(size: Size) -> str:
    """'wide', 'compact' or 'tiny' for a terminal of `size`."""
    if size.width < MINIMUM.width or size.height < MINIMUM.height:
        return "tiny"
    if size.width < WIDE.width or size.height < WIDE.height:
        return "compact"
    return "wide"


def is_small(size: Size) -> bool:
    """Compact and below SMALL: a kernel keeps only Program and Console out of tabs."""
    return layout_for(size) == "compact" and (
        size.width < SMALL.width or size.height < SMALL.height)


def always_shown(layout: Layout, size: Size) -> tuple[str, ...]:
    """The panes a compact layout of `size` never puts in a tab."""
    if layout is Layout.KERNEL and not is_small(size):
        return KERNEL_ALWAYS
    return PROGRAM_ALWAYS


def too_small_text(size: Size) -> str:
    return (f"terminal too small: need {MINIMUM.width}x{MINIMUM.height}, "
            f"have {size.width}x{size.height}")


# The views whose modules import numpy, the conversion model or textual_plotext: built
# after the first frame (views.deferred), each by its own maker.
def memory_view() -> Widget:
    from neurondbg.views.memory import MemoryView

    return MemoryView(id="memory")


def accum_view() -> Widget:
    from neurondbg.views.accum import AccumView

    return AccumView(id="accum")


def plot_view() -> Widget:
    from neurondbg.views.plot import PlotView

    return PlotView(id="plot")


def lanes_view() -> Widget:
    from neurondbg.views.lanes import LanesView

    return LanesView(id="lanes")


class PartnerProgramView(ProgramView, can_focus=False):
    """The second engine's listing beside the focused one's, shown only while the
    Program pane is maximised (z); read-only (the keys act on the focused engine)."""


def _pane(name: str, view: Widget, tab: bool = True) -> Pane:
    return Pane(TITLES[name], view, id=f"pane-{name}", classes="tab" if tab else "")


def compose_panes(layout: Layout, words: Sequence[str],
                  complete_line: Callable[[str], Sequence[str]] | None) -> ComposeResult:
    """The widgets of the screen for `layout`, top to bottom."""
    console = _pane("console", ConsoleView(words, complete_line, id="console"), tab=False)
    yield Header()
    yield Static("", id="pane-bar")
    if layout is Layout.PROGRAM:
        with Horizontal(id="row1"):
            yield _pane("program", ProgramView(id="program"), tab=False)
            yield _pane("registers", RegistersView(id="registers"))
            with Vertical(id="col-side"):
                yield _pane("accum", Deferred(accum_view))
                yield _pane("plot", Deferred(plot_view))
        with Horizontal(id="row2"):
            yield _pane("struct", StructView(id="struct"))
            yield _pane("legality", LegalityView(id="legality"))
        with Horizontal(id="row3"):
            yield _pane("memory", Deferred(memory_view))
            yield _pane("lanes", Deferred(lanes_view))
            yield console
    else:
        with Horizontal(id="core-top"):
            yield _pane("engines", EnginesView(id="engines"), tab=False)
            yield _pane("semaphores", VerticalScroll(SemaphoresView(id="semaphores"),
                                                     can_focus=True))
        with Horizontal(id="core-time"):
            yield _pane("timeline", TimelineView(id="timeline"), tab=False)
            yield _pane("races", RacesView(id="races"))
        with Horizontal(id="core-mid"):
            with Pane(TITLES["program"], id="pane-program"):
                with Horizontal(id="program-pair"):
                    yield ProgramView(id="program")
                    yield PartnerProgramView(id="program-partner")
            yield _pane("struct", StructView(id="struct"))
            yield _pane("legality", LegalityView(id="legality"))
        with Horizontal(id="core-low"):
            yield _pane("memory", Deferred(memory_view))
            yield _pane("registers", RegistersView(id="registers"))
            yield console
    yield Static("", id="too-small", markup=False)
    yield Footer()
