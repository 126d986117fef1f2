"""The kernel screen at 100x30: the Semaphores tab opens under the Engines, both the full
width (beside them it took 62 of the 100 columns and cut the engines' status)."""

from __future__ import annotations

from tests.ui.helpers import started

DEADLOCK = "sessions/examples/kernels/deadlock.asm"


async def test_the_semaphores_tab_is_under_the_engines_at_full_width() -> None:
    async with started(DEADLOCK, size=(100, 30)) as (app, pilot):
        await pilot.press("5")  # the Semaphores tab
        await pilot.pause()
        engines = app.screen.query_one("#pane-engines")
        sems = app.screen.query_one("#pane-semaphores")
        assert sems.display and sems.region.width == engines.region.width == 100
        assert sems.region.y >= engines.region.bottom
        assert sems.region.height >= 7  # the deadlock's explanation: 5 lines and more
        status = app.screen.query_one("#engines").render_line(0).text
        assert "waiting on sem[1] >= 1" in status, status
        await pilot.press("4")  # another tab: the engines strip as before
        await pilot.pause()
        assert not sems.display and engines.region.height == 4
