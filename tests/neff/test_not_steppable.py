"""Commands that step a program refuse a NEFF in one line (it is not modelled yet)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from machine.neff.writer import write_neff
from neurondbg.cli import cli
from tests.neff.synth import vector_add


def test_run_refuses_a_neff_by_its_header_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "kernel.bin"  # named like a program: the header decides
    write_neff(path, [vector_add()], target="sunda")
    r = CliRunner().invoke(cli, ["run", str(path)])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"neurondbg: error: {path}: a NEFF file: stepping a NEFF is not modelled yet; "
        "`neurondbg validate` and `neurondbg disasm` read it"]
