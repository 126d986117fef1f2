"""Open a path for the CLI, the TUI and the DAP adapter: a PROGRAM, a KERNEL, or a
session of either.

    opened = open_path(path, gen, engine)   # Opened or OpenedKernel: each holds its `core`
    opened = open_kernel(path, gen=None, schedule="rr", races=True,   # SessionError
                         images=[Image("sbuf", 0, 0, array, "in.npy")])   # `run --sbuf`
    save_opened(to, opened, stop)           # a session file of either, where it is now
    opened = open_program_or_session(path, gen, engine)     # SessionError, one line
    ... --sbuf to opened.machine (the program's queue), --break specs to opened.core ...
    stop = run_opened(opened, max_steps)   # a session continues from its saved step
    if save_to: save_after_run(save_to, opened, stop)       # --save-session FILE.toml

What `run` prints of it is neurondbg.commands.run_report's (sessions print nothing).

Decision: `run SESSION.toml` continues to the next stop exactly as `run PROGRAM`
would from the saved step (as gdb's `continue` after loading a core of state);
`--max-steps N` counts from the saved step; `--max-steps 0` reports the saved
state without running.

A kernel's images (memory the kernel's own data does not produce) become part of the
kernel's data before the Core is built, so they are in its step-0 state (checkpoint 0,
reverse, replay) and a saved session keeps them. Every bad input is one SessionError
line naming the file (and line:column or key), as sessions.program does for a PROGRAM.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import Kernel, load_kernel
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import RECORD_BYTES, MachineConfig
from neurondbg.machine.stops import Stop
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.program import ProgramFile, naming, open_error, read_program
from neurondbg.sessions.schema import SessionSpec
from neurondbg.sessions.store import (
    LoadedKernelSession,
    LoadedSession,
    Progress,
    load_session,
    save_session,
)

SESSION_SUFFIX = ".toml"
DEFAULT_MAX_STEPS = 10_000_000


@dataclass
class Opened:
    """A program ready to run on a core with one queue (`Core.of_program`: the one
    debugger its breakpoints, runs and edits go through), from the program or from a
    session at its saved step."""

    core: Core
    program_path: Path
    session: LoadedSession | None = None
    warnings: list[str] = field(default_factory=list)
    source: ProgramFile | None = None  # the program file, for file:line:column messages

    @property
    def machine(self) -> Machine:
        """The program's queue: its records, labels and state (the core's one engine)."""
        return self.core.machines[self.core.engines[0]]

    @property
    def is_session(self) -> bool:
        return self.session is not None

    @property
    def layout(self) -> dict[str, Any]:
        return self.session.layout if self.session is not None else {}


def is_session_file(path: str | Path) -> bool:
    return Path(path).suffix.lower() == SESSION_SUFFIX


def open_program_or_session(path: str | Path, gen: str | Gen = DEFAULT_GEN, engine: str = "pool",
                            *, execute_invalid: bool = False, progress: Progress | None = None,
                            interrupt: threading.Event | None = None,
                            journal_budget: int = JOURNAL_BUDGET) -> Opened:
    """A session file (.toml: its own gen/engine/config win) or a PROGRAM, on a one-queue
    core; SessionError (one line, naming the file) on bad input. A session replays to its
    saved step with `progress(done, total)` reports; setting `interrupt` raises
    SessionInterrupted. `journal_budget`: the bytes of undo history kept (0: none, a
    headless run nobody reverses)."""
    p = Path(path)
    if is_session_file(p):
        loaded = load_session(p, progress=progress, interrupt=interrupt,
                              journal_budget=journal_budget)
        return Opened(loaded.core, loaded.program_path, loaded, list(loaded.warnings),
                      loaded.source)
    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise SessionError(f"--gen: {e}") from None
    prog = read_program(p, g)
    config = MachineConfig(gen=g, engine=engine, execute_invalid=execute_invalid)
    try:
        m = Machine(prog.program, config, data=prog.data, labels=prog.labels,
                    journal_budget=journal_budget)
    except ValueError as e:
        raise SessionError(f"{p}: {e}") from None
    resolved = p.resolve()
    return Opened(Core.of_program(m, resolved, source=prog, journal_budget=journal_budget),
                  resolved, source=prog)


def open_path(path: str | Path, gen: Gen | None = None, engine: str = "pool", *,
              schedule: str = "rr", races: bool = True, execute_invalid: bool = False,
              progress: Progress | None = None, interrupt: threading.Event | None = None,
              journal_budget: int = JOURNAL_BUDGET) -> Opened | OpenedKernel:
    """Whatever `path` is, opened: a KERNEL source (manifest, `.engine` file) on a fresh
    Core, a kernel session replayed to its step on one, a program session on its
    one-queue core at its step, or a PROGRAM on one (sessions.kernel_kind decides which).

    `gen` None: the file's own (a kernel's, a session's; DEFAULT_GEN for a program);
    `engine` is a program's queue; `schedule` and `races` a kernel source's (a session
    keeps its saved ones). SessionError (one line naming the file) on bad input;
    SessionInterrupted when `interrupt` is set while a session replays."""
    from neurondbg.sessions.kernel_kind import kernel_session_spec, opens_as_kernel

    p = Path(path)
    if opens_as_kernel(p):
        from neurondbg.sessions.store import load_kernel_session

        spec = kernel_session_spec(p)
        if spec is not None:
            return load_kernel_session(spec, progress=progress, interrupt=interrupt,
                                       journal_budget=journal_budget)
        return open_kernel(p, gen, schedule=schedule, races=races,
                           execute_invalid=execute_invalid, journal_budget=journal_budget)
    return open_program_or_session(p, DEFAULT_GEN if gen is None else gen, engine,
                                   execute_invalid=execute_invalid, progress=progress,
                                   interrupt=interrupt, journal_budget=journal_budget)


def save_opened(path: str | Path, opened: Opened | OpenedKernel, stop: Stop | None = None,
                layout: dict[str, Any] | None = None) -> SessionSpec:
    """Save what `open_path` opened, where it is now, as a session file: a program's
    core or a kernel's (sessions.store), one `schema`
    version key for both (sessions.schema). SessionError (one line) if it cannot be
    saved."""
    if isinstance(opened, Opened):
        return save_after_run(path, opened, stop, layout)
    from neurondbg.sessions.store import save_kernel_session

    return save_kernel_session(path, opened, stop, layout)


def run_opened(opened: Opened, max_steps: int | None = None) -> Stop:
    """Run to the next stop on the program's one-queue core; at most `max_steps` steps
    (None: DEFAULT_MAX_STEPS) from where the machine is (a session: its saved step)."""
    return opened.core.cont(max_steps=DEFAULT_MAX_STEPS if max_steps is None else max_steps)


def save_after_run(path: str | Path, opened: Opened, stop: Stop | None = None,
                   layout: dict[str, Any] | None = None) -> SessionSpec:
    """`run ... --save-session FILE.toml`: the session where the run stopped."""
    keep = opened.session.spec if opened.session is not None else None
    return save_session(path, opened.core, program_path=opened.program_path,
                        layout=layout if layout is not None else opened.layout, stop=stop,
                        tour=keep.tour if keep else None, notes=keep.notes if keep else None)


@dataclass(frozen=True)
class Image:
    """Memory placed before the first step that the kernel's own data does not produce."""

    space: str  # sbuf | psum
    partition: int
    offset: int
    array: np.ndarray  # uint8 (partitions, bytes)
    name: str = ""  # where it came from, for messages (`--sbuf FILE`, a session's data[i])

    def init(self) -> DataInit:
        """The image as a machine.asm DataInit (applied like a data directive)."""
        a = self.array
        return DataInit(self.space, (self.partition, self.partition + a.shape[0]), self.offset,
                        a)


@dataclass
class OpenedKernel:
    """A Core ready to run, with what it was opened from."""

    core: Core
    kernel: Kernel
    config: MachineConfig
    images: list[Image] = field(default_factory=list)  # saved with a session
    warnings: list[str] = field(default_factory=list)
    session: LoadedKernelSession | None = None  # what a session file added

    @property
    def path(self) -> Path:
        return self.kernel.path

    def where(self, engine: str | None, pc: int | None) -> str | None:
        """`file:line:column` of the instruction at `pc` in `engine`'s queue (assembly)."""
        if engine is None or pc is None or engine not in self.kernel.engines:
            return None
        index, rest = divmod(pc - self.config.base, RECORD_BYTES)
        if rest or index < 0:
            return None
        return self.kernel.queue(engine).program.where(index)


def read_kernel(path: str | Path, gen: Gen | None = None, who: str = "") -> Kernel:
    """The kernel at `path` (machine.core.kernel.load_kernel); SessionError (one line,
    prefixed by `who`, e.g. the session file naming it) on any bad input."""
    p = Path(path)
    try:
        return load_kernel(p, gen)
    except OSError as e:
        raise open_error("kernel", p, e, who) from None
    except AsmError as e:
        raise SessionError(f"{who + ': ' if who else ''}{e.one_line}") from None
    except ValueError as e:  # KernelError, InputFileError, IsaFormatError: name the file
        where = naming(p, e)
        raise SessionError(f"{who}: {where}" if who else where) from None


def kernel_config(kernel: Kernel, execute_invalid: bool = False,
                  base: MachineConfig | None = None) -> MachineConfig:
    """The MachineConfig every engine of `kernel` runs under: its gen and [machine]
    settings (`base`, a saved session's config, when given)."""
    if base is not None:
        return base
    settings = {k: v for k, v in kernel.machine.items() if k not in ("gen", "engine")}
    try:
        return MachineConfig(gen=kernel.gen, execute_invalid=execute_invalid, **settings)
    except TypeError as e:  # a [machine] key MachineConfig does not have
        raise SessionError(f"{kernel.path}: [machine]: {e}") from None


def memory_shape(config: MachineConfig, space: str) -> tuple[int, int]:
    """(partitions, bytes per partition) of `space` under `config`."""
    c = config.resolved()
    return c.partitions, c.sbuf_bytes if space == "sbuf" else c.psum_bytes


def make_core(kernel: Kernel, config: MachineConfig, *, schedule: str, races: bool,
              journal_budget: int = JOURNAL_BUDGET,
              images: Sequence[Image] = ()) -> OpenedKernel:
    """The Core of `kernel` with `images` placed after its own data; SessionError for an
    image that does not fit or a kernel the machine refuses (its data does not fit, ...).
    `journal_budget` 0: no undo history (a headless run nobody reverses)."""
    for img in images:
        a = img.array
        rows, cols = memory_shape(config, img.space)
        if a.dtype != np.uint8 or a.ndim != 2:
            raise SessionError(f"{img.name}: expected a uint8 array of shape (partitions, "
                               f"bytes), got {a.dtype} {a.shape}")
        if img.partition + a.shape[0] > rows or img.offset + a.shape[1] > cols:
            raise SessionError(f"{img.name}: {a.shape} at partition {img.partition}, byte "
                               f"{img.offset} does not fit {img.space} ({rows}, {cols})")
    loaded = replace(kernel, data=(*kernel.data, *(img.init() for img in images)))
    try:
        core = Core(loaded, config, schedule=schedule, races=races,
                    journal_budget=journal_budget)
    except ValueError as e:
        raise SessionError(f"{kernel.path}: {e}") from None
    return OpenedKernel(core, kernel, config, list(images))


def open_kernel(path: str | Path, gen: Gen | None = None, *, schedule: str = "rr",
                races: bool = True, execute_invalid: bool = False,
                journal_budget: int = JOURNAL_BUDGET,
                images: Sequence[Image] = ()) -> OpenedKernel:
    """A kernel source (manifest or `.engine` file) on a fresh Core at step 0, with
    `images` (e.g. `run --sbuf`) placed after the kernel's own data."""
    kernel = read_kernel(path, gen)
    return make_core(kernel, kernel_config(kernel, execute_invalid), schedule=schedule,
                     races=races, journal_budget=journal_budget, images=images)
