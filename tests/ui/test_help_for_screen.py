"""`?` on the kernel screen lists that screen's digits (they pick other panes than the
program layout's, which the help listed there as well, first)."""

from __future__ import annotations

from textual.widgets import Static

from neurondbg.screens.help import HelpScreen
from tests.ui.helpers import started

KERNEL = "sessions/examples/kernels/double_buffer.asm"
LOOP = "sessions/examples/loop.asm"


async def help_lines(path: str) -> list[str]:
    async with started(path) as (app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one(Static).render())
        return [" ".join(line.split()) for line in text.splitlines()]


async def test_the_kernel_help_gives_the_kernel_screens_digits() -> None:
    lines = await help_lines(KERNEL)
    assert "2 pane Engines" in lines and "3 pane Timeline" in lines and "8 pane SBUF" in lines
    assert "3 pane DVE acc / idx" not in lines and "8 pane Convert trace" not in lines
    assert "Plot" not in lines and "Convert trace" not in lines  # panes it does not have
    assert lines.index("NeuronCore (a kernel: keys 1..9 and 0 pick its panes)") < lines.index(
        "Program")
    assert "S one scheduler step (the policy picks the engine)" in lines


async def test_the_program_help_gives_the_program_layouts_digits() -> None:
    lines = await help_lines(LOOP)
    assert "3 pane DVE acc / idx" in lines and "8 pane Convert trace" in lines
    assert "Plot" in lines and "Convert trace" in lines
