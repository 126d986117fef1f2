"""`open`, `load` and `tour` with unsaved work ask first, as `q` does (save / discard /
cancel): the one dialog of neurondbg.screens.quit, with the verb of what comes next."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.debug.session import Session
from neurondbg.screens.main import DebuggerScreen
from neurondbg.screens.quit import OpenScreen, QuitScreen, key_hint
from neurondbg.sessions.tours import find_tour
from tests.ui.helpers import started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"
LOOP = DATA / "loop.asm"

WORK = [  # what a user did, and what the question calls it
    ("break op:CAST", "breakpoints changed"),
    ("set R7 = 7", "values changed with `set`"),
    ("step 3", "the machine is at step 3 (loaded at 0)"),
]


def _tour_path() -> str:
    return str(find_tour("cast-rounding").path)


@pytest.mark.parametrize("work, what", WORK)
@pytest.mark.parametrize("opener", ["open {loop}", "load {session}", "tour cast-rounding"])
async def test_opening_with_unsaved_work_asks_and_cancel_keeps_it(
        tmp_path: Path, work: str, what: str, opener: str) -> None:
    session_file = tmp_path / "other.toml"
    Session(str(LOOP)).save(session_file)
    line = opener.format(loop=LOOP, session=session_file)
    async with started(STEPS) as (app, pilot):
        await app.run_command_async(work)
        app.run_command(line)
        await pilot.pause()
        assert isinstance(app.screen, OpenScreen) and app.screen.unsaved == [what]
        await pilot.press("escape")  # cancel: the session and its work stay
        await app.wait_loaded()
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen)
        assert app.session is not None and app.session.name == "steps.asm"
        assert app.unsaved() == [what]


async def test_discard_opens_and_save_saves_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    async with started(STEPS) as (app, pilot):
        await app.run_command_async("step 2")
        app.run_command(f"open {LOOP}")
        await pilot.pause()
        await pilot.press("d")  # open without saving
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.name == "loop.asm" and app.unsaved() == []
        assert not (tmp_path / "loop.session.toml").exists()
        await app.run_command_async("step 2")
        app.run_command(f"open {STEPS}")
        await pilot.pause()
        assert isinstance(app.screen, OpenScreen)
        await pilot.press("s")  # save, then open
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.name == "steps.asm" and app.unsaved() == []
    saved = Session(tmp_path / "loop.session.toml")
    assert saved.state.steps == 2


async def test_nothing_unsaved_opens_at_once_and_a_tour_opens() -> None:
    async with started(STEPS) as (app, pilot):
        app.run_command("tour cast-rounding")
        await app.wait_loaded()
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen)
        assert app.session.path == Path(_tour_path())


async def test_the_open_question_names_its_keys_and_what_comes_next() -> None:
    assert key_hint(OpenScreen.BINDINGS) == \
        "s: save, then open · d: open without saving · Esc / c: cancel"
    assert key_hint(QuitScreen.BINDINGS) == \
        "s: save and quit · q: quit without saving · Esc / c: cancel"
    async with started(STEPS) as (app, pilot):
        await app.run_command_async("break op:CAST")
        app.run_command(f"open {LOOP}")
        await pilot.pause()
        what = str(app.screen.query_one("#quit-what").render())
        keys = str(app.screen.query_one("#quit-keys").render())
        assert what == f"Unsaved work: breakpoints changed. Opening {LOOP} drops it."
        assert keys == f"{key_hint(OpenScreen.BINDINGS)}; the save goes to " \
            "steps.session.toml"
