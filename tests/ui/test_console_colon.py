"""A console line may start with one `:` (the key that opens the command line, typed
again by gdb's and vim's habit): `:break op:CAST` is `break op:CAST`, in the App's
command line, in `execute`, and in Tab completion; `::x` is the unknown command `:x`."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from neurondbg.app import NeurondbgApp
from neurondbg.console import REGISTRY, execute
from tests.ui.helpers import started, tabbed

LOOP = Path(__file__).parent / "data" / "loop.asm"  # has the label `top`


async def _enter(app: NeurondbgApp, pilot: Pilot, box: Input, line: str) -> None:
    assert app.screen.focused is box, line
    box.value = line
    await pilot.press("enter")
    await app.wait_loaded()
    await pilot.pause()


async def test_a_leading_colon_runs_the_command_in_the_command_line() -> None:
    async with started(LOOP, size=(80, 24)) as (app, pilot):
        box = app.screen.query_one("#console-input", Input)
        before = len(app.session.breakpoints())
        await pilot.press("colon")
        await _enter(app, pilot, box, "break op:CAST")
        await _enter(app, pilot, box, ":break op:CAST")  # the colon typed again, by habit
        await _enter(app, pilot, box, ": break op:MATMUL")  # blanks after it too
        specs = [bp.text for bp in app.session.breakpoints()[before:]]
        assert specs == ["op:CAST", "op:CAST", "op:MATMUL"]
        steps = app.session.state.steps
        await _enter(app, pilot, box, ":step 2")  # a command that runs the program
        assert app.session.state.steps == steps + 2
        assert app.screen.focused is box and box.value == ""


def test_a_leading_colon_is_dropped_once_and_only_once() -> None:
    assert execute(":help break", None).lines == execute("help break", None).lines
    assert execute(":", None).lines == []  # nothing to run, as an empty line
    assert execute("  :  ", None).lines == []
    assert execute("::help", None).lines[0][0].startswith("error: unknown command ':help'")
    assert execute(":bogus", None).lines[0][0].startswith("error: unknown command 'bogus'")
    assert REGISTRY.split(":x/4f sb[0, 0]") == ("x", REGISTRY.get("x"), "/4f sb[0, 0]")
    assert REGISTRY.split("::x")[1] is None


def test_completion_after_a_leading_colon_keeps_it() -> None:
    assert REGISTRY.completions(":brea") == [":break"]
    assert REGISTRY.completions(": brea") == [": break"]
    assert REGISTRY.completions("::brea") == []
    assert REGISTRY.completions(":info b") == [":info breakpoints"]
    assert REGISTRY.completions("info b") == ["info breakpoints"]


async def test_tab_completes_after_a_leading_colon() -> None:
    async with started(LOOP) as (app, pilot):
        assert await tabbed(app, pilot, ":brea") == ":break "
        assert await tabbed(app, pilot, ":break lab") == ":break label:"
        assert await tabbed(app, pilot, ":break label:t") == ":break label:top"
        assert await tabbed(app, pilot, ":info b") == ":info breakpoints"
        assert await tabbed(app, pilot, "::brea") == "::brea"  # `:brea` is no command
