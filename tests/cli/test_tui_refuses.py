"""`tui` refuses, before any window opens, what `run` refuses without reading it: a
path that is not a regular file, a kernel manifest whose streams do not load, and a NEFF
the reader refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli


@pytest.fixture(autouse=True)
def no_window(monkeypatch: pytest.MonkeyPatch) -> None:
    def launched(app: object) -> None:
        raise AssertionError("the UI was started")

    monkeypatch.setattr("neurondbg.commands.tui.run_app", launched)


def _refused(path: Path) -> str:
    r = CliRunner().invoke(cli, ["tui", str(path)])
    assert r.exit_code == 2 and "Traceback" not in r.output, (r.exception, r.output)
    line, = r.output.strip().splitlines()
    return line


def test_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p.asm")
    assert _refused(tmp_path / "p.asm") == (f"neurondbg: error: {tmp_path / 'p.asm'}: is a "
                                            "FIFO (named pipe); expected a regular file "
                                            "holding a program, kernel or session")


def test_directory(tmp_path: Path) -> None:
    assert "is a directory; expected a regular file" in _refused(tmp_path)


def test_symlink_loop(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    line = _refused(tmp_path / "a")
    assert line.endswith("a: cannot read: Too many levels of symbolic links"), line


@pytest.mark.parametrize("stream", ["/etc/passwd", "fifo", "missing.asm"])
def test_manifest_whose_stream_does_not_load(tmp_path: Path, stream: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[engines]\npool = "{stream}"\n')
    r = CliRunner().invoke(cli, ["run", str(manifest)])
    assert r.exit_code == 2
    assert _refused(manifest) == r.output.strip()  # the very line `run` gives


def test_a_good_manifest_opens(tmp_path: Path) -> None:
    (tmp_path / "p.asm").write_text("MOVE R1=1\nHALT\n")
    manifest = tmp_path / "m.toml"
    manifest.write_text('[engines]\npool = "p.asm"\n')
    r = CliRunner().invoke(cli, ["tui", str(manifest)])
    assert isinstance(r.exception, AssertionError) and "UI was started" in str(r.exception)


def test_neff(tmp_path: Path) -> None:
    """A NEFF opens (on the kernel screen); a subgraph it lacks, or --subgraph on what is
    not a NEFF, is refused in one line."""
    from neurondbg.machine.neff.writer import write_neff
    from tests.neff.synth import vector_add

    write_neff(tmp_path / "k.neff", [vector_add()])
    r = CliRunner().invoke(cli, ["tui", str(tmp_path / "k.neff")])
    assert isinstance(r.exception, AssertionError) and "UI was started" in str(r.exception)
    r = CliRunner().invoke(cli, ["tui", str(tmp_path / "k.neff"), "--subgraph", "sg07"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    line, = r.output.strip().splitlines()
    assert line.startswith(f"neurondbg: error: {tmp_path / 'k.neff'}") and "sg07" in line
    (tmp_path / "p.asm").write_text("HALT\n")
    r = CliRunner().invoke(cli, ["tui", str(tmp_path / "p.asm"), "--subgraph", "sg00"])
    assert r.exit_code == 2 and r.output.strip() == (
        f"neurondbg: error: {tmp_path / 'p.asm'}: --subgraph applies to a NEFF only")
