"""Console and palette: `save [PATH]` and `load PATH`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input

from neurondbg import console
from neurondbg.debug.session import Session
from neurondbg.screens.quit import OpenScreen
from tests.ui.helpers import started

STEPS = Path(__file__).parent / "data" / "steps.asm"


def test_save_without_a_path_names_the_program() -> None:
    reply = console.execute("save", Session(STEPS))
    assert (reply.action, reply.args) == ("save", ("steps.session.toml",))


def test_load_needs_a_path_and_opens_it() -> None:
    assert console.execute("load", None).lines == [
        ("error: load: expected a session file: load here.toml", "bold red")]
    assert console.execute("load x.toml", None).action == "open"


async def test_save_then_load_in_the_console(tmp_path: Path) -> None:
    here = Path.cwd()
    os.chdir(tmp_path)  # `save` without a path writes into the current folder
    try:
        async with started(STEPS) as (app, pilot):
            await pilot.press("s", "s", "s")
            app.run_command("save")
            await pilot.pause()
            saved = tmp_path / "steps.session.toml"
            assert saved.exists()
            await pilot.press("r", "r", "r")
            assert app.session.state.steps == 0
            app.run_command(f"load {saved}")
            await pilot.pause()
            # reversed since the save: the load asks first (d: open without saving)
            assert isinstance(app.screen, OpenScreen)
            await pilot.press("d")
            await app.wait_loaded()
            await pilot.pause()
            assert app.session.state.steps == 3
            app.run_command(f"save {tmp_path / 'other.toml'}")
            await pilot.pause()
            app.run_command(f"load {tmp_path / 'other.toml'}")
            await app.wait_loaded()
            app.run_command("save")  # never rewrites the opened session: PROGRAM.session.toml
            await pilot.pause()
            assert sorted(p.name for p in tmp_path.glob("*.toml")) == [
                "other.toml", "steps.session.toml"]
    finally:
        os.chdir(here)


async def test_palette_prefills_the_console() -> None:
    async with started(STEPS) as (app, pilot):
        app._prefill("load ")
        await pilot.pause()
        box = app.query_one("#console-input", Input)
        assert box.value == "load " and app.focused is box
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Save session" in titles and "Load session" in titles


async def test_escape_leaves_the_console_and_keys_act_on_the_program() -> None:
    from neurondbg.views.program import ProgramView

    async with started(STEPS) as (app, pilot):
        await pilot.press("colon", "h", "e", "l", "p", "enter", "escape")
        await pilot.pause()
        assert isinstance(app.focused, ProgramView)
        await pilot.press("s")
        await pilot.pause()
        assert app.session.state.steps == 1


async def test_tour_notes_join_their_source_lines() -> None:
    from neurondbg.sessions.tours import TOURS_DIR
    from neurondbg.views.console_view import ConsoleView

    async with started(TOURS_DIR / "move_gate.toml") as (app, pilot):
        await pilot.pause()
        note = app.session.note()
        assert "\n" in note.text.strip()  # the TOML text has line breaks ...
        joined = " ".join(note.text.split())
        assert joined in app.screen.query_one(ConsoleView).messages  # ... the console line not


async def test_lab_iss_opens_the_lab_on_a_primitive() -> None:
    from neurondbg.screens.lab import LabScreen
    from neurondbg.views.lab import ConvertLab

    refused = console.execute("lab iss nope", None).lines[0][0]
    assert refused.startswith("error: lab: expected: lab iss NAME [VALUE]; primitives: float")
    async with started(STEPS) as (app, pilot):
        app.run_command("lab iss packl 0x10000")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        lab = app.screen.query_one(ConvertLab)
        assert lab.iss_mode and lab.iss_name == "packl"


async def test_lab_with_an_unknown_format_is_a_console_error() -> None:
    from neurondbg.screens.main import DebuggerScreen
    from neurondbg.views.console_view import ConsoleView

    async with started(STEPS) as (app, pilot):
        app.run_command("lab 1.5 fp32 nope")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, DebuggerScreen)
        assert any("unknown format 'nope'" in m
                   for m in app.screen.query_one(ConsoleView).messages)


async def test_lab_with_a_bad_value_is_a_console_error() -> None:
    from neurondbg.screens.lab import LabScreen
    from neurondbg.screens.main import DebuggerScreen
    from neurondbg.views.console_view import ConsoleView

    async with started(STEPS) as (app, pilot):
        for line in ("lab abc", "lab iss packvr zz"):
            app.run_command(line)
            await pilot.pause()
            assert isinstance(app.screen, DebuggerScreen), line
        messages = app.screen.query_one(ConsoleView).messages
        assert sum(m.startswith("error: lab") for m in messages) == 2
        app.run_command("lab iss packl")  # no value: lane 0
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)


async def test_pane_console_keeps_the_command_line_focused() -> None:
    async with started(STEPS) as (app, pilot):
        app.run_command("pane console")
        await pilot.pause()
        assert app.focused is app.query_one("#console-input", Input)
        assert app.screen.maximized is not None
        await pilot.press("s", "b")  # typed text, not the step / break keys
        assert app.session.state.steps == 0 and app.focused.value == "sb"


def test_goto_and_break_pc_reject_what_can_never_show_or_hit() -> None:
    session = Session(STEPS)
    assert "sbuf partition 500 does not exist" in console.execute("goto 500 0", session).lines[0][0]
    with pytest.raises(ValueError, match="a multiple of 64"):
        from neurondbg.machine.breakpoints import parse_spec

        parse_spec("pc:0x81")


def test_set_pc_needs_a_record_address() -> None:
    session = Session(STEPS)
    with pytest.raises(ValueError, match="is not a record address"):
        session.set_value("PC", "0x7")
    session.set_value("PC", "0x40")
    assert session.state.pc == 0x40


async def test_open_from_the_console_keeps_the_command_line_focused() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("colon")
        app.run_command(f"open {STEPS}")
        await app.wait_loaded()
        await pilot.pause()
        assert app.focused is app.query_one("#console-input", Input)
