"""`disasm` of a binary program streamed a block at a time (machine.asm.disasm_file)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.asm import assemble, disassemble, load_any, save_data, to_json
from neurondbg.machine.asm.disasm_file import (
    BLOCK_RECORDS,
    disassembly_blocks,
    json_blocks,
    load_sidecar,
    open_records,
)
from neurondbg.machine.dtypes import Gen

SRC = """\
.data sb[p0:p2, 0] fp32 1.0 2.0
top: MOVE R1=7
COPY in_dtype=FP32 out_dtype=FP32 nac=4 src=sb[0, 0] num=[2,1,1,1] dst=sb[1, 0x40] \
dst.num=[2,1,1,1] wait=sem[3]>=1 signal=sem[2]++@complete
ALU_OP op=ADD dtype=INT32 dst=R2 src0=R1 src1=5
COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=3 target=top
.raw 0xff00000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000
HALT
"""


def _program(tmp_path: Path, records: int, name: str = "p.bin") -> Path:
    """A program of `records` records (the source's, tiled, with a varying register)."""
    asm = assemble(SRC, "p.asm")
    one = np.frombuffer(asm.records, np.uint8).reshape(-1, 64)
    raw = np.resize(one, (records, 64)).copy()
    raw[:, 60] = np.arange(records) % 251  # distinct rows across blocks
    path = tmp_path / name
    path.write_bytes(raw.tobytes())
    save_data(tmp_path / f"{name}.data.npz", asm.data)
    return path


@pytest.mark.parametrize("gen", [Gen.CAYMAN, Gen.SUNDA])
def test_streamed_text_is_the_whole_disassembly(tmp_path: Path, gen: Gen) -> None:
    path = _program(tmp_path, 2 * BLOCK_RECORDS + 7)
    prog, data = load_any(path, gen)
    fh = open_records(path)
    assert fh is not None
    with fh:
        pieces = list(disassembly_blocks(fh, path, gen, load_sidecar(path)))
    assert len(pieces) == 4  # the data lines, then three blocks
    assert "".join(pieces) == disassemble(prog, gen, data)


def test_streamed_json_is_the_whole_document(tmp_path: Path) -> None:
    path = _program(tmp_path, BLOCK_RECORDS + 3)
    prog, _ = load_any(path)
    fh = open_records(path)
    assert fh is not None
    with fh:
        text = "".join(json_blocks(fh, path))
    assert text == json.dumps(to_json(prog), separators=(",", ":")) + "\n"
    rows = json.loads(text)
    assert [r["index"] for r in rows] == list(range(len(prog)))
    assert rows[-1]["offset"] == 64 * (len(prog) - 1)


def test_empty_program_streams_as_the_loader_prints_it(tmp_path: Path) -> None:
    path = tmp_path / "e.bin"
    path.write_bytes(b"")
    for gen, want in ((Gen.CAYMAN, ""), (Gen.SUNDA, ".gen sunda\n")):
        fh = open_records(path)
        assert fh is not None
        with fh:
            assert "".join(disassembly_blocks(fh, path, gen)) == want
    fh = open_records(path)
    assert fh is not None
    with fh:
        assert "".join(json_blocks(fh, path)) == "[]\n"


def test_only_binary_records_are_streamed(tmp_path: Path) -> None:
    records = _program(tmp_path, 4).read_bytes()
    cases = {
        "p.bin": (records, True),
        "noext": (records, True),  # NUL bytes say records
        "p.inst": (records, True),
        "p.asm": (records, False),  # named as assembly: the loader decides
        "k.toml": (records, False),  # a kernel manifest's name
        "odd.bin": (records + b"\0", False),  # the loader words a partial record
        "text": (b"MOVE R1=7\nHALT\n", False),
        # a NEFF header (packaging version 1, header size 1024), then gzip
        "neff.bin": ((1).to_bytes(8, "little") + (1024).to_bytes(8, "little")
                     + bytes(1008) + b"\x1f\x8b" + bytes(62), False),
    }
    for name, (data, streamed) in cases.items():
        (tmp_path / name).write_bytes(data)
        fh = open_records(tmp_path / name)
        assert (fh is not None) == streamed, name
        if fh is not None:
            assert fh.tell() == 0
            fh.close()
    assert open_records(tmp_path / "missing.bin") is None
    assert open_records(tmp_path) is None  # a folder


def _child(path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "neurondbg", "disasm", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_ctrl_c_while_printing_exits_130_with_one_line(tmp_path: Path) -> None:
    """The child blocks writing to the full pipe mid-program (nothing reads it): the
    output is streamed, and SIGINT then stops it as an interrupt."""
    path = _program(tmp_path, 4 * BLOCK_RECORDS)
    child = _child(path)
    assert child.stdout is not None
    first = child.stdout.readline()
    assert first.startswith(b".bytes ")
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130
    # click ends the terminal's `^C` line first, as for every command
    assert [x for x in err.decode().splitlines() if x] == ["neurondbg: interrupted"]


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    path = _program(tmp_path, 4 * BLOCK_RECORDS)
    child = _child(path)
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline()
    child.stdout.close()  # `disasm BIG | head -1`
    assert child.wait(timeout=60) == 0
    assert child.stderr.read() == b""
    child.stderr.close()
