"""The one-line error convention of the CLI (DESIGN.md: exit 2, no traceback)."""

from __future__ import annotations

import os
import re

import click

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl+C
# "<path>: no such file|program|...", or open()'s words for it: a missing input's message
_MISSING = re.compile(r"^(?P<path>[^:]+): (no such \w|cannot read: No such file)")
EXAMPLES_HINT = "the examples ship inside neurondbg: `neurondbg examples --copy examples` " \
    "copies them here"


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
    """Bad input: printed as one line `neurondbg: <message>` and exit code 2."""

    exit_code = 2

    def format_message(self) -> str:
        return examples_hint(" ".join(self.message.split("\n")))

    def show(self, file=None) -> None:
        click.echo(f"neurondbg: error: {self.format_message()}", err=True, file=file)


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
    head = f"neurondbg: error: {sub}: " if sub else "neurondbg: error: "
    return f"{head}{' '.join(message.split())} (see `{where} --help`)"
