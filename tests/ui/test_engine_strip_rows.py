"""A NEFF's engine strip at 100x30: five engines and its DMA queues, each row on
screen (the strip takes the rows it needs, up to seven) or, beyond that, reached by
scrolling the Engines pane. Synthetic NEFFs only (tests.neff.synth)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from neurondbg.machine.neff.model import DmaQueue, Engine
from neurondbg.machine.neff.writer import write_neff
from neurondbg.views.engines import EnginesView
from neurondbg.views.pane import Pane
from tests.neff import synth
from tests.ui.helpers import started

SIZE = (100, 30)


def neff_with_queues(folder: Path, queues: int, loads: int = 2) -> Path:
    """synth.vector_add (SP triggering `loads` entries) with `queues` DMA queues (its
    own and more, one entry each)."""
    sg = synth.vector_add(loads)
    extra = [f"qSPIO{i}" for i in range(1, queues)]
    entries = tuple(dataclasses.replace(synth.load(0), queue=q) for q in extra)
    sg = dataclasses.replace(
        sg, queues={**sg.queues, **{q: DmaQueue(q, Engine.SP, synth.SEMS) for q in extra}},
        entries={Engine.SP: (*sg.entries[Engine.SP], *entries)})
    path = folder / "k.neff"
    write_neff(path, [sg], target="sunda")
    return path


def rows_on_screen(app, strip: EnginesView) -> list[int]:
    """The strip's lines drawn on screen (by the screen's own hit test, cell by cell)."""
    out = []
    for y in range(app.size.height):
        widget, _ = app.screen.get_widget_at(strip.region.x + 2, y)
        if widget is strip:
            out.append(y - strip.region.y)  # the region moves up as the pane scrolls
    return out


async def test_seven_rows_are_all_shown_at_100x30(tmp_path: Path) -> None:
    async with started(neff_with_queues(tmp_path, 2), size=SIZE) as (app, pilot):
        await pilot.pause()
        rows = app.session.snapshot().engines
        assert [r.engine for r in rows][-2:] == ["qSPIO0", "qSPIO1"]
        strip = app.screen.query_one(EnginesView)
        assert rows_on_screen(app, strip) == list(range(7))
        assert str(strip.render()).splitlines()[6][2:].startswith("qSPIO1")


async def test_more_rows_scroll_into_view_at_100x30(tmp_path: Path) -> None:
    async with started(neff_with_queues(tmp_path, 4), size=SIZE) as (app, pilot):
        await pilot.pause()
        assert len(app.session.snapshot().engines) == 9
        strip = app.screen.query_one(EnginesView)
        pane = app.screen.query_one("#pane-engines", Pane)
        assert rows_on_screen(app, strip) == list(range(7))
        pane.scroll_end(animate=False)
        await pilot.pause()
        assert rows_on_screen(app, strip)[-1] == 8
