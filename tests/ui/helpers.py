"""What most Pilot tests start with: the App on a program, its load finished."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from neurondbg.app import NeurondbgApp

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
