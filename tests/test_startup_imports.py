"""`neurondbg --help` imports no command, so neither numpy nor Textual, and the
short help SUBCOMMANDS declares is each command's own (an import check, never a timing)."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from neurondbg.cli import SUBCOMMANDS, cli, main
from tests.helpers import modules_after

_PROBE = """
import json, sys
sys.argv = {argv!r}
from neurondbg.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
heavy = ("numpy", "ml_dtypes", "textual")
print(json.dumps({{"code": code, "loaded": [m for m in heavy if m in sys.modules]}}),
      file=sys.stderr)
"""


def loaded_by(*argv: str) -> dict[str, object]:
    """The exit code and which heavy modules `neurondbg ARGV` loaded, in a fresh process."""
    r = subprocess.run([sys.executable, "-c", _PROBE.format(argv=["neurondbg", *argv])],
                       capture_output=True, text=True, check=False)
    return json.loads(r.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [("--help",), ("-h",), ("--version",)])
def test_help_imports_neither_numpy_nor_textual(argv: tuple[str, ...]) -> None:
    assert loaded_by(*argv) == {"code": 0, "loaded": []}


def test_params_import_loads_no_numpy() -> None:
    loaded = modules_after("import neurondbg.params, neurondbg.params_core")
    assert "neurondbg.params_core" in loaded and loaded & {"numpy", "ml_dtypes"} == set()


def test_a_command_that_needs_numpy_still_loads_it() -> None:
    # the probe can tell: `run --help` imports its command, which imports the model
    assert "numpy" in loaded_by("run", "--help")["loaded"]


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_declared_short_help_is_the_commands_own(name: str) -> None:
    cmd = cli.get_command(click.Context(cli), name)
    assert cmd is not None
    assert SUBCOMMANDS[name].short_help == cmd.get_short_help_str(limit=10**6)


def test_help_lists_every_command_with_clicks_layout() -> None:
    """The table-driven list is what click would print from the imported commands."""
    ctx = click.Context(cli)
    fast = click.HelpFormatter()
    cli.format_commands(ctx, fast)
    slow = click.HelpFormatter()
    click.Group.format_commands(cli, ctx, slow)
    assert fast.getvalue() == slow.getvalue()
    assert all(f"  {name}" in fast.getvalue() for name in SUBCOMMANDS)


_GC_PROBE = """
import gc, json, sys
sys.argv = {argv!r}
from neurondbg.cli import console_main
try:
    console_main()
except SystemExit:
    pass
print(json.dumps({{"frozen": gc.get_freeze_count(), "enabled": gc.isenabled(),
                  "numpy": "numpy" in sys.modules}}), file=sys.stderr)
"""


def _gc_state(program) -> dict[str, object]:
    argv = ["neurondbg", "validate", "--summary", str(program)]
    r = subprocess.run([sys.executable, "-c", _GC_PROBE.format(argv=argv)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stderr.strip().splitlines()[-1])


def test_main_freezes_what_the_command_import_built_and_collects_again(tmp_path) -> None:
    """Under `console_main` (the console script) the command's import runs with the
    collector paused and its objects are frozen (never traversed again); the collector
    is running again for the command.
    `validate` imports its predicate tables the same way when there are records."""
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "one.bin").write_bytes(bytes([0xA1]) + bytes(63))  # one HALT
    empty, one = _gc_state(tmp_path / "empty.bin"), _gc_state(tmp_path / "one.bin")
    assert empty["enabled"] and empty["numpy"] and one["enabled"]
    assert empty["frozen"] > 10_000  # numpy's and the command's objects
    assert one["frozen"] > empty["frozen"] + 2_000  # and the clause tables'


def test_in_process_invocation_freezes_nothing(monkeypatch) -> None:
    """cli.main (CliRunner, embedders) or main() called from a caller's code share the
    caller's process: nothing is frozen there (the frozen count may only fall, as frozen
    objects are freed)."""
    import gc

    from click.testing import CliRunner

    before = gc.get_freeze_count()
    result = CliRunner().invoke(cli, ["validate", "--help"])
    assert result.exit_code == 0
    monkeypatch.setattr(sys, "argv", ["neurondbg", "tour", "--help"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 0
    assert gc.get_freeze_count() <= before and gc.isenabled()
    assert not cli.freeze_imports


def test_a_ctrl_c_no_command_handles_is_exit_130(monkeypatch, capsys) -> None:
    """click turns a KeyboardInterrupt that reached it into Abort; `main` reports it as
    an interrupt (exit 130, as shells do), not as a refusal (`aborted`, exit 1)."""
    def interrupted(*args, **kwargs):
        raise click.Abort() from KeyboardInterrupt()

    monkeypatch.setattr(cli, "main", interrupted)
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 130
    assert capsys.readouterr().err == "neurondbg: interrupted\n"
