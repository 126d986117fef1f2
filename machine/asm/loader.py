"""Load a PROGRAM argument: a binary of 64-byte records or assembly text (DESIGN.md CLI)."""

from __future__ import annotations

from pathlib import Path

from machine.asm.assembler import assemble
from machine.asm.data import DataInit, data_path, load_data
from machine.dtypes import DEFAULT_GEN, Gen
from machine.files import looks_like_text
from machine.isa.codec import Program, decode_bytes


def load_any(path: str | Path, gen: Gen = DEFAULT_GEN) -> tuple[Program, list[DataInit]]:
    """(Program, data initialisations) of a binary or assembly file.

    Raises OSError if unreadable, IsaFormatError (binary size) or AsmError
    (assembly), both ValueError subclasses with messages naming the file.
    A binary's data comes from its `<file>.data.npz` sidecar when present.
    """
    p = Path(path)
    data = p.read_bytes()
    if looks_like_text(p, data):
        text = data.decode("utf-8", errors="replace")
        asm = assemble(text, str(p), gen)
        return asm.program(), asm.data
    program = decode_bytes(data, str(p))
    side = data_path(p)
    return program, (load_data(side) if side.exists() else [])
