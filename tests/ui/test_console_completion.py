"""Tab in the console completes a command's argument from the registry, in the real App."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from neurondbg.app import NeurondbgApp
from tests.ui.helpers import started

LOOP = Path(__file__).parent / "data" / "loop.asm"


async def _tab(app: NeurondbgApp, pilot, typed: str) -> str:
    field = app.screen.query_one("#console-input", Input)
    field.focus()
    field.value = typed
    field.cursor_position = len(typed)
    await pilot.press("tab")
    await pilot.pause()
    return field.value


async def test_tab_completes_arguments_from_the_command_registry() -> None:
    async with started(LOOP) as (app, pilot):
        assert await _tab(app, pilot, "break lab") == "break label:"  # a spec kind
        assert await _tab(app, pilot, "break label:t") == "break label:top"  # the program's
        assert await _tab(app, pilot, "until t") == "until top"
        assert await _tab(app, pilot, "info b") == "info breakpoints"
        assert await _tab(app, pilot, "brea") == "break "  # the first word, as before
        assert await _tab(app, pilot, "break zz") == "break zz"  # nothing matches: unchanged
