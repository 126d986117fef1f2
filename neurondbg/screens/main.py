"""The debugger screen: one engine queue or several, every pane maximisable.

`DebuggerScreen(layout, ...)` arranges the panes neurondbg.panes declares for its
layout (neurondbg/screens/arrange.py: by queues and by terminal size); with several
queues the engine strip, the timeline and the semaphores appear, and the Program,
Registers, Struct, Legality and SBUF panes show the FOCUSED engine. The panes stay
mounted in every size (only CSS changes), so their state (cursor, dtype, console
history) survives a resize.

Keys (decided where the specification is silent): digits pick panes in the layout's order
(a user who learnt them on a program keeps Program on 1 and Console last). Several
queues add `S` (one scheduler step), `e` / `E` (focus the next / previous engine);
`s` steps the focused engine. Maximised (z), a kernel's Program pane shows a second
engine's listing beside the focused one's: the first it shares a semaphore with.

Hidden panes are not refreshed: a step feeds the panes on show, and a pane that a tab,
a maximised pane or a too-small terminal hides is fed the newest snapshot when it is
shown again. The Program and SBUF panes are always fed: the Program cursor follows the
PC and the SBUF window follows the writes, state that a user finds where the steps
left it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import ClassVar, Protocol, cast

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from neurondbg.debug.snapshot import Snapshot
from neurondbg.panes import (
    ALWAYS_FED,
    FEED_ORDER,
    FOLLOW_FOCUS,
    PANE_SPECS,
    SHORT_TITLES,
    SPECS,
    TITLES,
    Layout,
    digit,
    panes_of,
)
from neurondbg.screens.arrange import (
    LAYOUT_CSS,
    RowFit,
    always_shown,
    compose_panes,
    fit_rows,
    layout_for,
    too_small_text,
)
from neurondbg.views.chrome import KeyFooter
from neurondbg.views.deferred import build_deferred
from neurondbg.views.pane import Pane, contain, pane_of
from neurondbg.views.program import PartnerProgramView
from neurondbg.views.timeline import TimelineView
from neurondbg.views.tour_pane import TourPane

KERNEL_ACTIONS = ("step_core", "focus_engine")  # keys of several queues only
BINDING_PREFIX = {Layout.PROGRAM: "", Layout.KERNEL: "core."}  # of the digits' ids
# Keys a kernel's footer leaves out below the wide layout, so that at 100 columns it is
# whole (the keys still work; the palette and the console's `help` list them): the
# Program's full-text toggle, the Convert Lab and the help screen.
FOOTER_SPARE = ("program.full", "app.lab", "app.help")


class _Shows(Protocol):
    """A pane's view: it takes the snapshot, or the part of it its pane declares."""

    def show(self, *parts: object) -> None: ...


class DebuggerScreen(Screen[None]):
    """The panes of `layout`; `show(snapshot)` feeds each pane."""

    DEFAULT_CSS = LAYOUT_CSS  # the band sizes the layout rule counts with (arrange.py)
    SCOPED_CSS = False  # its selectors start at the screen's own id

    BINDINGS: ClassVar[list[BindingType]] = [
        # each layout's digits (neurondbg.panes); check_action keeps the shown layout's
        *(Binding(digit(place.key), f"pane_key({place.key}, '{spec.name}')",
                  f"pane {spec.title}", show=False, id=f"{BINDING_PREFIX[layout]}pane.{spec.name}")
          for spec in PANE_SPECS for layout, place in spec.places.items()),
        Binding("S", "step_core", "step core", id="core.step",
                tooltip="one scheduler step (the policy picks the engine)"),
        Binding("e", "focus_engine(1)", "next engine", id="core.focus",
                tooltip="focus the next engine: the panes follow it"),
        Binding("E", "focus_engine(-1)", "previous engine", show=False,
                id="core.focus.back", tooltip="focus the previous engine"),
    ]

    def __init__(self, layout: Layout = Layout.PROGRAM, words: Sequence[str] = (),
                 complete_line: Callable[[str], Sequence[str]] | None = None,
                 on_ready: Callable[[], None] | None = None) -> None:
        # the id selects the layout's rules in views/neurondbg.tcss
        super().__init__(id="debugger" if layout is Layout.PROGRAM else "core")
        self.pane_layout = layout
        self.panes: dict[str, str] = panes_of(layout)
        self.words = words
        self.complete_line = complete_line  # the console's argument completion
        # Called once the panes exist (the App loads its program then, off the UI thread).
        # A callback rather than a message: it must run before the first frame's refresh.
        self.on_ready = on_ready
        self.layout_name = "wide"
        self.tab = "registers"  # the pane the compact layout shows in its shared slot
        # a kernel's queues (engines and DMA queues): a core's five engines until the first
        # snapshot says
        self.strip_rows = 5
        self.room = fit_rows(Size(0, 0), layout)  # the rows' use (arrange.py)
        self.always_shown: tuple[str, ...] = always_shown(layout, self.room)
        self.tab_gap = " "  # between the tab bar's names
        self._snap: Snapshot | None = None  # the newest snapshot shown
        self._stale: set[str] = set()  # hidden panes not fed `_snap` yet
        self._built = False  # the deferred views are mounted (build_views)
        self._titled: tuple[str, str | None] | None = None  # (engine, partner) in the titles

    @property
    def kernel(self) -> bool:
        """Several queues: the engine strip, timeline and semaphores are shown."""
        return self.pane_layout is Layout.KERNEL

    def compose(self) -> ComposeResult:
        yield from compose_panes(self.pane_layout, self.words, self.complete_line)

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

    # -- keys ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A digit acts in the layout that has its pane at that place; the keys of
        several queues do nothing (and are not shown) on one queue."""
        if action == "pane_key":
            number, name = parameters
            return name in self.panes and list(self.panes).index(str(name)) + 1 == number
        return self.kernel or action not in KERNEL_ACTIONS

    async def action_step_core(self) -> None:
        await self.app.run_action("app.step_core")

    async def action_focus_engine(self, by: int = 1) -> None:
        await self.app.run_action(f"app.focus_engine({by})")

    def action_pane_key(self, number: int, name: str) -> None:
        """Digit `number`: pane `name`, at that place in this layout (check_action)."""
        self.action_go(name)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The screen's keys; a kernel's footer leaves FOOTER_SPARE out below the wide
        layout."""
        active = super().active_bindings
        if not self.kernel or self.layout_name == "wide":
            return active
        return {key: a._replace(binding=replace(a.binding, show=False))
                if a.binding.id in FOOTER_SPARE else a for key, a in active.items()}

    # -- layout by size -------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Pick the layout for a terminal of `size` (neurondbg/screens/arrange.py)."""
        notes = self.query(TourPane)
        room = self.room = fit_rows(size, self.pane_layout, self.strip_rows, bool(notes))
        for note in notes:
            note.styles.max_height = room.note
        self.always_shown = always_shown(self.pane_layout, room)
        strip_tab = self.kernel and not room.strip
        self.tab_gap = "" if strip_tab else " "  # a kernel's eight names fit in 80 columns
        self.set_class(strip_tab, "-strip-tab")
        self.set_class(self.kernel and not room.timeline, "-timeline-tab")
        if self.tab in self.always_shown:  # the Engines or Timeline tab, grown out of it
            self.tab = "registers"
        was_wide = self.layout_name == "wide"  # what the footer was composed for
        self.layout_name = layout_for(size)
        self.set_class(self.layout_name == "compact", "-compact")
        self.set_class(self.layout_name == "tiny", "-tiny")
        self.query_one("#too-small", Static).update(too_small_text(size))
        self.catch_up()
        if self.kernel:
            self._fit_strip(room)
            self.select_tab(self.tab)  # the bar names another set of tabs
            footer = self.query_one(KeyFooter)
            footer.compact = self.layout_name != "wide"
            if was_wide != (self.layout_name == "wide"):
                footer.refresh()  # FOOTER_SPARE shown or not
            timeline = self.query_one(TimelineView)
            timeline.collapsed = self.layout_name != "wide"
            timeline.refresh(layout=True)

    def _fit_strip(self, room: RowFit) -> None:
        """The Engines strip's height as `room` says: the top band's, wide; the pane's
        most, compact (it scrolls; an Engines tab fills its slot)."""
        top = self.query_one("#core-top")
        pane = self.query_one("#pane-engines")
        wide = self.layout_name == "wide"
        top.styles.height = room.strip if wide else None
        pane.styles.max_height = room.strip if not wide and room.strip else None

    def mount_note(self, note: TourPane) -> None:
        """Mount a tour's note band above the footer, its rows counted (arrange.py)."""
        self.mount(note, before=self.query_one(KeyFooter))
        self.fit(self.app.size)

    def select_tab(self, name: str) -> None:
        """Show pane `name` in the compact layout's shared slot (no-op for the panes
        always shown)."""
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
        tabs = [(i, key) for i, key in enumerate(self.panes, start=1)
                if key not in self.always_shown]
        titles = self.panes
        wide = sum(len(titles[k]) + 4 for _, k in tabs) + len(self.tab_gap) * (len(tabs) - 1)
        if wide > self.app.size.width:
            titles = SHORT_TITLES  # the titles would not fit the bar
        bar = [f"[@click=screen.go('{key}')][{'reverse bold' if key == name else 'dim'}]"
               f" {digit(i)} {escape(titles[key])} [/][/]" for i, key in tabs]
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
        """(pane, view, how it takes the snapshot), in FEED_ORDER; a kernel's partner
        listing is fed with the Program pane."""
        self.build_views()
        out: list[tuple[str, Widget, Callable[[], object]]] = []
        for name in FEED_ORDER:
            if name not in self.panes:
                continue
            view = self.query_one(f"#{name}")
            out.append((name, view, self._feed_of(name, view, snap)))
            if name == "program" and snap.partner is not None:
                partner = self.query_one(PartnerProgramView)
                out.append((name, partner, partial(partner.show, snap.partner)))
        return out

    def _feed_of(self, name: str, view: Widget, snap: Snapshot) -> Callable[[], object]:
        """How pane `name`'s view takes `snap` (neurondbg.panes: the whole snapshot, one
        field of it, and the view of the pane beside it)."""
        spec = SPECS[name]
        shows = cast(_Shows, view)
        if spec.beside:  # a built view (build_views): the one beside it is built too
            beside = self.query_one(f"#{spec.beside}")
            return lambda: shows.show(snap, beside)
        if spec.feed:
            return lambda: shows.show(getattr(snap, spec.feed))
        return lambda: shows.show(snap)

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
            if snap.engines:
                self._fit_engines(snap)
            if snap.title or self.kernel:
                title = snap.title or snap.program_name
            else:
                title = f"{snap.program_name} · {snap.gen} · {snap.engine}"
            title += f" · {snap.stop}" if snap.stop else ""
            if title != self.sub_title:
                self.sub_title = title

    def _fit_engines(self, snap: Snapshot) -> None:
        """The layout for the strip's rows (once a load tells them); the focused row
        scrolled into the strip's view; the engine's name in the titles of the panes that
        follow the focus."""
        if len(snap.engines) != self.strip_rows:
            self.strip_rows = len(snap.engines)
            self.fit(self.app.size)
        strip = self.query_one("#pane-engines", Pane)
        if strip.max_scroll_y:  # rows beyond its height: the focused one in view
            focused = next((i for i, row in enumerate(snap.engines) if row.focused), 0)
            strip.scroll_to_region(Region(0, focused, 1, 1), animate=False, immediate=True)
        titled = (snap.engine, snap.partner.engine if snap.partner is not None else None)
        if titled == self._titled:  # the titles say so already (a focus mark kept its own)
            return
        self._titled = titled
        for name in FOLLOW_FOCUS:
            pane = self.query_one(f"#pane-{name}", Pane)
            mark = "● " if str(pane.border_title).startswith("● ") else ""
            beside = f"  (z: beside {snap.partner.engine})" if name == "program" \
                and snap.partner is not None else ""
            pane.set_title(f"{mark}{TITLES[name]} · {snap.engine}{beside}")
