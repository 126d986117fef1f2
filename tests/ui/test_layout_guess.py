"""The App guesses a file's layout (a kernel or one program) from a first look
(sessions.kernel_kind.looks_like_kernel) so that its first frame needs no assembly; the
first load checks the guess with `opens_as_kernel`, and when the two disagree the
screen of the right layout replaces the first one, with the file loaded in it."""

from __future__ import annotations

from pathlib import Path

from neurondbg.screens.main import DebuggerScreen
from neurondbg.sessions.examples import folder
from neurondbg.sessions.kernel_kind import FIRST_LOOK_BYTES, looks_like_kernel, opens_as_kernel
from tests.ui.helpers import started

KERNEL = folder() / "kernels" / "producer_consumer.asm"


def _console(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return "\n".join(str(line.text) for line in screen.query_one("#console-log").lines)


async def test_a_program_that_mentions_engine_sections_opens_as_a_program(
        tmp_path: Path) -> None:
    path = tmp_path / "p.asm"
    path.write_text("# not a kernel: no .engine section here\nMOVE R1=1\nHALT\n")
    assert looks_like_kernel(path) and not opens_as_kernel(path)
    async with started(path) as (app, pilot):
        await pilot.pause()
        assert not app.core_mode and isinstance(app.screen, DebuggerScreen)
        assert not app.screen.kernel
        assert app.session is not None and app.session.lone
        text = _console(app)
        assert "loaded p.asm (2 records" in text and "error" not in text
        await pilot.press("s")
        assert app.session.state.R[1] == 1


async def test_a_kernel_too_large_for_the_first_look_opens_as_a_kernel(
        tmp_path: Path) -> None:
    path = tmp_path / "big.asm"
    pad = "# padding\n" * (FIRST_LOOK_BYTES // 10 + 1)
    path.write_text(pad + KERNEL.read_text())
    assert not looks_like_kernel(path) and opens_as_kernel(path)
    async with started(path) as (app, pilot):
        await pilot.pause()
        assert app.core_mode and isinstance(app.screen, DebuggerScreen) and app.screen.kernel
        assert app.session is not None and app.session.engines == ("pool", "dve")
        assert "loaded kernel big.asm (2 engines" in _console(app)
        await pilot.press("S")
        assert app.session.core.steps == 1
