"""`pane NAME` maximises that pane and gives it the keyboard (the console's own line
for `pane console`); `z` maximises the pane holding the focus, from any part of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from neurondbg.app import NeurondbgApp
from neurondbg.views.pane import Pane
from tests.ui.helpers import started

EXAMPLES = Path(__file__).parents[2] / "examples"
PATHS = [EXAMPLES / "loop.asm", EXAMPLES / "kernels" / "producer_consumer.asm"]


def pane_of(app: NeurondbgApp) -> str | None:
    """The id of the pane holding the focus."""
    focused = app.screen.focused
    if focused is None:
        return None
    return next((a.id for a in focused.ancestors_with_self if isinstance(a, Pane)), None)


async def pane_name_maximises_it_and_moves_the_keyboard_there(app: NeurondbgApp,
                                                              pilot: Pilot) -> None:
    screen = app._debugger()
    assert screen is not None
    for name in screen.panes:
        box = app.screen.query_one("#console-input", Input)
        box.focus()
        box.value = f"pane {name}"
        await pilot.press("enter")
        await pilot.pause()
        maximised = app.screen.maximized
        assert maximised is not None and maximised.id == f"pane-{name}", name
        assert pane_of(app) == f"pane-{name}", name
        if name == "console":
            assert app.screen.focused is box  # typing goes on in the command line
        else:
            assert not isinstance(app.screen.focused, Input), name
        app.action_pane("")
        await pilot.pause()


async def z_maximises_the_pane_of_whatever_part_has_the_focus(app: NeurondbgApp,
                                                             pilot: Pilot) -> None:
    screen = app._debugger()
    assert screen is not None
    screen.build_views()
    await pilot.pause()
    parts = [w for w in screen.query("*") if w.focusable and not isinstance(w, Input)
             and any(isinstance(a, Pane) for a in w.ancestors)]
    assert len(parts) >= 8
    for w in parts:
        w.focus()
        await pilot.pause()
        want = pane_of(app)
        await pilot.press("z")
        await pilot.pause()
        maximised = app.screen.maximized
        assert maximised is not None and maximised.id == want, (w, want)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
async def test_pane_name_and_z_maximise_a_pane_and_keep_the_keyboard_in_it(path: Path) -> None:
    # one App for both checks (each restores the layout it maximised): most of their cost
    # is the App's start and the relayouts, the same for either
    async with started(path) as (app, pilot):
        await pane_name_maximises_it_and_moves_the_keyboard_there(app, pilot)
        assert app.screen.maximized is None
        await z_maximises_the_pane_of_whatever_part_has_the_focus(app, pilot)
