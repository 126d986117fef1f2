"""Open a path for the CLI, the TUI and the DAP adapter: a PROGRAM, a KERNEL, or a
session of either.

    opened = open_path(path, gen, engine)   # Opened (a Machine) or OpenedKernel (a Core)
    save_opened(to, opened, stop)           # a session file of either, where it is now
    opened = open_program_or_session(path, gen, engine)     # SessionError, one line
    ... --sbuf to opened.machine, --break specs to opened.core ...
    stop = run_opened(opened, max_steps)   # a session continues from its saved step
    if save_to: save_after_run(save_to, opened, stop)       # --save-session FILE.toml

What `run` prints of it is neurondbg.commands.run_report's (sessions print nothing).

Decision: `run SESSION.toml` continues to the next stop exactly as `run PROGRAM`
would from the saved step (as gdb's `continue` after loading a core of state);
`--max-steps N` counts from the saved step; `--max-steps 0` reports the saved
state without running.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from neurondbg.machine.state import MachineConfig
from neurondbg.machine.stops import Stop
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.program import ProgramFile, read_program
from neurondbg.sessions.schema import SessionSpec
from neurondbg.sessions.store import (
    LoadedSession,
    Progress,
    journal_budget,
    load_session,
    save_session,
)

if TYPE_CHECKING:  # a program's opening imports no core
    from neurondbg.machine.core.core import Core
    from neurondbg.sessions.kernel_open import OpenedKernel

SESSION_SUFFIX = ".toml"
DEFAULT_MAX_STEPS = 10_000_000


@dataclass
class Opened:
    """A machine ready to run, from a program or from a session at its saved step; it
    runs as a core with one queue (`core`)."""

    machine: Machine
    program_path: Path
    session: LoadedSession | None = None
    warnings: list[str] = field(default_factory=list)
    source: ProgramFile | None = None  # the program file, for file:line:column messages
    _core: Core | None = field(default=None, repr=False)

    @property
    def core(self) -> Core:
        """The program as a core with one queue (Core.of_program, made at first use): the
        one debugger its breakpoints, runs and edits go through. It takes the machine's
        steps, edits and history over; a session's breakpoints move to it."""
        if self._core is None:
            from neurondbg.machine.core.core import Core

            m = self.machine
            saved = [(bp.text, bp.enabled) for bp in m.breakpoints]
            for bp in list(m.breakpoints):
                m.delete_breakpoint(bp.id)
            self._core = Core.of_program(m, self.program_path, source=self.source,
                                         journal_budget=m.history.budget)
            for text, enabled in saved:
                bp = self._core.add_breakpoint(text)
                if not enabled:
                    self._core.set_enabled(bp.id, False)
        return self._core

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
                            history: bool = True) -> Opened:
    """A session file (.toml: its own gen/engine/config win) or a PROGRAM; SessionError
    (one line, naming the file) on bad input. A session replays to its saved step with
    `progress(done, total)` reports; setting `interrupt` raises SessionInterrupted.
    `history=False`: the machine keeps no undo history (a headless run nobody reverses)."""
    p = Path(path)
    if is_session_file(p):
        loaded = load_session(p, progress=progress, interrupt=interrupt, history=history)
        return Opened(loaded.machine, loaded.program_path, loaded, list(loaded.warnings),
                      loaded.source)
    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise SessionError(f"--gen: {e}") from None
    prog = read_program(p, g)
    config = MachineConfig(gen=g, engine=engine, execute_invalid=execute_invalid)
    try:
        m = Machine(prog.program, config, data=prog.data, labels=prog.labels,
                    journal_budget=journal_budget(history))
    except ValueError as e:
        raise SessionError(f"{p}: {e}") from None
    return Opened(m, p.resolve(), source=prog)


def open_path(path: str | Path, gen: Gen | None = None, engine: str = "pool", *,
              schedule: str = "rr", races: bool = True, execute_invalid: bool = False,
              progress: Progress | None = None, interrupt: threading.Event | None = None,
              history: bool = True) -> Opened | OpenedKernel:
    """Whatever `path` is, opened: a KERNEL source (manifest, `.engine` file) on a fresh
    Core, a kernel session replayed to its step on one, a program session on its Machine
    at its step, or a PROGRAM on a Machine (sessions.kernel_kind decides which).

    `gen` None: the file's own (a kernel's, a session's; DEFAULT_GEN for a program);
    `engine` is a program's queue; `schedule` and `races` a kernel source's (a session
    keeps its saved ones). SessionError (one line naming the file) on bad input;
    SessionInterrupted when `interrupt` is set while a session replays."""
    from neurondbg.sessions.kernel_kind import kernel_session_spec, opens_as_kernel

    p = Path(path)
    if opens_as_kernel(p):
        from neurondbg.sessions.kernel_open import open_kernel
        from neurondbg.sessions.store import load_kernel_session

        spec = kernel_session_spec(p)
        if spec is not None:
            return load_kernel_session(spec, progress=progress, interrupt=interrupt,
                                       history=history)
        return open_kernel(p, gen, schedule=schedule, races=races,
                           execute_invalid=execute_invalid, history=history)
    return open_program_or_session(p, DEFAULT_GEN if gen is None else gen, engine,
                                   execute_invalid=execute_invalid, progress=progress,
                                   interrupt=interrupt, history=history)


def save_opened(path: str | Path, opened: Opened | OpenedKernel, stop: Stop | None = None,
                layout: dict[str, Any] | None = None) -> SessionSpec:
    """Save what `open_path` opened, where it is now, as a session file: a program's
    Machine or a kernel's Core (sessions.store), one `schema`
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
    return save_session(path, opened.machine, program_path=opened.program_path,
                        layout=layout if layout is not None else opened.layout, stop=stop,
                        tour=keep.tour if keep else None, notes=keep.notes if keep else None,
                        core=opened._core)
