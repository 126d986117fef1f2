"""`wait_loaded` right after the App starts waits for the first load (the snapshot
harness calls it from an auto-pilot that can run before the debugger screen is mounted:
returning at once there would lose the keys pressed next, and snapshots would show one
step fewer than their tests pressed)."""

from __future__ import annotations

from textual.pilot import Pilot

from neurondbg.app import NeurondbgApp
from tests.ui.helpers import SIZE
from tests.ui.test_snapshots import STEPS


def test_keys_pressed_after_wait_loaded_at_start_all_step() -> None:
    async def auto_pilot(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, NeurondbgApp)
        await app.wait_loaded()
        await pilot.press("s", "s")
        await pilot.pause()
        app.exit(app.session.state.steps if app.session is not None else None)

    assert NeurondbgApp(STEPS).run(headless=True, auto_pilot=auto_pilot, size=SIZE) == 2


def test_the_lab_alone_has_nothing_to_wait_for() -> None:
    async def auto_pilot(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, NeurondbgApp)
        await app.wait_loaded()
        app.exit("done")

    assert NeurondbgApp(lab_only=True).run(headless=True, auto_pilot=auto_pilot,
                                           size=SIZE) == "done"
