"""Typed seams between the model and the panes: the frozen Snapshot, no pane
reading another's private state, no patched Machine, and themeable styles that keep
the default theme's colours exactly."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rich.color import Color, ColorTriplet
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from neurondbg.debug.session import Session
from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.lineview import STRIP_CACHE, LineView
from neurondbg.views.memory import MemoryView, heat_style
from neurondbg.views.plot import PlotView
from neurondbg.views.program import ProgramView
from neurondbg.views.registers import RegistersView
from tests.ui.helpers import started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"
OLD_WRITTEN = Style(color="black", bgcolor="#ffd43b", bold=True)  # the first release's
OLD_CURSOR_RGB = Color.parse("grey30").get_truecolor()


def old_heat(t: float) -> Style:
    """The heatmap colour before it became two component classes."""
    t = min(1.0, max(0.0, t))
    return Style(bgcolor=Color.from_rgb(int(40 + 200 * t), 60, int(200 - 160 * t)))


def test_the_snapshot_is_frozen_and_typed() -> None:
    s = Session(STEPS)
    snap = s.snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.pc = 4  # type: ignore[misc]
    assert not hasattr(snap, "extra")
    assert snap.gen == "cayman" and snap.lanes is None and snap.lanes_step is None
    s.step()
    s.step()  # the CAST
    snap = s.snapshot()
    assert snap.lanes is not None and snap.lanes_step == 1
    assert snap.disagreements == () and isinstance(snap.disagreements, tuple)
    assert [w.space for w in snap.written] == ["sbuf"] and snap.written[0].fmt == "bf16"


def test_continue_keeps_the_lanes_of_a_conversion_it_ran_past() -> None:
    s = Session(STEPS)
    s.run()  # to the invalid COPY, past the CAST and a MOVE
    snap = s.snapshot()
    assert snap.record is not None and snap.record.lanes is None
    assert snap.lanes is not None and snap.lanes_step == 1


async def test_the_plot_histogram_is_the_memory_panes_values() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s")
        await pilot.pause()
        memory = app.screen.query_one(MemoryView)
        plot = app.screen.query_one(PlotView)
        assert memory.shown_values.size > 0
        assert plot.hist_data.tolist() == memory.shown_values.ravel().tolist()


async def test_default_theme_keeps_the_first_release_colours() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s")
        await pilot.pause()
        regs = app.screen.query_one(RegistersView)
        written = regs.written_style
        assert (written.color.get_truecolor(), written.bgcolor, written.bold) == (
            OLD_WRITTEN.color.get_truecolor(), OLD_WRITTEN.bgcolor, True)
        changed = [s.style for s in regs.line_text(3).spans if s.style]
        assert written in changed  # R3 changed: drawn in the written style
        prog = app.screen.query_one(ProgramView)
        cursor = prog.get_component_rich_style("lineview--cursor", partial=True)
        assert cursor.bgcolor.get_truecolor() == OLD_CURSOR_RGB and cursor.color is None
        memory = app.screen.query_one(MemoryView)
        low, high = memory.heat_colours()
        for t in (0.0, 0.25, 0.5, 0.999, 1.0):
            assert heat_style(t, low, high) == old_heat(t)


async def test_a_light_theme_gets_a_cursor_of_its_own() -> None:
    async with started(STEPS) as (app, pilot):
        prog = app.screen.query_one(ProgramView)
        app.theme = "textual-light"
        await pilot.pause()
        cursor = prog.get_component_rich_style("lineview--cursor", partial=True)
        assert cursor.bgcolor is not None
        rgb = cursor.bgcolor.get_truecolor()
        assert rgb != OLD_CURSOR_RGB and min(rgb) > max(OLD_CURSOR_RGB)  # a light grey


def test_heat_style_runs_in_a_straight_line_between_its_ends() -> None:
    low, high = ColorTriplet(0, 100, 200), ColorTriplet(200, 100, 0)
    assert heat_style(0.5, low, high).bgcolor.get_truecolor() == (100, 100, 100)
    assert heat_style(-3, low, high).bgcolor.get_truecolor() == low
    assert heat_style(7, low, high).bgcolor.get_truecolor() == high


class Numbered(LineView):
    """A view whose line keys run from `base`: every key drawn once is a new line."""

    def __init__(self) -> None:
        super().__init__()
        self.base = 0
        self.drawn = 0

    def line_count(self) -> int:
        return 1

    def line_key(self, index: int) -> int:
        return self.base + index

    def line_text(self, index: int) -> Text:
        self.drawn += 1
        return Text(str(self.base))


class One(App):
    def compose(self) -> ComposeResult:
        yield Numbered()


async def test_rendered_lines_are_kept_least_recently_drawn_first() -> None:
    """Past STRIP_CACHE lines the oldest go, not all of them (the old cache was cleared
    whole when full, so the line just drawn before the overflow was drawn again)."""
    app = One()
    async with app.run_test(size=(20, 3)):
        view = app.query_one(Numbered)
        for base in range(STRIP_CACHE + 2):
            view.base = base
            view.render_line(0)
        assert view.drawn == STRIP_CACHE + 2
        view.base = STRIP_CACHE  # drawn two lines ago: still kept
        view.render_line(0)
        assert view.drawn == STRIP_CACHE + 2
        view.base = 0  # the first one drawn: gone
        view.render_line(0)
        assert view.drawn == STRIP_CACHE + 3


def test_snapshot_default_gen_is_the_machines_default() -> None:
    from neurondbg.machine.dtypes import DEFAULT_GEN

    assert Snapshot().gen == DEFAULT_GEN.label
