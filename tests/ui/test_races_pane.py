"""The kernel screen's Races pane: every race found so far (Core.race_rows), Enter on one
travels to the step that found it; races after the current step are gone. A program's
layout has no such pane."""

from __future__ import annotations

from pathlib import Path

from neurondbg.panes import CORE_PANES, PANES
from neurondbg.views.races import RacesView
from tests.ui.helpers import started

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MISSING_WAIT = EXAMPLES / "kernels" / "missing_wait.asm"


def lines(view: RacesView) -> list[str]:
    return [view.line_text(i).plain for i in range(view.line_count())]


async def test_enter_on_a_race_travels_to_the_step_that_found_it() -> None:
    async with started(MISSING_WAIT) as (app, pilot):
        view = app.screen.query_one(RacesView)
        assert lines(view) == ["no races found so far"]
        await pilot.press("c")
        await app.wait_loaded()
        await pilot.pause()
        assert app.session is not None
        end = app.session.core.steps
        assert lines(view)[:2] == ["#1 step 2  sbuf[0:128, 0x100:0x120]",
                                   "  pool CAST 0x0 write, then dve CAST 0x0 read"]
        assert lines(view)[2].startswith("  DVE should wait for sem[0] >= 1 before 0x0")
        await pilot.press("0")  # the tenth pane's key
        await pilot.pause()
        assert app.screen.focused is view
        await pilot.press("down", "enter")  # any line of the race
        await pilot.pause()
        assert app.session.core.steps == 2 < end  # right after the step that found it
        assert "travelled to step 2" in app.screen.sub_title
        await pilot.press("r")  # before it: the race is not found yet
        await pilot.pause()
        assert lines(view) == ["no races found so far"]


async def test_a_stop_at_a_race_lists_it_in_the_compact_layout_tab() -> None:
    async with started(MISSING_WAIT, size=(100, 30)) as (app, pilot):
        app.run_command("break race")
        await pilot.press("c")
        await app.wait_loaded()
        await pilot.press("0")
        await pilot.pause()
        pane = app.screen.query_one("#pane-races")
        assert pane.region.width == 100 and pane.region.height >= 5
        assert lines(app.screen.query_one(RacesView))[0].startswith("#1 step 2")


def test_only_the_kernel_layout_has_a_races_pane() -> None:
    assert "races" in CORE_PANES and "races" not in PANES
    assert list(CORE_PANES).index("races") == 9  # key 0, after Console's 9
