"""The `semaphores` tour: a kernel session opened as a tour, in the
NeuronCore layout, where n is one scheduler step."""

from __future__ import annotations

from neurondbg.views.semaphores import SemaphoresView
from tests.ui.helpers import started


async def test_the_semaphores_tour_opens_the_core_layout_and_n_steps_the_core() -> None:
    from neurondbg.commands.tour import tour_app
    from neurondbg.screens.main import DebuggerScreen

    async with started(app=tour_app("semaphores")) as (app, pilot):
        assert isinstance(app.screen, DebuggerScreen) and app.screen.kernel
        assert app.session.engines == ("pool", "dve")
        assert app.session.note().title == "Two queues, one SBUF"
        await pilot.press("n", "n")
        assert app.session.core.steps == 2
        assert app.session.note().title == "The wait passed, and still a race"
        assert "RACE #1" in str(app.screen.query_one(SemaphoresView).render())
        await pilot.press("n", "n", "n")  # the end of the tour: nothing moves past it
        assert app.session.core.steps == 4
        await pilot.press("N")
        assert app.session.core.steps == 3

