"""The `neurondbg` command line (click).

Subcommands live in `neurondbg/commands/<name>.py`, each exporting a click
command called `command`. They are imported lazily, so `neurondbg validate`
never pays for Textual and a broken subcommand cannot break the others, and
`neurondbg --help` imports no command at all (so neither numpy nor Textual): it lists
each command with the short help declared in SUBCOMMANDS.

Adding a command: write `neurondbg/commands/<module>.py` exporting `command`, and add
one entry `"name": Sub("<module>", "<short help>")` to SUBCOMMANDS, where the short help
is the command's own first help sentence, exactly as
`command.get_short_help_str(limit=10**6)` gives it (tests/test_startup_imports.py checks
the two agree, so they cannot drift).

Exit codes (DESIGN.md): 0 ok, 1 the program is invalid / stopped on a fault,
2 bad input or usage, always with a one-line error on stderr.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import click

from neurondbg.errors import (
    ERROR_PREFIX,
    EXIT_INTERRUPTED,
    error_json,
    exit_interrupted,
    interrupt_said,
    usage_line,
)


class Sub(NamedTuple):
    """One subcommand: its module under neurondbg.commands, and its short help (the
    command's own first help sentence, listed by `--help` without importing it)."""

    module: str
    short_help: str


# name -> Sub; order is the order `--help` lists them.
SUBCOMMANDS: dict[str, Sub] = {
    "tui": Sub("tui", "Open the debugger UI on PROGRAM (.asm / .bin) or SESSION (.toml), or "
                      "the bundled demo when omitted; a KERNEL (manifest or .engine sections) "
                      "opens the NeuronCore layout."),
    "run": Sub("run", "Run PROGRAM (assembly or binary records) until it stops, or continue a "
                      "SESSION.toml from its saved step to the next stop (its breakpoints and "
                      "watches apply; --gen/--engine come from the session)."),
    "validate": Sub("validate", "Check every instruction of PROGRAM against the wire-level "
                                "legality predicates and the engine's dispatch table (by "
                                "default POOL's, the queue `run` uses)."),
    "asm": Sub("asm", "Assemble SOURCE into OUTPUT (64-byte records)."),
    "disasm": Sub("disasm", "Disassemble PROGRAM (binary or assembly); the text re-assembles "
                            "to identical bytes."),
    "check-nki": Sub("check_nki", "Check NKI intrinsic calls (a JSON list) against reference "
                                  "004's legality rules."),
    "explain": Sub("explain", "Explain a clause or predicate name, or a pasted compiler "
                              "message: the rule, where it comes from, and an instruction "
                              "that fails it, with its fix."),
    "replay": Sub("replay", "Re-run PROGRAM and report the first step where it diverges from "
                            "TRACE."),
    "tour": Sub("tour", "List the guided tours, or open tour NAME in the TUI."),
    "convert": Sub("convert", "Convert VALUEs from one number format to another, bit-exactly."),
    "diagnose": Sub("diagnose", "Find which conversion rule reproduces ACTUAL from INPUT, lane "
                                "by lane."),
    "examples": Sub("examples", "List the bundled example programs and sessions, or copy them "
                                "out (--copy DIR)."),
    "serve": Sub("serve", "Serve the debugger UI on PROGRAM / SESSION / KERNEL (or the demo) "
                          "to a browser."),
    "dap": Sub("dap", "Debug PROGRAMs, sessions and kernels from an editor (VS Code, nvim-dap, "
                      "dape)."),
}


class Interrupted(Exception):
    """A Ctrl+C that reached the command line (`main` says so and exits 130)."""


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"neurondbg.commands.{SUBCOMMANDS[name].module}") is not None


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked.

    When the process is the command (`freeze_imports`, set by `console_main`: the
    console script and `python -m neurondbg`), a command's module is imported with the
    cycle collector paused and what the import built is then frozen (`gc.freeze`):
    module-level objects live as long as the process, so collecting them is wasted work,
    here and in every later full collection, the one at exit included. Measured on
    `validate --summary` (numpy and the model's tables loaded): ~10-15 ms of a
    0.09-0.15 s process. Never in a caller's process (tests, embedders): freezing is
    process-wide, and would keep the caller's garbage of the moment forever.
    """

    freeze_imports = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in SUBCOMMANDS if _available(n)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS or not _available(name):
            return None
        with frozen_imports():
            module = importlib.import_module(f"neurondbg.commands.{SUBCOMMANDS[name].module}")
        command = module.command
        assert isinstance(command, click.Command), name
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's, with the nearest command named for a misspelt one (`valdate`), as the
        console does (the same difflib ratio, neurondbg.registry.NEAR)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            from neurondbg.registry import NEAR

            near = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=NEAR)
            if near:
                ctx.fail(f"No such command {name!r}; did you mean {near[0]!r}?")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        """click's, a Ctrl+C no command handled passed on as Interrupted: click would
        print an empty line before its Abort, under where a progress bar was erased.
        Each command starts with no interruption said (`exit_interrupted`)."""
        interrupt_said(False)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from SUBCOMMANDS' short help, as click lays it out, without
        importing any command (so `--help` pays for neither numpy nor Textual)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        # a bare Command truncates the text exactly as the real one would its help
        rows = [(n, click.Command(n, help=SUBCOMMANDS[n].short_help).get_short_help_str(limit))
                for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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


@contextmanager
def frozen_imports() -> Iterator[None]:
    """Run the block (imports) with the cycle collector paused, then freeze what it built,
    when under `main` (LazyGroup); otherwise just run it. A command that imports a large
    module on first use (validate's predicate tables) imports it in this block too."""
    if not cli.freeze_imports:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def console_main() -> None:
    """The console script's and `python -m neurondbg`'s entry point: `main` in a process
    that is this command's own, so a command's imports are frozen (LazyGroup)."""
    try:
        main(own_process=True)
    finally:
        # the command is over: a Ctrl+C now (the second of a double one) ends the process
        # as the OS does, not with a traceback from the interpreter's shutdown
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def _usage_message(e: click.UsageError) -> str:
    """click's message, an unknown option in the words of getopt and argparse:
    `no such option: --x` (and the nearest ones, as click finds them)."""
    if isinstance(e, click.NoSuchOption):
        near = sorted(e.possibilities or ())
        return f"no such option: {e.option_name}" + (
            f"; did you mean {' or '.join(near)}?" if near else "")
    return e.format_message()


def _json_asked(ctx: click.Context | None) -> bool:
    """Whether a usage error is to be JSON: the command takes `--json` and its command
    line has it (its parameters may not all be parsed when the error is found)."""
    if ctx is None or not any("--json" in getattr(p, "opts", ()) for p in ctx.command.params):
        return False
    args = sys.argv[1:]  # main's command line (click parses sys.argv)
    if "--" in args:  # what follows is arguments, not options
        args = args[:args.index("--")]
    return ctx.params.get("as_json") is True or "--json" in args


def main(*, own_process: bool = False) -> None:
    """Entry point: every error is one line on stderr (DESIGN.md).

    click's own usage errors print a usage block and a hint over several lines; here
    they become `neurondbg: error: COMMAND: message` with exit code 2 like every
    other bad input. `own_process` (console_main) lets LazyGroup freeze the command's
    imports; a caller's process (tests, embedders) is never frozen.
    """
    cli.freeze_imports = own_process
    try:
        rv = cli.main(prog_name="neurondbg", standalone_mode=False)
    except click.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "neurondbg"
        line = usage_line(where, _usage_message(e))
        if _json_asked(e.ctx):
            line = error_json(line.removeprefix(ERROR_PREFIX), e.exit_code)
        click.echo(line, err=True)
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except Interrupted:
        exit_interrupted()
    except click.Abort as e:  # click turns a Ctrl+C no command handled into Abort
        if isinstance(e.__cause__, KeyboardInterrupt):
            exit_interrupted()
        click.echo("neurondbg: aborted", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    finally:
        cli.freeze_imports = False
    # rv is a command's return value, or the code of an explicit ctx.exit(code)
    sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)
