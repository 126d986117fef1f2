"""Reading user input files within sane limits, and telling assembly from binary records.

Every input file (program, data sidecar, `.npy` image, JSON) is read through
`open_input` / `read_input`: it must be a regular file (a FIFO, device, socket or
directory is refused before it is opened, so nothing blocks or reads forever) no
larger than a limit stated for that kind of input. Refusals are `InputFileError`, a
ValueError whose message is one line naming the file; the CLI prints it and exits 2.

Limits (decided here; generous for real programs, small enough that a bad input
fails in well under a second instead of exhausting memory):
- a program file (binary records): MAX_PROGRAM_BYTES = 1 GiB (16,777,216 records);
- assembly text: MAX_ASSEMBLY_BYTES = 256 MiB, MAX_ASSEMBLY_LINES = 2,097,152 lines,
  MAX_LINE_CHARS = 2 MiB per line (a `.bytes` line filling a 512 KiB partition in hex
  fits), MAX_TOKEN_CHARS = 256 per name or number (hex byte strings of `.raw` /
  `.bytes` excepted; Python's own limit of 4300 digits for decimal literals would
  otherwise surface as a traceback, and no field needs more);
- data (an assembly's data directives, a `.data.npz` sidecar, an `.npy` image):
  MAX_DATA_BYTES = 1 GiB in all;
- a JSON input (check-nki calls): MAX_JSON_BYTES = 64 MiB.

Standard library and numpy only: `neurondbg validate` tells binary input apart
without importing the assembler (machine.asm.loader and the validate command share
`looks_like_text`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tomllib
from pathlib import Path
from typing import IO, Any

import numpy as np

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

MAX_PROGRAM_BYTES = 1 * GIB
MAX_ASSEMBLY_BYTES = 256 * MIB
MAX_ASSEMBLY_LINES = 2 * 1024 * 1024
MAX_LINE_CHARS = 2 * MIB
MAX_TOKEN_CHARS = 256
MAX_DATA_BYTES = 1 * GIB
MAX_JSON_BYTES = 64 * MIB
# numpy's own default: a .npy header (a dict literal) longer than this is not one we wrote
MAX_NPY_HEADER = 10000

TEXT_SUFFIXES = (".asm", ".s", ".nasm", ".txt")
BINARY_SUFFIXES = (".bin", ".neff", ".inst")

# On a FIFO swapped in between stat and open, O_NONBLOCK makes open return at once
# (then fstat refuses it); it does not exist on Windows, where there are no FIFOs.
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class InputFileError(ValueError):
    """An input file refused before (or while) reading it: one line naming the file."""


def size_text(n: int) -> str:
    """`n` bytes for a message: `512 bytes`, `1.5 KiB`, `2.0 GiB`; exact units print
    without a fraction (`1 GiB`), as limits are stated."""
    if n < KIB:
        return f"{n} byte{'s' if n != 1 else ''}"
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= scale:
            return f"{n // scale} {unit}" if n % scale == 0 else f"{n / scale:.1f} {unit}"
    raise AssertionError("unreachable")


def _kind(mode: int) -> str:
    """What a non-regular file is, for the refusal message."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _check(path: str | Path, st: os.stat_result, what: str, max_bytes: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{path}: is {_kind(st.st_mode)}; expected a regular file "
                             f"holding {_article(what)}")
    if st.st_size > max_bytes:
        raise InputFileError(f"{path}: {size_text(st.st_size)} is over the "
                             f"{size_text(max_bytes)} limit for {_article(what)}")


def _article(what: str) -> str:
    return f"an {what}" if what[:1].lower() in "aeiou." else f"a {what}"


def open_input(path: str | Path, *, what: str, max_bytes: int) -> IO[bytes]:
    """A binary file object on `path` once it is known to be a regular file of at most
    `max_bytes`; InputFileError otherwise, OSError (unchanged) when it cannot be opened.

    `what` names the input in messages ("program", "data file", ...). The file is
    stat'ed before opening (a FIFO is never opened), opened non-blocking (a FIFO
    swapped in meanwhile cannot block) and fstat'ed after (closing that race)."""
    _check(path, os.stat(path), what, max_bytes)
    fd = os.open(path, os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_BINARY", 0))
    try:
        _check(path, os.fstat(fd), what, max_bytes)
        if _O_NONBLOCK:  # a regular file: back to ordinary blocking reads
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_input(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of `path` (see open_input for what is refused); a file that grows past
    `max_bytes` while being read is refused too."""
    with open_input(path, what=what, max_bytes=max_bytes) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputFileError(f"{path}: grew past the {size_text(max_bytes)} limit for "
                             f"{_article(what)} while being read")
    return data


def read_file(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """read_input with every failure as one InputFileError line: a missing file is
    `path: no such <what>`, one that cannot be read `path: cannot read: <reason>`."""
    try:
        return read_input(path, what=what, max_bytes=max_bytes)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such {what}") from None
    except OSError as e:
        raise InputFileError(f"{path}: cannot read: {e.strerror or e}") from None


def looks_like_text(path: Path, data: bytes) -> bool:
    """Assembly by extension; otherwise text if it is UTF-8 without NUL bytes
    (binary records are full of zero bytes)."""
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return True
    if suffix in BINARY_SUFFIXES:
        return False
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def line_column(text: str, index: int, first_line: int = 1) -> tuple[int, int]:
    """1-based (line, column) of character `index` of `text` (lines end at `\\n`)."""
    line = text.count("\n", 0, index) + first_line
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def load_json(text: str | bytes, where: str, *, first_line: int = 1) -> Any:
    """json.loads with every failure as one InputFileError `where:line:column: ...`.

    `first_line` numbers the lines of `text` (a JSON-lines reader passes the line's
    number, so positions read `trace.jsonl:7:12`). Besides syntax errors this covers
    nesting too deep for the parser (RecursionError) and an integer literal over
    Python's digit limit (a plain ValueError from json.loads), which would otherwise
    escape as tracebacks."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputFileError(f"{where}: offset {e.start}: expected UTF-8 JSON text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputFileError(f"{where}:{e.lineno + first_line - 1}:{e.colno}: invalid JSON: "
                             f"{e.msg}") from None
    except RecursionError:
        raise InputFileError(f"{where}: JSON nested too deeply") from None
    except ValueError:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        limit = sys.get_int_max_str_digits()
        m = re.search(rf"(?<![\d.])-?\d{{{limit + 1},}}(?![\d.eE])", text)
        at = "" if m is None else "{}:{}:".format(*line_column(text, m.start(), first_line))
        raise InputFileError(f"{where}:{at} an integer with more than {limit} digits; "
                             "expected a number of sensible size") from None


# tomllib ends its messages with the position: "Invalid value (at line 3, column 7)"
_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def load_toml(raw: bytes, where: str | Path, *, what: str = "invalid TOML"
              ) -> tuple[dict[str, Any], str]:
    """(document, text) of TOML bytes, with every failure as one InputFileError line:
    `where: offset N: expected UTF-8 TOML text`, `where:LINE:COL: <what>: <reason>` (the
    parser's position moved to the front, as gcc would put it), or nesting too deep /
    an integer over Python's digit limit (which would otherwise escape as tracebacks)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{where}: offset {e.start}: expected UTF-8 TOML text") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_AT.search(msg)
        at = f":{m.group(1)}:{m.group(2)}" if m else ""
        raise InputFileError(f"{where}{at}: {what}: {_TOML_AT.sub('', msg)}") from None
    except (RecursionError, ValueError):
        raise InputFileError(f"{where}: {what}: nested too deeply or a number too "
                             "large") from None


def read_npy(fh: IO[bytes], where: str, *, what: str, dtypes: tuple[np.dtype, ...],
             max_shape: tuple[int, ...]) -> np.ndarray:
    """The array of one `.npy` stream, judged by its header before anything is allocated.

    The header must name one of `dtypes` (never an object dtype: nothing is unpickled)
    and a shape of len(max_shape) dimensions each within its bound; the data must be
    all there. InputFileError `where: expected WHAT, found ...` otherwise."""
    fmt = np.lib.format
    not_npy = f"{where}: expected a .npy file holding {what} (offset 0: not NumPy's .npy " \
              "array format)"
    try:
        version = fmt.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fh, max_header_size=MAX_NPY_HEADER)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fh, max_header_size=MAX_NPY_HEADER)
        else:
            raise InputFileError(f"{where}: .npy format version {version[0]}.{version[1]}; "
                                 "expected 1.0 or 2.0")
    except (ValueError, EOFError) as e:
        if isinstance(e, InputFileError):
            raise
        # numpy's own text suggests allow_pickle: not advice to give for an input file
        raise InputFileError(not_npy) from None
    if dtype not in dtypes or len(shape) != len(max_shape):
        raise InputFileError(f"{where}: expected {what}, found {dtype} {tuple(shape)}")
    if any(n > m for n, m in zip(shape, max_shape, strict=True)):
        bound = " x ".join(str(n) for n in max_shape)
        raise InputFileError(f"{where}: shape {tuple(shape)} is larger than any machine holds "
                             f"(at most {bound}); expected {what}")
    # the shape is bounded now, so the buffer is too
    out = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
    view = memoryview(out.reshape(-1).view(np.uint8))  # any dtype, bytes in place
    got = 0
    while got < view.nbytes:
        n = fh.readinto(view[got:])
        if not n:
            raise InputFileError(f"{where}: truncated: the header promises {view.nbytes} bytes "
                                 f"of array data, the file holds {got}")
        got += n
    return out.T if fortran else out
