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

import importlib
from collections.abc import Callable, Sequence
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
