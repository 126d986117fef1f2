"""Does a path open as a kernel (the core layout) or as one program?

Apart from views.core_session so that the App can decide its layout before the first
frame without importing the core session's model (the Core, the races, the debugger):
the check reads the file and needs only the kernel and session readers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def kernel_session_spec(path: Path) -> Any:
    """The SessionSpec of a kernel session file at `path`, or None for anything else."""
    if path.suffix.lower() != ".toml":
        return None
    from sessions.errors import SessionError
    from sessions.store import read_session

    try:
        spec = read_session(path)
    except (SessionError, OSError, ValueError):
        return None  # not a session: the kernel loader says what it is not
    return spec if spec.kernel is not None else None


def opens_as_kernel(path: str | Path) -> bool:
    """A kernel source (manifest, `.engine` file) or a kernel session file."""
    from machine.core.kernel import is_kernel_source

    p = Path(path)
    try:
        return is_kernel_source(p) or kernel_session_spec(p) is not None
    except (OSError, ValueError):
        return False
