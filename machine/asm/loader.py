"""The one program loader: a PROGRAM file (64-byte records or assembly text) as a
`ProgramFile` (DESIGN.md CLI).

    prog = load(path, gen)       # .program .data .labels; .where(i) -> "file:line:column"

Every reader of a PROGRAM goes through here: `load_any` (the library's short form),
sessions.program (the same with SessionError messages), the CLI and the TUI through
sessions. Reading is within the limits of machine.files (`read_program`); text or
binary is told by machine.files.looks_like_text; `load` turns the bytes into a program:
assembly with its labels, data directives and source map, or binary records with the
data of their `<file>.data.npz` sidecar.

Errors are one-line ValueError subclasses naming the file: UnreadableProgram (an
InputFileError: not a regular file, over a limit), InputFileError (a bad sidecar),
IsaFormatError (binary size), AsmError (assembly: `file:line:column: ...`); OSError
when the file cannot be opened.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from neurondbg.machine.asm.assembler import ASCII_LINE_BREAKS, LINE_BREAKS, LINE_END, assemble
from neurondbg.machine.asm.data import DataInit, data_path, load_data
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.files import (
    MAX_ASSEMBLY_BYTES,
    MAX_PROGRAM_BYTES,
    TEXT_SUFFIXES,
    InputFileError,
    looks_like_text,
    read_input,
    size_text,
)
from neurondbg.machine.isa.codec import Program, decode_bytes
from neurondbg.machine.neff.sniff import HEADER_BYTES, looks_like_neff


@dataclass(frozen=True)
class ProgramFile:
    """A loaded PROGRAM; for assembly, where each record came from in the source."""

    path: Path
    program: Program
    data: list[DataInit]
    labels: dict[str, int] = field(default_factory=dict)  # name -> byte offset of the record
    lines: list[int] | None = None  # source line of each record (assembly only)
    text: str = ""  # the assembly source (for columns)
    gen: Gen | None = None  # assembly: the generation its addresses were made for (.gen)

    @cached_property
    def _line_starts(self) -> np.ndarray:
        """Offset of each line in `text` (built once, on the first `where`), shared with
        the last program that built one for the same text: a kernel's queues all hold
        their whole `.engine` file, which is then scanned once, not once per engine. The
        share holds that program weakly, so it keeps no text alive."""
        last = _INDEXED[0]
        owner = last[0]() if last is not None else None
        if last is not None and owner is not None and owner.text is self.text:
            return last[1]
        starts = line_starts(self.text)
        _INDEXED[0] = (weakref.ref(self), starts)
        return starts

    def where(self, index: int) -> str | None:
        """`file:line:column` of record `index` in assembly source (the column of its
        mnemonic), None for a binary program or an index outside it."""
        if self.lines is None or not 0 <= index < len(self.lines):
            return None
        line = self.lines[index]
        starts = self._line_starts
        if line > len(starts):
            return None
        end = int(starts[line]) if line < len(starts) else len(self.text)
        source = self.text[int(starts[line - 1]):end].rstrip(LINE_BREAKS)
        head = source.split("#", 1)[0]
        label, colon, _ = head.partition(":")
        # `label: MNEMONIC ...`: a colon before the first space ends a label
        body_at = len(label) + 1 if colon and " " not in label.strip() else 0
        body = source[body_at:]
        column = body_at + len(body) - len(body.lstrip()) + 1
        return f"{self.path}:{line}:{column}"


# the last ProgramFile whose text was indexed, and the index (ProgramFile._line_starts)
_INDEXED: list[tuple[weakref.ref[ProgramFile], np.ndarray] | None] = [None]
_ASCII_BREAKS = np.zeros(256, dtype=bool)  # the line breaks that are ASCII bytes
_ASCII_BREAKS[[ord(c) for c in ASCII_LINE_BREAKS]] = True
_LAST_ASCII_BREAK = max(map(ord, ASCII_LINE_BREAKS))
_BLOCK = 1 << 20  # characters per block of line_starts' scan


def line_starts(text: str) -> np.ndarray:
    """The offset in `text` of each line's start, lines split as the assembler splits
    them (str.splitlines: CR LF, LF, CR, form feed, ... each end a line), so a
    record's line number finds its line. ASCII text (nearly every source) is scanned
    by numpy as bytes, which are then its characters, a block at a time (the scan's
    temporaries stay small beside the text); other text by LINE_END."""
    if not text.isascii():
        found = np.fromiter((m.end() for m in LINE_END.finditer(text)), dtype=np.int64)
    else:
        found = np.concatenate([np.zeros(0, dtype=np.int64)]
                               + [_ascii_ends(text, at) for at in range(0, len(text), _BLOCK)])
    return np.concatenate((np.zeros(1, dtype=np.int64), found))


def _ascii_ends(text: str, at: int) -> np.ndarray:
    """The offsets just after each line break in text[at:at + _BLOCK] (ASCII)."""
    raw = np.frombuffer(text[at:at + _BLOCK].encode("ascii"), dtype=np.uint8)
    low = np.flatnonzero(raw <= _LAST_ASCII_BREAK)  # breaks and tabs: few, so then
    ends = low[_ASCII_BREAKS[raw[low]]]  # a table says which are breaks
    cr = ends[raw[ends] == 13]
    if len(cr):  # the \r of a \r\n ends no line: its \n does
        after = np.append(raw, np.uint8(ord(text[at + len(raw)]) if at + len(raw) < len(text)
                                        else 0))[cr + 1]
        ends = np.setdiff1d(ends, cr[after == 10], assume_unique=True)
    return ends.astype(np.int64) + (at + 1)


class UnreadableProgram(InputFileError):
    """The PROGRAM file itself was refused before it was parsed (not a regular file, over
    its limit): sessions name it apart from a file that is not a program."""


def read_program(path: str | Path) -> tuple[bytes, bool]:
    """(bytes, is assembly text) of a PROGRAM file, within the limits of machine.files.

    A file named as assembly (.asm, .s, ...) is held to MAX_ASSEMBLY_BYTES before it
    is read; any other to MAX_PROGRAM_BYTES, and to MAX_ASSEMBLY_BYTES once it turns
    out to be text. UnreadableProgram (one line) for a FIFO, device, directory or a file
    over its limit; OSError when it cannot be opened."""
    p = Path(path)
    named_text = p.suffix.lower() in TEXT_SUFFIXES
    try:
        data = read_input(p, what="assembly program" if named_text else "program",
                          max_bytes=MAX_ASSEMBLY_BYTES if named_text else MAX_PROGRAM_BYTES)
    except InputFileError as e:
        raise UnreadableProgram(str(e)) from None
    if looks_like_neff(data[:HEADER_BYTES + 2]):
        # A NEFF's header would decode as bogus records: say what it is instead.
        raise UnreadableProgram(f"{p}: a NEFF file: this command does not open a NEFF "
                                "yet; `neurondbg run`, `tui`, `validate` and `disasm` read it")
    is_text = looks_like_text(p, data)
    if is_text and len(data) > MAX_ASSEMBLY_BYTES:
        raise UnreadableProgram(f"{p}: {size_text(len(data))} is over the "
                                f"{size_text(MAX_ASSEMBLY_BYTES)} limit for an assembly "
                                "program")
    return data, is_text


def load(path: str | Path, gen: Gen = DEFAULT_GEN) -> ProgramFile:
    """The PROGRAM at `path`, read once (errors: see the module docstring). Assembly
    keeps its source for `where`; a binary reads its `<file>.data.npz` sidecar when
    present."""
    p = Path(path)
    raw, is_text = read_program(p)
    if is_text:
        text = raw.decode("utf-8", errors="replace")
        del raw  # the text is a copy: do not hold both while assembling a large source
        return from_text(p, text, gen)
    return from_binary(p, raw)


def from_text(path: Path, text: str, gen: Gen = DEFAULT_GEN) -> ProgramFile:
    """The program of assembly `text` read from `path` (AsmError at its first problem)."""
    asm = assemble(text, str(path), gen)
    return ProgramFile(path, asm.program(), list(asm.data), dict(asm.labels), list(asm.lines),
                       text, asm.gen)


def from_binary(path: Path, raw: bytes) -> ProgramFile:
    """The program of records `raw` read from `path`, with its `.data.npz` sidecar's data."""
    side = data_path(path)
    data = load_data(side) if side.exists() else []
    return ProgramFile(path, decode_bytes(raw, str(path)), list(data))


def load_any(path: str | Path, gen: Gen = DEFAULT_GEN) -> tuple[Program, list[DataInit]]:
    """(Program, data initialisations) of a binary or assembly file: `load` without
    the labels and the source map."""
    prog = load(path, gen)
    return prog.program, prog.data
