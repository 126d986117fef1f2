"""The command palette offers every console command, read from the registry, and no
entry twice (Textual's own "Keys", "Maximize" and "Quit" give way to ours)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.app import NeurondbgApp
from neurondbg.console import REGISTRY, Reply
from neurondbg.palette import command_entry
from neurondbg.registry import Arg, Args, Command, text
from tests.ui.helpers import lab_started, started

STEPS = Path(__file__).parent / "data" / "steps.asm"
KERNEL = "sessions/examples/kernels/double_buffer.asm"


def titles_and_commands(app: NeurondbgApp) -> tuple[list[str], dict[str, int]]:
    """The palette's static titles, and how many entries run each console command."""
    commands = list(app.get_system_commands(app.screen))
    runs: dict[str, int] = {}
    for c in commands:
        entry = c.callback.args[0] if hasattr(c.callback, "args") else None
        if entry is not None and entry.line:
            cmd = REGISTRY.split(entry.line)[1]
            assert cmd is not None, entry
            runs[cmd.name] = runs.get(cmd.name, 0) + 1
    return [c.title for c in commands], runs


@pytest.mark.parametrize("program", [STEPS, KERNEL])
async def test_every_console_command_is_offered_and_no_title_twice(program) -> None:
    async with started(program) as (app, _pilot):
        titles, runs = titles_and_commands(app)
        assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)
        assert "Keys" not in titles and "Maximize" not in titles
        assert {"Theme", "Screenshot", "Help screen", "Maximise / restore pane"} <= set(titles)
        assert set(runs) == set(REGISTRY.names)
        # once each, but `pane` (one entry per pane besides the command's own)
        assert {name for name, n in runs.items() if n > 1} == {"pane"}
        for name in ("fix", "explain", "diagnose", "watch"):
            assert runs[name] == 1, name


async def test_a_command_with_arguments_is_typed_for_the_user_to_finish() -> None:
    async with started(STEPS) as (app, pilot):
        entries = {c.title: c for c in app.get_system_commands(app.screen)}
        await entries["Watch"].callback()
        await pilot.pause()
        assert app.query_one("#console-input").value == "watch "
        assert app.session is not None and app.session.state.steps == 0


def test_derived_entries_follow_the_usage() -> None:
    def noop(session: object, args: Args) -> Reply:
        return Reply()

    def arg(name: str, optional: bool = False) -> Arg[str]:
        return Arg(name, "", text, optional=optional)

    def derived(name: str, *args: Arg[str], suffix: bool = False) -> tuple[str, str]:
        e = command_entry(Command(name, "does it", noop, args, suffix=suffix))
        return e.title, e.line

    assert derived("fix", arg("N", optional=True)) == ("Fix", "fix ")
    assert derived("explain", arg("TEXT")) == ("Explain", "explain ")
    assert derived("quit") == ("Quit", "quit")
    assert derived("reverse-continue") == ("Reverse continue", "reverse-continue")
    assert derived("x", arg("/NF", optional=True), arg("ADDR"), suffix=True) == \
        ("x/NF ADDR", "x ")
    assert command_entry(Command("fix", "does it", noop, (arg("N", optional=True),))).help == \
        "does it (console: fix [N])"


async def test_the_lab_alone_keeps_textuals_quit() -> None:
    async with lab_started() as (app, _pilot, _lab):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Quit" in titles and "Step" not in titles
