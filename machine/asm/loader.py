"""Load a PROGRAM argument: a binary of 64-byte records or assembly text (DESIGN.md CLI)."""

from __future__ import annotations

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


def read_program(path: str | Path) -> tuple[bytes, bool]:
    """(bytes, is assembly text) of a PROGRAM file, within the limits of machine.files.

    A file named as assembly (.asm, .s, ...) is held to MAX_ASSEMBLY_BYTES before it
    is read; any other to MAX_PROGRAM_BYTES, and to MAX_ASSEMBLY_BYTES once it turns
    out to be text. InputFileError (one line) for a FIFO, device, directory or a file
    over its limit; OSError when it cannot be opened."""
    p = Path(path)
    named_text = p.suffix.lower() in TEXT_SUFFIXES
    data = read_input(p, what="assembly program" if named_text else "program",
                      max_bytes=MAX_ASSEMBLY_BYTES if named_text else MAX_PROGRAM_BYTES)
    is_text = looks_like_text(p, data)
    if is_text and len(data) > MAX_ASSEMBLY_BYTES:
        raise InputFileError(f"{p}: {size_text(len(data))} is over the "
                             f"{size_text(MAX_ASSEMBLY_BYTES)} limit for an assembly program")
    return data, is_text


def load_any(path: str | Path, gen: Gen = DEFAULT_GEN) -> tuple[Program, list[DataInit]]:
    """(Program, data initialisations) of a binary or assembly file.

    Raises OSError if unreadable, InputFileError (not a regular file, over a size
    limit), IsaFormatError (binary size) or AsmError (assembly): ValueError
    subclasses with one-line messages naming the file. A binary's data comes from
    its `<file>.data.npz` sidecar when present.
    """
    p = Path(path)
    data, is_text = read_program(p)
    if is_text:
        text = data.decode("utf-8", errors="replace")
        del data  # the text is a copy: do not hold both for a large source
        asm = assemble(text, str(p), gen)
        return asm.program(), asm.data
    program = decode_bytes(data, str(p))
    side = data_path(p)
    return program, (load_data(side) if side.exists() else [])
