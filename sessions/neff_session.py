"""Save and load a NEFF's session: a kernel session (sessions.store) whose kernel is one
subgraph of a NEFF, opened on the core as the TUI opens it (sessions.neff_open).

    spec = save_neff_session("s.toml", opened, stop)   # opened: an OpenedNeffKernel
    opened = load_neff_session(read_session("s.toml"))  # the core at the saved step

The file is a kernel session (sessions.schema): `[kernel] path` is the NEFF (relative to
the session file), `[kernel.streams]` the sha256 of each engine's stream in the
subgraph, `schedule` and `races` the core's, and `[kernel.neff]` the subgraph with the
file's MD5 and size; `[position] steps` and `digest` are the core's global step and
Core.digest(); breakpoints and watchpoints as for any kernel. Loading opens the NEFF
afresh, refuses it (one line) when its size, MD5 or a stream differs, and replays the
saved number of scheduler steps under the saved policy (sessions.store's replay, in
time-boxed slices), then checks the digest (a mismatch is a warning).

The input tensors the NEFF was opened with (`tui --input NAME=FILE.npy`) are kept in
`[kernel.neff.inputs]` (path relative to the session file, MD5, size): loading reads
them again and refuses one that changed; inputs not given start as zeros (the warnings
say so). `set` and record edits are kept and made again at their steps, as for any kernel; a
step given by hand to a DMA queue (Core.forced naming a queue) cannot be saved yet:
saving then is refused with one line.

`sessions.store.load_kernel_session` hands a session whose kernel is a NEFF here, so
`tui --session F` and `run --session F` load it as any kernel session.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from neurondbg.machine.neff.model import ENGINES
from neurondbg.machine.stops import Stop
from neurondbg.sessions.atomic import resolve_target, same_file
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.neff_open import OpenedNeffKernel, open_neff_kernel
from neurondbg.sessions.schema import (
    WATCH_KINDS,
    BreakpointEntry,
    FileEntry,
    KernelEntry,
    NeffEntry,
    SessionSpec,
)

Progress = Callable[[int, int], None]
_CHUNK = 1 << 20


def file_md5(path: Path) -> tuple[str, int]:
    """(MD5 hex digest, size in bytes) of the file at `path` (OSError when unreadable)."""
    h = hashlib.md5(usedforsecurity=False)
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def stream_digests(opened: OpenedNeffKernel) -> dict[str, str]:
    """The sha256 of each engine's stream (its 64-byte records as in the NEFF)."""
    assert opened.neff is not None
    sub = opened.neff.low.sub
    return {e.value: hashlib.sha256(np.ascontiguousarray(sub.streams[e]).tobytes()).hexdigest()
            for e in ENGINES}


def save_neff_session(path: str | Path, opened: OpenedNeffKernel, stop: Stop | None = None,
                      layout: dict[str, Any] | None = None) -> SessionSpec:
    """Write the core of `opened` (at its current global step) as a NEFF session;
    SessionError (one line) when it cannot be saved."""
    from neurondbg.sessions.store import _stop_dict, commit_session, relative_path

    target = resolve_target(path)
    core, nc, neff = opened.core, opened.neff, opened.file
    if nc is None or neff is None:
        raise SessionError(f"{path}: cannot save: no NEFF is open")
    queues = sorted({a for a in core.forced.values() if a in nc.dma.index})
    if queues:
        raise SessionError(f"{path}: cannot save: a NEFF's session does not keep steps given "
                           f"by hand to a DMA queue ({', '.join(queues)})")
    source = Path(neff.path).resolve()
    if same_file(target, source):
        raise SessionError(f"{path}: cannot save: it is the NEFF {neff.path}")
    inputs: dict[str, FileEntry] = {}
    for name, file in (("", source), *opened.inputs):
        try:
            md5, size = file_md5(Path(file).resolve())
        except OSError as e:
            raise SessionError(f"{path}: cannot save: {file}: {e.strerror or e}") from None
        inputs[name] = FileEntry(relative_path(Path(file).resolve(), target.parent), md5, size)
    own = inputs.pop("")  # the NEFF's
    entry = KernelEntry(own.path, stream_digests(opened), core.schedule,
                        core.detector is not None, dict(core.forced),
                        NeffEntry(nc.low.sub.name, own.md5, own.size, inputs))
    spec = SessionSpec(program=entry.path, sha256="", config=opened.config, steps=core.steps,
                       digest=core.digest(), pc=None, stop=_stop_dict(stop),
                       layout=dict(layout or {}), source=target, kernel=entry)
    spec.edits = core.saved_edits()
    for bp in core.breakpoints:
        entries = spec.watchpoints if bp.kind in WATCH_KINDS else spec.breakpoints
        entries.append(BreakpointEntry(bp.text, bp.enabled, bp.id))
    return commit_session(path, target, spec, list)


def load_neff_session(spec: SessionSpec, *, progress: Progress | None = None,
                      interrupt: threading.Event | None = None) -> OpenedNeffKernel:
    """The core of a NEFF session at its saved step (module docstring); SessionError
    (one line) on bad input, SessionInterrupted when `interrupt` is set while it
    replays."""
    from neurondbg.sessions.store import restore_on_core

    entry = spec.kernel
    assert entry is not None and entry.neff is not None
    src = str(spec.source) if spec.source is not None else "<session>"
    path = spec.program_path
    try:
        md5, size = file_md5(path)
    except OSError as e:
        raise SessionError(f"{src}: NEFF {entry.path}: {e.strerror or e} ({path})") from None
    if (md5, size) != (entry.neff.md5, entry.neff.size):
        raise SessionError(f"{src}: NEFF {entry.path} changed since the session was saved "
                           f"(MD5 {entry.neff.md5[:12]}…, {entry.neff.size:,} bytes; now "
                           f"{md5[:12]}…, {size:,} bytes)")
    inputs = []
    for name, f in entry.neff.inputs.items():
        file = spec.resolve(f.path)
        try:
            got = file_md5(file)
        except OSError as e:
            raise SessionError(f"{src}: input {name} ({f.path}): {e.strerror or e} "
                               f"({file})") from None
        if got != (f.md5, f.size):
            raise SessionError(f"{src}: input {name} ({f.path}) changed since the session "
                               f"was saved (MD5 {f.md5[:12]}…, {f.size:,} bytes; now "
                               f"{got[0][:12]}…, {got[1]:,} bytes)")
        inputs.append((name, file))
    opened = open_neff_kernel(path, entry.neff.subgraph, schedule=entry.schedule,
                              races=entry.races, inputs=inputs)
    now = stream_digests(opened)
    for engine, digest in entry.streams.items():
        if now.get(engine) != digest:
            raise SessionError(f"{src}: NEFF {entry.path}: the {engine} stream of "
                               f"{entry.neff.subgraph} is not the one the session saved")
    loaded = restore_on_core(opened.core, spec, entry.forced, progress, interrupt, src)
    opened.session = loaded
    opened.warnings = [*opened.warnings, *loaded.warnings]
    return opened
