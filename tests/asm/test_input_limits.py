"""Inputs have sane limits: non-regular files are refused, sizes are judged
before anything large is allocated, and every refusal is one line naming the file."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from neurondbg.commands._npy import load_sbuf
from neurondbg.errors import InputError
from neurondbg.machine.asm import AsmError, assemble, data_path, load_any, load_data, save_data
from neurondbg.machine.asm.fastpath import split_line
from neurondbg.machine.asm.parser import parse_line
from neurondbg.machine.files import (
    MAX_ASSEMBLY_LINES,
    MAX_LINE_CHARS,
    InputFileError,
    load_json,
    read_input,
)
from neurondbg.machine.isa.codec import load_program

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples"
RECORD = bytes(64)  # any 64 bytes decode; what they hold does not matter here


def cli(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess: a read that blocks (the old FIFO behaviour) is a
    TimeoutExpired here, not a hung test run."""
    return subprocess.run([sys.executable, "-m", "neurondbg", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def one_line_exit_2(r: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    for f in fragments:
        assert f in r.stderr, r.stderr


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "prog.bin"
    os.mkfifo(path)
    return path


# ---------------------------------------------------------------- non-regular files

@pytest.mark.parametrize("command", ["validate", "run", "disasm", "asm"])
def test_a_fifo_program_is_refused_without_blocking(fifo: Path, command: str) -> None:
    out = fifo.parent / "o.bin"
    r = cli(command, fifo, *(["-o", out] if command == "asm" else []))
    one_line_exit_2(r, f"{fifo}: is a FIFO (named pipe); expected a regular file holding")
    assert not out.exists()


def test_run_with_a_fifo_as_sbuf_image_is_refused(fifo: Path) -> None:
    one_line_exit_2(cli("run", EXAMPLES / "loop.asm", "--sbuf", fifo), "is a FIFO")


def test_a_fifo_as_data_sidecar_is_refused(tmp_path: Path) -> None:
    prog = tmp_path / "p.bin"
    prog.write_bytes(RECORD)
    os.mkfifo(data_path(prog))
    one_line_exit_2(cli("disasm", prog), "p.bin.data.npz: is a FIFO")


def test_a_fifo_swapped_in_after_the_stat_is_refused_without_blocking(
        fifo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race open_input closes: stat saw a regular file, open finds a FIFO. Opened
    non-blocking, then fstat'ed, it is refused instead of waiting for a writer."""
    real_stat = os.stat
    plain = tmp_path / "plain"
    plain.write_bytes(b"x")

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        return real_stat(plain if Path(str(path)) == fifo else path, *args, **kwargs)

    monkeypatch.setattr("neurondbg.machine.files.os.stat", stat)
    outcome: list[Exception] = []

    def read() -> None:
        try:
            read_input(fifo, what="program", max_bytes=10)
        except InputFileError as e:
            outcome.append(e)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=20)  # a blocking open() would never return: fail, do not hang
    assert outcome and str(outcome[0]).startswith(f"{fifo}: is a FIFO (named pipe)")


@pytest.mark.parametrize("path, kind", [("/dev/null", "a character device"),
                                        (".", "a directory")])
def test_devices_and_directories_are_refused(path: str, kind: str) -> None:
    for read in (load_any, load_program, load_data):
        with pytest.raises(InputFileError, match=f"^{path}: is {kind}; expected a regular file"):
            read(path)


# ---------------------------------------------------------------- sizes

def test_a_2gb_program_is_refused_from_its_size(tmp_path: Path) -> None:
    big = tmp_path / "zeros.bin"
    with big.open("wb") as f:
        f.truncate(2 * 1024**3)  # sparse: no disk, and no read happens
    for read in (load_any, load_program):
        with pytest.raises(InputFileError,
                           match=r"zeros.bin: 2 GiB is over the 1 GiB limit for a program$"):
            read(big)
    for command in ("validate", "run", "disasm"):
        one_line_exit_2(cli(command, big), "2 GiB is over the 1 GiB limit for a program")


def test_an_assembly_source_is_held_to_its_own_smaller_limit(tmp_path: Path) -> None:
    nul = tmp_path / "zeros.asm"
    with nul.open("wb") as f:
        f.truncate(300 * 1024**2)
    with pytest.raises(InputFileError, match="300 MiB is over the 256 MiB limit for an "
                                             "assembly program"):
        load_any(nul)


def test_read_input_limit_and_content(tmp_path: Path) -> None:
    p = tmp_path / "x"
    p.write_bytes(b"abc")
    assert read_input(p, what="thing", max_bytes=3) == b"abc"
    with pytest.raises(InputFileError, match=r"x: 3 bytes is over the 2 bytes limit for a thing"):
        read_input(p, what="thing", max_bytes=2)


# ---------------------------------------------------------------- assembly text

def test_nul_bytes_in_assembly_are_named_where_they_are(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_bytes(b"HALT\n  HALT\x00\x00\n")
    with pytest.raises(AsmError) as e:
        load_any(src)
    assert e.value.one_line.startswith(f"{src}:2:7: NUL character: this is not assembly text")


def test_a_line_over_the_limit_is_refused_at_its_line() -> None:
    text = "HALT\n" * 3 + "#" * (MAX_LINE_CHARS + 1) + "\nHALT\n"
    with pytest.raises(AsmError) as e:
        assemble(text, "p.asm")
    assert e.value.line == 4 and e.value.column == MAX_LINE_CHARS + 1
    assert e.value.one_line == ("p.asm:4:2097153: line of 2,097,153 characters; at most "
                                "2,097,152 are accepted")


@pytest.mark.parametrize("text", [
    "\n" * (MAX_ASSEMBLY_LINES + 1),
    "\x0c" * (MAX_ASSEMBLY_LINES + 1),  # str.splitlines breaks there too
    "\n" * MAX_ASSEMBLY_LINES + "HALT",  # the last line needs no break
], ids=["newlines", "form-feeds", "unended-last-line"])
def test_more_lines_than_the_limit_are_refused(text: str) -> None:
    with pytest.raises(AsmError) as e:
        assemble(text, "p.asm")
    assert e.value.line == MAX_ASSEMBLY_LINES + 1
    assert "more than 2,097,152 lines" in e.value.message


def test_lines_are_numbered_as_splitlines_numbers_them() -> None:
    text = "a: HALT\r\nb: HALT\rc: HALT\x0cd: HALT\u2028e: HALT\n\nf: HALT"
    asm = assemble(text)
    assert asm.lines == [1, 2, 3, 4, 5, 7]
    assert asm.labels == {k: 64 * i for i, k in enumerate("abcdef")}


DIGITS = "7" * 5000  # past Python's 4300-digit limit for int(str)


@pytest.mark.parametrize("source, column", [
    (f"COPY in_dtype={DIGITS}", 15),
    (f"MOVE R1={DIGITS}", 9),
    (f"ALU_OP op=ADD dst=R1 src0=R1 src1={DIGITS}", 35),
    (f"COPY in_dtype=0b{'1' * 5000}", 15),  # 5000 bits: too long to print in decimal
    (f"COPY src=sb[0, {DIGITS}]", 16),
    (f".data sb[0, 0] int32 1 2 {DIGITS}", 26),
    (f".fill sb[0, 0] fp32 count=3 start={DIGITS}", 35),
    (f"{'x' * 300}: HALT", 1),
])
def test_over_long_numbers_and_names_are_positioned_errors(source: str, column: int) -> None:
    with pytest.raises(AsmError) as e:
        assemble(source, "p.asm")
    assert (e.value.line, e.value.column) == (1, column)
    assert "characters; at most 256 are accepted" in e.value.message


def test_hex_byte_strings_may_be_as_long_as_a_line() -> None:
    asm = assemble(".bytes sb[0, 0] 0x" + "ab" * 100_000 + "\n.raw 0x" + "00" * 64)
    assert asm.data[0].raw == b"\xab" * 100_000 and len(asm.records) == 64


def test_asm_cli_reports_a_huge_literal_in_one_error(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(f"COPY in_dtype={DIGITS}\n")
    r = cli("asm", src, "-o", tmp_path / "p.bin")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"neurondbg: error: {src}:1:15: number of 5,000 characters")


def test_an_error_on_a_long_line_shows_the_part_around_the_column() -> None:
    line = ".data sb[0, 0] int8 " + "1 " * 5000 + "x"
    with pytest.raises(AsmError) as e:
        assemble(line)
    assert e.value.column == len(line)
    _, shown, caret = str(e.value).split("\n")
    assert shown.startswith("    ...") and len(shown) == 4 + 3 + 120
    assert shown[caret.index("^")] == "x"


def test_split_line_only_splits_what_the_parser_accepts() -> None:
    for line in ("R R=.", "X a=[,]", "X a=[1 2]", "X inf=1", "X a=[inf.x]", "X a=1e"):
        if split_line(line) is not None:
            parse_line(line, "t.asm", 1)  # must not raise
    assert split_line("R R=.") is None


# ---------------------------------------------------------------- data directives

@pytest.mark.parametrize("source", [
    ".fill sb[0:128, 0] fp32 count=1000000000000",
    ".random sb[0:128, 0] int8 count=1000000000000",
    ".fill sb[0:128, 0] int64 count=1000000000000 start=1",
])
def test_data_counts_are_judged_before_the_values_are_made(source: str) -> None:
    with pytest.raises(AsmError, match="bytes at offset 0 overrun the 229376-byte sbuf"):
        assemble(source)


def test_data_in_all_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("neurondbg.machine.asm.assembler.MAX_DATA_BYTES", 1000)
    assemble(".fill sb[0:2, 0] int8 count=500 step=0")
    with pytest.raises(AsmError, match="hold more than 1000 bytes in all") as e:
        assemble(".fill sb[0:2, 0] int8 count=500 step=0\n.data sb[0, 0] int8 1")
    assert e.value.line == 2


def test_integer_fill_is_exact_at_the_ends_of_the_type() -> None:
    asm = assemble(".fill sb[0:2, 0] uint64 count=3 start=0xffffffffffffffff step=-1 pstep=-3\n"
                   ".fill sb[0:2, 0x40] int64 count=2 start=-9223372036854775808 step=1 pstep=7")
    u = asm.data[0].data.view(np.uint64)
    assert u.tolist() == [[2**64 - 1, 2**64 - 2, 2**64 - 3], [2**64 - 4, 2**64 - 5, 2**64 - 6]]
    assert asm.data[1].data.view(np.int64).tolist() == [[-2**63, -2**63 + 1],
                                                         [-2**63 + 7, -2**63 + 8]]


def test_integer_fill_names_the_first_value_outside_the_type() -> None:
    with pytest.raises(AsmError) as e:
        assemble(".fill sb[0:128, 0] int8 count=100 step=1 pstep=1")
    assert e.value.message == ("128 does not fit int8 (-128..127): element 99 of row 29 of "
                               "the region")


# ---------------------------------------------------------------- .npy images

def _npy_claiming(path: Path, shape: tuple[int, ...], descr: str = "|u1") -> Path:
    """A .npy file whose header claims `shape` but holds no data."""
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    return path


def test_an_npy_claiming_a_huge_shape_is_refused_before_allocation(tmp_path: Path) -> None:
    p = _npy_claiming(tmp_path / "huge.npy", (10**6, 10**6))
    with pytest.raises(InputError, match=r"shape \(1000000, 1000000\) is larger than any machine"):
        load_sbuf(p)


def test_an_npy_with_the_wrong_dtype_or_a_pickle_is_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "f.npy", np.zeros((2, 2), np.float32))
    with pytest.raises(InputError, match=r"expected a uint8 array .* found float32 \(2, 2\)"):
        load_sbuf(tmp_path / "f.npy")
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match=r"found object \(1,\)"):
        load_sbuf(tmp_path / "o.npy")


def test_npy_images_read_back_exactly(tmp_path: Path) -> None:
    a = np.arange(24, dtype=np.uint8).reshape(3, 8)
    np.save(tmp_path / "c.npy", a)
    np.save(tmp_path / "f.npy", np.asfortranarray(a))
    assert np.array_equal(load_sbuf(tmp_path / "c.npy"), a)
    assert np.array_equal(load_sbuf(tmp_path / "f.npy"), a)
    (tmp_path / "t.npy").write_bytes((tmp_path / "c.npy").read_bytes()[:-5])
    with pytest.raises(InputError, match="truncated: the header promises 24 bytes of array "
                                         "data, the file holds 19"):
        load_sbuf(tmp_path / "t.npy")


# ---------------------------------------------------------------- .data.npz sidecars

def _sidecar(path: Path, meta: list[list[int]], members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        with z.open("meta.npy", "w") as f:
            np.lib.format.write_array(f, np.array(meta, dtype=np.int64).reshape(-1, 5))
        with z.open("fmts.npy", "w") as f:
            np.lib.format.write_array(f, np.array(["bytes"] * len(meta)))
        for name, blob in members.items():
            z.writestr(name, blob)
    return path


def test_a_sidecar_claiming_a_huge_image_is_refused_from_its_header(tmp_path: Path) -> None:
    huge = _npy_claiming(tmp_path / "h.npy", (128, 10**9)).read_bytes()
    side = _sidecar(tmp_path / "p.bin.data.npz", [[0, 0, 128, 0, 0]], {"data0.npy": huge})
    with pytest.raises(InputFileError, match=r"member 'data0': shape \(128, 1000000000\) is "
                                             "larger than any machine holds"):
        load_data(side)


def test_a_sidecar_with_bad_rows_is_refused(tmp_path: Path) -> None:
    row = np.zeros((1, 4), np.uint8)
    good = tmp_path / "g.npz"
    save_data(good, [])
    assert load_data(good) == []
    for meta, fragment in [([[-1, 0, 1, 0, 0]], "space code -1"),
                           ([[0, 5, 2, 0, 0]], "partitions 5:2"),
                           ([[0, 0, 2, 0, 0]], r"data has shape \(1, 4\); expected 2 rows")]:
        buf = io.BytesIO()
        np.lib.format.write_array(buf, row)
        side = _sidecar(tmp_path / "s.npz", meta, {"data0.npy": buf.getvalue()})
        with pytest.raises(InputFileError, match=fragment):
            load_data(side)


def test_sidecars_written_by_asm_read_back(tmp_path: Path) -> None:
    asm = assemble(".fill sb[0:4, 8] int16 count=5 step=3\n.data psum[1, 0] fp32 1.5")
    save_data(tmp_path / "d.npz", asm.data)
    back = load_data(tmp_path / "d.npz")
    assert [(d.space, d.partitions, d.offset, d.fmt) for d in back] == [
        ("sbuf", (0, 4), 8, "int16"), ("psum", (1, 2), 0, "fp32")]
    assert all(np.array_equal(a.data, b.data) for a, b in zip(asm.data, back, strict=True))


# ---------------------------------------------------------------- JSON

def test_load_json_turns_every_failure_into_one_positioned_line() -> None:
    text = '[1,\n 2,\n ' + "9" * 5000 + "]"
    with pytest.raises(InputFileError, match=r"^t.jsonl:7:2: an integer with more than 4300 "
                                             "digits"):
        load_json(text, "t.jsonl", first_line=5)
    with pytest.raises(InputFileError, match=r"^t.json:2:1: invalid JSON: Expecting value"):
        load_json("[1,\n]", "t.json")
    with pytest.raises(InputFileError, match="JSON nested too deeply"):
        load_json("[" * 100_000, "t.json")
    with pytest.raises(InputFileError, match="offset 1: expected UTF-8 JSON text"):
        load_json(b"[\xff]", "t.json")
    assert load_json(b'{"a": [1, 2.5]}', "t.json") == {"a": [1, 2.5]}


def test_a_long_token_in_a_syntax_error_is_shown_cut_short() -> None:
    with pytest.raises(AsmError) as e:
        assemble("COPY a=[1 " + "c" * 100_000 + "]")
    assert e.value.one_line == "<asm>:1:11: expected ',' or ']', found '" + "c" * 40 + "...'"
