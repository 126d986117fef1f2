"""Tab in the console completes a command's argument from the registry, in the real App."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import started, tabbed

LOOP = Path(__file__).parent / "data" / "loop.asm"



async def test_tab_completes_arguments_from_the_command_registry() -> None:
    async with started(LOOP) as (app, pilot):
        assert await tabbed(app, pilot, "break lab") == "break label:"  # a spec kind
        assert await tabbed(app, pilot, "break label:t") == "break label:top"  # the program's
        assert await tabbed(app, pilot, "until t") == "until top"
        assert await tabbed(app, pilot, "info b") == "info breakpoints"
        assert await tabbed(app, pilot, "brea") == "break "  # the first word, as before
        assert await tabbed(app, pilot, "break zz") == "break zz"  # nothing matches: unchanged
