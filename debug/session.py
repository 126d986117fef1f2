"""The one debug session the TUI drives: a PROGRAM or a KERNEL on a `machine.core.Core`.

`Session(path)` opens whatever `path` is (sessions.kernel_kind decides): a kernel (a
manifest, an `.engine` assembly file, a NEFF, a kernel session replayed to its step)
on a Core of several engine queues, or a program (assembly, binary records, a program
session) on a Core with one queue (`Core.of_program`: the core is `lone`). Every
command goes through the core: step, continue, until, reverse, reverse-continue,
breakpoints, `set`, `fix`, save, the snapshot. What it offers is declared by name
(debug.controller.DebugSession): `engines`, `has_schedule`, `can_edit`.

A lone core speaks as a program always has (the core words its stops so); the
replies here keep a program's words too: `step` says what the instruction did,
`step N` stops at breakpoints, `reverse` says where the PC went, `who` names the step
and PC, nothing names an engine.

Long commands run through `run()`, which the App calls in a worker thread: the console
arms what it should do (`arm`: continue, `until PC`, `reverse-continue`); `stop()` (or
setting `interrupt`) ends it at the next step boundary.

Steps are numbered as the title counts them: the N-th step taken is "step N" (the
model's global step index N-1); travelling to step N leaves the machine right after it.

Decisions where the specification is silent (gdb / pudb habits):
- On a kernel `step` (s) steps the focused engine only; a blocked or halted engine does
  not move and the reply says why. `step_core` (S) is one scheduler step.
- A stop that names an engine (a breakpoint, a race, a fault) moves the focus to it,
  as gdb switches to the thread that stopped; so does `step_core` (S). A NEFF's DMA
  queue never takes the focus (it has no listing, registers or struct to show): a step
  or a stop of one leaves the focus where it was.
- `schedule POLICY` restarts the kernel at step 0 under the new policy (a Core's
  policy is fixed for its life; the path taken so far belongs to the old one), keeping
  the breakpoints.
- `set` edits through Core.edit (`dve.R3 = 5`; without `ENGINE.` the focused engine's
  own registers): journaled at the global step it was made, so reverse undoes it; it
  drops the undone future (those steps ran without it). A kernel session file does not
  keep edits: saving after one is refused, saying so. A program's session keeps them.
- `reverse N` undoes N events (steps, and `set` / record edits, each one event).
- `continue N` passes the breakpoint it stopped at N-1 more times (gdb's ignore count).
- The gen is a kernel's own ([kernel] gen), not the TUI's default.
- `until ADDR` runs until the FOCUSED engine is about to execute ADDR (a label of its
  queue, or an address); `reverse-continue` undoes global steps back to the previous
  breakpoint or watch hit (Core.run_to / Core.reverse_continue).
- Timeline travel forward (to a step undone earlier) re-takes the recorded engine of
  each step with `Core.step(engine)`, so it is exact whatever the policy.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neurondbg.debug.listing_text import Listing, program_listing
from neurondbg.debug.record_fix import fix_record, relist
from neurondbg.debug.session_timeline import StepIndex, TimelineCells, shown_step, waits_of
from neurondbg.debug.snapshot import (
    EngineRow,
    RaceView,
    SemRow,
    Snapshot,
    TimelineData,
    WrittenRegion,
    race_view,
)
from neurondbg.debug.snapshot_build import SnapshotBuilder
from neurondbg.debug.stop_text import at_pc, describe_record, describe_stop
from neurondbg.machine import expr
from neurondbg.machine.breakpoints import Breakpoint, parse_spec
from neurondbg.machine.core.core import Core, Wait
from neurondbg.machine.core.events import WaitSpec, plan_of, update_targets
from neurondbg.machine.core.races import Race
from neurondbg.machine.debugger import FAST_CHUNK, Machine
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.engines.record import Lanes, StepRecord
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.isa.codec import Instruction, Program
from neurondbg.machine.state import RECORD_BYTES, MachineState
from neurondbg.machine.stops import Stop, StopReason
from neurondbg.machine.words import counted
from neurondbg.sessions.cli_support import (
    Opened,
    OpenedKernel,
    open_kernel,
    open_program_or_session,
)
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.examples import DEMO
from neurondbg.sessions.kernel_kind import is_neff, kernel_session_spec, opens_as_kernel
from neurondbg.sessions.schema import Note

if TYPE_CHECKING:
    from neurondbg.sessions.store import Progress as LoadProgress

Progress = Callable[[int, float], None]  # (steps so far, steps per second)
RunKind = Literal["continue", "until", "reverse-continue"]
RUN_KINDS: tuple[RunKind, ...] = ("continue", "until", "reverse-continue")
_RUN_KIND: dict[str, RunKind] = {k: k for k in RUN_KINDS}  # what `arm` is told, checked


@dataclass(frozen=True)
class RunPlan:
    """What the next `run()` does: `continue`, `until` (arg: the PC) or `reverse-continue`."""

    kind: RunKind = "continue"
    arg: int = 0


@contextlib.contextmanager
def _ticking(progress: Progress | None, done: Callable[[], int],
             every: float) -> Iterator[None]:
    """Report `progress(done(), rate)` every `every` seconds from a thread of its own
    while the body runs: the model's fast path reports nothing (it must stay fast)."""
    if progress is None:
        yield
        return
    finished = threading.Event()
    start = time.perf_counter()

    def tick() -> None:
        while not finished.wait(every):
            n = done()
            try:
                progress(n, n / max(time.perf_counter() - start, 1e-9))
            except RuntimeError:  # Textual's call_from_thread once the App has closed
                return

    ticker = threading.Thread(target=tick, name="neurondbg-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        finished.set()
        ticker.join()  # no late report after the command's own result


class Session:
    """A loaded program or kernel and the Core running it."""

    # What this session offers (debug.controller.DebugSession): `set` and `fix` edit it.
    can_edit = True

    def __init__(self, path: str | Path | None = None, gen: str | Gen = DEFAULT_GEN,
                 engine: str = "pool", *, progress: LoadProgress | None = None,
                 interrupt: threading.Event | None = None, schedule: str = "rr",
                 subgraph: str | None = None, inputs: Sequence[tuple[str, Path]] = (),
                 journal_budget: int = JOURNAL_BUDGET) -> None:
        """`gen`, `engine`: a program's (a kernel says its own). `progress(done, total)`
        reports a session's replay to its saved step; setting `interrupt` stops it
        (sessions.SessionInterrupted, a ValueError), and then this session's long
        commands (`stop()`). `schedule`, `subgraph`, `inputs`: a kernel source's policy,
        and a NEFF's subgraph and input tensors ((name, .npy path) pairs; SessionError
        for anything but a NEFF). `journal_budget`: the bytes of history a program keeps before
        folding it into checkpoints. SessionError (a ValueError) on bad input."""
        self.path = Path(path) if path is not None else DEMO
        self.name = self.path.name
        self.interrupt = interrupt if interrupt is not None else threading.Event()
        self.subgraph = subgraph
        self.inputs = tuple(inputs)
        if self.inputs and not is_neff(self.path):  # a session keeps its own inputs
            raise SessionError(f"{self.path}: --input applies to a NEFF only (a saved "
                               "session loads the inputs it was saved with)")
        self.program_path: Path = self.path  # a session names its own program
        self.notes: list[Note] = []
        self.layout: dict[str, object] = {}  # a TOML table: {"focus": "lanes"}
        self.stop_text = "loaded"
        self._kernel: OpenedKernel | None = None  # what opened a kernel
        self._program: Opened | None = None  # what opened a program
        if opens_as_kernel(self.path):
            spec = kernel_session_spec(self.path)
            if spec is not None:  # a saved kernel session (or a tour): replayed to its step
                from neurondbg.sessions.store import load_kernel_session

                self._kernel = load_kernel_session(spec, progress=progress,
                                                   interrupt=self.interrupt)
                self.program_path = spec.program_path
                self.notes = list(spec.notes)
                self.layout = dict(spec.layout)
            else:
                self._kernel = self._open_kernel(schedule)
            self.opened: Opened | OpenedKernel = self._kernel
            self._core = self._kernel.core
            self.warnings: list[str] = list(self._kernel.warnings)
        else:
            opened = open_program_or_session(self.path, gen, engine, progress=progress,
                                             interrupt=self.interrupt,
                                             journal_budget=journal_budget)
            self._program = self.opened = opened
            self.program_path = Path(opened.program_path)
            if opened.session is not None:
                self.notes = list(opened.session.notes)
                self.stop_text = f"session at step {opened.machine.state.steps}"
            self.layout = dict(opened.layout)
            self.warnings = list(opened.warnings)
            self._core = opened.core
        self.ignore: dict[int, int] = {}  # breakpoint id -> crossings still to pass (gdb)
        self.busy = False  # a run() is under way (in the App's worker thread)
        self.last_stop: Stop | None = None  # the stop of the last run / step N
        self._plan = RunPlan()
        self._setup()

    def _open_kernel(self, schedule: str) -> OpenedKernel:
        from neurondbg.sessions.neff_open import is_neff, open_neff_kernel

        if is_neff(self.path):
            return open_neff_kernel(self.path, self.subgraph, schedule=schedule,
                                    inputs=self.inputs)
        return open_kernel(self.path, schedule=schedule)

    def _setup(self) -> None:
        """Per-engine listings and snapshot builders of the core."""
        core = self.core
        core.interrupt = self.interrupt  # one event stops everything: the App's Esc
        self.gen: Gen = core.kernel.gen
        self.lines_of: dict[str, Listing] = {}
        self._builders: dict[str, SnapshotBuilder] = {}
        valid = getattr(self._kernel, "valid", None)  # a NEFF's own verdicts
        for e in core.engines:
            m = core.machines[e]
            lines = program_listing(m.program, dict(m.labels), self.gen, e,
                                    valid(e) if valid is not None else None)
            self.lines_of[e] = lines
            self._builders[e] = self._builder(e, lines)
        self._last: dict[str, StepRecord] = {}
        self._by_opcode: dict[str, dict[int, Instruction]] = {e: {} for e in core.engines}
        self.prev_regs: list[int] | None = None
        self._path: list[int] = []  # the engine of every step known (past + undone future)
        self._index = StepIndex(core)
        self._plans: dict[int, tuple[Instruction, tuple[WaitSpec, ...]]] = {}  # id -> waits
        self._sems: dict[str, frozenset[int]] = {}
        # the records each engine's `lines_of` lists (a record edit gives a new Program)
        self._listed: dict[str, Program] = {e: core.machines[e].program
                                            for e in core.engines}

    def _builder(self, engine: str, lines: Listing) -> SnapshotBuilder:
        name = self.name if self.lone else f"{self.name} [{engine}]"
        return SnapshotBuilder(name, self.gen, engine, lines)

    # -- what it is --------------------------------------------------------------------
    @property
    def core(self) -> Core:
        return self._core

    @property
    def lone(self) -> bool:
        """A program: one queue, nothing to schedule; it speaks as one machine."""
        return self._core.lone

    @property
    def has_schedule(self) -> bool:
        """Several engines share a schedule (`step core`, `schedule`, `focus`)."""
        return not self._core.lone

    @property
    def engine(self) -> str:
        """The focused engine (a program's one)."""
        return self.core.focus

    @property
    def engines(self) -> tuple[str, ...]:
        """The engines with a queue."""
        return self.core.engines

    @property
    def dbg(self) -> Machine:
        """The focused engine's queue (its records, labels, verdicts)."""
        return self.core.machines[self.core.focus]

    def require(self) -> Machine:
        return self.dbg

    @property
    def program(self) -> Program:
        """The records the focused queue runs now (a fix edits them)."""
        program: Program = self.dbg.program
        return program

    @property
    def state(self) -> MachineState:
        return self.dbg.state

    @property
    def lines(self) -> Listing:
        return self.lines_of[self.core.focus]

    @property
    def labels(self) -> dict[str, int]:
        return dict(self.dbg.labels)

    @property
    def position(self) -> tuple[int, int]:
        """(global steps, `set` and record edits kept): what `q` compares with the last
        save."""
        return self.core.steps, len(self.core.edits)

    @property
    def last_lanes(self) -> tuple[Lanes, int] | None:
        """The lanes of the last conversion still in effect, and its step: the machine keeps
        the record even when `continue` runs past it; a reversed one is gone."""
        rec = self.dbg.last_conversion
        if rec is None or rec.lanes is None or rec.step >= self.state.steps:
            return None
        return rec.lanes, rec.step

    def note(self) -> Note | None:
        """The tour note for the current global step (the last one at or before it)."""
        here = [n for n in self.notes if n.step <= self.core.steps]
        return here[-1] if here else None

    def digest(self) -> str:
        return self.core.digest()

    # -- focus and schedule ------------------------------------------------------------
    def focus_engine(self, engine: str) -> str:
        """Focus `engine`; ValueError naming the kernel's engines otherwise."""
        if engine not in self.core.engines:
            raise ValueError(f"expected one of {', '.join(self.core.engines)}, found "
                             f"{engine!r}")
        self.core.focus = engine
        self.prev_regs = None
        return f"focus: {engine}"

    def cycle_focus(self, by: int = 1) -> str:
        es = self.core.engines
        return self.focus_engine(es[(es.index(self.core.focus) + by) % len(es)])

    def set_schedule(self, policy: str) -> str:
        """Restart the kernel at step 0 under `policy` (module docstring); the breakpoints
        are kept. ValueError for a bad policy or a program (nothing changes)."""
        from neurondbg.machine.core.schedule import parse_policy

        if self._kernel is None:
            raise ValueError("a program has one queue: nothing to schedule")
        parse_policy(policy)  # the one-line error before anything is thrown away
        kept = [(bp.text, bp.enabled) for bp in self.core.breakpoints]
        focus = self.core.focus
        self._kernel = self.opened = self._open_kernel(policy)
        self._core = self._kernel.core
        for spec, enabled in kept:
            bp = self.core.add_breakpoint(spec)
            if not enabled:
                self.core.set_enabled(bp.id, False)
        self._setup()
        self.core.focus = focus
        self.last_stop = None
        self.stop_text = f"schedule {self.core.schedule}: restarted at step 0"
        return self.stop_text

    # -- driving -----------------------------------------------------------------------
    def _note_step(self, engine: str, rec: StepRecord | None) -> None:
        """Keep an engine's last executed step (a DMA queue's steps have no panes)."""
        if rec is not None and rec.executed and engine in self._by_opcode:
            self._last[engine] = rec
            if rec.instruction is not None:
                self._by_opcode[engine][rec.instruction.opcode] = rec.instruction

    def _follow(self, actor: str) -> None:
        """Focus the engine a step or a stop names; a DMA queue (a NEFF's) has no Program,
        Registers or Struct to show, so the focus stays where it is."""
        if actor in self.core.engines:
            self.core.focus = actor

    def _where(self, actor: str, pc: int) -> str:
        """Where `actor` was at `pc`: "dve 0x40", or for a DMA queue, whose PC counts its
        completions, the entry it completed there ("qSPIO0#17")."""
        entry_done = getattr(self._kernel, "entry_done", None)  # a NEFF's (neff_open)
        if actor not in self.core.engines and entry_done is not None:
            entry = entry_done(actor, pc)
            if entry is not None:
                return str(entry.label)
        return f"{actor} {pc:#x}"

    def _begin(self) -> None:
        self.prev_regs = list(self.state.R)
        self.last_stop = None

    def step(self, n: int = 1) -> str:
        """One step always moves (like gdb's stepi). A program's `step N` stops early at
        breakpoints; a kernel's steps the focused engine `n` instructions (others do
        not move). `step N` stops at `interrupt` (Esc / Ctrl+C while the App's worker
        runs it)."""
        self._begin()
        if self.lone and n > 1:
            start = self.core.steps
            return self._finish_run(self._steps(n), None, start)
        e = self.core.focus
        done = 0
        for _ in range(n):
            if n > 1 and self.interrupt.is_set():  # Esc / Ctrl+C during `step N` (a worker)
                self.interrupt.clear()
                self.stop_text = (f"{e}: {done} steps (step {self.core.steps}); interrupt: "
                                  "stopped by the user")
                return self.stop_text
            cs = self.core.step(e)
            self._index.hint(e, cs.record)
            self._note_step(e, cs.record)
            if self.lone:
                assert cs.record is not None  # a lone queue never waits: it issues
                self._last[e] = cs.record  # a fault or a refusal shows too
                self.stop_text = describe_record(cs.record)
                return self.stop_text
            if cs.record is None or not cs.record.executed:
                self.stop_text = self._refusal(e, cs.record, cs.waited)
                return self.stop_text
            done += 1
            if cs.races:
                self.stop_text = f"{e} stepped; race: {cs.races[0].to_dict()['missing']}"
                self._race_stop(cs.races)
                return self.stop_text
        rec = self._last.get(e)
        what = f"{rec.mnemonic} at {rec.pc:#x}" if rec is not None else ""
        self.stop_text = f"{e}: {what} (step {self.core.steps})" if n == 1 else \
            f"{e}: {done} steps (step {self.core.steps})"
        return self.stop_text

    def _steps(self, n: int) -> Stop:
        """A program's `step N`: up to `n` steps, stopping early as `continue` does."""
        start = self.core.steps
        stop = self.core.cont(max_steps=n)
        self._ran(start)
        return stop

    def _refusal(self, e: str, rec: StepRecord | None, waited: Wait | None) -> str:
        if waited is not None:
            return f"{e} is blocked: {waited.describe()}"
        if rec is not None and rec.fault:
            return f"{e}: fault: {rec.fault}"
        if rec is not None and rec.invalid:
            return f"{e}: invalid: {rec.mnemonic} at {rec.pc:#x}"
        return f"{e} is halted"

    def step_core(self) -> str:
        """One scheduler step (the policy picks the engine)."""
        self._begin()
        cs = self.core.step()
        self._index.hint(cs.engine, cs.record)
        self._note_step(cs.engine, cs.record)
        if cs.record is None or not cs.record.executed:
            waits = [w.describe() for w in waits_of(self.core)]
            self.stop_text = ("nothing can run: " + "; ".join(waits)) if waits else \
                self._refusal(cs.engine, cs.record, cs.waited)
            return self.stop_text
        self._follow(cs.engine)
        rec = cs.record
        self.stop_text = f"step {self.core.steps}: {cs.engine} " + (
            f"{rec.mnemonic} at {rec.pc:#x}" if cs.engine in self.core.engines else
            f"completed {rec.mnemonic.removeprefix('DMA ')}")
        if cs.races:
            self._race_stop(cs.races)
            self.stop_text += f"; race: {cs.races[0].missing}"
        return self.stop_text

    def _race_stop(self, races: list[Race]) -> None:
        self.last_stop = Stop(StopReason.RACE, races[0].b.pc, "race",
                              engine=races[0].b.engine, races=list(races))

    def reverse(self, n: int = 1, progress: LoadProgress | None = None) -> str:
        """Undo the last `n` events (global steps, and `set` / record edits) exactly, in
        global order; `progress(done, n)` as it goes. Safe in a worker thread: `stop()`
        ends it at the core's next check."""
        self._begin()
        core = self.core
        before = sum(self.position)
        stop: Stop | None = None
        if n == 1:
            if core.reverse_step():
                self._index.hint_back()
        else:
            stop = self._reverse_events(n, progress)
        self._last.clear()
        done = before - sum(self.position)
        if not self.lone:
            self.stop_text = "at the start of history: nothing to reverse" if not done else \
                f"reversed {counted(done, 'step')} to step {core.steps}"
        elif not done:
            self.stop_text = describe_stop(stop) if stop is not None and \
                stop.reason != StopReason.START else "at the start of history: nothing " \
                "to reverse"
        else:
            why = "" if done == n else " (stopped by the user)" if stop is not None and \
                stop.reason == StopReason.INTERRUPT else ": the start of history"
            self.stop_text = f"reversed {counted(done, 'step')} to pc {self.state.pc:#x}{why}"
        return self.stop_text

    def _reverse_events(self, n: int, progress: LoadProgress | None) -> Stop | None:
        """Undo `n` events: the global steps back to where the n-th newest event was made
        (FAST_CHUNK at a time, `progress` between), then the edits made there that are
        among them (each an event on top). The stop that ended it early, if any."""
        core = self.core
        steps, edits = self.position
        goal = max(0, steps + edits - n)
        # the position after `goal` events: edit k came after `edits[k].step` steps and k
        # edits (the order events were made in)
        target = goal - sum(1 for k, e in enumerate(core.edits) if e.step + k < goal)
        while core.steps > target:
            stop = core.reverse(min(core.steps - target, FAST_CHUNK))
            if stop.reason in (StopReason.INTERRUPT, StopReason.START) or \
                    (core.steps > target and not stop.steps):
                return stop
            if progress is not None:
                progress(steps + edits - sum(self.position), n)
        while sum(self.position) > goal and core.reverse_step():
            pass
        return None

    def travel(self, step: int) -> str:
        """Move the core to global step `step` of the timeline, back or forward (forward
        only along the path already taken: module docstring)."""
        self._begin()
        self._sync_path()
        core = self.core
        if step < core.steps:
            core.reverse(core.steps - step)
            self._sync_path()  # back first: the path from here on is compared anew
        while core.steps < step and core.steps < len(self._path):
            e = core.names[self._path[core.steps]]
            cs = core.step(e)
            if cs.record is None or not cs.record.executed:
                break
        self._last.clear()
        self.stop_text = f"travelled to step {core.steps}"
        return self.stop_text

    def stop(self) -> None:
        """Ask a running command to stop at the next step boundary (any thread)."""
        self.interrupt.set()

    def arm(self, kind: str, arg: int = 0) -> None:
        """Choose what the next `run()` does (RUN_KINDS); the console arms, the App runs.

        Decision: every long command goes through the App's one run worker, so each
        has the same progress line and Esc / Ctrl+C."""
        k = _RUN_KIND.get(kind)
        if k is None:
            raise ValueError(f"expected one of {', '.join(RUN_KINDS)}, found {kind!r}")
        if self.busy:
            raise ValueError("running: Esc or Ctrl+C stops it first")
        self._plan = RunPlan(k, arg)

    def run(self, progress: Progress | None = None, slice_s: float = 0.05) -> str:
        """Carry out the armed command (default: continue) until a stop reason or
        `stop()`; `progress(steps, rate)` every `slice_s` seconds.

        `interrupt` is not cleared here: the caller clears it before it starts the run
        (the App, on its UI thread), so a stop asked for between then and the first step
        stops the run at once ("stopped by the user" after 0 steps)."""
        self._begin()
        plan, self._plan = self._plan, RunPlan()
        core = self.core
        start = core.steps
        self.busy = True
        try:
            with _ticking(progress, lambda: abs(core.steps - start), slice_s):
                stop = self._carry_out(plan)
        finally:
            self.busy = False
        return self._finish_run(stop, plan.kind, start)

    def _carry_out(self, plan: RunPlan) -> Stop:
        core = self.core
        start = core.steps
        if plan.kind == "reverse-continue":
            stop = core.reverse_continue()
            self._ran(start)
            return stop
        while True:
            at = core.steps
            if plan.kind == "until":
                stop = core.run_to(plan.arg, None if self.lone else core.focus)
            else:
                stop = core.cont()
            self._ran(at)
            if stop.reason != StopReason.BREAKPOINT or not self._pass(stop):
                return stop
            if self.interrupt.is_set():  # stop here, as cont would, consuming the flag
                self.interrupt.clear()
                return Stop(StopReason.INTERRUPT, self.state.pc, "interrupted", stop.steps)

    def _ran(self, start: int) -> None:
        """After a run from global step `start`: the steps it took leave no records (the
        fast path), so an engine that moved has no last step to show but the stop's."""
        if self.core.steps != start:
            self._last.clear()

    def _finish_run(self, stop: Stop, kind: RunKind | None, start: int) -> str:
        """The reply to a run (`continue`, `until`, `reverse-continue`; None: a program's
        `step N`) that ended at `stop`, having started at global step `start`."""
        core = self.core
        if stop.reason == StopReason.INTERRUPT and kind is not None:
            stop.detail = "stopped by the user"  # Esc / Ctrl+C is the only interrupter
        self.last_stop = stop
        if stop.engine is not None and stop.reason not in ("halt", "max-steps"):
            self._follow(stop.engine)
        e = stop.engine or core.focus
        rec = stop.record
        if self.lone and rec is None and kind != "reverse-continue" and core.steps != start:
            rec = self._newest_record(e)
        if rec is not None:
            self._note_step(e, rec)
            if self.lone:
                self._last[e] = rec
        moved = abs(core.steps - start)
        back = " back" if kind == "reverse-continue" else ""
        if self.lone:
            text = describe_stop(stop)
            self.stop_text = text if kind is None else \
                f"{text} after {moved:,} step{'s' * (moved != 1)}{back}"
            return self.stop_text
        said = stop.detail if stop.detail.startswith((stop.reason, "#")) else \
            f"{stop.reason}: {stop.detail}"
        self.stop_text = f"{said} after {moved:,} step{'s' * (moved != 1)}{back}"
        found = len(stop.races)
        if found > 0 and stop.reason != "race":
            # like a thread sanitizer, a race is reported where it happens without stopping
            # (unless `break race` asks to): say so, or a halt would read as a clean run
            self.stop_text += (f"; {found} race{'s' * (found != 1)} found on the way "
                               "(✖ on the timeline; `break race` stops at one)")
        return self.stop_text

    def _newest_record(self, e: str) -> StepRecord | None:
        """The record of a program's newest step, as one machine's `continue` leaves it:
        a run's fast steps leave none, so the newest is undone and taken again with its
        record (the same step: the state and the schedule end where they were)."""
        rec = self.dbg.last
        if rec is not None and rec.step == self.state.steps - 1:
            return rec
        if not self.core.reverse_step():
            return None
        self._index.hint_back()
        cs = self.core.step(e)
        self._index.hint(e, cs.record)
        return cs.record

    def _pass(self, stop: Stop) -> bool:
        """Whether a breakpoint stop is one `continue N` said to pass (gdb's ignore
        count): every breakpoint that matched must still have crossings to pass."""
        hit = stop.breakpoints
        if not hit or not all(self.ignore.get(bp.id, 0) > 0 for bp in hit):
            return False
        for bp in hit:
            self.ignore[bp.id] -= 1
        return True

    def ignore_current(self, n: int) -> str:
        """`continue N`: pass the breakpoint the core stopped at N-1 more times."""
        hit = self.last_stop.breakpoints if self.last_stop is not None and \
            self.last_stop.reason == "breakpoint" else []
        if not hit:
            return "not stopped at a breakpoint: the count is ignored"
        for bp in hit:
            self.ignore[bp.id] = n - 1
        ids = ", ".join(f"#{bp.id}" for bp in hit)
        return f"will ignore the next {n - 1} crossing(s) of breakpoint {ids}; continuing"

    # -- breakpoints -------------------------------------------------------------------
    def breakpoints(self) -> list[Breakpoint]:
        return list(self.core.breakpoints)

    def add_breakpoint(self, spec: str) -> Breakpoint:
        """Add a breakpoint; ValueError (one line) if it could never fire: a PC outside
        the program, a location or condition outside the machine, an engine without a
        queue."""
        if self.lone:  # a condition reading outside the machine would never be true
            bp = parse_spec(spec)
            reads = list(bp.cond.targets) if bp.cond is not None else []
            if bp.kind == "if":
                reads += bp.value.targets
            for t in reads:
                self.check(t)
        return self.core.add_breakpoint(spec)

    def delete_breakpoint(self, ident: int | None) -> int:
        """Delete breakpoint #ident (all when None); ValueError if there is no such one."""
        ids = [bp.id for bp in self.core.breakpoints] if ident is None else [ident]
        for i in ids:
            if not self.core.delete_breakpoint(i):
                raise ValueError(f"no breakpoint #{i}")
            self.ignore.pop(i, None)
        return len(ids)

    def enable(self, idents: list[int] | None, on: bool) -> str:
        """Enable or disable breakpoints by number (all when None), like gdb; what
        happened, or ValueError naming the first unknown number."""
        core = self.core
        known = {bp.id for bp in core.breakpoints}
        ids = sorted(known) if idents is None else idents
        missing = [i for i in ids if i not in known]
        if missing:
            raise ValueError(f"no breakpoint #{missing[0]}")
        for i in ids:
            core.set_enabled(i, on)
        if not ids:
            return "no breakpoints"
        return f"{'enabled' if on else 'disabled'} " + ", ".join(f"#{i}" for i in ids)

    def pc_of(self, index: int) -> int:
        """The PC of record `index` of the focused queue (the Program cursor's record)."""
        if not 0 <= index < len(self.lines):
            raise ValueError("no record under the cursor")
        return self.lines[index].offset + self.state.config.base

    def toggle_breakpoint(self, index: int) -> str:
        """A breakpoint at record `index` of the focused engine's queue, on or off;
        returns what happened."""
        pc = self.pc_of(index)
        e = self.core.focus
        at = "" if self.lone else f"@{e}"
        for bp in self.core.breakpoints:
            if bp.kind == "pc" and bp.value == pc and (self.lone or bp.engine == e):
                self.core.delete_breakpoint(bp.id)
                self.ignore.pop(bp.id, None)
                return f"deleted breakpoint #{bp.id} at {pc:#x}{at}"
        bp = self.core.add_breakpoint(f"pc:{pc:#x}{at}")
        return f"breakpoint {bp.describe()}"

    def breakpoint_indices(self, engine: str | None = None) -> frozenset[int]:
        e = engine or self.core.focus
        base = self.state.config.base
        return frozenset((bp.value - base) // RECORD_BYTES for bp in self.core.breakpoints
                         if bp.kind == "pc" and bp.enabled and bp.engine in (None, e))

    # -- bounds ------------------------------------------------------------------------
    def check(self, what: expr.Target | int) -> None:
        """The focused queue's bounds check (a Target, or a PC: one of its records) for
        print / x / set / watch / break / goto / until."""
        self.dbg.check(what)

    def resolve_pc(self, text: str) -> int:
        """An address (0x80, pc:0x80) or a label of the focused engine's queue, checked."""
        t = text.strip().removeprefix("pc:").strip()
        labels = self.labels
        if t in labels:
            pc = self.state.config.base + labels[t]
        else:
            try:
                pc = int(t.replace("_", ""), 0)
            except ValueError:
                known = ", ".join(sorted(labels)) or "none"
                of = "" if self.lone else f" of {self.engine}"
                raise ValueError(f"expected a record address such as 0x80 or a label{of} "
                                 f"(labels: {known}), found {t!r}") from None
        self.check(pc)
        return pc

    # -- edits -------------------------------------------------------------------------
    def set_value(self, target: str, value: str) -> str:
        """`set TARGET = VALUE` through Core.edit (journaled: `reverse` undoes it);
        returns what was stored, or ValueError (one line) if the target cannot hold the
        value (machine/edits.py)."""
        self._begin()
        out = self.core.edit(target, value)
        del self._path[self.core.steps:]  # the undone future ran without this edit
        return out

    def apply_fix(self, index: int | None = None) -> str:
        """Apply the checked fix of record `index` of the FOCUSED engine's queue (default:
        the one at its PC, which the Legality pane shows) through Core.edit_record
        (journaled at this global step: `reverse` undoes it; debug.record_fix); what
        changed, e.g. "record 3: dst.start_addr 0x00001001 -> 0x00001000; now valid".
        ValueError (one line) when there is no record or no fix, saying why."""
        e = self.core.focus
        m = self.core.machines[e]
        before = m.program

        def write(i: int, raw: bytes) -> None:
            self._begin()
            self.core.edit_record(i, raw, e)
            del self._path[self.core.steps:]  # the undone future ran without this edit

        text = fix_record(m, index, write)
        if m.program is not before:
            self.stop_text = text if self.lone else f"{e}: {text}"  # the stop it fixed is stale
        return text

    def _sync_listings(self) -> None:
        """After a record edit, or a reverse past one, relist the records that changed
        (debug.record_fix.relist) of each engine whose program changed."""
        for e in self.core.engines:
            m = self.core.machines[e]
            lines = relist(m, self._listed[e], self.lines_of[e], dict(m.labels), self.gen)
            self._listed[e] = m.program
            if lines is None:
                continue
            self.lines_of[e] = lines
            self._sems.pop(e, None)
            # the builder caches each record's judgement: a fresh one judges the edited ones
            self._builders[e] = self._builder(e, lines)

    # -- saving ------------------------------------------------------------------------
    def save(self, path: str | Path, layout: dict[str, object] | None = None) -> str:
        """Write a session file (atomic) at the current global step, with its breakpoints
        and edits (sessions.store)."""
        from neurondbg.sessions.store import save_kernel_session, save_session

        if self._program is not None:
            save_session(path, self.core, program_path=self.program_path, layout=layout or {},
                         notes=self.notes or None)
            return f"saved {path} at step {self.core.steps}"
        from neurondbg.sessions.neff_open import OpenedNeffKernel

        assert self._kernel is not None
        if isinstance(self._kernel, OpenedNeffKernel):
            from neurondbg.sessions.neff_session import save_neff_session

            save_neff_session(path, self._kernel, self.last_stop, layout)
            return f"saved {path} at step {self.core.steps}"
        save_kernel_session(path, self._kernel, self.last_stop)
        return f"saved {path} at step {self.core.steps}"

    # -- who wrote it ------------------------------------------------------------------
    def global_step(self, engine: str, local: int) -> int | None:
        """The global step at which `engine` took its own step `local` (kept window)."""
        return self._index.sync().global_step(engine, local)

    def who(self, target: str) -> str:
        """Which step last wrote a target, in global step numbers: shared state (SBUF /
        PSUM bytes, `sem[3]` with who waits on it) across the engines, an engine's own
        (R5, PC, acc[P]) on the focused engine. Every step sets the PC, so for `PC` it is
        the previous step (gdb-like: where did I come from)."""
        t = expr.parse_target(target)
        if self.lone:
            return self._who_program(target, t)
        if t.kind == "sem":
            return self._who_sem(t.index)
        self.check(t)
        if t.kind == "mem":
            best = self._last_writer(lambda st: st.who_wrote(t.space, t.index, t.b0))
            if best is None:
                return f"{target}: not written within the kept history"
            g, e, pc = best
            return f"{target}: last written by {e} at {pc:#x} (step {g + 1})"
        e = self.core.focus
        hit = _who_wrote(self.state, t)
        if hit is None:
            return f"{target}: not written by {e} within the kept history"
        step = shown_step(self.global_step(e, hit[0]))
        return f"{target}: last written by {e} at {hit[1]:#x} (step {step})"

    def _who_program(self, target: str, t: expr.Target) -> str:
        """`who` on a program: its one queue's steps are the global steps."""
        state = self.state
        self.check(t)
        hit = _who_wrote(state, t)
        verb = "set" if t.kind == "pc" else "written"
        if hit is None:
            since = "since the start" if not state.journal.origin else \
                "within the kept history (older steps are folded into checkpoints)"
            return f"{target}: not {verb} {since}"
        step, pc = hit
        return f"{target}: last {verb} by step {step}{at_pc(pc)}"

    def _last_writer(self, hit_of: Callable[[MachineState], tuple[int, int] | None]
                     ) -> tuple[int, str, int] | None:
        """(global step, engine, pc) of the newest write `hit_of(state)` finds."""
        best: tuple[int, str, int] | None = None
        for e in self.core.names:
            hit = hit_of(self.core.state(e))
            if hit is None:
                continue
            g = self.global_step(e, hit[0])
            if g is not None and (best is None or g > best[0]):
                best = (g, e, hit[1])
        return best

    def _who_sem(self, i: int) -> str:
        best = self._last_writer(_sem_writer(i))
        value = self.core.state().sem[i]
        head = f"sem[{i}] = {value}: "
        head += f"last updated by {self._where(best[1], best[2]).replace(' ', ' at ')} " \
            f"(step {best[0] + 1})" if best else \
            "not updated within the kept history"
        waiters = [w for w in waits_of(self.core) if w.semaphore == i]
        if waiters:
            head += "; waited on by " + ", ".join(f"{w.engine} at {w.pc:#x} ({w.condition})"
                                                  for w in waiters)
        return head

    # -- snapshot ----------------------------------------------------------------------
    def _sync_path(self) -> None:
        """Keep the undone future while the steps taken are a prefix of it. Steps before
        `StepIndex.checked` are known equal (commands only append, or only pop, between
        two looks: `travel` looks in between), so a step costs O(1), not O(run)."""
        ix = self._index.sync()
        n = ix.origin + len(ix.names)
        path = self._path
        if len(path) < ix.origin:  # the folded past: keep what we knew of it
            path.extend([-1] * (ix.origin - len(path)))
        start = max(min(ix.checked, n), ix.origin)
        tail = ix.names[start - ix.origin:]
        if path[start:start + len(tail)] != tail:
            del path[start:]
            path.extend(tail)
        ix.checked = n

    def synchronised_with(self, engine: str) -> frozenset[str]:
        """Engines sharing a semaphore with `engine` (it waits on or updates it)."""
        mine = self._sem_set(engine)
        return frozenset(e for e in self.core.engines
                         if e != engine and self._sem_set(e) & mine)

    def partner_of(self, engine: str) -> str | None:
        """The engine the maximised Program pane shows beside `engine`: the first it
        synchronises with, else the next one (None for one queue)."""
        es = self.core.engines
        linked = self.synchronised_with(engine)
        for e in es:
            if e in linked:
                return e
        return es[(es.index(engine) + 1) % len(es)] if len(es) > 1 else None

    def _sem_set(self, engine: str) -> frozenset[int]:
        if engine not in self._sems:
            of = getattr(self._kernel, "sem_set", None)  # a NEFF's: from its bytes at once
            got: frozenset[int] | None = of(engine) if of is not None else None
            if got is not None:
                self._sems[engine] = got
                return got
            m = self.core.machines[engine]
            used = set(update_targets(m.program.raw))
            for k in range(len(m.program)):
                used.update(w.idx for w in plan_of(m.instruction(k)).waits)
            self._sems[engine] = frozenset(used)
        return self._sems[engine]

    def snapshot(self) -> Snapshot:
        """The core at this stop, as the panes render it: the focused engine's part, and
        a kernel's own rows (engines, semaphores, timeline, races; empty for a program)."""
        core = self.core
        self._sync_listings()
        e = core.focus
        focused = self._builders[e].build(
            core.machines[e], record=self._last.get(e), previous=self._by_opcode[e],
            prev_registers=self.prev_regs, breakpoints=self.breakpoint_indices(e),
            lanes=self.last_lanes, stop=self.stop_text)
        if self.lone:
            return focused
        self._sync_path()
        stale = getattr(self._kernel, "stale_notes", None)  # a NEFF's (machine.neff.stale)
        if stale is not None:
            focused = replace(focused, stale=stale())
        races = self._race_views()
        if races:  # the SBUF pane highlights the overlap of the first race
            r = races[0]
            region = WrittenRegion(r.space, r.partitions[0], r.partitions[1],
                                   slice(r.bytes[0], r.bytes[1]))
            focused = replace(focused, written=(region,))
        stop = self.last_stop
        deadlock = [w.describe() for w in stop.waiting] if stop is not None and \
            stop.reason == "deadlock" else []
        partner = self.partner_of(e)
        other = None
        if partner is not None:
            other = self._builders[partner].build(
                core.machines[partner], record=self._last.get(partner),
                previous=self._by_opcode[partner], prev_registers=None,
                breakpoints=self.breakpoint_indices(partner), lanes=None, stop="")
        race_rows, dropped = core.race_rows()
        return replace(
            focused, partner=other, race_rows=tuple(race_rows), races_dropped=dropped,
            checks_races=core.detector is not None,
            title=f"{self.name} · {self.gen.label} · schedule {core.schedule} · step "
            f"{core.steps} · focus {e}",
            schedule=core.schedule, engines=self._engine_rows(),
            semaphores=self._sem_rows(), timeline=self._timeline(),
            races=races, deadlock=tuple(deadlock), advice=self._advice(stop, races),
            stop=self.stop_text)

    def _engine_rows(self) -> list[EngineRow]:
        core = self.core
        rows = []
        for e in core.engines:
            st = core.state(e)
            lines = self.lines_of[e]
            k = st.pc_index
            text = (lines[k].listing or lines[k].text) if 0 <= k < len(lines) else ""
            w = core.waiting(e)
            rows.append(EngineRow(e, st.pc, text, core.status(e), w.condition if w else "",
                                  core.engine_steps(e), e == core.focus))
        dma_line = getattr(self._kernel, "dma_line", None)  # a NEFF's queues (neff_open)
        progress_of = getattr(self._kernel, "dma_progress", None)
        if dma_line is not None:
            for e in core.names[len(core.engines):]:
                done = progress_of(e) if progress_of is not None else None
                progress = f"{done[0]}/{done[1]} done" if done is not None else ""
                rows.append(EngineRow(e, core.state(e).pc, str(dma_line(e)), core.status(e),
                                      "", core.engine_steps(e), False, progress))
        return rows

    def _sem_rows(self) -> list[SemRow]:
        core = self.core
        sem = core.state().sem
        waits = waits_of(core)
        roles = getattr(self._kernel, "roles", None)  # a NEFF's (machine.neff.roles)
        shown = sorted({i for i, v in enumerate(sem) if v} | {w.semaphore for w in waits})
        rows = []
        for i in shown:
            best = self._last_writer(_sem_writer(i))
            by = f"{self._where(best[1], best[2])} step {best[0] + 1}" if best else ""
            rows.append(SemRow(i, sem[i], by, tuple(f"{w.engine} at {w.pc:#x} ({w.condition})"
                                                    for w in waits if w.semaphore == i),
                               roles.role(i) if roles is not None else ""))
        return rows

    def listing_line(self, engine: str, pc: int) -> str:
        """`engine`'s listing line of the instruction at `pc` ("?" outside its queue)."""
        lines = self.lines_of.get(engine)
        k, rest = divmod(pc - self.state.config.base, RECORD_BYTES)
        return (lines[k].listing or lines[k].text) \
            if lines is not None and not rest and 0 <= k < len(lines) else "?"

    def _access_line(self, engine: str, pc: int, kind: str, opcode: str) -> str:
        """"dve 0x40 CAST (read) semaphores.asm:21": short enough for the pane; the
        console prints the listing lines in full (debug.snapshot.RaceView)."""
        where = self._kernel.where(engine, pc) if self._kernel is not None else ""
        name = where.replace("\\", "/").rsplit("/", 1)[-1].rsplit(":", 1)[0] if where else ""
        return f"{engine} {pc:#x} {opcode} ({kind})" + (f"  {name}" if name else "")

    def _race_views(self) -> list[RaceView]:
        stop = self.last_stop
        if stop is None or stop.reason != "race" or not stop.races:
            return []
        return [race_view(r, self._access_line(r.a.engine, r.a.pc, r.a.kind, r.a.opcode),
                          self._access_line(r.b.engine, r.b.pc, r.b.kind, r.b.opcode),
                          self.listing_line(r.a.engine, r.a.pc),
                          self.listing_line(r.b.engine, r.b.pc))
                for r in stop.races]

    def _advice(self, stop: Stop | None, races: list[RaceView]) -> str:
        if races:
            return f"fix: {races[0].missing}"
        if stop is None or stop.reason != "deadlock":
            return ""
        never = [w for w in stop.waiting if not w.can_be_updated]
        if never:
            w = never[0]
            return (f"fix: nothing left updates sem[{w.semaphore}]: add the missing update "
                    f"(or correct the index) that {w.engine} waits for at {w.pc:#x}")
        cycle = " -> ".join(f"{w.engine} (sem[{w.semaphore}])" for w in stop.waiting)
        return (f"fix: the waits form a cycle {cycle}: make one engine update its semaphore "
                "before it waits on the other's")

    def _timeline(self) -> TimelineData:
        core = self.core
        origin = self._index.sync().origin
        races = tuple((n, r.a.step, r.b.step) for n, r in enumerate(core.races, start=1))
        e = core.focus
        return TimelineData(core.names, core.steps, max(len(self._path), core.steps), origin,
                            TimelineCells(core, self._index, self._path, self._plans), races,
                            self.synchronised_with(e), e)


def _sem_writer(i: int) -> Callable[[MachineState], tuple[int, int] | None]:
    """Where a state's newest write of sem[i] was: (its own step, pc)."""
    return lambda st: st.who_wrote(f"sem[{i}]")


def _who_wrote(state: MachineState, t: expr.Target) -> tuple[int, int] | None:
    """(its own step, pc) of `state`'s newest journaled write of target `t`."""
    if t.kind in ("reg", "pc"):
        return state.who_wrote(t.name)
    if t.kind == "mem":
        return state.who_wrote(t.space, t.index, t.b0)
    if t.kind in ("acc", "idx"):
        return state.who_wrote(t.kind, t.index)
    return state.who_wrote(t.name)
