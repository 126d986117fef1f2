"""Load the program a session or trace names: assembly text or 64-byte records."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from machine.dtypes import Gen
from sessions.errors import SessionError


def sha256_of(path: Path, who: str = "") -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise SessionError(f"{who or path}: cannot read program {path}: "
                           f"{e.strerror or e}") from None


def load_program(path: Path, gen: Gen, who: str = "") -> tuple[Any, list[Any], dict[str, int]]:
    """(Program, data inits, labels); SessionError naming `who` (the session file) and the
    program when the file is missing, unreadable or not a program."""
    from machine.asm.assembler import assemble
    from machine.asm.loader import load_any, looks_like_text

    prefix = f"{who}: program " if who else ""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionError(f"{prefix}{path}: no such file") from None
    except OSError as e:
        raise SessionError(f"{prefix}{path}: cannot read: {e.strerror or e}") from None
    try:
        if looks_like_text(path, raw):
            asm = assemble(raw.decode("utf-8", errors="replace"), str(path), gen)
            return asm.program(), list(asm.data), dict(asm.labels)
        program, data = load_any(path, gen)
        return program, list(data), {}
    except OSError as e:
        raise SessionError(f"{prefix}{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # AsmError / IsaFormatError: messages already name the file
        msg = " ".join(str(e).split())
        where = msg if msg.startswith(str(path)) else f"{path}: {msg}"
        raise SessionError(f"{who}: not a program: {where}" if who else where) from None
