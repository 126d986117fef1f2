"""Every list of panes is the one neurondbg.panes declares: the screen's panes, their
bands, order, titles, widgets and tabs; what each is fed; the digit keys; `pane NAME`,
its completion and help; the palette's Pane entries; the help's key sections."""

from __future__ import annotations

import dataclasses
import importlib
from typing import cast

import pytest
from textual.binding import Binding

from neurondbg.console import HELP, REGISTRY
from neurondbg.debug.snapshot import Snapshot
from neurondbg.palette import static_entries
from neurondbg.panes import (
    ALWAYS_FED,
    BANDS,
    FEED_ORDER,
    FOLLOW_FOCUS,
    PANE_SPECS,
    SPECS,
    Layout,
    PaneSpec,
    digit,
    in_band,
    panes_of,
    view_of,
)
from neurondbg.screens.arrange import KERNEL_ALWAYS, PROGRAM_ALWAYS
from neurondbg.screens.help import bindings_of, pane_keys, sections
from neurondbg.screens.main import BINDING_PREFIX, DebuggerScreen
from neurondbg.views.pane import Pane
from tests.ui.helpers import started

OPENS = {Layout.PROGRAM: "sessions/examples/loop.asm",
         Layout.KERNEL: "sessions/examples/kernels/double_buffer.asm"}


def widget_class(path: str) -> object:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def bands_declared(layout: Layout) -> list[tuple[str, str]]:
    """(pane, the id of the band it sits in), in the order the screen composes them."""
    out: list[tuple[str, str]] = []
    for band in (b for b in BANDS[layout] if "/" not in b):
        out += [(p.name, band) for p in in_band(layout, band)]
        for inner in (b for b in BANDS[layout] if b.startswith(f"{band}/")):
            out += [(p.name, inner.rpartition("/")[2]) for p in in_band(layout, inner)]
    return out


def test_the_table_is_consistent() -> None:
    """Ids once each; places within each layout distinct and in its bands; a fed field is
    the Snapshot's; the pane beside is fed first; the panes kept out of tabs are shown."""
    assert len({p.name for p in PANE_SPECS}) == len(PANE_SPECS)
    fields = {f.name for f in dataclasses.fields(Snapshot)}
    for layout in Layout:
        keys = [p.places[layout].key for p in PANE_SPECS if layout in p.places]
        assert sorted(keys) == list(range(1, len(keys) + 1))
        assert {p.places[layout].band for p in PANE_SPECS if layout in p.places} <= set(
            BANDS[layout])
        assert sorted(n for n, _ in bands_declared(layout)) == sorted(panes_of(layout))
    for spec in PANE_SPECS:
        assert spec.feed == "" or spec.feed in fields
        if spec.beside:
            assert set(spec.places) <= set(SPECS[spec.beside].places)
            assert FEED_ORDER.index(spec.beside) < FEED_ORDER.index(spec.name)
        for layout in spec.places:
            assert callable(widget_class(view_of(spec, layout)))
    assert set(PROGRAM_ALWAYS) <= set(panes_of(Layout.PROGRAM))
    assert set(KERNEL_ALWAYS) <= set(panes_of(Layout.KERNEL))
    assert ALWAYS_FED == ("program", "memory")
    assert FOLLOW_FOCUS == ("program", "struct", "legality", "registers")


def test_the_digit_keys_are_the_table_places() -> None:
    for layout in Layout:
        prefix = f"{BINDING_PREFIX[layout]}pane."
        bound = {(b.key, b.id.removeprefix(prefix)) for b in DebuggerScreen.BINDINGS
                 if isinstance(b, Binding) and b.id is not None and b.id.startswith(prefix)}
        assert bound == {(digit(i), name) for i, name in enumerate(panes_of(layout), 1)}
        assert pane_keys(layout) == [(digit(i), f"pane {title}")
                                     for i, title in enumerate(panes_of(layout).values(), 1)]


class Reading:
    """A snapshot that notes which of its fields are read."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.read: set[str] = set()

    def __getattr__(self, name: str) -> object:  # only names not set in __init__
        self.read.add(name)
        return getattr(self.snap, name)


@pytest.mark.parametrize("layout", list(Layout))
async def test_a_pane_reads_the_snapshot_fields_it_declares(layout: Layout) -> None:
    """Each pane fed a snapshot that notes what is read of it (and drawn) reads only the
    fields its entry declares; every declared field is one of the Snapshot's (or a
    property of it, such as the registers the last step changed)."""
    fields = {f.name for f in dataclasses.fields(Snapshot)} | {
        name for name, value in vars(Snapshot).items() if isinstance(value, property)}
    assert all(set(p.reads) <= fields for p in PANE_SPECS)
    async with started(OPENS[layout]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, DebuggerScreen)
        for _ in range(3):
            await pilot.press("s")
        await pilot.pause()
        snap = screen._snap  # the newest snapshot shown
        assert snap is not None and snap.steps > 0
        readings: dict[str, Reading] = {}
        for name in (n for n in FEED_ORDER if n in panes_of(layout)):
            readings[name] = reading = Reading(snap)
            feeds = [feed for n, _, feed in screen.feeds(cast(Snapshot, reading)) if n == name]
            reading.read.clear()  # what the screen looked up to feed it: only its feed now
            for feed in feeds:
                feed()
        await pilot.pause()  # the views draw what they were fed
        for name, reading in readings.items():
            assert reading.read and reading.read <= set(SPECS[name].reads), name


def keys_of(spec: PaneSpec) -> list[tuple[str, str]]:
    cls = widget_class(spec.keys or spec.view)
    return bindings_of([cls]) if isinstance(cls, type) else []


@pytest.mark.parametrize("layout", list(Layout))
async def test_the_screen_is_the_table(layout: Layout) -> None:
    async with started(OPENS[layout]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, DebuggerScreen) and screen.pane_layout is layout
        screen.build_views()
        await pilot.pause()
        panes = list(screen.query(Pane))
        names = [str(p.id).removeprefix("pane-") for p in panes]
        assert [(n, str(p.parent.id)) for n, p in zip(names, panes, strict=True)] == \
            bands_declared(layout)
        kept = KERNEL_ALWAYS if layout is Layout.KERNEL else PROGRAM_ALWAYS
        for name, pane in zip(names, panes, strict=True):
            spec = SPECS[name]
            assert str(pane.border_title).removeprefix("● ").startswith(spec.title)
            assert pane.has_class("tab") is (name not in kept)
            made = widget_class(view_of(spec, layout))
            widget = screen.query_one(f"#pane-{name} #{name}")
            if isinstance(made, type):
                assert isinstance(widget, made)
        snap = screen._snap  # the newest snapshot shown
        assert snap is not None
        fed = [n for n, _, _ in screen.feeds(snap)]
        assert list(dict.fromkeys(fed)) == [n for n in FEED_ORDER if n in panes_of(layout)]
        assert "console" not in fed

        assert REGISTRY.completions("pane ", app.session) == [
            f"pane {n}" for n in panes_of(layout)]
        assert all(n in HELP["pane"] for n in panes_of(layout))
        assert [e.line for e in static_entries(app) if e.title.startswith("Pane: ")] == [
            f"pane {n}" for n in panes_of(layout)]
        shown = dict(sections(app, screen))
        for name in panes_of(layout):
            spec = SPECS[name]
            if keys_of(spec):
                assert shown[spec.title] == keys_of(spec)
            else:
                assert spec.title not in shown
        other = {p.title for p in PANE_SPECS if layout not in p.places and keys_of(p)}
        if layout is Layout.KERNEL:  # the program layout's own panes are left out
            assert other and not other & set(shown)
        else:  # a program's help tells of a kernel's panes too
            assert other and other <= set(shown)
