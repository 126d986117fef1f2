"""The SBUF pane shows elements in the dtype of the instruction that last wrote the cells
in view (a conversion's output format), says so on its border, says when the last
writer's dtype is not known, and holds a dtype the user picked."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurondbg.debug.snapshot import WrittenRegion
from neurondbg.views.memory import MemoryView, touches
from tests.ui.helpers import started

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples"
CASTS = EXAMPLES / "cast_rounding.asm"  # fp32 -> bf16 at 0x400, FP8_EXP4 at 0x800, ...


async def test_the_grid_follows_each_casts_output_format_until_the_user_picks() -> None:
    async with started(CASTS) as (app, pilot):
        memory = app.screen.query_one(MemoryView)
        await pilot.press("s")  # CAST to bf16
        await pilot.pause()
        assert (memory.dtype, memory.start) == ("bf16", 0x400)
        assert "as written" in str(memory.border_subtitle)
        await pilot.press("s")  # CAST to FP8_EXP4
        await pilot.pause()
        assert memory.start == 0x800 and memory.dtype.startswith("fp8")
        memory.set_dtype("hex")  # the user's choice holds over the writer's
        await pilot.press("s")  # CAST to int8: out of view, the window follows it
        await pilot.pause()
        assert memory.dtype == "hex" and memory.start == 0xC00
        assert "last writer: int8" in str(memory.border_subtitle)


async def test_reversing_forgets_the_last_writers() -> None:
    async with started(CASTS) as (app, pilot):
        memory = app.screen.query_one(MemoryView)
        await pilot.press("s", "s", "r")
        await pilot.pause()
        assert memory.writers == [] and "writ" not in str(memory.border_subtitle)


async def test_a_write_of_unknown_dtype_says_so() -> None:
    async with started(CASTS) as (app, pilot):
        memory = app.screen.query_one(MemoryView)
        await pilot.pause()
        memory.writers.append(WrittenRegion("sbuf", 0, 128, slice(0, 4)))
        memory.show(memory.snap)
        assert "last writer's dtype not known" in str(memory.border_subtitle)


def test_a_write_touches_the_window_by_its_columns() -> None:
    assert touches(WrittenRegion("sbuf", 0, 1, slice(0x100, 0x120)), 0x110, 0x200)
    assert not touches(WrittenRegion("sbuf", 0, 1, slice(0x100, 0x120)), 0x120, 0x200)
    assert touches(WrittenRegion("sbuf", 0, 1, np.array([5, 900])), 800, 1000)
    assert not touches(WrittenRegion("sbuf", 0, 1, np.array([5, 900])), 6, 899)
