"""Load the program a session or trace names through the one loader (machine.asm.loader),
with SessionError messages that name the session file.

    prog = read_program(path, gen)            # .program .data .labels, .where(i) for messages
    program, data, labels = load_program(path, gen)
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.asm.loader import ProgramFile, UnreadableProgram, load
from neurondbg.machine.asm.loader import read_program as read_bytes
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import Program
from neurondbg.sessions.errors import SessionError

__all__ = ["ProgramFile", "load_program", "naming", "open_error", "read_program", "sha256_of"]


def sha256_of(path: Path, who: str = "") -> str:
    """The sha256 of the program file a session names (read within the program limits)."""
    try:
        return hashlib.sha256(read_bytes(path)[0]).hexdigest()
    except ValueError as e:  # InputFileError: a FIFO, device, folder or oversized file
        raise SessionError(f"{who or path}: cannot read program: {e}") from None
    except OSError as e:
        raise SessionError(f"{who or path}: cannot read program {path}: "
                           f"{e.strerror or e}") from None


def load_program(path: Path, gen: Gen, who: str = ""
                 ) -> tuple[Program, list[DataInit], dict[str, int]]:
    """(Program, data inits, labels); SessionError naming `who` (the session file) and the
    program when the file is missing, unreadable or not a program."""
    p = read_program(path, gen, who)
    return p.program, p.data, p.labels


def read_program(path: Path, gen: Gen, who: str = "") -> ProgramFile:
    """The program at `path` with its source map; errors as load_program."""
    try:
        return load(path, gen)
    except OSError as e:
        raise open_error("program", path, e, who) from None
    except UnreadableProgram as e:  # the file itself was refused: the message names it
        raise SessionError(f"{who}: {e}" if who else str(e)) from None
    except ValueError as e:  # AsmError / IsaFormatError: messages already name the file
        where = naming(path, e)
        raise SessionError(f"{who}: not a program: {where}" if who else where) from None


def open_error(what: str, path: Path, e: OSError, who: str = "") -> SessionError:
    """The one line for a `what` ("program", "kernel") file that cannot be opened; `who`
    (the session file that names it) leads."""
    prefix = f"{who}: {what} " if who else ""
    if isinstance(e, FileNotFoundError):
        return SessionError(f"{prefix}{path}: no such file")
    return SessionError(f"{prefix}{path}: cannot read: {e.strerror or e}")


def naming(path: Path, e: ValueError) -> str:
    """The first line of a loader's message (an assembler's source line and caret follow
    it), led by `path` unless it already names the file."""
    msg = str(e).splitlines()[0]
    return msg if msg.startswith(str(path)) else f"{path}: {msg}"
