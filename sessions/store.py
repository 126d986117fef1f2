"""Save and load session files: the exact machine state by replaying to the saved step.

    spec = save_session("s.toml", core, program_path="prog.asm", layout={...})
    loaded = load_session("s.toml")       # its one-queue core at the saved step, digest checked
    if loaded.program_changed: ...        # sha256 differs: the caller may go on or stop

Memory a program's own data directives do not explain (e.g. `run --sbuf`, or a
UI edit before the first step) is saved as .npy images beside the session.

A save commits the session and its images together: the images are written
first under new names (`STEM.SPACE.<sha256 prefix>.npy`, so an image the old
file names is never rewritten in place), the TOML that names them is renamed
into place last, and only then are the images the old TOML named and the new
one does not removed. A crash at any point leaves a loadable session.

Loading replays to the saved step in slices of a few tens of milliseconds,
calling `progress(done, total)` after each and raising SessionInterrupted when
the `interrupt` Event is set, so a session saved at step 10**12 can be stopped.
A program's session loads on a one-queue core (`Core.of_program`) and is brought to
its step by the same code as a kernel's (`restore_on_core`).

A kernel's session (`save_kernel_session`, `load_kernel_session`: a Core at its
global step) is the same file with a `[kernel]` table instead of `[program]`: the
source's path, the sha256 of every engine's stream, the schedule policy and whether
races are checked; `[position] steps` counts global scheduler steps and `digest` is
Core.digest(). Loading replays that many scheduler steps under the saved policy (the
schedule is a function of the policy and the state, so the same steps come back), in
the same time-boxed slices. Both are read by `read_session` (sessions.schema, one
`schema` key) and written by `commit_session`.

Decisions: a kernel stream whose records changed (or an engine added or dropped) is
refused with one line naming the stream, since replaying another program to "the
same step" would be a different state (a PROGRAM session only warns: its single
stream's step count still means something to a user editing it); a state whose
replayed digest differs (e.g. the data directives changed) is a warning for both. A
kernel session keeps its `set` and record edits as `[[edits]]` in the core's words
(`dve.R3`, `sem[2]`, `act.record[3]`: Core.saved_edits) and makes each again at its
global step on load (Core.apply_edit).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from neurondbg.machine.asm.data import memory_bound
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine, record_index
from neurondbg.machine.edits import Edit
from neurondbg.machine.files import (
    MAX_DATA_BYTES,
    InputFileError,
    file_problem,
    load_toml,
    open_stream,
    read_file,
    read_npy,
)
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.spaces import SPACES, Space
from neurondbg.machine.stops import Stop, StopReason
from neurondbg.sessions.atomic import resolve_target, same_file, write_atomic
from neurondbg.sessions.errors import SessionError, SessionInterrupted
from neurondbg.sessions.program import ProgramFile, load_program, read_program, sha256_of
from neurondbg.sessions.schema import (
    WATCH_KINDS,
    BreakpointEntry,
    DataImage,
    KernelEntry,
    Note,
    SessionSpec,
    check_base,
    session_from_dict,
    session_to_dict,
)
from neurondbg.sessions.toml_write import dumps

if TYPE_CHECKING:
    from neurondbg.machine.core.kernel import Kernel
    from neurondbg.sessions.cli_support import OpenedKernel

Progress = Callable[[int, int], None]  # (steps replayed, steps to replay)
# a session is a small TOML (its memory lives in .npy images): 4 MiB parses in under
# two seconds and holds thousands of edits of a whole record each
MAX_SESSION_BYTES = 4 << 20
SLICE_SECONDS = 0.03  # replay between interrupt checks: well inside the 100 ms an Esc may take


@dataclass
class LoadedSession:
    """A program's session loaded onto its one-queue core at its saved step."""

    core: Core
    spec: SessionSpec
    program_path: Path
    labels: dict[str, int]
    stop: Stop | None = None  # the saved stop, else max-steps at the step (None at step 0)
    warnings: list[str] = field(default_factory=list)
    program_changed: bool = False  # sha256 of the program differs from the saved one
    digest_ok: bool = True  # the replayed state matches the saved digest
    source: ProgramFile | None = None  # the program file (file:line:column of records)

    @property
    def machine(self) -> Machine:
        """The program's queue (its records, labels, state): the core's one engine."""
        return self.core.machines[self.core.engines[0]]

    @property
    def layout(self) -> dict[str, Any]:
        return self.spec.layout

    @property
    def notes(self) -> list[Note]:
        return self.spec.notes


# -- reading ---------------------------------------------------------------------------------
def read_session(path: str | Path) -> SessionSpec:
    """Parse and validate a session file (no machine); SessionError on bad input."""
    p = Path(path)
    try:
        doc, _ = load_toml(read_file(p, what="session file", max_bytes=MAX_SESSION_BYTES), p,
                           what="malformed TOML")
    except InputFileError as e:  # missing, unreadable, a FIFO or device, far too large, bad TOML
        raise SessionError(str(e)) from None
    return session_from_dict(doc, p)


def load_session(path: str | Path | SessionSpec, *, allow_changed: bool = True,
                 progress: Progress | None = None,
                 interrupt: threading.Event | None = None,
                 journal_budget: int = JOURNAL_BUDGET) -> LoadedSession:
    """Build the program's one-queue core, apply data, replay to the saved step (and its
    `set` and record edits), check the digest.

    A changed program is a warning with `program_changed` set, or a SessionError
    when `allow_changed` is False. `progress(done, total)` is called as the replay
    goes; setting `interrupt` stops it within a slice with SessionInterrupted.
    `journal_budget` bounds the core's undo history (0: none, a headless `run`).
    """
    spec = path if isinstance(path, SessionSpec) else read_session(path)
    src = str(spec.source) if spec.source is not None else "<session>"
    if spec.kernel is not None:  # a Core, not one Machine: load_kernel_session loads it
        raise SessionError(f"{src}: a kernel session ({', '.join(spec.kernel.streams)}); "
                           f"load it with load_kernel_session (`neurondbg run {src}`)")
    prog_path = spec.program_path
    if not prog_path.is_file():  # a directory too; a symlink loop "cannot read"
        problem = file_problem(prog_path) or "no such file"
        raise SessionError(f"{src}: program {spec.program}: {problem} ({prog_path})")
    warnings: list[str] = []
    sha = sha256_of(prog_path, src)
    changed = bool(spec.sha256) and sha != spec.sha256
    if changed:
        msg = (f"{src}: program {spec.program} changed since the session was saved "
               f"(sha256 {spec.sha256[:12]}… now {sha[:12]}…)")
        if not allow_changed:
            raise SessionError(msg)
        warnings.append(msg)
    source = read_program(prog_path, spec.config.gen, src)
    check_base(spec, len(source.program))
    labels = source.labels
    try:
        m = Machine(source.program, spec.config, data=source.data, labels=labels,
                    journal_budget=journal_budget)
    except ValueError as e:
        raise SessionError(f"{src}: program {spec.program}: {e}") from None
    for i, img in enumerate(spec.data):
        apply_image(m, img, spec, f"{src}: data[{i}]")
    core = Core.of_program(m, prog_path, source=source, journal_budget=journal_budget)
    restored = restore_on_core(core, spec, {}, progress, interrupt, src, lenient=changed)
    return LoadedSession(core, spec, prog_path, labels, _program_stop(core, spec, restored),
                         warnings + restored.warnings, changed, restored.digest_ok, source)


def apply_image(m: Machine, img: DataImage, spec: SessionSpec, where: str) -> None:
    """Place a session's data image in the machine's memory (SessionError if bad)."""
    mem = m.state.memory(img.space)
    a = read_image(img, spec, where, mem.shape)
    mem[img.partition:img.partition + a.shape[0], img.offset:img.offset + a.shape[1]] = a


def read_image(img: DataImage, spec: SessionSpec, where: str,
               shape: tuple[int, ...]) -> np.ndarray:
    """A session's data image, checked (a uint8 (partitions, bytes) .npy, never unpickled)
    to fit a memory of `shape` at its place; SessionError (one line) otherwise."""
    path = spec.resolve(img.file)
    try:  # the header is judged first: never unpickles, never allocates more than fits
        with open_stream(path, what="data image", max_bytes=MAX_DATA_BYTES) as fh:
            a = read_npy(fh, f"{where}: data file {img.file}",
                         what="a uint8 array of shape (partitions, bytes)",
                         dtypes=(np.dtype(np.uint8),), max_shape=memory_bound(img.space))
    except InputFileError as e:
        # read_npy's lines start with `where`; the stream's name the path it opened (the
        # file as resolved, whatever the TOML says): `where: PATH: no such data image`
        raise SessionError(str(e) if str(e).startswith(f"{where}: ") else f"{where}: {e}") \
            from None
    p1, b1 = img.partition + a.shape[0], img.offset + a.shape[1]
    if p1 > shape[0] or b1 > shape[1]:
        raise SessionError(f"{where}: data file {img.file}: {a.shape} at partition "
                           f"{img.partition}, byte {img.offset} does not fit {img.space} "
                           f"{tuple(shape)}")
    return a


def _program_stop(core: Core, spec: SessionSpec, restored: LoadedKernelSession) -> Stop | None:
    """A program session's stop once loaded: where its replay stopped short, else the
    saved stop (or max-steps at the saved step; None at step 0), with the record of the
    last step taken (a fast step keeps none: it is taken again, `Machine.refresh_last`)."""
    if restored.short is not None:
        return restored.short
    total = spec.steps
    if total == 0:
        return Stop(**spec.stop) if spec.stop else None
    m = core.machines[core.engines[0]]
    last = m.last
    if m.state.steps and (last is None or last.step != m.state.steps - 1):
        m.refresh_last()
    if spec.stop:
        return Stop(**spec.stop, steps=total, record=m.last)
    return Stop(StopReason.MAX_STEPS, m.state.pc, f"at the saved step {total}", total,
                record=m.last)


def run_until(core: Core, step: int, total: int, progress: Progress | None,
              interrupt: threading.Event | None, src: str, doing: str = "loading") -> Stop | None:
    """Step a program's one-queue `core` to step `step` in time-boxed slices; its own
    stop (halt, fault, invalid) if it comes first, else None; SessionInterrupted (`SRC:
    DOING interrupted at step N of TOTAL`) once `interrupt` is set."""
    chunk = 1024
    while core.steps < step:
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{src}: {doing} interrupted at step {core.steps} "
                                     f"of {total}", core.steps, total)
        t0 = time.perf_counter()
        stop = core.replay(min(core.steps + chunk, step))
        elapsed = time.perf_counter() - t0
        if progress is not None:
            progress(core.steps, total)
        if stop is not None and stop.reason != "interrupt" and core.steps < step:
            return stop  # stopped short (a halt or fault on the last step is the goal)
        # Aim each slice at SLICE_SECONDS whatever the steps cost (SEQ fast path or CAST).
        chunk = max(64, min(1 << 22, int(chunk * SLICE_SECONDS / max(elapsed, 1e-4))))
    return None


# -- writing ---------------------------------------------------------------------------------
def save_session(path: str | Path, core: Core, *, program_path: str | Path,
                 layout: dict[str, Any] | None = None, stop: Stop | None = None,
                 tour: dict[str, str] | None = None,
                 notes: list[Note] | None = None) -> SessionSpec:
    """Write a program's one-queue `core` (Core.of_program, at its current step) as a
    session file, atomically with its images: its breakpoints and edits with it.

    `program_path` is the file the program came from; `layout` is the UI's opaque
    table; `stop` (optional) is the stop reason shown on reload. A `path` that is a
    symlink saves to the link's target.
    """
    target = resolve_target(path)
    folder = target.parent
    prog = Path(program_path).resolve()
    if same_file(target, prog):
        raise SessionError(f"{path}: cannot save: it is the program {program_path}")
    machine = core.machines[core.engines[0]]
    st = machine.state
    spec = SessionSpec(program=relative_path(prog, folder), sha256=sha256_of(prog, str(path)),
                       config=machine.config, steps=st.steps, digest=st.digest(), pc=st.pc,
                       stop=stop.to_dict() if stop is not None else None,
                       layout=dict(layout or {}), tour=dict(tour or {}),
                       notes=list(notes or []), source=target)
    for bp in core.breakpoints:
        entries = spec.watchpoints if bp.kind in WATCH_KINDS else spec.breakpoints
        entries.append(BreakpointEntry(bp.text, bp.enabled, bp.id))
    spec.edits = core.saved_edits()
    return commit_session(path, target, spec, lambda: _save_images(target, machine, prog))


def commit_session(path: str | Path, target: Path, spec: SessionSpec,
                   write_images: Callable[[], list[DataImage]]) -> SessionSpec:
    """Write `spec` to `target` with the images `write_images` writes (its data), in the
    order the module docstring gives: images first, the TOML last (the commit point),
    then the images only the old TOML named are removed. `path` is the name the user
    gave, for messages."""
    folder = target.parent
    try:
        dumps(session_to_dict(spec))  # an unsaveable layout fails before any write
    except TypeError as e:
        raise SessionError(f"{path}: cannot save: {e}") from None
    old_images = own_images(target)
    spec.data = write_images()
    text = dumps(session_to_dict(spec))
    try:
        write_atomic(target, text.encode("utf-8"))  # the commit point
    except BaseException as e:
        for name in {d.file for d in spec.data} - old_images:  # no TOML names them
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
        if isinstance(e, OSError):
            raise SessionError(f"{path}: cannot write: {e.strerror or e}") from None
        raise
    for name in old_images - {d.file for d in spec.data}:
        with contextlib.suppress(OSError):  # a leftover image is harmless; keep the save
            os.unlink(folder / name)
    return spec


def _image_pattern(target: Path) -> re.Pattern[str]:
    """Names save_session gives images (and gave them before content-hashed names)."""
    return re.compile(rf"{re.escape(target.stem)}\.(?:{'|'.join(SPACES)})(?:\.[0-9a-f]{{12}})?"
                      rf"\.npy")


def own_images(target: Path) -> set[str]:
    """Images the session now at `target` names that a save made (beside it, our names):
    the only files a new save may remove. Unreadable or foreign files name none."""
    try:  # bounded, and a FIFO or device swapped in for the target is never read
        doc, _ = load_toml(read_file(target, what="session file",
                                     max_bytes=MAX_SESSION_BYTES), target)
    except InputFileError:  # missing, unreadable, not TOML: it names no image of ours
        return set()
    rows = doc.get("data") if isinstance(doc, dict) else None
    pattern = _image_pattern(target)
    return {r["file"] for r in rows or [] if isinstance(r, dict)
            and isinstance(r.get("file"), str) and pattern.fullmatch(r["file"])} \
        if isinstance(rows, list) else set()


def relative_path(p: Path, folder: Path) -> str:
    try:
        return Path(os.path.relpath(p, folder)).as_posix()
    except ValueError:  # another drive (Windows): keep it absolute
        return p.as_posix()


def _save_images(target: Path, machine: Machine, prog: Path) -> list[DataImage]:
    """Write .npy images of initial memory the program's data directives do not produce."""
    program, data, labels = load_program(prog, machine.config.gen, str(target))
    # The file must still hold the records the machine loaded (record edits are [[edits]]).
    if not np.array_equal(np.asarray(program.raw), np.asarray(machine.loaded_program.raw)):
        raise SessionError(f"{target}: cannot save: {prog} no longer holds the program this "
                           f"machine runs (the file changed since it was loaded)")
    try:
        fresh = Machine(program, machine.config, data=data, labels=labels).state
    except ValueError as e:
        raise SessionError(f"{target}: program {prog}: {e}") from None
    images = []
    for space, mem in machine.initial_memory().items():
        diff = mem != fresh.memory(space)
        rows = np.flatnonzero(diff.any(axis=1))
        if rows.size == 0:
            continue
        cols = np.flatnonzero(diff.any(axis=0))
        p0, p1, b0, b1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        images.append(write_image(target, space, mem[p0:p1, b0:b1], p0, b0))
    return images


def write_image(target: Path, space: Space | str, array: np.ndarray, partition: int,
                offset: int) -> DataImage:
    """Write `array` (uint8) as an image beside the session `target`, to be placed at
    `partition`, byte `offset` of `space`."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array))
    data = buf.getvalue()
    # A new name per content: the image the old TOML names stays until the commit.
    name = f"{target.stem}.{space}.{hashlib.sha256(data).hexdigest()[:12]}.npy"
    try:
        write_atomic(target.parent / name, data)
    except OSError as e:
        raise SessionError(f"{target.parent / name}: cannot write: {e.strerror or e}") \
            from None
    return DataImage(space, name, partition, offset)


# -- kernels -------------------------------------------------------------------------------
@dataclass
class LoadedKernelSession:
    """What a kernel session file added to the Core it opened."""

    spec: SessionSpec
    stop: dict[str, Any] | None = None  # the saved stop (to_dict form)
    warnings: list[str] = field(default_factory=list)
    digest_ok: bool = True
    short: Stop | None = None  # the stop that ended the replay before the saved step


def load_kernel_session(spec: SessionSpec, *, progress: Progress | None = None,
                        interrupt: threading.Event | None = None,
                        journal_budget: int = JOURNAL_BUDGET) -> OpenedKernel:
    """The Core of a kernel session at its saved step (see the module docstring)."""
    from neurondbg.machine.core.manifest import records_of
    from neurondbg.sessions.cli_support import Image, make_core, memory_shape, read_kernel

    assert spec.kernel is not None
    if spec.kernel.neff is not None:  # a NEFF's subgraph: sessions.neff_session loads it
        from neurondbg.sessions.neff_session import load_neff_session

        return load_neff_session(spec, progress=progress, interrupt=interrupt)
    src = str(spec.source) if spec.source is not None else "<session>"
    entry = spec.kernel
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
                       journal_budget=journal_budget, images=images)
    loaded = restore_on_core(opened.core, spec, entry.forced, progress, interrupt, src)
    opened.session = loaded
    opened.warnings = list(loaded.warnings)
    return opened


def restore_on_core(core: Core, spec: SessionSpec, forced: dict[int, str],
                    progress: Progress | None, interrupt: threading.Event | None,
                    src: str, *, lenient: bool = False) -> LoadedKernelSession:
    """Bring a freshly opened `core` (a kernel's, a NEFF's, or a program's one-queue
    core) to its session's saved step (its forced steps and edits made again), check
    the digest (a mismatch is a warning) and add its breakpoints in the user's order:
    what loading every kind of session shares. A program's digest is its one queue's
    state (`MachineState.digest`), a kernel's `Core.digest`. `lenient`: a breakpoint
    that no longer parses is a warning (a program that changed since the save, e.g. a
    label it lost), not a SessionError."""
    loaded = LoadedKernelSession(spec, spec.stop)
    loaded.short = _replay(core, spec.steps, forced, spec.edits, progress, interrupt, src,
                           loaded.warnings)
    digest = core.state().digest() if core.lone else core.digest()
    loaded.digest_ok = not spec.digest or digest == spec.digest
    if not loaded.digest_ok:
        loaded.warnings.append(f"{src}: the replayed state at step {core.steps} differs from "
                               "the saved one (digest mismatch)")
    tagged = [(key, i, e) for key, entries in (("breakpoints", spec.breakpoints),
                                                ("watchpoints", spec.watchpoints))
              for i, e in enumerate(entries)]
    tagged.sort(key=lambda t: t[2].id or 1 << 62)  # the user's order; stable for id-less
    for key, i, e in tagged:
        try:
            bp = core.add_breakpoint(e.spec)
        except ValueError as err:
            msg = f"{src}: {key}[{i}].spec {e.spec!r}: {err}"
            if lenient:
                loaded.warnings.append(msg)
                continue
            raise SessionError(msg) from None
        if not e.enabled:
            core.set_enabled(bp.id, False)
    return loaded


def _check_streams(kernel: Kernel, entry: KernelEntry, src: str) -> None:
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


def _replay(core: Core, steps: int, forced: dict[int, str], edits: list[Edit],
            progress: Progress | None, interrupt: threading.Event | None, src: str,
            warnings: list[str]) -> Stop | None:
    """Bring the core to global step `steps` in slices of about SLICE_SECONDS: the policy's
    choices (Core.replay), at each forced step the engine the user gave it to, and each
    saved edit made again at its step (before that step is taken). The stop that ended
    it short of `steps` (a warning too), else None."""
    chunk = 256
    if progress is not None:
        progress(0, steps)
    pending = sorted(s for s in forced if s < steps)
    todo = list(edits)  # in step order (sessions.schema)
    while True:
        while todo and todo[0].step <= core.steps:
            e = todo.pop(0)
            try:
                core.apply_edit(e)
            except ValueError as err:
                # a program's set edit in its words; 128 hex digits say nothing in a line
                what = f"set {e.target} = {e.value}" \
                    if core.lone and record_index(e.target) is None else e.target
                raise SessionError(f"{src}: edits[{len(edits) - len(todo) - 1}]: "
                                   f"{what}: {err}") from None
        if core.steps >= steps:
            return None
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{src}: loading interrupted at step {core.steps} of "
                                     f"{steps}", core.steps, steps)
        if pending and pending[0] == core.steps:
            core.step(forced[pending.pop(0)])  # recorded as forced again: the same schedule
            continue
        goal = min(core.steps + chunk, steps, pending[0] if pending else steps,
                   todo[0].step if todo else steps)
        t0 = time.perf_counter()
        stop = core.replay(goal)
        elapsed = time.perf_counter() - t0
        if progress is not None:
            progress(core.steps, steps)
        if stop is not None and stop.reason != "interrupt" and core.steps < steps:
            # (a lone program's last step may be its HALT: that is the saved state)
            warnings.append(f"{src}: replay stopped at step {core.steps} of {steps}: "
                            f"{stop.reason}: {stop.detail}")
            return stop
        chunk = max(64, min(1 << 22, int(chunk * SLICE_SECONDS / max(elapsed, 1e-4))))


def save_kernel_session(path: str | Path, opened: OpenedKernel, stop: Stop | None = None,
                        layout: dict[str, Any] | None = None) -> SessionSpec:
    """Write the Core of `opened` (at its current global step) as a kernel session."""
    target = resolve_target(path)
    core, kernel = opened.core, opened.kernel
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
    spec.edits = core.saved_edits()
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
