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


def test_a_step_repaints_the_rows_that_changed_and_the_strip_reads_right() -> None:
    """A core step moves one engine and the focus mark: the rows that changed are drawn
    again, the others come from the cache, and every drawn line is the text's."""
    from dataclasses import replace

    from textual.geometry import Region

    async def main() -> tuple[list[str], list[str], set[int]]:
        app = Strip()
        async with app.run_test(size=(140, 10)) as pilot:
            view = app.query_one(EnginesView)
            view.show(ROWS)
            await pilot.pause()
            size = view.size
            view.render_lines(Region(0, 0, size.width, size.height))
            moved = [ROWS[0], replace(ROWS[1], steps=223, pc=0x80), ROWS[2]]
            view.show(moved)
            dirty = set(view._styles_cache._dirty_lines)
            drawn = ["".join(s.text for s in strip).rstrip()
                     for strip in view.render_lines(Region(0, 0, size.width, size.height))]
            return drawn[:3], view.text().plain.split("\n"), dirty

    drawn, text, dirty = asyncio.run(main())
    assert drawn == [line.rstrip() for line in text] and "223 steps" in drawn[1]
    assert dirty == {1}
