"""A pane fed another engine's listing or verdict repaints only the lines on screen
that read differently (views.lineview.LineView.update_size): at a core step the focus
moves to another engine, whose Program and Legality lines are often the same text."""

from __future__ import annotations

from neurondbg.debug.snapshot import ProgramLine, Snapshot
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire.samples import example
from neurondbg.views.legality import LegalityView
from neurondbg.views.program import ProgramView
from tests.ui.helpers import started

LOOP = "sessions/examples/loop.asm"
COPY_MISMATCH = "sessions/examples/copy_type_mismatch.asm"


def listing(*words: str) -> tuple[ProgramLine, ...]:
    return tuple(ProgramLine(i, i * 64, w, listing=w) for i, w in enumerate(words))


def dirty(view: ProgramView | LegalityView) -> set[int]:
    """The content lines the view will draw again at the next paint."""
    return set(view._styles_cache._dirty_lines)


async def test_another_listing_repaints_the_lines_that_differ() -> None:
    async with started(LOOP) as (app, pilot):
        view = app.screen.query_one("#program", ProgramView)
        view.show(Snapshot(lines=listing("NOP", "MOVE R1=1", "HALT"), pc_index=1))
        await pilot.pause()
        view.show(Snapshot(lines=listing("NOP", "MOVE R1=1", "HALT"), pc_index=1))
        assert dirty(view) == set()  # another listing, the same text
        view.show(Snapshot(lines=listing("NOP", "MOVE R1=2", "HALT"), pc_index=1))
        assert dirty(view) == {1}
        assert "MOVE R1=2" in view.render_line(1).text
        view.show(Snapshot(lines=listing("NOP", "MOVE R1=2"), pc_index=1))  # shorter
        assert dirty(view) >= {0, 1, 2}


async def test_an_equal_verdict_repaints_nothing() -> None:
    async with started(COPY_MISMATCH) as (app, pilot):
        view = app.screen.query_one(LegalityView)
        view.show(Snapshot(verdict=explain(example("is_valid_copy"), "cayman")))
        await pilot.pause()
        first = [view.render_line(y).text for y in range(view.size.height)]
        view.show(Snapshot(verdict=explain(example("is_valid_copy"), "cayman")))  # equal
        assert dirty(view) == set()
        bad = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
        view.show(Snapshot(verdict=bad))
        assert dirty(view) and [view.render_line(y).text
                                for y in range(view.size.height)] != first
