"""The one-line error convention of the CLI (DESIGN.md: exit 2, no traceback), and its
JSON form under `--json` (`neurondbg.error/1`, docs/json.md)."""

from __future__ import annotations

import os
import re
from typing import IO, Any, NoReturn

import click

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl+C
INTERRUPTED = "neurondbg: interrupted"  # the line of a Ctrl+C no command said more about
_interrupt_said = [False]
ERROR_PREFIX = "neurondbg: error: "  # the start of every error line
# "<path>: no such file|program|...", or open()'s words for it: a missing input's message
_MISSING = re.compile(r"^(?P<path>[^:]+): (no such \w|cannot read: No such file)")
EXAMPLES_HINT = "the examples ship inside neurondbg: `neurondbg examples --copy examples` " \
    "copies them here"


def exit_interrupted(line: str = INTERRUPTED) -> NoReturn:
    """Say that a Ctrl+C stopped the command (stderr) and exit 130. Said once per
    process: a second Ctrl+C that lands while the first is being reported raises
    KeyboardInterrupt, and the CLI's own handler (`say_interrupted`) then stays quiet."""
    if not _interrupt_said[0]:
        click.echo(line, err=True)
        _interrupt_said[0] = True
    raise SystemExit(EXIT_INTERRUPTED)


def interrupt_said(said: bool | None = None) -> bool:
    """Whether an interruption has been said; `said` sets it (False: a new command)."""
    if said is not None:
        _interrupt_said[0] = said
    return _interrupt_said[0]


def examples_hint(message: str) -> str:
    """`message`, with how to get the examples when it says a path under examples/ is
    missing (a regular install runs from any folder, where the README's paths are not)."""
    m = _MISSING.match(message)
    if m is None:
        return message
    path = m.group("path")
    first = path.replace("\\", "/").removeprefix("./").split("/", 1)[0]
    if first != "examples" or os.path.exists(path):
        return message
    return f"{message} ({EXAMPLES_HINT})"


class InputError(click.ClickException):
    """Bad input: printed as one line `neurondbg: <message>` and exit code 2; under
    `--json`, as one JSON object (`error_json`) instead."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # raised inside the command, whose context is gone by the time main shows it
        self.as_json, self.arguments = _command_line()

    def format_message(self) -> str:
        return examples_hint(" ".join(self.message.split("\n")))

    def show(self, file: IO[Any] | None = None) -> None:
        if self.as_json:
            text = error_json(self.format_message(), self.exit_code, self.arguments)
            click.echo(text, err=True, file=file)
            return
        click.echo(f"{ERROR_PREFIX}{self.format_message()}", err=True, file=file)


def _command_line() -> tuple[bool, frozenset[str]]:
    """Whether the command being run was given `--json` (its `as_json` parameter), and
    the text of its arguments (the names an error's first words may be)."""
    ctx = click.get_current_context(silent=True)
    as_json, arguments = False, set[str]()
    while ctx is not None:
        as_json = as_json or ctx.params.get("as_json") is True
        arguments.update(str(v) for v in ctx.params.values() if isinstance(v, str | os.PathLike))
        ctx = ctx.parent
    return as_json, frozenset(arguments)


# "<file>:<line>:<column>: ..." (assembly, TOML, JSON), else "<file>: ...", where a byte
# of a binary file is "offset N" (machine.files, machine.isa.codec)
_AT_LINE = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+):(?P<column>\d+): ")
_AT_FILE = re.compile(r"^(?P<file>[^:\n]+): ")
_OFFSET = re.compile(r"\boffset (?P<offset>0x[0-9a-fA-F]+|\d+)\b")


def error_json(message: str, exit_code: int, arguments: frozenset[str] = frozenset()) -> str:
    """The `neurondbg.error/1` document (docs/json.md) of an error's one-line `message`:
    the words, the file they are about (their first words, when those name a file: one of
    the command's arguments, or a path that exists), the line and column or the byte
    offset in it, and the exit code."""
    import json

    from neurondbg.documents import Kind, stamp

    where: dict[str, object] = {"file": None}
    m = _AT_LINE.match(message)
    if m is not None and _names_a_file(m.group("file"), arguments):
        where = {"file": m.group("file"), "line": int(m.group("line")),
                 "column": int(m.group("column"))}
    else:
        m = _AT_FILE.match(message)
        if m is not None and _names_a_file(m.group("file"), arguments):
            where = {"file": m.group("file")}
            off = _OFFSET.search(message, m.end())
            if off is not None:
                text = off.group("offset")
                where["offset"] = int(text, 16) if text.startswith("0x") else int(text)
    return json.dumps(stamp(Kind.ERROR, {"error": message, **where, "exit": exit_code}))


def _names_a_file(text: str, arguments: frozenset[str]) -> bool:
    return not text.startswith("-") and (text in arguments or os.path.lexists(text))


def usage_line(where: str, message: str) -> str:
    """The one line every usage error prints (bad option value, unknown command, ...),
    for the command at `where` (its click command path, `neurondbg validate`): one
    `neurondbg: error:` prefix, then the subcommand when there is one.

        usage_line("neurondbg", "no such option: --x")
        -> "neurondbg: error: no such option: --x (see `neurondbg --help`)"
        usage_line("neurondbg run", "Invalid value ...")
        -> "neurondbg: error: run: Invalid value ... (see `neurondbg run --help`)"
    """
    sub = where.removeprefix("neurondbg").strip()
    head = f"{ERROR_PREFIX}{sub}: " if sub else ERROR_PREFIX
    return f"{head}{' '.join(message.split())} (see `{where} --help`)"
