"""Kernel sessions: a Core saved at its global step, reloaded to the exact same state.

    save_kernel_session("k.toml", opened, stop)      # opened: sessions.kernel_open.OpenedKernel
    opened = load_kernel_session("k.toml")           # Core at the saved step, digest checked

The file is a session (sessions.schema) with a `[kernel]` table instead of `[program]`:
the source's path, the sha256 of every engine's stream, the schedule policy and
whether races are checked; `[position] steps` counts global scheduler steps and
`digest` is Core.digest(). Loading replays that many scheduler steps under the saved
policy (the schedule is a function of the policy and the state, so the same steps
come back) in time-boxed slices that an `interrupt` Event stops.

Decisions: a stream whose records changed (or an engine added or dropped) is refused
with one line naming the stream, since replaying another program to "the same step"
would be a different state (a PROGRAM session only warns: its single stream's step
count still means something to a user editing it); a state whose replayed digest
differs (e.g. the data directives changed) is a warning, as for a PROGRAM session.
Memory the kernel's data does not produce (`run --sbuf`) is saved as .npy images
beside the session, as store.save_session does; saving writes the images first and
the TOML last (the commit point).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machine.core.manifest import records_of
from machine.files import file_problem
from machine.stops import Stop
from sessions.atomic import resolve_target, same_file
from sessions.errors import SessionError, SessionInterrupted
from sessions.kernel_open import Image, OpenedKernel, make_core, memory_shape, read_kernel
from sessions.schema import (
    WATCH_KINDS,
    BreakpointEntry,
    KernelEntry,
    SessionSpec,
    check_base,
)
from sessions.store import (
    SLICE_SECONDS,
    Progress,
    commit_session,
    read_image,
    relative_path,
    write_image,
)


@dataclass
class LoadedKernelSession:
    """What a kernel session file added to the Core it opened."""

    spec: SessionSpec
    stop: dict[str, Any] | None = None  # the saved stop (to_dict form)
    warnings: list[str] = field(default_factory=list)
    digest_ok: bool = True


def load_kernel_session(spec: SessionSpec, *, progress: Progress | None = None,
                        interrupt: threading.Event | None = None,
                        history: bool = True) -> OpenedKernel:
    """The Core of a kernel session at its saved step (see the module docstring)."""
    assert spec.kernel is not None
    src = str(spec.source) if spec.source is not None else "<session>"
    entry = spec.kernel
    if spec.edits:
        raise SessionError(f"{src}: edits: a kernel session cannot hold `set` edits")
    path = spec.program_path
    if not path.is_file():  # a directory too; a symlink loop "cannot read"
        problem = file_problem(path) or "no such file"
        raise SessionError(f"{src}: kernel {entry.path}: {problem} ({path})")
    kernel = read_kernel(path, spec.config.gen, src)
    _check_streams(kernel, entry, src)
    check_base(spec, records_of(kernel))
    images = [Image(img.space, img.partition, img.offset,
                    read_image(img, spec, f"{src}: data[{i}]",
                               memory_shape(spec.config, img.space)), f"{src}: data[{i}]")
              for i, img in enumerate(spec.data)]
    opened = make_core(kernel, spec.config, schedule=entry.schedule, races=entry.races,
                       history=history, images=images)
    core = opened.core
    loaded = LoadedKernelSession(spec, spec.stop)
    _replay(core, spec.steps, entry.forced, progress, interrupt, src, loaded.warnings)
    loaded.digest_ok = not spec.digest or core.digest() == spec.digest
    if not loaded.digest_ok:
        loaded.warnings.append(f"{src}: the replayed state at step {core.steps} differs from "
                               "the saved one (digest mismatch)")
    tagged = [(key, i, e) for key, entries in (("breakpoints", spec.breakpoints),
                                                ("watchpoints", spec.watchpoints))
              for i, e in enumerate(entries)]
    tagged.sort(key=lambda t: t[2].id or 1 << 62)  # the user's order, as store.load_session
    for key, i, e in tagged:
        try:
            bp = core.add_breakpoint(e.spec)
        except ValueError as err:
            raise SessionError(f"{src}: {key}[{i}].spec {e.spec!r}: {err}") from None
        if not e.enabled:
            core.set_enabled(bp.id, False)
    opened.session = loaded
    opened.warnings = list(loaded.warnings)
    return opened


def _check_streams(kernel: Any, entry: KernelEntry, src: str) -> None:
    """Refuse a kernel whose streams are not the saved ones (one line naming the stream)."""
    now = {q.engine: q.digest for q in kernel.queues}
    for engine, digest in entry.streams.items():
        if engine not in now:
            raise SessionError(f"{src}: kernel {entry.path}: the {engine} stream is gone "
                               f"(the kernel now has: {', '.join(now)})")
        if now[engine] != digest:
            q = kernel.queue(engine)
            raise SessionError(f"{src}: kernel {entry.path}: the {engine} stream ({q.path}) "
                               f"changed since the session was saved (sha256 {digest[:12]}… "
                               f"now {now[engine][:12]}…)")
    extra = [e for e in now if e not in entry.streams]
    if extra:
        raise SessionError(f"{src}: kernel {entry.path}: the {extra[0]} stream is new since "
                           f"the session was saved")


def _replay(core: Any, steps: int, forced: dict[int, str], progress: Progress | None,
            interrupt: threading.Event | None, src: str, warnings: list[str]) -> None:
    """Bring the core to global step `steps` in slices of about SLICE_SECONDS: the policy's
    choices (Core.replay), and at each forced step the engine the user gave it to."""
    chunk = 256
    if progress is not None:
        progress(0, steps)
    pending = sorted(s for s in forced if s < steps)
    while core.steps < steps:
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{src}: loading interrupted at step {core.steps} of "
                                     f"{steps}", core.steps, steps)
        if pending and pending[0] == core.steps:
            core.step(forced[pending.pop(0)])  # recorded as forced again: the same schedule
            continue
        goal = min(core.steps + chunk, steps, pending[0] if pending else steps)
        t0 = time.perf_counter()
        stop = core.replay(goal)
        elapsed = time.perf_counter() - t0
        if progress is not None:
            progress(core.steps, steps)
        if stop is not None and stop.reason != "interrupt":
            warnings.append(f"{src}: replay stopped at step {core.steps} of {steps}: "
                            f"{stop.reason}: {stop.detail}")
            return
        chunk = max(64, min(1 << 22, int(chunk * SLICE_SECONDS / max(elapsed, 1e-4))))


def save_kernel_session(path: str | Path, opened: OpenedKernel, stop: Stop | None = None,
                        layout: dict[str, Any] | None = None) -> SessionSpec:
    """Write the Core of `opened` (at its current global step) as a kernel session."""
    target = resolve_target(path)
    core, kernel = opened.core, opened.kernel
    if core.edits:
        n = len(core.edits)
        raise SessionError(f"{path}: cannot save: a kernel session does not keep `set` edits "
                           f"({n} made; reverse past {'it' if n == 1 else 'them'} to save)")
    source = Path(kernel.path).resolve()
    if same_file(target, source):
        raise SessionError(f"{path}: cannot save: it is the kernel {kernel.path}")
    streams = {q.engine: q.digest for q in kernel.queues}
    entry = KernelEntry(relative_path(source, target.parent), streams, core.schedule,
                        core.detector is not None, dict(core.forced))
    spec = SessionSpec(program=entry.path, sha256="", config=opened.config, steps=core.steps,
                       digest=core.digest(), pc=None,
                       stop=_stop_dict(stop), layout=dict(layout or {}), source=target,
                       kernel=entry)
    for bp in core.breakpoints:
        entries = spec.watchpoints if bp.kind in WATCH_KINDS else spec.breakpoints
        entries.append(BreakpointEntry(bp.text, bp.enabled, bp.id))
    return commit_session(path, target, spec, lambda: [
        write_image(target, img.space, img.array, img.partition, img.offset)
        for img in opened.images])


def _stop_dict(stop: Stop | None) -> dict[str, Any] | None:
    """The saved stop: reason, pc and detail (the schema's [position.stop] keys)."""
    if stop is None:
        return None
    return {"reason": stop.reason, "pc": stop.pc or 0, "detail": stop.detail}
