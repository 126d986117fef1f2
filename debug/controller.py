"""What a debug session offers the TUI: the one interface the App, the console, the
palette and the screens drive, whatever the session runs (a program: one queue; a
kernel: several sharing a schedule). They ask it by name (`engines`, `has_schedule`,
`can_edit`), never which class they hold. `debug.session.Session` implements it.

Run commands: `step`, `run` after `arm` (continue, until, reverse-continue),
`reverse`, `step_core` and `travel` (several queues); breakpoints; edits (`set_value`,
`apply_fix`); `save`; `snapshot`, the frozen state the panes render.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the console imports this before any model loads
    from neurondbg.debug.snapshot import ProgramLine, Snapshot
    from neurondbg.machine import expr
    from neurondbg.machine.breakpoints import Breakpoint
    from neurondbg.machine.core.core import Core
    from neurondbg.machine.debugger import Machine
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.engines.record import Lanes
    from neurondbg.machine.state import MachineState
    from neurondbg.machine.stops import Stop
    from neurondbg.sessions.schema import Note


class DebugSession(Protocol):
    """A loaded program or kernel, driven by the TUI (debug/session.py: decisions)."""

    path: Path  # what was opened
    program_path: Path  # the program a session file names (else `path`)
    interrupt: threading.Event  # set: a running command stops at the next step boundary
    ignore: dict[int, int]  # breakpoint id -> crossings `continue N` still passes
    notes: list[Note]  # a tour's notes
    layout: dict[str, object]  # the UI's table a session file keeps ({"focus": "lanes"})
    warnings: list[str]  # said once when loaded
    stop_text: str  # the last command's outcome, one line
    last_stop: Stop | None  # the stop of the last run

    # -- what it is --------------------------------------------------------------------
    @property
    def engines(self) -> tuple[str, ...]: ...  # the engines with a queue

    @property
    def engine(self) -> str: ...  # the focused one (a program's one)

    @property
    def has_schedule(self) -> bool: ...  # several queues: `step core`, `schedule`, `focus`

    @property
    def can_edit(self) -> bool: ...  # `set` and `fix` change it

    @property
    def core(self) -> Core: ...

    @property
    def dbg(self) -> Machine: ...  # the focused queue

    def require(self) -> Machine: ...

    @property
    def gen(self) -> Gen: ...

    @property
    def state(self) -> MachineState: ...  # the focused queue's

    @property
    def lines(self) -> Sequence[ProgramLine]: ...  # the focused queue's listing

    @property
    def labels(self) -> dict[str, int]: ...

    @property
    def position(self) -> tuple[int, int]: ...  # (steps, edits): what `q` compares

    @property
    def last_lanes(self) -> tuple[Lanes, int] | None: ...

    def note(self) -> Note | None: ...

    # -- running -----------------------------------------------------------------------
    def step(self, n: int = 1) -> str: ...

    def step_core(self) -> str: ...

    def reverse(self, n: int = 1, progress: Callable[[int, int], None] | None = None
                ) -> str: ...

    def arm(self, kind: str, arg: int = 0) -> None: ...

    def run(self, progress: Callable[[int, float], None] | None = None,
            slice_s: float = 0.05) -> str: ...

    def ignore_current(self, n: int) -> str: ...

    def stop(self) -> None: ...

    def travel(self, step: int) -> str: ...

    def focus_engine(self, engine: str) -> str: ...

    def cycle_focus(self, by: int = 1) -> str: ...

    def set_schedule(self, policy: str) -> str: ...

    # -- breakpoints -------------------------------------------------------------------
    def breakpoints(self) -> list[Breakpoint]: ...

    def add_breakpoint(self, spec: str) -> Breakpoint: ...

    def delete_breakpoint(self, ident: int | None) -> int: ...

    def enable(self, idents: list[int] | None, on: bool) -> str: ...

    def toggle_breakpoint(self, index: int) -> str: ...

    def pc_of(self, index: int) -> int: ...

    # -- reading and editing -----------------------------------------------------------
    def check(self, what: expr.Target | int) -> None: ...

    def resolve_pc(self, text: str) -> int: ...

    def who(self, target: str) -> str: ...

    def set_value(self, target: str, value: str) -> str: ...

    def apply_fix(self, index: int | None = None) -> str: ...

    def save(self, path: str | Path, layout: dict[str, object] | None = None) -> str: ...

    def snapshot(self) -> Snapshot: ...
