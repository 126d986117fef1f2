"""Load the program a session or trace names: assembly text or 64-byte records.

    prog = read_program(path, gen)            # .program .data .labels, .where(i) for messages
    program, data, labels = load_program(path, gen)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from machine.dtypes import Gen
from sessions.errors import SessionError


@dataclass(frozen=True)
class ProgramFile:
    """A loaded PROGRAM; for assembly, where each record came from in the source."""

    path: Path
    program: Any
    data: list[Any]
    labels: dict[str, int]
    lines: list[int] | None = None  # source line of each record (assembly only)
    text: str = ""  # the assembly source (for columns)

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


def sha256_of(path: Path, who: str = "") -> str:
    """The sha256 of the program file a session names (read within the program limits)."""
    from machine.asm.loader import read_program as read_bytes

    try:
        return hashlib.sha256(read_bytes(path)[0]).hexdigest()
    except ValueError as e:  # InputFileError: a FIFO, device, folder or oversized file
        raise SessionError(f"{who or path}: cannot read program: {e}") from None
    except OSError as e:
        raise SessionError(f"{who or path}: cannot read program {path}: "
                           f"{e.strerror or e}") from None


def load_program(path: Path, gen: Gen, who: str = "") -> tuple[Any, list[Any], dict[str, int]]:
    """(Program, data inits, labels); SessionError naming `who` (the session file) and the
    program when the file is missing, unreadable or not a program."""
    p = read_program(path, gen, who)
    return p.program, p.data, p.labels


def read_program(path: Path, gen: Gen, who: str = "") -> ProgramFile:
    """The program at `path` with its source map; errors as load_program."""
    from machine.asm.assembler import assemble
    from machine.asm.data import data_path, load_data
    from machine.asm.loader import read_program as read_bytes
    from machine.isa.codec import decode_bytes

    prefix = f"{who}: program " if who else ""
    try:
        raw, is_text = read_bytes(path)  # regular files within machine.files' limits
    except FileNotFoundError:
        raise SessionError(f"{prefix}{path}: no such file") from None
    except OSError as e:
        raise SessionError(f"{prefix}{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # InputFileError names the file
        raise SessionError(f"{who}: {e}" if who else str(e)) from None
    try:
        if is_text:
            text = raw.decode("utf-8", errors="replace")
            del raw  # the text is a copy: do not hold both while assembling a large source
            asm = assemble(text, str(path), gen)
            return ProgramFile(path, asm.program(), list(asm.data), dict(asm.labels),
                               list(asm.lines), text)
        # as machine.asm.loader.load_any, without reading the file a second time
        side = data_path(path)
        data = load_data(side) if side.exists() else []
        return ProgramFile(path, decode_bytes(raw, str(path)), list(data), {})
    except OSError as e:
        raise SessionError(f"{prefix}{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # AsmError / IsaFormatError: messages already name the file
        msg = str(e).splitlines()[0]  # the assembler's source line and caret follow it
        where = msg if msg.startswith(str(path)) else f"{path}: {msg}"
        raise SessionError(f"{who}: not a program: {where}" if who else where) from None
