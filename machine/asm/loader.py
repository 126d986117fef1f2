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

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from machine.asm.assembler import assemble
from machine.asm.data import DataInit, data_path, load_data
from machine.dtypes import DEFAULT_GEN, Gen
from machine.files import (
    MAX_ASSEMBLY_BYTES,
    MAX_PROGRAM_BYTES,
    TEXT_SUFFIXES,
    InputFileError,
    looks_like_text,
    read_input,
    size_text,
)
from machine.isa.codec import Program, decode_bytes


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
    def _line_starts(self) -> list[int]:
        """Offset of each line in `text` (built once, on the first `where`)."""
        return [0] + [m.end() for m in re.finditer("\n", self.text)]

    def where(self, index: int) -> str | None:
        """`file:line:column` of record `index` in assembly source (the column of its
        mnemonic), None for a binary program or an index outside it."""
        if self.lines is None or not 0 <= index < len(self.lines):
            return None
        line = self.lines[index]
        starts = self._line_starts
        if line > len(starts):
            return None
        end = self.text.find("\n", starts[line - 1])
        source = self.text[starts[line - 1]:end if end >= 0 else len(self.text)]
        head = source.split("#", 1)[0]
        label, colon, _ = head.partition(":")
        # `label: MNEMONIC ...`: a colon before the first space ends a label
        body_at = len(label) + 1 if colon and " " not in label.strip() else 0
        body = source[body_at:]
        column = body_at + len(body) - len(body.lstrip()) + 1
        return f"{self.path}:{line}:{column}"


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
