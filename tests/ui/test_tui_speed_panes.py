"""The step path repaints only what changed: a pane's title repaints
its border row alone, and the panes drawn line by line (views.textlines) show exactly
the text they render."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.geometry import Region

from neurondbg.sessions.examples import folder
from neurondbg.views.engines import EnginesView
from neurondbg.views.pane import Pane
from neurondbg.views.program import ProgramView
from neurondbg.views.struct_view import FieldTable
from neurondbg.views.timeline import TimelineView
from tests.ui.helpers import started

PRODUCER = folder() / "kernels" / "producer_consumer.asm"
LOOP = Path(__file__).parent / "data" / "loop.asm"


def _drawn(widget) -> list[str]:
    """The widget's content lines as painted, trailing blanks dropped."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return [strip.text.rstrip() for strip in strips]


async def test_a_pane_title_repaints_only_the_border_row() -> None:
    async with started(PRODUCER) as (app, pilot):
        await pilot.pause()
        pane = app.screen.query_one("#pane-registers", Pane)
        pane._exchange_repaint_regions()  # what the last frame painted
        pane.set_title("Registers · dve")
        assert pane.border_title == "Registers · dve"
        assert set(pane._exchange_repaint_regions()) == {Region(0, 0, pane.outer_size.width, 1)}
        top = pane.render_lines(Region(0, 0, pane.outer_size.width, 1))[0].text
        assert "Registers · dve" in top
        pane.set_title("Registers · dve")  # the same title: nothing to repaint
        assert not pane._exchange_repaint_regions()


async def test_a_core_step_retitles_the_panes_that_follow_the_focus() -> None:
    async with started(PRODUCER) as (app, pilot):
        await pilot.press("e")
        await pilot.pause()
        engine = app.session.engine
        for name in ("program", "registers", "struct", "legality"):
            title = app.screen.query_one(f"#pane-{name}", Pane).border_title
            assert title.endswith(f"· {engine}") or f"· {engine}  (z: beside" in title


async def test_line_drawn_panes_paint_the_text_they_render() -> None:
    async with started(PRODUCER) as (app, pilot):
        await pilot.press("S", "S", "S")
        await pilot.pause()
        for view in (app.screen.query_one(TimelineView), app.screen.query_one(EnginesView)):
            width = view.size.width
            want = [line[:width].rstrip() for line in str(view.render()).splitlines()]
            assert _drawn(view) == want
            assert view.size.height == len(want)  # the height is the line count
        lanes = _drawn(app.screen.query_one(TimelineView))
        assert lanes[0].startswith("step  1")
        assert any(line.startswith("▶") for line in lanes)


async def test_moving_the_program_cursor_repaints_the_two_rows_only() -> None:
    async with started(LOOP) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        program.focus()
        await pilot.pause()
        assert program.cursor == 0
        program._exchange_repaint_regions()
        program.cursor = 3
        regions = program._exchange_repaint_regions()
        assert sorted((r.y, r.height) for r in regions) == [(0, 1), (3, 1)]
        assert "▶" in program.render_line(0).text  # the PC marker still on record 0


async def test_the_struct_pane_repaints_the_fields_that_changed() -> None:
    async with started(LOOP) as (app, pilot):
        table = app.screen.query_one(FieldTable)
        inst = table.inst
        assert inst is not None
        await pilot.pause()
        table._exchange_repaint_regions()
        name = next(f.name for f in inst.struct.fields if f.role != "reserved" and f.size == 1)
        f = inst.struct.field(name)
        raw = bytearray(inst.raw)
        raw[f.offset] ^= 1
        other = replace(inst, raw=bytes(raw), offset=inst.offset + 64)
        assert table.set_instruction(other, None)
        regions = table._exchange_repaint_regions()
        assert all(r.height == 1 for r in regions)  # rows, not the whole table
        index = [x.name for x in table.fields()].index(name)
        assert index in {r.y for r in regions}


async def test_a_hidden_tab_is_fed_when_it_is_shown() -> None:
    async with started(LOOP, size=(100, 30)) as (app, pilot):
        await pilot.press("s", "s", "s")
        await pilot.pause()
        screen = app.screen
        assert screen.layout_name == "compact" and screen.tab == "registers"
        table = screen.query_one(FieldTable)
        assert table.inst is None  # the Struct tab is hidden: not refreshed at each step
        assert screen.query_one(ProgramView).pc_index == 1  # the Program pane always is
        await pilot.press("5")  # the Struct tab
        await pilot.pause()
        snap = app.session.snapshot()
        assert table.inst is not None and table.inst.offset == snap.instruction.offset


async def test_panes_hidden_by_a_maximised_pane_catch_up_when_it_is_restored() -> None:
    from neurondbg.views.registers import RegistersView

    async with started(LOOP) as (app, pilot):
        app.screen.query_one(ProgramView).focus()
        await pilot.press("z", "s", "s", "s")
        await pilot.pause()
        registers = app.screen.query_one(RegistersView)
        assert registers.snap.steps == 0  # hidden behind the maximised Program pane
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None
        assert registers.snap.steps == 3 and list(registers.snap.registers) == list(
            app.session.state.R)
