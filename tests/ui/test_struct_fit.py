"""The Struct pane fits its slot: a short one (the kernel screen's tab at 100x30) gives
its rows to the fields (the hex dump, cut to two of its four rows, left one field line
visible), a narrow one a head line whose Δ legend is whole (never cut mid-phrase)."""

from __future__ import annotations

from textual.widgets import Static

from neurondbg.views.struct_view import DUMP_FROM_HEIGHT, FieldTable, HexDump, StructView
from tests.ui.helpers import started

KERNEL = "sessions/examples/kernels/double_buffer.asm"
LOOP = "sessions/examples/loop.asm"


def head(app) -> str:
    return str(app.screen.query_one("#struct-head", Static).render())


async def test_a_short_struct_slot_shows_fields_not_half_a_dump() -> None:
    async with started(KERNEL, size=(100, 30)) as (app, pilot):
        await pilot.press("6")  # the Struct tab
        await pilot.pause()
        view = app.screen.query_one(StructView)
        assert view.size.height < DUMP_FROM_HEIGHT
        assert not app.screen.query_one(HexDump).display
        assert app.screen.query_one(FieldTable).size.height == view.size.height - 1
        await pilot.press("z")  # maximised: room for the dump again
        await pilot.pause()
        assert view.size.height >= DUMP_FROM_HEIGHT
        assert app.screen.query_one(HexDump).display


async def test_the_wide_layout_keeps_the_dump() -> None:
    async with started(KERNEL) as (app, pilot):
        await pilot.pause()
        assert app.screen.query_one(HexDump).display
        assert app.screen.query_one(HexDump).size.height == 4


async def test_the_head_line_keeps_the_legend_that_fits_whole() -> None:
    async with started(KERNEL) as (app, pilot):  # the Struct pane: 54 columns
        await pilot.pause()
        assert app.screen.query_one(StructView).size.width < 60
        assert head(app) == "CAST 0x47 · S4D4_TR · @0x0   Δ changed"
        await pilot.press("6", "z")  # maximised: the whole legend
        await pilot.pause()
        assert head(app) == "CAST 0x47 · S4D4_TR · @0x0   Δ changed since the last CAST"
    async with started(LOOP) as (app, pilot):  # the single-program layout: 78 columns
        await pilot.pause()
        assert head(app) == "MOVE 0xa7 · CTRL_MV · @0x0   Δ changed since the last MOVE"
