"""The Program pane keeps PROGRAM_ROWS listing rows, the current instruction among them,
at every size from 80x24 up: for a NEFF (five engines and several DMA queues, a strip
taller than the rows allow), an ordinary kernel and a single program, whichever tab is
shown, and in a tour beside its note (neurondbg/screens/arrange.py `fit_rows`).
Synthetic NEFFs only."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Size

from neurondbg.panes import Layout
from neurondbg.screens.arrange import (
    CHROME_ROWS,
    FRAME,
    LOW_ROWS,
    NOTE_LEAST,
    PROGRAM_HEIGHT,
    PROGRAM_ROWS,
    SLOT_ROWS,
    STRIP_ROWS,
    TIMELINE_ROWS,
    RowFit,
    always_shown,
    fit_rows,
    layout_for,
)
from neurondbg.views.engines import EnginesView
from neurondbg.views.program import ProgramView
from tests.ui.helpers import started
from tests.ui.test_engine_strip_rows import neff_with_queues, rows_on_screen

KERNEL = "sessions/examples/kernels/double_buffer.asm"
PROGRAM = Path(__file__).parent / "data" / "steps.asm"
SIZES = [(80, 24), (100, 30), (120, 40)]
QUEUES = 8  # a NEFF's strip: five engines and eight DMA queues, thirteen rows
LOADS = 16  # SP's program: SET_ORDERING_MODE and a DMA trigger per load


def fixed_rows(size: Size, layout: Layout, fit: RowFit, rows: int) -> int:
    """The rows the screen gives its bands of fixed height as `fit` says, the Program's
    least included (and, out of a tour, the compact kernel layout's shown tab's)."""
    kind = layout_for(size)
    fixed = CHROME_ROWS[kind] + LOW_ROWS[layout][kind] + PROGRAM_HEIGHT + fit.note
    if layout is Layout.PROGRAM:
        return fixed
    timeline = min(rows + 3, TIMELINE_ROWS) + FRAME if fit.timeline else 0
    slot = SLOT_ROWS + FRAME if kind == "compact" and not fit.note else 0
    return fixed + fit.strip + timeline + slot


@pytest.mark.parametrize("tour", [False, True])
def test_the_rule_leaves_the_program_its_rows_at_every_size(tour: bool) -> None:
    for width in (80, 99, 100, 149, 150, 200):
        for height in range(24, 61):
            size = Size(width, height)
            for rows in range(1, 21):
                fit = fit_rows(size, Layout.KERNEL, rows, tour)
                assert fixed_rows(size, Layout.KERNEL, fit, rows) <= height, (size, rows, fit)
                if fit.strip:  # at least STRIP_ROWS of the strip, or all of it
                    assert fit.strip >= min(rows, STRIP_ROWS) + FRAME, (size, rows, fit)
                assert (fit.note >= NOTE_LEAST) is tour, (size, rows, fit)
            if layout_for(size) == "compact":  # wide, a program's Program band is fixed
                fit = fit_rows(size, Layout.PROGRAM, tour=tour)
                assert fixed_rows(size, Layout.PROGRAM, fit, 0) <= height, (size, fit)


def test_the_rule_shrinks_the_strip_then_makes_the_timeline_a_tab() -> None:
    def fit(width: int, height: int, rows: int, tour: bool = False) -> RowFit:
        return fit_rows(Size(width, height), Layout.KERNEL, rows, tour)

    assert fit(160, 50, 13) == RowFit(14, True)  # as before: 12 rows
    assert fit(150, 44, 13) == RowFit(9, True)  # was 14: the Program had 2 rows
    assert fit(120, 40, 13) == RowFit(9, True)
    assert fit(100, 36, 13) == RowFit(6, True)  # 4 rows, scrolled
    assert fit(100, 30, 13) == RowFit(9, False)  # the Timeline a tab
    assert fit(100, 30, 2) == RowFit(4, False)
    assert fit(100, 31, 2) == RowFit(4, True)
    assert fit(100, 25, 13) == RowFit(5, False)
    assert fit(100, 24, 13) == RowFit(0, False)  # both tabs
    assert fit(99, 40, 13) == RowFit(0, False)  # narrow: both tabs
    assert fit(79, 40, 13) == RowFit(0, False)  # too small
    assert fit(100, 30, 2, tour=True) == RowFit(4, False, 6)
    assert fit(150, 44, 2, tour=True) == RowFit(7, True, 5)  # the note gives way, wide
    assert fit_rows(Size(80, 24), Layout.PROGRAM, tour=True) == RowFit(0, False, 5)
    assert fit_rows(Size(160, 50), Layout.PROGRAM, tour=True) == RowFit(0, False, 9)
    assert always_shown(Layout.KERNEL, RowFit(9, False)) == ("program", "console", "engines")
    assert always_shown(Layout.PROGRAM, RowFit(0, False)) == ("program", "console")


def listing_rows(app) -> tuple[int, list[str]]:
    """The Program pane's listing rows on screen and their text."""
    view = app.screen.query_one(ProgramView)
    rows = view.scrollable_content_region.height
    return rows, [view.render_line(y).text for y in range(rows)]


async def check_each_tab(app, pilot, digits: str) -> None:
    """For each tab `digits` picks: the Program shows PROGRAM_ROWS listing rows, one of
    them the current instruction, and lies on screen above the footer."""
    for key in digits:
        await pilot.press(key)
        await pilot.pause()
        rows, text = listing_rows(app)
        assert rows >= PROGRAM_ROWS, (app.size, app.screen.tab, rows)
        assert any("▶" in line for line in text), (app.size, app.screen.tab, text)
        pane = app.screen.query_one("#pane-program")
        assert pane.region.bottom <= app.size.height - 1, (app.size, pane.region)


@pytest.mark.parametrize("size", [*SIZES, (150, 44)])  # 150x44: the strip capped
async def test_a_neff_keeps_its_program_rows(tmp_path: Path, size: tuple[int, int]) -> None:
    async with started(neff_with_queues(tmp_path, QUEUES, LOADS), size=size) as (app, pilot):
        assert len(app.session.snapshot().engines) == 5 + QUEUES
        for _ in range(6):
            await pilot.press("S")
        await app.run_command_async("focus sp")  # the engine with a listing to scroll
        for _ in range(10):
            await pilot.press("s")
        await pilot.pause()
        assert app.session.snapshot().pc == 11 * 64  # a core step of its own, and ten
        await check_each_tab(app, pilot, "456780")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("source", "keys", "tabs"), [(KERNEL, "SSSSS", "45678"),
                                                      (PROGRAM, "sss", "23578")],
                         ids=["kernel", "program"])
async def test_a_kernel_or_a_program_keeps_its_program_rows(
        size: tuple[int, int], source: str | Path, keys: str, tabs: str) -> None:
    async with started(source, size=size) as (app, pilot):
        await pilot.press(*keys)
        await pilot.pause()
        await check_each_tab(app, pilot, tabs)


async def test_a_shrunk_strip_scrolls_the_focused_engine_into_view(tmp_path: Path) -> None:
    """At 100x36 the strip has four of its thirteen rows: focusing each engine in turn
    scrolls its row into view."""
    async with started(neff_with_queues(tmp_path, QUEUES, LOADS), size=(100, 36)) as (app, pilot):
        strip = app.screen.query_one(EnginesView)
        for _ in range(5):
            await pilot.press("e")
            await pilot.pause()
            rows = app.session.snapshot().engines
            focused = next(i for i, row in enumerate(rows) if row.focused)
            shown = rows_on_screen(app, strip)
            assert len(shown) == 4 and focused in shown, (focused, shown)


@pytest.mark.parametrize("name", ["move-gate", "semaphores"])  # a program's, a kernel's
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (150, 44)])
async def test_a_tour_keeps_the_program_rows_and_its_note_on_screen(
        name: str, size: tuple[int, int]) -> None:
    from neurondbg.commands.tour import tour_app

    async with started(app=tour_app(name), size=size) as (app, pilot):
        await pilot.press("n")
        await pilot.pause()
        await check_each_tab(app, pilot, "4")
        note = app.screen.query_one("#tour")
        assert note.region.height >= NOTE_LEAST and note.region.bottom <= size[1] - 1
        assert app.screen.max_scroll_y == 0  # nothing pushed below the footer
