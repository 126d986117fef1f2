"""After a console command the keyboard stays in the command line (letters typed next
are the next command, not hotkeys), on a program and on a kernel, whatever the size."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.ui.helpers import started

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMMANDS = ("step", "step 3", "continue", "reverse", "break op:CAST", "info breakpoints",
            "print R1", "set R3 = 4", "goto 0 0", "dtype fp32", "help", "reverse-continue",
            "bogus")


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=str)
@pytest.mark.parametrize("path", [EXAMPLES / "loop.asm",
                                  EXAMPLES / "kernels" / "missing_wait.asm"],
                         ids=lambda p: p.stem)
async def test_the_console_keeps_the_focus_after_each_command(path: Path,
                                                               size: tuple[int, int]) -> None:
    async with started(path, size=size) as (app, pilot):
        box = app.screen.query_one("#console-input", Input)
        await pilot.press("colon")
        for line in COMMANDS:
            assert app.screen.focused is box, line
            box.value = line
            await pilot.press("enter")
            await app.wait_loaded()
            await pilot.pause()
            assert app.screen.focused is box, line
            assert box.value == "", line
