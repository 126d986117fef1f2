"""One program loader (machine.asm.loader.load): every PROGRAM reader goes through it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import neurondbg.sessions.program  # noqa: F401
from neurondbg import sessions
from neurondbg.machine.asm import load_any
from neurondbg.machine.asm.data import data_path
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.loader import ProgramFile, UnreadableProgram, load
from neurondbg.machine.dtypes import DEFAULT_GEN
from neurondbg.machine.files import InputFileError
from neurondbg.sessions.errors import SessionError

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples"
SRC = """\
.data sb[p0:p2, 0] fp32 1.5 2.5
start: MOVE R1=7
  # a comment line
loop:   HALT
"""


def test_assembly_gives_labels_data_and_a_source_map(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(SRC)
    prog = load(src, DEFAULT_GEN)
    assert len(prog.program) == 2
    assert prog.labels == {"start": 0, "loop": 64}
    assert [d.partitions for d in prog.data] == [(0, 2)]
    assert prog.lines == [2, 4]
    assert prog.where(0) == f"{src}:2:8"  # the mnemonic after the label
    assert prog.where(1) == f"{src}:4:9"
    assert prog.where(2) is None


def test_binary_reads_its_data_sidecar_and_has_no_source_map(tmp_path: Path) -> None:
    asm = load(EXAMPLES / "cast_rounding.asm")
    binary = load(EXAMPLES / "cast_rounding.bin")
    assert binary.program.raw.tobytes() == asm.program.raw.tobytes()
    assert len(binary.data) == len(asm.data) > 0
    assert binary.labels == {} and binary.lines is None and binary.where(0) is None


def test_the_three_entry_points_agree(tmp_path: Path) -> None:
    """load_any, sessions.program.read_program / load_program: the same program."""
    src = tmp_path / "p.asm"
    src.write_text(SRC)
    one = load(src, DEFAULT_GEN)
    program, data = load_any(src, DEFAULT_GEN)
    via_session = sessions.program.read_program(src, DEFAULT_GEN)
    p3, d3, labels = sessions.program.load_program(src, DEFAULT_GEN)
    for other in (program, via_session.program, p3):
        assert other.raw.tobytes() == one.program.raw.tobytes()
    assert len(data) == len(d3) == len(one.data) == 1
    assert labels == via_session.labels == one.labels
    assert sessions.program.ProgramFile is ProgramFile  # one declaration of the type


def test_a_refused_file_is_an_unreadable_program(tmp_path: Path) -> None:
    fifo = tmp_path / "p.bin"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableProgram, match=f"^{fifo}: is a FIFO"):
        load(fifo)
    assert issubclass(UnreadableProgram, InputFileError)  # callers catching it still do
    with pytest.raises(SessionError, match=f"^s.toml: {fifo}: is a FIFO"):
        sessions.program.read_program(fifo, DEFAULT_GEN, "s.toml")


def test_a_bad_sidecar_is_not_a_program_in_a_session(tmp_path: Path) -> None:
    prog = tmp_path / "p.bin"
    prog.write_bytes(bytes(64))
    data_path(prog).write_bytes(b"not a zip")
    with pytest.raises(InputFileError) as e:
        load(prog)
    assert not isinstance(e.value, UnreadableProgram)
    with pytest.raises(SessionError, match=r"^s\.toml: not a program: .*p\.bin\.data\.npz"):
        sessions.program.read_program(prog, DEFAULT_GEN, "s.toml")


def test_errors_name_file_line_and_column(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text("HALT\n  BOGUS R1=2\n")
    with pytest.raises(AsmError) as e:
        load(src)
    assert e.value.one_line.startswith(f"{src}:2:3: ")
    with pytest.raises(SessionError) as s:
        sessions.program.read_program(src, DEFAULT_GEN)
    assert str(s.value) == e.value.one_line
    assert "\n" not in str(s.value)


def test_a_binary_of_partial_records_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "odd.bin"
    bad.write_bytes(bytes(65))
    with pytest.raises(ValueError, match=r"odd\.bin") as e:
        load(bad)
    assert "\n" not in str(e.value)
