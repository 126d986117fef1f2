"""The engine strip keeps its columns whatever the queue names (a NEFF's DMA queues)."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult

from neurondbg.debug.snapshot import EngineRow
from neurondbg.views.engines import EnginesView


def row(name: str, status: str, steps: int) -> EngineRow:
    return EngineRow(name, 0x40, "NOP" if status == "running" else "", status, "", steps,
                     name == "pool")


ROWS = [row("pool", "running", 3), row("qSPSpillReload0", "idle", 222), row("sp", "halted", 1)]


class Strip(App[None]):
    def compose(self) -> ComposeResult:
        yield EnginesView()


def test_every_column_starts_at_the_same_place_on_every_line() -> None:
    async def main() -> list[str]:
        app = Strip()
        async with app.run_test(size=(140, 10)) as pilot:
            view = app.query_one(EnginesView)
            view.show(ROWS)
            await pilot.pause()
            return view.text().plain.split("\n")

    lines = asyncio.run(main())
    assert [ln.index(" pc 0x0040") for ln in lines] == [len("  qSPSpillReload0")] * 3
    statuses = ("running", "idle", "halted")
    assert len({ln.index(s) for ln, s in zip(lines, statuses, strict=True)}) == 1
    assert len({len(ln) for ln in lines}) == 1
    assert lines[1].startswith("  qSPSpillReload0 pc 0x0040")
