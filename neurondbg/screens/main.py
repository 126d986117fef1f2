"""The debugger layout: every pane visible at 160x50; any one maximisable.

Three layouts, by terminal size (decided here; views/neurondbg.tcss draws them):
- wide (>= WIDE): the three bands of DESIGN.md, every pane visible.
- compact (>= MINIMUM, e.g. 100x30): Program on top and Console at the bottom
  stay; the other panes collapse into tabs that share one slot between them.
  The tab bar names them with their number: keys 1..9 (or a click, or focus
  moving into a pane) pick one; `pane NAME` still maximises any pane.
- too small (< MINIMUM): one line "terminal too small: need 80x24, have 70x20"
  instead of boxes cut in half.
The panes stay mounted in every layout (only CSS changes), so their state
(cursor, dtype, console history) survives a resize.

Hidden panes are not refreshed (issue 17): a step feeds the panes on show, and a pane
that a tab, a maximised pane or a too-small terminal hides is fed the newest snapshot
when it is shown again. The Program, SBUF and Console panes are always fed: the
Program cursor follows the PC and the SBUF window follows the writes, state that a
user finds where the steps left it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from neurondbg.panes import PANES
from views.console_view import ConsoleView
from views.deferred import Deferred, build_deferred
from views.legality import LegalityView
from views.pane import Pane, contain, pane_of
from views.program import ProgramView
from views.registers import RegistersView
from views.snapshot import Snapshot
from views.struct_view import StructView

ALWAYS_SHOWN = ("program", "console")  # in the compact layout; the others are tabs
ALWAYS_FED = ("program", "memory")  # followed state (module docstring): fed even hidden
WIDE = Size(150, 44)  # the three bands: 66 + 34 + a listing; 19 + 15 rows + the data band
MINIMUM = Size(80, 24)  # below it no layout is usable


# The views whose modules import numpy, the conversion model or textual_plotext: built
# after the first frame (views.deferred), each by its own maker.
def memory_view() -> Widget:
    from views.memory import MemoryView

    return MemoryView(id="memory")


def accum_view() -> Widget:
    from views.accum import AccumView

    return AccumView(id="accum")


def plot_view() -> Widget:
    from views.plot import PlotView

    return PlotView(id="plot")


def lanes_view() -> Widget:
    from views.lanes import LanesView

    return LanesView(id="lanes")


def layout_for(size: Size) -> str:
    """'wide', 'compact' or 'tiny' for a terminal of `size`."""
    if size.width < MINIMUM.width or size.height < MINIMUM.height:
        return "tiny"
    if size.width < WIDE.width or size.height < WIDE.height:
        return "compact"
    return "wide"


def too_small_text(size: Size) -> str:
    return (f"terminal too small: need {MINIMUM.width}x{MINIMUM.height}, "
            f"have {size.width}x{size.height}")


class DebuggerScreen(Screen):
    """Three bands of panes (views/neurondbg.tcss); `show(snapshot)` feeds each pane."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(str(i), f"go('{name}')", f"pane {title}", show=False, id=f"pane.{name}")
        for i, (name, title) in enumerate(PANES.items(), start=1)
    ]

    screen_id: ClassVar[str] = "debugger"
    panes: ClassVar[dict[str, str]] = PANES  # this layout's panes (a subclass has its own)

    def __init__(self, words: Sequence[str] = (),
                 complete_line: Callable[[str], Sequence[str]] | None = None,
                 on_ready: Callable[[], None] | None = None) -> None:
        super().__init__(id=self.screen_id)
        self.words = words
        self.complete_line = complete_line  # the console's argument completion
        # Called once the panes exist (the App loads its program then, off the UI thread).
        # A callback rather than a message: it must run before the first frame's refresh.
        self.on_ready = on_ready
        self.layout_name = "wide"
        self.tab = "registers"  # the pane the compact layout shows in its shared slot
        # the panes the compact layout never puts in a tab (a kernel's vary with the size)
        self.always_shown: tuple[str, ...] = ALWAYS_SHOWN
        self.tab_gap = " "  # between the tab bar's names
        self._snap: Snapshot | None = None  # the newest snapshot shown
        self._stale: set[str] = set()  # hidden panes not fed `_snap` yet
        self._built = False  # the deferred views are mounted (build_views)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pane-bar")
        with Horizontal(id="row1"):
            yield Pane(PANES["program"], ProgramView(id="program"), id="pane-program")
            yield Pane(PANES["registers"], RegistersView(id="registers"), id="pane-registers",
                       classes="tab")
            with Vertical(id="col-side"):
                yield Pane(PANES["accum"], Deferred(accum_view), id="pane-accum", classes="tab")
                yield Pane(PANES["plot"], Deferred(plot_view), id="pane-plot", classes="tab")
        with Horizontal(id="row2"):
            yield Pane(PANES["struct"], StructView(id="struct"), id="pane-struct", classes="tab")
            yield Pane(PANES["legality"], LegalityView(id="legality"), id="pane-legality",
                       classes="tab")
        with Horizontal(id="row3"):
            yield Pane(PANES["memory"], Deferred(memory_view), id="pane-memory", classes="tab")
            yield Pane(PANES["lanes"], Deferred(lanes_view), id="pane-lanes", classes="tab")
            yield Pane(PANES["console"], ConsoleView(self.words, self.complete_line,
                                                         id="console"),
                       id="pane-console")
        yield Static("", id="too-small", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.select_tab(self.tab)
        self.fit(self.app.size)
        if self.on_ready is not None:
            self.on_ready()

    def build_views(self) -> None:
        """Mount the views composed as placeholders (views.deferred); once: the App calls
        it after the first frame, and each path that needs one of those views first."""
        if not self._built:
            self._built = True
            build_deferred(self)

    # -- layout by size -------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Pick the layout for a terminal of `size` (see the module docstring)."""
        self.layout_name = layout_for(size)
        self.set_class(self.layout_name == "compact", "-compact")
        self.set_class(self.layout_name == "tiny", "-tiny")
        self.query_one("#too-small", Static).update(too_small_text(size))
        self.catch_up()

    def select_tab(self, name: str) -> None:
        """Show pane `name` in the compact layout's shared slot (no-op for Program and
        Console, which are always shown)."""
        if name in self.always_shown or name not in self.panes:
            return
        self.tab = name
        pane = self.query_one(f"#pane-{name}", Pane)
        for node in self.query(".-current, .-host"):
            node.remove_class("-current", "-host")
        pane.add_class("-current")
        for node in pane.ancestors:
            if node is self:
                break
            node.add_class("-host")
        self.catch_up()
        bar = []
        for i, (key, title) in enumerate(self.panes.items(), start=1):
            if key in self.always_shown:
                continue
            style = "reverse bold" if key == name else "dim"
            bar.append(f"[@click=screen.go('{key}')][{style}] {i} {escape(title)} [/][/]")
        self.query_one("#pane-bar", Static).update(self.tab_gap.join(bar))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        pane = pane_of(event.widget)
        if pane is not None and pane.id is not None:
            self.select_tab(pane.id.removeprefix("pane-"))

    def action_go(self, name: str) -> None:
        """Focus pane `name` (keys 1..9); in the compact layout, show its tab."""
        self.build_views()  # a key pressed before the App built them
        self.select_tab(name)
        if name == "console":
            self.query_one("#console-input").focus()
            return
        widget = self.query_one(f"#{name}")
        target = widget if widget.can_focus else next(
            (w for w in widget.query("*") if w.can_focus), widget)
        target.focus()

    # -- model -> panes ----------------------------------------------------------------
    def feeds(self, snap: Snapshot) -> list[tuple[str, Widget, Callable[[], object]]]:
        """(pane, view, how it takes the snapshot), in the order the panes are refreshed
        (the Plot's histogram reads the SBUF pane's window: after it)."""
        from views.accum import AccumView  # built views (build_views): their modules are in
        from views.lanes import LanesView
        from views.memory import MemoryView
        from views.plot import PlotView

        self.build_views()
        memory = self.query_one(MemoryView)
        plot = self.query_one(PlotView)
        views: list[tuple[str, Widget]] = [
            ("program", self.query_one(ProgramView)), ("registers", self.query_one(RegistersView)),
            ("struct", self.query_one(StructView)), ("legality", self.query_one(LegalityView)),
            ("memory", memory), ("accum", self.query_one(AccumView)),
            ("lanes", self.query_one(LanesView))]
        out: list[tuple[str, Widget, Callable[[], object]]] = [
            (name, v, lambda v=v: v.show(snap)) for name, v in views]
        out.append(("plot", plot, lambda: plot.show(snap, memory.shown_values.ravel())))
        return out

    def pane_shown(self, name: str) -> bool:
        """Is pane `name` on screen in the current layout (or the maximised one)?"""
        if self.layout_name == "tiny":
            return False
        if self.maximized is not None:
            return self.maximized.id == f"pane-{name}" or any(
                node.id == f"pane-{name}" for node in self.maximized.ancestors_with_self)
        return self.layout_name == "wide" or name in self.always_shown or name == self.tab

    def _feed(self, snap: Snapshot, names: set[str] | None = None) -> None:
        """Feed the shown panes (of `names`, or all) `snap`; mark the hidden ones stale."""
        for name, view, feed in self.feeds(snap):
            if names is not None and name not in names:
                continue
            if name in ALWAYS_FED or self.pane_shown(name):
                self._stale.discard(name)
                contain(view, "refresh", feed, None)
            else:
                self._stale.add(name)

    def catch_up(self) -> None:
        """Feed the newest snapshot to the stale panes that are shown now."""
        if self._snap is not None and any(self.pane_shown(n) for n in self._stale):
            with self.app.batch_update():
                self._feed(self._snap, set(self._stale))

    def watch_maximized(self) -> None:
        self.catch_up()

    def show(self, snap: Snapshot) -> None:
        """Render the panes on show from one snapshot (inside one batch update: one
        repaint); hidden ones catch up when shown (module docstring). A pane that fails
        shows its error; the others still refresh (views.pane.contain)."""
        self._snap = snap
        with self.app.batch_update():
            self._feed(snap)
            title = f"{snap.program_name} · {snap.gen} · {snap.engine}" + (
                f" · {snap.stop}" if snap.stop else "")
            if title != self.sub_title:
                self.sub_title = title
