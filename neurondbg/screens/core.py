"""The NeuronCore layout: engines side by side, the timeline, the semaphores.

A kernel (several engine queues) opens here instead of the single-program layout
(neurondbg/screens/main.py, unchanged for a PROGRAM). The Program, Registers,
Struct, Legality and SBUF panes are the single-program ones, fed the FOCUSED
engine's Snapshot; the Engines, Timeline and Semaphores panes show the core.

Keys (decided where the issue is silent): `s` steps the focused engine, `S` the core
(one scheduler step), `c` continues the core, `r` reverses one global step, `e` / `E`
focus the next / previous engine. Digits still pick panes, in both layouts (a user
who learnt them on a program keeps them; `e` and `focus ENGINE` pick engines).

Maximised (z), the Program pane shows a second engine's listing beside the focused
one's: the first engine it shares a semaphore with, else the next.

Layouts: at >= 150x44 every pane is visible; below (100x30) the Engines strip,
the Timeline (collapsed to the focused engine and its semaphore partners), the
Program and the Console stay, the other panes share one tab slot (digits pick them);
the Semaphores tab opens under the Engines strip, at the full width. Smaller still
(below 100x30, down to 80x24: "small") only the Program and the Console stay, and the
Engines and the Timeline are tabs too: kept on screen, they took every row a stepped
kernel's Program and Semaphores needed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from neurondbg.panes import CORE_PANES
from neurondbg.screens.main import ALWAYS_SHOWN, DebuggerScreen, layout_for, memory_view
from views.console_view import ConsoleView
from views.deferred import Deferred
from views.engines import EnginesView
from views.legality import LegalityView
from views.pane import Pane
from views.program import ProgramView
from views.registers import RegistersView
from views.semaphores import SemaphoresView
from views.snapshot import Snapshot
from views.struct_view import StructView
from views.timeline import TimelineView

CORE_ALWAYS = ("program", "console", "engines", "timeline")
# Keys the footer leaves out below the wide layout, so that at 100 columns it is whole
# (the keys still work; the palette and the console's `help` list them): the Program's
# full-text toggle, the Convert Lab and the help screen (the console offers `help`).
FOOTER_SPARE = ("program.full", "app.lab", "app.help")
SMALL = Size(100, 30)  # below it (a compact terminal) only ALWAYS_SHOWN stay out of tabs
FOLLOW_FOCUS = ("program", "registers", "struct", "legality")  # titled with the engine


class PartnerProgramView(ProgramView, can_focus=False):
    """The second engine's listing beside the focused one's, shown only while the
    Program pane is maximised (z); read-only (the keys act on the focused engine)."""


class CoreScreen(DebuggerScreen):
    """The kernel layout; `show(snapshot)` feeds every pane."""

    screen_id: ClassVar[str] = "core"
    panes: ClassVar[dict[str, str]] = CORE_PANES
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(i), f"go('{name}')", f"pane {title}", show=False,
                  id=f"core.pane.{name}")
          for i, (name, title) in enumerate(CORE_PANES.items(), start=1)),
        Binding("S", "app.step_core", "step core", id="core.step",
                tooltip="one scheduler step (the policy picks the engine)"),
        Binding("e", "app.focus_engine(1)", "next engine", id="core.focus",
                tooltip="focus the next engine: the panes follow it"),
        Binding("E", "app.focus_engine(-1)", "previous engine", show=False,
                id="core.focus.back", tooltip="focus the previous engine"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tab = "registers"
        self.always_shown = CORE_ALWAYS

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pane-bar")
        with Horizontal(id="core-top"):
            yield Pane(CORE_PANES["engines"], EnginesView(id="engines"), id="pane-engines")
            yield Pane(CORE_PANES["semaphores"], VerticalScroll(SemaphoresView(id="semaphores"),
                                                                 can_focus=True),
                       id="pane-semaphores", classes="tab")
        yield Pane(CORE_PANES["timeline"], TimelineView(id="timeline"), id="pane-timeline")
        with Horizontal(id="core-mid"):
            with Pane(CORE_PANES["program"], id="pane-program"):
                with Horizontal(id="program-pair"):
                    yield ProgramView(id="program")
                    yield PartnerProgramView(id="program-partner")
            yield Pane(CORE_PANES["struct"], StructView(id="struct"), id="pane-struct",
                       classes="tab")
            yield Pane(CORE_PANES["legality"], LegalityView(id="legality"),
                       id="pane-legality", classes="tab")
        with Horizontal(id="core-low"):
            yield Pane(CORE_PANES["memory"], Deferred(memory_view), id="pane-memory",
                       classes="tab")
            yield Pane(CORE_PANES["registers"], RegistersView(id="registers"),
                       id="pane-registers", classes="tab")
            yield Pane(CORE_PANES["console"], ConsoleView(self.words, self.complete_line,
                                                          id="console"), id="pane-console")
        yield Static("", id="too-small", markup=False)
        yield Footer()

    def fit(self, size: Size) -> None:
        small = layout_for(size) == "compact" and (
            size.width < SMALL.width or size.height < SMALL.height)
        self.always_shown = ALWAYS_SHOWN if small else CORE_ALWAYS
        self.tab_gap = "" if small else " "  # the bar's seven names fit in 80 columns
        self.set_class(small, "-small")
        if self.tab in self.always_shown:  # the Engines or Timeline tab, grown out of it
            self.tab = "registers"
        super().fit(size)
        self.select_tab(self.tab)  # the bar names another set of tabs
        footer = self.query_one(Footer)
        footer.compact = self.layout_name != "wide"
        footer.refresh(recompose=True)  # FOOTER_SPARE shown or not
        timeline = self.query_one(TimelineView)
        timeline.collapsed = self.layout_name != "wide"
        timeline.refresh(layout=True)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The screen's keys; FOOTER_SPARE not shown in the footer below the wide layout."""
        active = super().active_bindings
        if self.layout_name == "wide":
            return active
        return {key: a._replace(binding=replace(a.binding, show=False))
                if a.binding.id in FOOTER_SPARE else a for key, a in active.items()}

    def feeds(self, snap: Snapshot) -> list[tuple[str, Widget, Callable[[], object]]]:
        """(pane, view, how it takes the snapshot): the focused engine's panes, the
        partner listing (in the Program pane), then the core's own panes."""
        self.build_views()
        out: list[tuple[str, Widget, Callable[[], object]]] = [
            (name, view, lambda view=view: view.show(snap)) for name, view in (
                (name, self.query_one(f"#{name}")) for name in (
                    "program", "registers", "struct", "legality", "memory"))]
        partner = self.query_one(PartnerProgramView)
        if snap.partner is not None:
            other = snap.partner
            out.append(("program", partner, lambda: partner.show(other)))
        engines = self.query_one(EnginesView)
        sems = self.query_one(SemaphoresView)
        timeline = self.query_one(TimelineView)
        out += [("engines", engines, lambda: engines.show(snap.engines)),
                ("semaphores", sems, lambda: sems.show(snap)),
                ("timeline", timeline, lambda: timeline.show(snap.timeline))]
        return out

    def show(self, snap: Snapshot) -> None:
        """Every pane on show from one snapshot (hidden ones catch up when shown:
        neurondbg/screens/main.py)."""
        core = focused = snap
        self._snap = snap
        with self.app.batch_update():
            self._feed(snap)
            rows = len(core.engines)
            top = self.query_one("#core-top")
            if rows > 5 and not self.has_class("-compact") and top.styles.height is not None \
                    and top.styles.height.value != min(rows, 12) + 2:
                top.styles.height = min(rows, 12) + 2  # a NEFF's DMA queue rows too
            if core.engines:
                for name in FOLLOW_FOCUS:
                    pane = self.query_one(f"#pane-{name}", Pane)
                    mark = "● " if str(pane.border_title).startswith("● ") else ""
                    beside = f"  (z: beside {core.partner.engine})" if name == "program" \
                        and core.partner is not None else ""
                    pane.set_title(f"{mark}{CORE_PANES[name]} · {focused.engine}{beside}")
            title = core.title or focused.program_name
            title += f" · {core.stop}" if core.stop else ""
            if title != self.sub_title:
                self.sub_title = title
