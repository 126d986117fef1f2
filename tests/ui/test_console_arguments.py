"""Console commands declare their arguments once: the usage, `help COMMAND`, completion
and parsing all come from each command's `Arg`s, so they agree for every command."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.console import REGISTRY, Reply, execute
from neurondbg.debug.session import Session
from neurondbg.registry import Arg, Args, Command, Flag, words

ROOT = Path(__file__).parents[2]
PROGRAM = Path(__file__).parent / "data" / "loop.asm"
KERNEL = ROOT / "examples" / "kernels" / "missing_wait.asm"
COMMANDS = list(REGISTRY)


def typed(cmd: Command) -> tuple[Arg[object], ...]:
    """The arguments typed after the command word (x's /NF is glued to it)."""
    return cmd.args[1:] if cmd.suffix else cmd.args


def filler(arg: Arg[object], session: object) -> str:
    """A word that stands for `arg` while a later one is tested: its first candidate, or
    0 (every argument without candidates takes a number)."""
    offered = list(arg.complete(session, ""))
    return offered[0] if offered else "0"


@pytest.fixture(scope="module")
def sessions() -> list[object]:
    return [None, Session(PROGRAM), Session(KERNEL)]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: c.name)
def test_every_argument_is_in_the_usage_and_in_help_command(cmd: Command) -> None:
    lines = [text for text, _ in execute(f"help {cmd.name}", None).lines]
    assert lines[0] == cmd.help_line
    declared: list[Arg[object] | Flag] = [*cmd.args, *cmd.flags]
    assert len(lines) == 1 + len(declared)
    position = 0
    for item, line in zip(declared, lines[1:], strict=True):
        name, gap, help_text = line[2:].partition(item.help)[0].partition(item.name)
        assert item.help and line.startswith(f"  {item.name}") and line.endswith(item.help)
        assert not name and gap and help_text.isspace(), line  # a gap between the two
        at = cmd.usage.index(item.name, position)  # in the usage, in the declared order
        position = at + len(item.name)


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: c.name)
def test_each_argument_completes_where_it_is_typed_and_its_candidates_parse(
        cmd: Command, sessions: list[object]) -> None:
    for session in sessions:
        args = typed(cmd)
        for i, arg in enumerate(args):
            line = " ".join([cmd.name, *(filler(a, session) for a in args[:i])]) + " "
            offered = list(arg.complete(session, ""))
            assert REGISTRY.completions(line, session) == [line + c for c in offered], line
            for candidate in offered:  # what completion offers, the parser takes
                if not candidate.endswith("/"):  # a folder: the path goes on
                    arg.value(candidate)


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: c.name)
def test_a_missing_argument_is_refused_with_its_message(cmd: Command,
                                                        sessions: list[object]) -> None:
    args = typed(cmd)
    for i, arg in enumerate(args):
        if arg.optional or not cmd.positional:
            continue
        line = " ".join([cmd.name, *(filler(a, None) for a in args[:i])])
        assert execute(line, sessions[1]).lines == \
            [(f"error: {cmd.name}: {arg.missing_error}", "bold red")], line


def test_a_command_without_arguments_refuses_one() -> None:
    assert [c.name for c in COMMANDS if not c.args] == ["reverse-continue", "quit"]
    assert execute("quit now", None).lines[0][0] == \
        "error: quit: takes no argument, found 'now'"


def test_a_kernel_offers_races_and_the_topic_parses_from_a_prefix(sessions: list[object]) \
        -> None:
    topic = REGISTRY.get("info").args[0]
    assert REGISTRY.completions("info ", sessions[2]) == \
        ["info breakpoints", "info registers", "info races"]
    assert [topic.value(t) for t in ("", "b", "reg", "ra")] == \
        ["breakpoints", "breakpoints", "registers", "races"]


def noop(session: object, args: Args) -> Reply:
    return Reply()


def arg(name: str, optional: bool = False) -> Arg[str]:
    return Arg(name, f"the {name}", str, optional=optional)


def test_the_usage_nests_optional_arguments_given_in_order() -> None:
    lab = Command("lab", "", noop, (arg("VALUE", True), arg("SRC", True), arg("DST", True)))
    goto = Command("goto", "", noop, (arg("P"), arg("BYTE"), arg("SPACE", True)))
    either = Command("diagnose", "", noop, (arg("LANE", True), arg("ACTUAL", True)),
                     positional=False)
    flags = Command("export", "", noop, (arg("PATH"), arg("LANE", True)),
                    flags=(Flag("--force", "replace"),))
    assert [c.usage for c in (lab, goto, either, flags)] == [
        "lab [VALUE [SRC [DST]]]", "goto P BYTE [SPACE]", "diagnose [LANE] [ACTUAL]",
        "export PATH [LANE] [--force]"]
    parsed = flags.parse("a.txt --force 1, 2")
    assert (parsed[flags.args[0]], parsed[flags.args[1]], parsed.flags) == \
        ("a.txt", "1, 2", frozenset({"--force"}))


def test_the_last_argument_takes_the_rest_of_the_line() -> None:
    assert words("  R5 + 1 ", 1) == ["R5 + 1"]
    assert words("0 8 sbuf", 2) == ["0", "8 sbuf"]
    assert words("", 2) == ["", ""]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COMMANDS), st.text(max_size=30))
def test_parsing_any_text_gives_values_or_one_message(cmd: Command, rest: str) -> None:
    try:
        cmd.parse(rest)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
