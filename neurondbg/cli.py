"""The `neurondbg` command line (click).

Subcommands live in `neurondbg/commands/<name>.py`, each exporting a click
command called `command`. They are imported lazily, so `neurondbg validate`
never pays for Textual and a broken subcommand cannot break the others.

Exit codes (DESIGN.md): 0 ok, 1 the program is invalid / stopped on a fault,
2 bad input or usage, always with a one-line error on stderr.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from neurondbg.errors import usage_line

# name -> module under neurondbg.commands; order is the order `--help` lists them.
SUBCOMMANDS: dict[str, str] = {
    "tui": "tui",
    "run": "run",
    "validate": "validate",
    "asm": "asm",
    "disasm": "disasm",
    "check-nki": "check_nki",
    "explain": "explain",
    "replay": "replay",
    "tour": "tour",
    "convert": "convert",
    "diagnose": "diagnose",
    "examples": "examples",
}


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"neurondbg.commands.{SUBCOMMANDS[name]}") is not None


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in SUBCOMMANDS if _available(n)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS or not _available(name):
            return None
        module = importlib.import_module(f"neurondbg.commands.{SUBCOMMANDS[name]}")
        return module.command


@click.group(name="neurondbg", cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="neurondbg")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """neurondbg: an instruction-level debugger for a NeuronCore-style ISA.

    With no command, opens the TUI on the bundled demo program.
    """
    if ctx.invoked_subcommand is None:
        tui = cli.get_command(ctx, "tui")
        if tui is None:
            raise click.UsageError("the TUI is not available in this build; see `neurondbg --help`")
        ctx.invoke(tui)


def main() -> None:
    """Console-script entry point: every error is one line on stderr (DESIGN.md).

    click's own usage errors print a usage block and a hint over several lines; here
    they become `neurondbg: error: COMMAND: message` with exit code 2 like every
    other bad input.
    """
    try:
        rv = cli.main(prog_name="neurondbg", standalone_mode=False)
    except click.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "neurondbg"
        click.echo(usage_line(where, e.format_message()), err=True)
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.Abort:
        click.echo("neurondbg: aborted", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    # rv is a command's return value, or the code of an explicit ctx.exit(code)
    sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)
