"""Reading user input files within sane limits, and telling assembly from binary records.

Every input file (program, data sidecar, `.npy` image, JSON, trace) is read through
`open_input` / `read_input`: it must be a regular file (a FIFO, device, socket or
directory is refused before it is opened, so nothing blocks or reads forever) no
larger than a limit stated for that kind of input. Refusals are `InputFileError`, a
ValueError whose message is one line naming the file; the CLI prints it and exits 2.

`open_stream` (a stream) and `read_file` (the bytes) also word every OS error as one
InputFileError line, the mapping declared once here (`_unreadable`):
- missing: `path: no such <what>` (also a file that vanishes before it is opened);
- not a regular file: `path: is a directory; expected a regular file holding a <what>`;
- too large: `path: 2.0 GiB is over the 1 GiB limit for a <what>`;
- any other OS error opening or reading it: `path: cannot read: <reason>` (permission
  denied, an I/O error, a name too long, ...);
- a file that grows past its limit while being read (checked again as it is read, so a
  file appended to, or a /proc file whose size says 0, cannot be read forever):
  `path: grew past the 1 GiB limit for a <what> while being read`;
- as text, bytes that are not UTF-8: `path: offset N: expected UTF-8 text`.
A file that shrinks while it is read simply ends early: the reader of its format says
what is missing (a `.npy` "truncated: the header promises ...", a trace line that is
not JSON), as for a file that was short to begin with.

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
- a JSON input (check-nki calls): MAX_JSON_BYTES = 64 MiB;
- a TOML input (session, manifest): MAX_TOML_ITEMS = 16,384 entries in any one array
  or table (each is a breakpoint, edit, image or note a loader acts on in turn; a
  session that ten thousand clicks made still fits).

Standard library only at import (numpy and tomllib are imported by the one function
each that needs them): `neurondbg validate` tells binary input apart without importing
the assembler (machine.asm.loader and the validate command share `looks_like_text`),
and a kernel's first look does not wait for numpy.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, overload

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import numpy as np
    from _typeshed import WriteableBuffer

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
MAX_TOML_ITEMS = 16 * KIB
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


def _grew_past(path: str | Path, what: str, max_bytes: int) -> InputFileError:
    return InputFileError(f"{path}: grew past the {size_text(max_bytes)} limit for "
                          f"{_article(what)} while being read")


def _unreadable(path: str | Path, what: str, e: OSError) -> InputFileError:
    """The one line for an OSError opening or reading a user's input (see the module
    docstring): the single place that maps them."""
    if isinstance(e, FileNotFoundError):
        return InputFileError(f"{path}: no such {what}")
    return InputFileError(f"{path}: cannot read: {e.strerror or e}")


def _open_fd(path: str | Path, what: str, max_bytes: int) -> int:
    """A read-only descriptor on `path` once it is known to be a regular file of at most
    `max_bytes`: stat'ed before opening (a FIFO is never opened), opened non-blocking (a
    FIFO swapped in meanwhile cannot block) and fstat'ed after (closing that race)."""
    if "\0" in os.fspath(path):  # os.stat would raise a bare ValueError
        raise InputFileError(f"{os.fspath(path)!r}: a file name cannot hold a NUL character")
    _check(path, os.stat(path), what, max_bytes)
    fd = os.open(path, os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_BINARY", 0))
    try:
        _check(path, os.fstat(fd), what, max_bytes)
        if _O_NONBLOCK:  # a regular file: back to ordinary blocking reads
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def file_problem(path: str | Path) -> str | None:
    """None when `path` names an existing file, else what to say of it: "no such file",
    or "cannot read: <reason>" when looking it up fails otherwise (a symlink loop, a
    permission denied on its folder): Path.exists() would call those missing."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return "no such file"
    except OSError as e:
        return f"cannot read: {e.strerror or e}"
    except ValueError:  # a NUL in the name
        return "no such file"
    return None


def check_input(path: str | Path, *, what: str, max_bytes: int) -> None:
    """Refuse `path` as open_stream would, without opening it: InputFileError unless it
    is a regular file of at most `max_bytes` (for a command that hands the path to
    code that opens it later, e.g. the TUI's loader)."""
    if "\0" in os.fspath(path):
        raise InputFileError(f"{os.fspath(path)!r}: a file name cannot hold a NUL character")
    try:
        st = os.stat(path)
    except OSError as e:
        raise _unreadable(path, what, e) from None
    _check(path, st, what, max_bytes)


def open_input(path: str | Path, *, what: str, max_bytes: int) -> IO[bytes]:
    """A binary file object on `path` once it is known to be a regular file of at most
    `max_bytes`; InputFileError otherwise, OSError (unchanged) when it cannot be opened.

    `what` names the input in messages ("program", "data file", ...). For one line on
    every failure, opening and reading, use open_stream."""
    return os.fdopen(_open_fd(path, what, max_bytes), "rb")


def read_input(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of `path` (see open_input for what is refused); a file that grows past
    `max_bytes` while being read is refused too."""
    with open_input(path, what=what, max_bytes=max_bytes) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _grew_past(path, what, max_bytes)
    return data


STREAM_BUFFER = 64 * KIB  # a buffered read per 64 KiB: trace lines are read one by one
_READALL_CHUNK = 1 * MIB  # reading to the end of a file whose size says less (/proc)


class _InputReader(io.FileIO):
    """The unbuffered reads of one user's input: an OSError is its InputFileError line,
    and a read that takes the position past `max_bytes` is refused (the file grew after
    it was checked): a buffered read goes at most one buffer past the limit, reading it
    whole one byte."""

    def __init__(self, fd: int, path: str | Path, what: str, max_bytes: int) -> None:
        super().__init__(fd, "rb")
        self._path, self._what, self._max_bytes = path, what, max_bytes

    def _within_limit(self) -> None:
        if self.tell() > self._max_bytes:
            raise _grew_past(self._path, self._what, self._max_bytes)

    def readinto(self, buffer: WriteableBuffer) -> int | None:
        try:
            n = super().readinto(buffer)
        except OSError as e:
            raise _unreadable(self._path, self._what, e) from None
        self._within_limit()
        return n

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return self.readall()
        try:
            data = super().read(size)
        except OSError as e:
            raise _unreadable(self._path, self._what, e) from None
        self._within_limit()
        return data

    def readall(self) -> bytes:
        parts: list[bytes] = []
        while True:
            pos = self.tell()
            try:
                size = os.fstat(self.fileno()).st_size
            except OSError as e:
                raise _unreadable(self._path, self._what, e) from None
            # what the size says plus one byte (to meet the end), at least a chunk, and
            # never more than one byte past the limit (read() then refuses it)
            want = min(self._max_bytes + 1, max(size + 1, pos + _READALL_CHUNK)) - pos
            chunk = self.read(want)
            if not chunk:
                return b"".join(parts)  # one part: the part itself, no copy
            parts.append(chunk)


class _InputText(io.TextIOWrapper):
    """UTF-8 text of one user's input: bytes that are not UTF-8 are an InputFileError
    naming the file and the byte offset."""

    def __init__(self, buffer: io.BufferedReader[_InputReader], path: str | Path) -> None:
        super().__init__(buffer, encoding="utf-8", errors="strict")
        self._path = path
        self._bytes = buffer  # `buffer`, typed as what it is (typeshed: a narrower protocol)

    def _not_utf8(self, e: UnicodeDecodeError) -> InputFileError:
        # the decoder was handed the bytes up to the buffer's position (with any bytes of
        # a character the previous chunk began): e.start counts from there
        at = self._bytes.tell() - len(e.object) + e.start
        return InputFileError(f"{self._path}: offset {at}: expected UTF-8 text")

    def read(self, size: int | None = -1) -> str:
        try:
            return super().read(size)
        except UnicodeDecodeError as e:
            raise self._not_utf8(e) from None

    # typeshed's _IOBase types readline and __next__ as bytes for text streams too (its
    # TextIOWrapper stub ignores the same conflict): str is what they return
    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        try:
            return super().readline(size)
        except UnicodeDecodeError as e:
            raise self._not_utf8(e) from None

    def __next__(self) -> str:  # type: ignore[override]  # (see readline)
        try:
            return super().__next__()
        except UnicodeDecodeError as e:
            raise self._not_utf8(e) from None


@overload
def open_stream(path: str | Path, *, what: str, max_bytes: int,
                text: Literal[False] = False) -> AbstractContextManager[io.BufferedReader]: ...


@overload
def open_stream(path: str | Path, *, what: str, max_bytes: int,
                text: Literal[True]) -> AbstractContextManager[io.TextIOWrapper]: ...


def open_stream(path: str | Path, *, what: str, max_bytes: int,
                text: bool = False) -> AbstractContextManager[Any]:
    """`with open_stream(path, what=..., max_bytes=...) as fh:` a user's input as a
    buffered binary stream (seekable), or with `text=True` as UTF-8 text (universal
    newlines); every failure opening or reading it is one InputFileError line naming
    the file (the module docstring lists them). `what` names the input in messages."""
    return _stream(path, what, max_bytes, text)


@contextmanager
def _stream(path: str | Path, what: str, max_bytes: int, text: bool) -> Iterator[Any]:
    try:
        fd = _open_fd(path, what, max_bytes)
    except OSError as e:
        raise _unreadable(path, what, e) from None
    raw = _InputReader(fd, path, what, max_bytes)
    buffered = io.BufferedReader(raw, STREAM_BUFFER)
    with _InputText(buffered, path) if text else buffered as fh:
        yield fh


def read_file(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of `path` with every failure as one InputFileError line (open_stream's
    checks and messages: a missing file is `path: no such <what>`, one that cannot be
    read `path: cannot read: <reason>`)."""
    with open_stream(path, what=what, max_bytes=max_bytes) as fh:
        return fh.read()


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


def load_toml(raw: bytes, where: str | Path, *, what: str = "invalid TOML",
              max_items: int = MAX_TOML_ITEMS) -> tuple[dict[str, Any], str]:
    """(document, text) of TOML bytes, with every failure as one InputFileError line:
    `where: offset N: expected UTF-8 TOML text`, `where:LINE:COL: <what>: <reason>` (the
    parser's position moved to the front, as gcc would put it), nesting too deep /
    an integer over Python's digit limit (which would otherwise escape as tracebacks),
    or an array or table of more than `max_items` entries (`where: KEY: N entries; ...`),
    refused before any caller walks it."""
    import tomllib  # this function's alone: machine.files loads without it

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{where}: offset {e.start}: expected UTF-8 TOML text") from None
    _prescan_toml(text, where, max_items)  # before tomllib spends seconds on a huge array
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_AT.search(msg)
        at = f":{m.group(1)}:{m.group(2)}" if m else ""
        raise InputFileError(f"{where}{at}: {what}: {_TOML_AT.sub('', msg)}") from None
    except (RecursionError, ValueError):
        raise InputFileError(f"{where}: {what}: nested too deeply or a number too "
                             "large") from None
    _held_items(doc, where, max_items)
    return doc, text


# what tomllib would read as strings or comments (their brackets and commas are not
# syntax): multi-line strings first, so `"""` is not taken for `""` and a quote
_TOML_QUOTED = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"'
                          r"|'[^'\n]*'|#[^\n]*", re.S)
_TOML_NOT_SYNTAX = re.compile(r"[^\[\]{},=\n]+")
_TOML_TABLES = re.compile(r"(?m)^[ \t]*\[\[[ \t]*([^\]\n]*?)[ \t]*\]\]")


def _prescan_toml(text: str, where: str | Path, max_items: int) -> None:
    """InputFileError for an array, inline table, table or array of tables that holds
    more than `max_items` entries, judged from the text before tomllib parses it (its
    pure-Python parser takes seconds on a few MiB of `0,0,0,...`). Over-counts (a
    trailing comma, a dotted key) by little: a file near the limit is judged exactly
    after parsing (_held_items)."""
    bare = _TOML_QUOTED.sub("0", text)
    for name, n in _most_common(_TOML_TABLES.findall(bare)):
        if n > max_items:
            raise InputFileError(f"{where}: [[{name}]]: {n} tables; expected at most "
                                 f"{max_items} in one array or table")
    syntax = _TOML_NOT_SYNTAX.sub("", bare)
    if syntax.count(",") + syntax.count("=") < max_items:
        return  # no container can hold more entries than the file has separators
    line, keys, key_line, after_value = 1, 0, 1, False
    stack: list[list[int]] = []  # per open bracket: [entries so far, line it opened on]
    for ch in syntax:
        if ch == "\n":
            line += 1
            after_value = False
        elif ch in "[{":
            if not stack and not after_value:  # a [table] header: a new table's keys
                keys, key_line = 0, line
            stack.append([0, line])
        elif ch in "]}":
            if stack:
                stack.pop()
        elif ch == ",":
            if stack:
                stack[-1][0] += 1
                if stack[-1][0] >= max_items:
                    raise InputFileError(f"{where}:{stack[-1][1]}: an array or inline table "
                                         f"of more than {max_items} entries; expected at most "
                                         f"{max_items} in one array or table")
        elif not stack:  # `=` of a key in the current table
            after_value = True
            keys += 1
            if keys > max_items:
                raise InputFileError(f"{where}:{key_line}: a table of more than {max_items} "
                                     f"keys; expected at most {max_items} in one array or "
                                     "table")


def _most_common(names: list[str]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:1]


def _held_items(doc: dict[str, Any], where: str | Path, max_items: int) -> None:
    """InputFileError naming the first array or table (depth first) of more than
    `max_items` entries; each container is looked at once, so this is linear in the
    document."""
    stack: list[tuple[str, dict[str, Any] | list[Any]]] = [("", doc)]
    while stack:
        name, node = stack.pop()
        if len(node) > max_items:
            raise InputFileError(f"{where}: {name or 'the document'}: {len(node)} entries; "
                                 f"expected at most {max_items} in one array or table")
        items = node.items() if isinstance(node, dict) else (
            (f"[{i}]", v) for i, v in enumerate(node))
        for key, value in items:
            if isinstance(value, dict | list):
                child = f"{name}{key}" if key.startswith("[") else \
                    (f"{name}.{key}" if name else str(key))
                stack.append((child, value))


def _read_into(fh: IO[bytes], view: memoryview) -> int:
    """Bytes of `fh` read into `view` (0 at the end): in place where the stream has
    readinto (every buffered or raw binary stream: a file, a zip member, BytesIO), else
    read and copied."""
    if isinstance(fh, io.BufferedIOBase | io.RawIOBase):
        return fh.readinto(view) or 0
    data = fh.read(len(view))
    view[:len(data)] = data
    return len(data)


def read_npy(fh: IO[bytes], where: str, *, what: str, dtypes: tuple[np.dtype, ...],
             max_shape: tuple[int, ...]) -> np.ndarray:
    """The array of one `.npy` stream, judged by its header before anything is allocated.

    The header must name one of `dtypes` (never an object dtype: nothing is unpickled)
    and a shape of len(max_shape) dimensions each within its bound; the data must be
    all there. InputFileError `where: expected WHAT, found ...` otherwise."""
    import numpy as np  # this function's alone: machine.files loads without numpy

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
    view = out.reshape(-1).view(np.uint8).data  # any dtype, bytes in place
    got = 0
    while got < view.nbytes:
        n = _read_into(fh, view[got:])
        if not n:
            raise InputFileError(f"{where}: truncated: the header promises {view.nbytes} bytes "
                                 f"of array data, the file holds {got}")
        got += n
    return out.T if fortran else out
