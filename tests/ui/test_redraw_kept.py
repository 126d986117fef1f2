"""A listing or a verdict shown again draws from the lines it drew before: a kernel's core
step moves the focus to another engine every step, so the Program pane swaps listings and
the Legality pane swaps verdicts every step; keying their cached lines by a version bumped
on every swap would redraw ~30 lines a step (tests/ui/test_program_redraw.py and
test_legality_redraw.py keep that a new listing or verdict is still drawn)."""

from __future__ import annotations

from rich.text import Text

from neurondbg.debug.snapshot import ProgramLine, Snapshot
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire.samples import example
from neurondbg.views.legality import LegalityView, wrap_lines
from neurondbg.views.program import ProgramView
from tests.ui.helpers import started

LOOP = "sessions/examples/loop.asm"
COPY_MISMATCH = "sessions/examples/copy_type_mismatch.asm"


def listing(word: str) -> tuple[ProgramLine, ...]:
    return tuple(ProgramLine(i, i * 64, f"{word} {i}", listing=f"{word} {i}") for i in range(3))


def counting(view: ProgramView | LegalityView) -> list[int]:
    """Every call of the view's line_text, recorded (one entry per call)."""
    calls: list[int] = []
    own = view.line_text

    def line_text(index: int) -> Text:
        calls.append(index)
        return own(index)

    view.line_text = line_text  # type: ignore[method-assign]
    return calls


async def test_a_listing_shown_again_is_drawn_from_its_cached_lines() -> None:
    async with started(LOOP) as (app, _pilot):
        view = app.screen.query_one("#program", ProgramView)
        alpha, bravo = listing("ALPHA"), listing("BRAVO")
        calls = counting(view)
        view.show(Snapshot(lines=alpha, pc_index=0))
        first = [view.render_line(y).text.rstrip() for y in range(3)]
        view.show(Snapshot(lines=bravo, pc_index=0))
        assert "BRAVO 0" in view.render_line(0).text
        made = len(calls)
        view.show(Snapshot(lines=alpha, pc_index=0))
        again = [view.render_line(y).text.rstrip() for y in range(3)]
        assert again == first and "ALPHA 2" in again[2]
        assert len(calls) == made  # no line made afresh
        view.show(Snapshot(lines=listing("ALPHA"), pc_index=0))  # equal, but another listing
        view.render_line(0)
        assert len(calls) == made + 1


async def test_a_verdict_shown_again_keeps_its_text_and_cached_lines() -> None:
    valid = explain(example("is_valid_copy"), "cayman")
    invalid = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    async with started(COPY_MISMATCH) as (app, pilot):
        view = app.screen.query_one(LegalityView)
        calls = counting(view)
        view.show(Snapshot(verdict=invalid))
        await pilot.pause()
        lines = view.lines
        first = [view.render_line(y).text.rstrip() for y in range(view.size.height)]
        view.show(Snapshot(verdict=valid))
        assert "VALID" in view.render_line(0).text and "INVALID" not in view.lines[0].plain
        made = len(calls)
        view.show(Snapshot(verdict=invalid))
        assert view.lines is lines and "INVALID" in view.lines[0].plain
        assert [view.render_line(y).text.rstrip() for y in range(view.size.height)] == first
        assert len(calls) == made  # no line made afresh


async def test_a_kept_verdict_follows_a_and_the_width() -> None:
    invalid = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    valid = explain(example("is_valid_copy"), "cayman")
    async with started(COPY_MISMATCH) as (app, pilot):
        view = app.screen.query_one(LegalityView)
        view.show(Snapshot(verdict=invalid))
        folded = [t.plain for t in view.lines]
        view.action_toggle_expand()  # `a`: every sub-clause, not the kept collapsed text
        expanded = [t.plain for t in view.lines]
        assert expanded != folded and not any("▸" in t for t in expanded)
        view.show(Snapshot(verdict=valid))
        view.show(Snapshot(verdict=invalid))
        assert [t.plain for t in view.lines] == expanded
        view.action_toggle_expand()
        assert [t.plain for t in view.lines] == folded
        view.show(Snapshot(verdict=valid))
        wide = view._wrapped_at
        await pilot.resize_terminal(200, 50)  # wider: the kept text is wrapped again
        await pilot.pause()
        assert view._wrapped_at > wide
        view.show(Snapshot(verdict=invalid))
        assert view._wrapped_at == view.wrap_width()
        assert [t.plain for t in view.lines] == [
            t.plain for t in wrap_lines(view.logical, view.wrap_width(), app.console)]
        assert len(view.lines) < len(folded)  # the same messages on fewer, wider lines
