"""One command registry: HELP, completion, the palette, the help screen and dispatch."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.actions import parse as parse_action
from textual.binding import Binding
from textual.dom import DOMNode

import neurondbg.screens
from neurondbg import console, views
from neurondbg.app import NeurondbgApp
from neurondbg.console import REGISTRY, Action, Reply, execute
from neurondbg.debug.session import Session
from neurondbg.palette import DynamicCommands, dynamic_entries, static_entries
from neurondbg.registry import Command, Registry
from neurondbg.screens.help import GENERIC, help_text, key_name
from neurondbg.views.program import ProgramView
from tests.ui.helpers import SIZE, started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"
LOOP = DATA / "loop.asm"


def squeeze(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


def own_bindings() -> list[tuple[type, Binding]]:
    """Every Binding a neurondbg or views class declares (not Textual's generic keys)."""
    out = []
    for package in (views, neurondbg.screens):
        for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if not issubclass(cls, DOMNode) or cls.__module__ != module.__name__ or \
                        cls.__module__.startswith(GENERIC):
                    continue
                for b in cls.__dict__.get("BINDINGS", ()):
                    out.append((cls, b if isinstance(b, Binding) else Binding(*b)))
    out += [(NeurondbgApp, b) for b in NeurondbgApp.BINDINGS if isinstance(b, Binding)]
    return out


def test_the_help_lists_every_command_and_every_binding() -> None:
    lines = squeeze(help_text(NeurondbgApp()).plain)
    for cmd in REGISTRY:
        assert " ".join(cmd.help_line.split()) in lines, cmd.name
    bindings = own_bindings()
    assert len(bindings) > 30  # the walk found the panes, the screens and the App
    said: dict[tuple[type, str], set[str]] = {}  # keys of one action share one line
    for cls, b in bindings:
        said.setdefault((cls, b.action), set()).add(b.tooltip or b.description)
    for cls, b in bindings:
        for key in b.key.split(","):
            name = key_name(key.strip())
            assert any(line.endswith(f" {what}") and name in line[:-len(what) - 1].split(" / ")
                       for line in lines for what in said[cls, b.action]), (cls.__name__, key)
    aliases = next(line for line in lines if line.startswith("aliases:"))
    for alias, name in REGISTRY.aliases.items():
        assert f"{alias} {name}" in aliases


def test_help_completion_and_aliases_come_from_the_registry() -> None:
    assert console.COMMANDS == tuple(cmd.name for cmd in REGISTRY)
    assert console.HELP == {cmd.name: cmd.help_line for cmd in REGISTRY}
    assert console.ALIASES["rc"] == "reverse-continue" and console.ALIASES["q"] == "quit"
    assert console.HELP["step"] == "step [N]            execute N instructions (default 1)"
    assert console.HELP["goto"].startswith("goto P BYTE [sbuf|psum]   show")  # a long usage
    assert REGISTRY.completions("rev") == ["reverse", "reverse-continue"]
    assert REGISTRY.completions("pane me") == ["pane memory"]
    assert REGISTRY.completions("help wh") == ["help who"]
    assert REGISTRY.completions("info r") == ["info registers"]
    assert REGISTRY.completions("print R") == []  # no completer declared
    session = Session(STEPS)
    session.add_breakpoint("pc:0x40")
    assert REGISTRY.completions("until lo", session) == ["until loop"]
    assert REGISTRY.completions("break label:s", session) == ["break label:start"]
    assert REGISTRY.completions("delete ", session) == ["delete all", "delete 1"]
    assert "tour move-gate" in REGISTRY.completions("tour mo")


def test_split_and_dispatch() -> None:
    word, cmd, rest = REGISTRY.split("x/4f sb[0, 0]")
    assert (word, cmd is REGISTRY.get("x"), rest) == ("x", True, "/4f sb[0, 0]")
    assert REGISTRY.split("  p   R5 + 1 ")[1:] == (REGISTRY.get("print"), "R5 + 1")
    assert REGISTRY.split("step/3")[1] is None  # only x takes a /FMT suffix
    assert execute("step/3", None).lines[0][0].startswith("error: unknown command 'step/3'")
    with pytest.raises(ValueError, match="'s' declared twice"):
        registry = Registry()
        registry.add(Command("step", "", lambda s, a: Reply(), aliases=("s",)))
        registry.add(Command("s", "", lambda s, a: Reply()))


def test_a_long_step_or_reverse_is_handed_to_the_app() -> None:
    session = Session(STEPS)
    reply = execute("step 3", session, defer_long=True)
    assert (reply.action, reply.args, session.state.steps) == (Action.STEPS, (3,), 0)
    assert execute("next 2", session, defer_long=True).args == (2,)
    assert execute("r 5", session, defer_long=True).action == Action.REVERSE_STEPS
    assert execute("step", session, defer_long=True).action == Action.REFRESH  # N = 1 here
    assert session.state.steps == 1
    once = execute("next", session, defer_long=True)  # as `step`: one step, here
    assert once.action == Action.REFRESH and session.state.steps == 2
    session.reverse(1)
    ran = execute("step 3", session)  # without defer_long it runs here (to the invalid COPY)
    assert ran.action == Action.REFRESH and session.state.steps == 3
    assert ran.lines[0][0].startswith("invalid: COPY at 0xc0")


def test_which_commands_need_a_program() -> None:
    idle = {cmd.name for cmd in REGISTRY if not cmd.needs_program}
    assert idle == {"help", "lab", "goto", "dtype", "pane", "quit", "continue", "open", "load",
                    "tour", "explain"}


async def test_every_reply_action_has_an_app_handler() -> None:
    app = NeurondbgApp(STEPS)
    async with app.run_test(size=SIZE):
        await app.wait_loaded()
        assert set(app.reply_handlers()) == set(Action)


async def test_every_palette_entry_dispatches() -> None:
    async with started(STEPS) as (app, pilot):
        app.run_command("break pc:0x80")
        entries = static_entries(app) + dynamic_entries(app)
        titles = {e.title for e in entries}
        for title in ("Step", "Help", "Pane: SBUF", "SBUF: heatmap", "Go to label: loop",
                      "Delete breakpoint #1 pc:0x80", "Tour: How a Cast rounds"):
            assert any(t.startswith(title) for t in titles), title
        screen = app._debugger()
        assert screen is not None
        for e in entries:
            if e.line:
                assert REGISTRY.split(e.line)[1] is not None, e
            else:
                node = screen.query_one(e.target) if e.target else app
                _, name, _ = parse_action(e.action)
                assert callable(getattr(node, f"action_{name}", None)), e
        by_title = {e.title: e for e in entries}
        assert await app.run_entry(by_title["Go to label: loop"])
        assert app.query_one(ProgramView).cursor == 2
        assert await app.run_entry(by_title["Delete breakpoint #1 pc:0x80"])
        assert app.session is not None and app.session.breakpoints() == []
        assert await app.run_entry(by_title["Step"])
        await pilot.pause()
        assert app.session.state.steps == 1
        assert await app.run_entry(by_title["Load session"])
        assert app.query_one("#console-input").value == "load "
        memory = screen.query_one("#memory")
        assert await app.run_entry(by_title["SBUF: heatmap"])
        assert memory.heatmap


async def test_recent_files_and_the_provider() -> None:
    async with started(STEPS) as (app, pilot):
        app.run_command(f"open {LOOP}")
        await app.wait_loaded()
        await pilot.pause()
        assert app.recent == [str(LOOP), str(STEPS)]
        provider = DynamicCommands(app.screen)
        hits = [hit async for hit in provider.search("recent")]
        assert [str(h.text) for h in hits] == ["Open recent: steps.asm"]  # not the open one
        found = [hit async for hit in provider.search("label: top")]
        assert found and str(found[0].text) == "Go to label: top"
        await hits[0].command()
        await app.wait_loaded()
        await pilot.pause()
        assert app.session is not None and app.session.name == "steps.asm"


async def test_the_quit_question_names_its_keys_from_its_bindings() -> None:
    from neurondbg.screens.quit import QuitScreen, key_hint

    assert key_hint(QuitScreen.BINDINGS) == \
        "s: save and quit · q: quit without saving · Esc / c: cancel"
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        keys = str(app.screen.query_one("#quit-keys").render())
        assert keys.startswith(key_hint(QuitScreen.BINDINGS))
        assert keys.endswith("the save goes to steps.session.toml")


async def test_palette_helps_name_their_keys_and_the_lab_alone_has_no_debugger_entries() \
        -> None:
    app = NeurondbgApp(STEPS)
    async with app.run_test(size=SIZE):
        await app.wait_loaded()
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Toggle breakpoint"] == "At the program cursor (b)"  # the binding's key
        assert helps["Stop"].endswith("(Esc)") and helps["SBUF: heatmap"].endswith("(h)")
    lab = NeurondbgApp(lab_only=True)
    async with lab.run_test(size=SIZE):
        titles = {c.title for c in lab.get_system_commands(lab.screen)}
        assert "Quit" in titles and "Step" not in titles  # Textual's own entries only
        assert [hit async for hit in DynamicCommands(lab.screen).search("tour")] == []


def test_paths_complete_to_folders_and_the_files_a_command_opens(tmp_path: Path) -> None:
    for name in ("a.asm", "a.toml", "a.txt", "b.bin"):
        (tmp_path / name).write_text("")
    (tmp_path / "ab").mkdir()
    assert REGISTRY.completions(f"open {tmp_path}/a") == \
        [f"open {tmp_path}/a.asm", f"open {tmp_path}/a.toml", f"open {tmp_path}/ab/"]
    assert REGISTRY.completions(f"save {tmp_path}/") == \
        [f"save {tmp_path}/a.toml", f"save {tmp_path}/ab/"]
    assert REGISTRY.completions(f"load {tmp_path}/nope/") == []  # no such folder: nothing


def test_the_console_help_names_the_footer_keys_from_the_bindings(monkeypatch) -> None:
    last = execute("help", None).lines[-1][0]
    assert last == ("keys: s step · c continue · r reverse · b break · z max/restore · L lab · "
                    "? help · q quit · Ctrl+P palette")  # was by hand: "b breakpoint", no z, L
    monkeypatch.setattr(NeurondbgApp, "BINDINGS",
                        [*NeurondbgApp.BINDINGS, Binding("w", "watch", "watch")])
    assert "q quit · w watch · Ctrl+P palette" in execute("help", None).lines[-1][0]


def test_breakpoint_kinds_and_panes_offered_are_the_declared_ones() -> None:
    """Completion and help read machine.breakpoint_kinds.Kind and neurondbg.panes: every
    kind is offered (change:, race, wait, deadlock too), and a kernel's panes on a
    kernel (no Plot there; Engines, Timeline, Semaphores instead)."""
    from neurondbg.debug.session import Session
    from neurondbg.machine.breakpoint_kinds import Kind
    from neurondbg.panes import CORE_PANES, PANES

    words = [c.removeprefix("break ") for c in REGISTRY.completions("break ")]
    assert words[:len(Kind)] == ["op:", "pc:", "label:", "invalid", "fault", "if:", "watch:",
                                 "change:", "saturate", "tie", "nan", "inf", "race",
                                 "deadlock", "wait", "dma:"]
    assert REGISTRY.completions("break ch") == ["break change:"]
    assert REGISTRY.completions("break w") == ["break watch:", "break wait"]
    assert all(k.example in console.HELP["break"] for k in Kind)
    assert REGISTRY.completions("pane ") == [f"pane {p}" for p in PANES]
    kernel = Session(Path(__file__).parents[2] / "examples" / "kernels" / "deadlock.asm")
    assert REGISTRY.completions("pane ", kernel) == [f"pane {p}" for p in CORE_PANES]
    assert REGISTRY.completions("pane p", kernel) == ["pane program"]
    assert all(p in console.HELP["pane"] for p in (*PANES, *CORE_PANES))
