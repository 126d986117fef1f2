"""The debugger layout: every pane visible at 160x50; any one maximisable."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header

from views.accum import AccumView
from views.console_view import ConsoleView
from views.lanes import LanesView
from views.legality import LegalityView
from views.memory import MemoryView
from views.pane import Pane
from views.plot import PlotView
from views.program import ProgramView
from views.registers import RegistersView
from views.snapshot import Snapshot
from views.struct_view import StructView

# pane id -> title, in the order of the layout (focus order)
PANES: dict[str, str] = {
    "program": "Program", "registers": "Registers", "accum": "DVE acc / idx", "plot": "Plot",
    "struct": "Struct", "legality": "Legality", "memory": "SBUF", "lanes": "Convert trace",
    "console": "Console",
}


class DebuggerScreen(Screen):
    """Three bands of panes (views/neurondbg.tcss); `show(snapshot)` feeds each pane."""

    def __init__(self, words: Sequence[str] = ()) -> None:
        super().__init__(id="debugger")
        self.words = words

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="row1"):
            yield Pane(PANES["program"], ProgramView(id="program"), id="pane-program")
            yield Pane(PANES["registers"], RegistersView(id="registers"), id="pane-registers")
            with Vertical(id="col-side"):
                yield Pane(PANES["accum"], AccumView(id="accum"), id="pane-accum")
                yield Pane(PANES["plot"], PlotView(id="plot"), id="pane-plot")
        with Horizontal(id="row2"):
            yield Pane(PANES["struct"], StructView(id="struct"), id="pane-struct")
            yield Pane(PANES["legality"], LegalityView(id="legality"), id="pane-legality")
        with Horizontal(id="row3"):
            yield Pane(PANES["memory"], MemoryView(id="memory"), id="pane-memory")
            yield Pane(PANES["lanes"], LanesView(id="lanes"), id="pane-lanes")
            yield Pane(PANES["console"], ConsoleView(self.words, id="console"),
                       id="pane-console")
        yield Footer()

    def on_mount(self) -> None:
        ready = getattr(self.app, "debugger_ready", None)
        if ready is not None:
            ready()

    def show(self, snap: Snapshot) -> None:
        """Render every pane from one snapshot (inside one batch update: one repaint)."""
        with self.app.batch_update():
            self.query_one(ProgramView).show(snap)
            self.query_one(RegistersView).show(snap)
            self.query_one(StructView).show(snap)
            self.query_one(LegalityView).show(snap)
            memory = self.query_one(MemoryView)
            memory.show(snap)
            self.query_one(AccumView).show(snap)
            self.query_one(LanesView).show(snap)
            self.query_one(PlotView).show(snap, memory._values.ravel())
            title = f"{snap.program_name} · {snap.gen} · {snap.engine}" + (
                f" · {snap.stop}" if snap.stop else "")
            if title != self.sub_title:
                self.sub_title = title
