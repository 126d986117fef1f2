"""machine.files.open_stream / read_file: every bad input is one InputFileError line naming
the file, opening it and while reading it (binary and text streams)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from neurondbg.machine.files import InputFileError, open_stream, read_file, read_input

LIMIT = 1 << 20


def _refusal(path: str | Path, *, text: bool = False, max_bytes: int = LIMIT) -> str:
    """The message of open_stream and of read_file (they must agree) for `path`."""
    messages = []
    with pytest.raises(InputFileError) as e:
        with open_stream(path, what="trace file", max_bytes=max_bytes, text=text) as fh:
            fh.read()
    messages.append(str(e.value))
    with pytest.raises(InputFileError) as e:
        read_file(path, what="trace file", max_bytes=max_bytes)
    messages.append(str(e.value))
    assert messages[0] == messages[1] and "\n" not in messages[0]
    return messages[0]


@pytest.mark.parametrize("text", [False, True])
def test_missing_directory_fifo_device_and_too_large(tmp_path: Path, text: bool) -> None:
    gone = tmp_path / "gone.jsonl"
    assert _refusal(gone, text=text) == f"{gone}: no such trace file"
    folder = tmp_path / "d"
    folder.mkdir()
    assert _refusal(folder, text=text) == \
        f"{folder}: is a directory; expected a regular file holding a trace file"
    fifo = tmp_path / "f"
    os.mkfifo(fifo)  # never opened for reading: this would block
    assert _refusal(fifo, text=text) == \
        f"{fifo}: is a FIFO (named pipe); expected a regular file holding a trace file"
    assert _refusal("/dev/zero", text=text) == \
        "/dev/zero: is a character device; expected a regular file holding a trace file"
    big = tmp_path / "big"
    big.touch()
    os.truncate(big, LIMIT + 1)  # sparse: nothing is written or read
    assert _refusal(big, text=text) == \
        f"{big}: 1.0 MiB is over the 1 MiB limit for a trace file"


def test_no_permission_and_a_file_vanishing_before_the_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the tests may run as root, whom chmod does not stop: the refusal is the OS's answer
    locked, vanishing = tmp_path / "locked", tmp_path / "vanishing"
    locked.write_bytes(b"{}\n")
    vanishing.write_bytes(b"{}\n")
    real_open = os.open

    def answer(path: str | Path, flags: int, *args: int) -> int:
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        if Path(path) == vanishing:  # removed between the stat and the open
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", answer)
    assert _refusal(locked) == f"{locked}: cannot read: Permission denied"
    assert _refusal(vanishing) == f"{vanishing}: no such trace file"


def test_an_error_while_reading_is_one_line() -> None:
    # /proc/self/mem is a regular file whose first page cannot be read: EIO, a real read error
    assert _refusal("/proc/self/mem") == "/proc/self/mem: cannot read: Input/output error"


def test_a_file_growing_past_its_limit_while_read_is_refused(tmp_path: Path) -> None:
    # /proc/self/status says its size is 0, and holds more than 64 bytes
    assert _refusal("/proc/self/status", max_bytes=64) == \
        "/proc/self/status: grew past the 64 bytes limit for a trace file while being read"
    # a file appended to after it was checked (as a writer running beside the read)
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"x" * 100)
    with pytest.raises(InputFileError) as e:
        with open_stream(p, what="trace file", max_bytes=100) as fh:
            assert fh.read(10) == b"x" * 10
            with p.open("ab") as writer:
                writer.write(b"y" * 10)
            fh.read()
    assert str(e.value) == f"{p}: grew past the 100 bytes limit for a trace file while being read"
    with open_stream(p, what="trace file", max_bytes=200) as fh:  # within the limit it reads
        assert fh.read() == b"x" * 100 + b"y" * 10


def test_a_name_with_a_nul_character_is_one_line(tmp_path: Path) -> None:
    # a session's TOML can name one ("\u0000"): os.stat raised a bare ValueError
    bad = f"{tmp_path}/a\0b"
    assert _refusal(bad) == f"{bad!r}: a file name cannot hold a NUL character"
    with pytest.raises(InputFileError, match="cannot hold a NUL"):
        read_input(bad, what="program", max_bytes=LIMIT)


def test_a_good_file_reads_whole_as_bytes_lines_and_text(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    data = "line one\r\nzwei: grüße\n".encode() * 5000  # several buffers' worth
    p.write_bytes(data)
    assert read_file(p, what="text", max_bytes=len(data)) == data
    with open_stream(p, what="text", max_bytes=len(data)) as fh:
        assert fh.readline() == b"line one\r\n"
        fh.seek(0)  # diagnose reads a .npy header twice
        assert fh.read() == data
    with open_stream(p, what="text", max_bytes=len(data), text=True) as fh:
        lines = list(fh)
    assert lines[:2] == ["line one\n", "zwei: grüße\n"] and len(lines) == 10000


def test_text_that_is_not_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    # the bad byte far into the file, after a character split across two reads
    data = b"a" * 8191 + "ö".encode() + b"b" * 70000 + b"\xff" + b"c" * 10
    p.write_bytes(data)
    at = data.index(b"\xff")
    for read in (lambda fh: fh.read(), lambda fh: list(fh), lambda fh: fh.readline()):
        with pytest.raises(InputFileError) as e:
            with open_stream(p, what="text", max_bytes=LIMIT, text=True) as fh:
                read(fh)
        assert str(e.value) == f"{p}: offset {at}: expected UTF-8 text"
