"""A trace that cannot be read is one line naming it (sessions.replay), through the
library and the CLI: missing, a directory, a FIFO (never opened for reading)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.replay import read_header, read_trace


@pytest.fixture
def program(tmp_path: Path) -> Path:
    p = tmp_path / "p.asm"
    p.write_text("NOP\nHALT\n")
    return p


def test_a_missing_trace_is_named(tmp_path: Path, program: Path) -> None:
    gone = tmp_path / "gone.jsonl"
    for read in (read_header, lambda p: list(read_trace(p))):
        with pytest.raises(SessionError) as e:
            read(gone)
        assert str(e.value) == f"{gone}: no such trace file"
    r = CliRunner().invoke(cli, ["replay", str(gone), str(program)])
    assert r.exit_code == 2 and r.stderr == f"neurondbg: error: {gone}: no such trace file\n"


def test_a_directory_or_fifo_is_refused_as_not_a_regular_file(tmp_path: Path,
                                                              program: Path) -> None:
    folder = tmp_path / "d.jsonl"
    folder.mkdir()
    with pytest.raises(SessionError) as e:
        list(read_trace(folder))
    assert str(e.value) == (f"{folder}: is a directory; expected a regular file holding a "
                            "trace file")
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    r = CliRunner().invoke(cli, ["replay", str(fifo), str(program)])
    assert r.exit_code == 2
    assert r.stderr == (f"neurondbg: error: {fifo}: is a FIFO (named pipe); expected a regular "
                        "file holding a trace file\n")
