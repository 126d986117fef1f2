"""Does a path open as a kernel (the core layout) or as one program? The one place
that decides it for `run`, `tui` and the App: a kernel source (a manifest, an `.engine`
file: `machine.core.kernel.is_kernel_source`) or a session file of a kernel.

Light to import, so that the App can decide its layout before the first frame without
importing the core session's model (the Core, the races, the debugger): the check reads
the file and needs only the kernel and session readers.

A first look decides most files without importing those readers (they import numpy,
~0.15 s before the first frame): a file that names no kernel table and no `.engine`
section cannot be one (see `cannot_be_kernel`); every other file gets the full check.
`looks_like_kernel` is that first look alone, a guess that never reads a file fully
(the App picks its first screen's layout with it; its load worker then runs
`opens_as_kernel` and changes the layout when the two disagree).
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # read when a session file is looked at
    from neurondbg.sessions.schema import SessionSpec

FIRST_LOOK_BYTES = 1 << 20  # a larger file (or a FIFO, a device) gets the full check


def kernel_session_spec(path: Path) -> SessionSpec | None:
    """The SessionSpec of a kernel session file at `path`, or None for anything else."""
    if path.suffix.lower() != ".toml":
        return None
    from neurondbg.sessions.errors import SessionError
    from neurondbg.sessions.store import read_session

    try:
        spec = read_session(path)
    except (SessionError, OSError, ValueError):
        return None  # not a session: the kernel loader says what it is not
    return spec if spec.kernel is not None else None


def _first_look(path: Path) -> bytes | None:
    """The bytes of a small regular file (None: another kind of file, a larger one, or
    one that cannot be read)."""
    try:
        with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NONBLOCK)) as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > FIRST_LOOK_BYTES:
                return None
            return fh.read(FIRST_LOOK_BYTES + 1)
    except OSError:
        return None


def looks_like_kernel(path: str | Path) -> bool:
    """A quick guess of `opens_as_kernel` from the first look alone (no numpy, no
    assembler): a NEFF, a small file with an `.engine` section, or a TOML file with an
    [engines] or [kernel] table. Anything else (a larger file, one that cannot be read)
    is guessed to be one program. Wrong only for a file `opens_as_kernel` refuses after
    a full read (an `.engine` word that is no section, a broken manifest)."""
    p = Path(path)
    if is_neff(p):
        return True
    raw = _first_look(p)
    if raw is None:
        return False
    if b".engine" in raw.lower():
        return True
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):
        return False
    return "engines" in doc or "kernel" in doc


def cannot_be_kernel(path: Path) -> bool:
    """True when a first look shows that `path` is neither a kernel source nor a kernel
    session: a small regular file with no `.engine` text (a section: has_sections) whose
    TOML has neither an [engines] nor a [kernel] table (a manifest, a kernel session),
    or that is no TOML and has no such table's name in it (looks_like_manifest then
    reads it as text). False means "read it fully" (machine.core.kernel, sessions)."""
    raw = _first_look(path)
    if raw is None:
        return False
    if b".engine" in raw.lower():  # the section directive is case-insensitive
        return False
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):  # not TOML: its bytes tell
        return b"engines" not in raw and b"kernel" not in raw
    return "engines" not in doc and "kernel" not in doc


def is_neff(path: Path) -> bool:
    """True when the file at `path` starts like a NEFF (an unreadable path is not)."""
    from neurondbg.machine.neff.sniff import HEADER_BYTES, looks_like_neff  # light: no numpy

    try:
        with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NONBLOCK)) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return False
            return looks_like_neff(fh.read(HEADER_BYTES + 2))
    except OSError:
        return False


def opens_as_kernel(path: str | Path) -> bool:
    """A kernel source (manifest, `.engine` file) or a kernel session file."""
    p = Path(path)
    if is_neff(p):  # a NEFF subgraph is a kernel: five engines and its DMA queues
        return True
    if cannot_be_kernel(p):
        return False
    from neurondbg.machine.core.kernel import is_kernel_source

    try:
        return is_kernel_source(p) or kernel_session_spec(p) is not None
    except (OSError, ValueError):
        return False
