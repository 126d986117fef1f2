"""The one-line error convention of the CLI (DESIGN.md: exit 2, no traceback)."""

from __future__ import annotations

import click

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl+C


class InputError(click.ClickException):
    """Bad input: printed as one line `neurondbg: <message>` and exit code 2."""

    exit_code = 2

    def format_message(self) -> str:
        return " ".join(self.message.split("\n"))

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
