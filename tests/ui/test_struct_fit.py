"""The Struct pane in a short slot (the kernel screen's tab at 100x30) gives its rows to
the fields: the hex dump, cut to two of its four rows, left one field line visible."""

from __future__ import annotations

from tests.ui.helpers import started
from views.struct_view import DUMP_FROM_HEIGHT, FieldTable, HexDump, StructView

KERNEL = "sessions/examples/kernels/double_buffer.asm"


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
