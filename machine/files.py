"""What kind of PROGRAM file a path holds: assembly text or 64-byte binary records.

Standard library only, so `neurondbg validate` can tell binary input apart without
importing the assembler (machine.asm.loader and the validate command share this).
"""

from __future__ import annotations

from pathlib import Path

TEXT_SUFFIXES = (".asm", ".s", ".nasm", ".txt")
BINARY_SUFFIXES = (".bin", ".neff", ".inst")


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
