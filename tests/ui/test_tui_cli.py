"""The `tui` subcommand's command line (the app itself is tested with Pilot)."""

from click.testing import CliRunner

from neurondbg.cli import cli


def test_tui_help_lists_its_options() -> None:
    out = CliRunner().invoke(cli, ["tui", "--help"])
    assert out.exit_code == 0
    for word in ("PROGRAM", "--gen", "--engine", "--lab", "SESSION"):
        assert word in out.output


def test_missing_program_is_one_line_exit_2() -> None:
    out = CliRunner().invoke(cli, ["tui", "no/such/prog.asm"])
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert lines == ["neurondbg: error: no/such/prog.asm: no such file"]


def test_bad_generation_is_a_usage_error() -> None:
    out = CliRunner().invoke(cli, ["tui", "--gen", "trn9"])
    assert out.exit_code == 2 and "Invalid value for '--gen'" in out.output
