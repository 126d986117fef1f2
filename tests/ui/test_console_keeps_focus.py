"""After a console command the keyboard stays in the command line (letters typed next
are the next command, not hotkeys), on a program and on a kernel, whatever the size."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
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


@pytest.mark.parametrize("path", [EXAMPLES / "loop.asm",
                                  EXAMPLES / "kernels" / "missing_wait.asm"],
                         ids=lambda p: p.stem)
async def test_keys_typed_in_one_burst_after_colon_go_to_the_console(path: Path) -> None:
    """`:break op:CAST` pasted or typed faster than the App handles keys: every key after
    the first colon is text in the command line (the second colon too), none runs as a
    hotkey (`b` would set a breakpoint, `r` would reverse)."""
    async with started(path, size=(80, 24)) as (app, pilot):
        box = app.screen.query_one("#console-input", Input)
        before = len(app.session.breakpoints())
        assert app._driver is not None
        text = "break op:CAST"
        keys = [("colon", ":"), *((_KEY_NAMES.get(c, c), c) for c in text)]
        for key, char in keys:  # as a terminal delivers them: queued before any is handled
            app._driver.send_message(events.Key(key, char))
        await pilot.pause()
        assert app.screen.focused is box
        assert box.value == text
        assert len(app.session.breakpoints()) == before
        await pilot.press("enter")
        await app.wait_loaded()
        assert len(app.session.breakpoints()) == before + 1


_KEY_NAMES = {" ": "space", ":": "colon"}

