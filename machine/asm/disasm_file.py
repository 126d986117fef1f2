"""Disassembly of a binary program file a block of records at a time.

    fh = open_records(path)             # None: not a binary program to stream
    if fh is not None:
        with fh:
            for piece in disassembly_blocks(fh, path, gen, load_sidecar(path)):
                out.write(piece)

A 1 GiB program is 16.7M records: disassembled whole it is gigabytes of Python
strings, and reading or decoding it whole is a C call of a second that a Ctrl+C
cannot cut short. Streamed, memory stays at one block and an interrupt lands
within one block's small numpy calls. The pieces join to exactly what
`disassemble` (text) or `to_json` (`--json`, serialised compactly) gives for the
whole file.

`open_records` streams only what the whole-file loader (machine.asm.loader) would
decode as records anyway: a regular file within MAX_PROGRAM_BYTES whose size is a
multiple of 64, not a NEFF, whose name says records (BINARY_SUFFIXES) or whose first
block holds a NUL byte (text never does). Anything else, and every refusal, is left
to the loader, which words it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from neurondbg.machine.asm.data import DataInit, data_path, load_data
from neurondbg.machine.asm.disasm import data_lines, disassemble_lines, to_json
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.files import (
    BINARY_SUFFIXES,
    MAX_PROGRAM_BYTES,
    TEXT_SUFFIXES,
    InputFileError,
    open_input,
)
from neurondbg.machine.isa.codec import RECORD_BYTES, IsaFormatError, decode_bytes
from neurondbg.machine.neff.sniff import HEADER_BYTES, looks_like_neff

BLOCK_RECORDS = 16_384  # 1 MiB of records per block
_BLOCK_BYTES = BLOCK_RECORDS * RECORD_BYTES


def open_records(path: str | Path) -> IO[bytes] | None:
    """The open file of binary program `path`, at its start, when it is one to stream
    (module docstring); None otherwise, and when it cannot be opened or is refused."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in TEXT_SUFFIXES or suffix == ".toml":  # assembly or a kernel manifest
        return None
    try:
        fh = open_input(p, what="program", max_bytes=MAX_PROGRAM_BYTES)
    except (OSError, InputFileError):
        return None
    try:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(_BLOCK_BYTES)
        fh.seek(0)
    except (OSError, InputFileError):
        fh.close()
        return None
    records = (size % RECORD_BYTES == 0 and not looks_like_neff(head[:HEADER_BYTES + 2])
               and (suffix in BINARY_SUFFIXES or b"\0" in head))
    if not records:
        fh.close()
        return None
    return fh


def load_sidecar(path: str | Path) -> list[DataInit]:
    """The data of the program's `<file>.data.npz` sidecar, as the loader reads it."""
    side = data_path(Path(path))
    return load_data(side) if side.exists() else []


def _blocks(fh: IO[bytes], name: str) -> Iterator[tuple[int, bytes]]:
    """(index of its first record, bytes) of each block of records of `fh`."""
    base = 0
    while block := fh.read(_BLOCK_BYTES):
        if len(block) % RECORD_BYTES:  # the size was a multiple of 64 when opened
            raise IsaFormatError(f"{name}: the file changed while it was read: offset "
                                 f"{64 * base + len(block) - len(block) % RECORD_BYTES}: "
                                 "partial record")
        yield base, block
        base += len(block) // RECORD_BYTES


def disassembly_blocks(fh: IO[bytes], name: str | Path, gen: Gen = DEFAULT_GEN,
                       data: list[DataInit] | None = None) -> Iterator[str]:
    """The text `disassemble` gives for the records of `fh` and `data`, in pieces."""
    head = ([] if gen == DEFAULT_GEN else [f".gen {gen.label}"]) + data_lines(data or [])
    if head:
        yield "\n".join(head) + "\n"
    for _, block in _blocks(fh, str(name)):
        yield "\n".join(disassemble_lines(decode_bytes(block, str(name)), gen)) + "\n"


def json_blocks(fh: IO[bytes], name: str | Path) -> Iterator[str]:
    """`json.dumps(to_json(program), separators=(",", ":")) + "\\n"` of the records of
    `fh`, in pieces."""
    yield "["
    sep = ""
    for base, block in _blocks(fh, str(name)):
        rows = json.dumps(to_json(decode_bytes(block, str(name)), base), separators=(",", ":"))
        yield sep + rows[1:-1]
        sep = ","
    yield "]\n"
