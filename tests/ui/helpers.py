"""What most Pilot tests start with: the App on a program, its load finished, or the
Convert Lab alone; picking in a Select and typing into an Input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select

from neurondbg.app import NeurondbgApp
from neurondbg.views.lab import ConvertLab

SIZE = (160, 50)  # the default layout's terminal


@asynccontextmanager
async def started(program: str | Path | None = None, *, size: tuple[int, int] = SIZE,
                  app: NeurondbgApp | None = None,
                  **options: Any) -> AsyncIterator[tuple[NeurondbgApp, Pilot]]:
    """`async with started(PROGRAM) as (app, pilot):` — run the App headless at `size`
    (or a prepared `app`) and wait for its program to load."""
    if app is None:
        app = NeurondbgApp(program, **options)
    async with app.run_test(size=size) as pilot:
        await app.wait_loaded()
        yield app, pilot


@asynccontextmanager
async def lab_started(size: tuple[int, int] = SIZE
                      ) -> AsyncIterator[tuple[NeurondbgApp, Pilot, ConvertLab]]:
    """`async with lab_started() as (app, pilot, lab):` — the Convert Lab alone (what
    `neurondbg lab` opens), headless at `size`."""
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, app.screen.query_one(ConvertLab)


async def choose(pilot: Pilot, select: str, value: object) -> None:
    """Pick `value` in the screen's Select `select` (a CSS id) and let the screen react."""
    pilot.app.screen.query_one(select, Select).value = value
    await pilot.pause()


async def type_value(pilot: Pilot, text: str, box: str = "#lab-input") -> None:
    """Type `text` into the screen's Input `box` and press Enter."""
    field = pilot.app.screen.query_one(box, Input)
    field.focus()
    field.value = text
    await pilot.press("enter")
    await pilot.pause()


async def tabbed(app: NeurondbgApp, pilot: Pilot, typed: str) -> str:
    """The console line after typing `typed` and pressing Tab."""
    field = app.screen.query_one("#console-input", Input)
    field.focus()
    field.value = typed
    field.cursor_position = len(typed)
    await pilot.press("tab")
    await pilot.pause()
    return field.value
