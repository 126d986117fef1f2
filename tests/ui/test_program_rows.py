"""The Program pane keeps PROGRAM_ROWS listing rows, the current instruction among them,
at every size from 80x24 up: for a NEFF (five engines and several DMA queues, a strip
taller than the rows allow), an ordinary kernel and a single program, whichever tab is
shown (neurondbg/screens/arrange.py `kernel_fit`). Synthetic NEFFs only."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Size

from neurondbg.panes import Layout
from neurondbg.screens.arrange import (
    CHROME_ROWS,
    FRAME,
    LOW_ROWS,
    PROGRAM_HEIGHT,
    PROGRAM_ROWS,
    SLOT_ROWS,
    STRIP_ROWS,
    TIMELINE_ROWS,
    KernelFit,
    always_shown,
    kernel_fit,
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


def fixed_rows(size: Size, fit: KernelFit, rows: int) -> int:
    """The rows a kernel screen gives its bands of fixed height as `fit` says, the
    Program's least and the compact layout's shown tab's included."""
    kind = layout_for(size)
    timeline = min(rows + 3, TIMELINE_ROWS) + FRAME if fit.timeline else 0
    slot = SLOT_ROWS + FRAME if kind == "compact" else 0
    return CHROME_ROWS[kind] + fit.strip + timeline + PROGRAM_HEIGHT + slot + LOW_ROWS[kind]


def test_the_rule_leaves_the_program_its_rows_at_every_size() -> None:
    for width in (80, 99, 100, 149, 150, 200):
        for height in range(24, 61):
            size = Size(width, height)
            for rows in range(1, 21):
                fit = kernel_fit(size, rows)
                assert fixed_rows(size, fit, rows) <= height, (size, rows, fit)
                if fit.strip:  # at least STRIP_ROWS of the strip, or all of it
                    assert fit.strip >= min(rows, STRIP_ROWS) + FRAME, (size, rows, fit)


def test_the_rule_shrinks_the_strip_then_makes_the_timeline_a_tab() -> None:
    assert kernel_fit(Size(160, 50), 13) == KernelFit(14, True)  # as before: 12 rows
    assert kernel_fit(Size(150, 44), 13) == KernelFit(9, True)  # was 14: Program 2 rows
    assert kernel_fit(Size(120, 40), 13) == KernelFit(9, True)
    assert kernel_fit(Size(100, 36), 13) == KernelFit(6, True)  # 4 rows, scrolled
    assert kernel_fit(Size(100, 30), 13) == KernelFit(9, False)  # the Timeline a tab
    assert kernel_fit(Size(100, 30), 2) == KernelFit(4, False)
    assert kernel_fit(Size(100, 31), 2) == KernelFit(4, True)
    assert kernel_fit(Size(100, 25), 13) == KernelFit(5, False)
    assert kernel_fit(Size(100, 24), 13) == KernelFit(0, False)  # both tabs
    assert kernel_fit(Size(99, 40), 13) == KernelFit(0, False)  # narrow: both tabs
    assert kernel_fit(Size(79, 40), 13) == KernelFit(0, False)  # too small
    assert always_shown(Layout.KERNEL, KernelFit(9, False)) == ("program", "console",
                                                                 "engines")
    assert always_shown(Layout.PROGRAM, KernelFit(0, False)) == ("program", "console")


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
async def test_a_kernel_keeps_its_program_rows(size: tuple[int, int]) -> None:
    async with started(KERNEL, size=size) as (app, pilot):
        for _ in range(5):
            await pilot.press("S")
        await pilot.pause()
        await check_each_tab(app, pilot, "45678")


@pytest.mark.parametrize("size", SIZES)
async def test_a_program_keeps_its_program_rows(size: tuple[int, int]) -> None:
    async with started(PROGRAM, size=size) as (app, pilot):
        for _ in range(3):
            await pilot.press("s")
        await pilot.pause()
        await check_each_tab(app, pilot, "23578")


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
