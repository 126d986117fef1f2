"""The debugger wrapper the UI drives: load a program (or session file), step, run,
reverse, breakpoints, and the `Snapshot` of each stop.

`Session(path, gen, engine)` opens assembly, binary records or a session file
through sessions.cli_support (the CLI's loader, limits and messages), judges every
record (machine.legality) and drives a machine.debugger.Machine. Everything here is
reading and forwarding; semantics live in `machine`.

Long commands run through `run()`, which the App calls in a worker thread: the
console arms what it should do (`arm`: continue, `until PC`, `reverse-continue`);
`stop()` (or setting `interrupt`) ends it at the next step boundary.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neurondbg.debug.listing_text import Listing, program_listing
from neurondbg.debug.stop_text import at_pc, describe_record, describe_stop
from neurondbg.machine import expr
from neurondbg.machine.breakpoints import Breakpoint, parse_spec
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.engines.record import Lanes, StepRecord
from neurondbg.machine.isa.codec import Instruction
from neurondbg.machine.state import MachineState
from neurondbg.machine.stops import Stop
from neurondbg.machine.words import counted
from neurondbg.sessions.cli_support import open_program_or_session
from neurondbg.sessions.examples import DEMO
from neurondbg.sessions.schema import Note
from neurondbg.views.record_fix import fix_record, relist
from neurondbg.views.snapshot import Snapshot
from neurondbg.views.snapshot_build import SnapshotBuilder

Progress = Callable[[int, float], None]  # (steps so far, steps per second)
LoadProgress = Callable[[int, int], None]  # (done, total): replaying a session, reversing
RUN_KINDS = ("continue", "until", "reverse-continue")


def enable_breakpoints(debugger: Machine | Any, idents: list[int] | None, on: bool) -> str:
    """Enable or disable `debugger`'s breakpoints (a Machine's or a Core's) by number, all
    when None, like gdb; what happened, or ValueError naming the first unknown number."""
    known = {bp.id for bp in debugger.breakpoints}
    ids = sorted(known) if idents is None else idents
    missing = [i for i in ids if i not in known]
    if missing:
        raise ValueError(f"no breakpoint #{missing[0]}")
    for i in ids:
        debugger.set_enabled(i, on)
    if not ids:
        return "no breakpoints"
    return f"{'enabled' if on else 'disabled'} " + ", ".join(f"#{i}" for i in ids)


@dataclass(frozen=True)
class RunPlan:
    """What the next `run()` does: `continue`, `until` (arg: the PC) or `reverse-continue`."""

    kind: str = "continue"
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
    """A loaded program (or session file) and the machine running it."""

    def __init__(self, path: str | Path | None = None, gen: str | Gen = DEFAULT_GEN,
                 engine: str = "pool", *, progress: LoadProgress | None = None,
                 interrupt: threading.Event | None = None) -> None:
        """`progress(done, total)` reports a session's replay to its saved step; setting
        `interrupt` stops it (sessions.SessionInterrupted, a ValueError). The same event
        then stops this session's long commands (`stop()`)."""
        self.path = Path(path) if path is not None else DEMO
        self.name = self.path.name
        self.interrupt = interrupt if interrupt is not None else threading.Event()
        opened = open_program_or_session(self.path, gen, engine, progress=progress,
                                         interrupt=self.interrupt)
        machine = opened.machine
        self.labels: dict[str, int] = dict(machine.labels)
        self.gen = machine.config.gen
        self.engine = machine.config.engine
        self.notes: list[Note] = list(opened.session.notes) if opened.session else []
        self.layout: dict[str, Any] = dict(opened.layout)  # a TOML table: {"focus": "lanes"}
        self.warnings: list[str] = list(opened.warnings)
        self.program_path = Path(opened.program_path)  # a session names its own program
        self.dbg = self._make_debugger(machine)
        self.lines = self._listing()
        self._listed = machine.program  # the records `lines` show (see `_sync_listing`)
        self.last: StepRecord | None = None
        self.last_stop: Stop | None = None  # the stop of the last run / step N (continue N)
        self.prev_regs: list[int] | None = None
        self.stop_text = "loaded" if opened.session is None else \
            f"session at step {self.state.steps}"
        self.ignore: dict[int, int] = {}  # breakpoint id -> crossings still to pass (gdb)
        self.busy = False  # a run() is under way (in the App's worker thread)
        self._plan = RunPlan()
        self._by_opcode: dict[int, Instruction] = {}  # the last executed of each opcode
        self._snapshots = SnapshotBuilder(self.name, self.gen, self.engine, self.lines)

    # What this session offers (the console, the palette and the screen ask these, not
    # which class they hold): one engine, no schedule; `set` and `fix` edit it.
    has_schedule = False
    can_edit = True

    @property
    def engines(self) -> tuple[str, ...]:
        """The engines with a queue: a program's one."""
        return (self.engine,)

    def save(self, path: str | Path, layout: dict[str, Any] | None = None) -> str:
        """Write a session file (sessions.save_session: atomic) at the current step."""
        from neurondbg.sessions import save_session

        m = self.require()
        save_session(path, m, program_path=self.program_path, layout=layout or {},
                     notes=self.notes or None)
        return f"saved {path} at step {self.state.steps}"

    def note(self) -> Note | None:
        """The tour note for the current step (the last one at or before it)."""
        here = [n for n in self.notes if n.step <= self.state.steps]
        return here[-1] if here else None

    # -- loading ---------------------------------------------------------------
    @property
    def program(self) -> Any:
        """The records the machine runs now (a fix edits them: Machine.edit_record)."""
        return self.dbg.program

    def _listing(self) -> Listing:
        return program_listing(self.program, self.labels, self.gen, self.engine)

    def _sync_listing(self) -> None:
        """After a record edit, or a reverse past one, relist only the records that
        differ (views.record_fix.relist): a new `lines` list, so the Program pane sees
        the change."""
        lines = relist(self.dbg, self._listed, self.lines, self.labels, self.gen)
        self._listed = self.dbg.program
        if lines is None:
            return
        self.lines = lines
        # the builder caches each record's judgement: a fresh one judges the edited ones
        self._snapshots = SnapshotBuilder(self.name, self.gen, self.engine, self.lines)

    def _make_debugger(self, m: Machine) -> Machine:
        # One event stops everything: the App's Esc sets `session.interrupt`, which is
        # the machine's own, so a single long `cont` sees it at its next check.
        m.interrupt = self.interrupt
        return m

    @property
    def last_lanes(self) -> tuple[Lanes, int] | None:
        """The lanes of the last conversion still in effect, and its step: the machine keeps
        the record even when `continue` runs past it; a reversed one is gone."""
        rec = self.dbg.last_conversion
        if rec is None or rec.lanes is None or rec.step >= self.state.steps:
            return None
        return rec.lanes, rec.step

    def require(self) -> Machine:
        return self.dbg

    @property
    def position(self) -> tuple[int, int]:
        """(steps, `set` and record edits) applied: what `q` compares with the last save."""
        steps, edits = self.dbg.position
        return steps, edits

    @property
    def state(self) -> MachineState:
        return self.dbg.state

    # -- driving ----------------------------------------------------------------
    def _regs(self) -> list[int]:
        return list(self.state.R)

    def _remember(self, record: StepRecord | None) -> None:
        if record is not None and record.instruction is not None and record.executed:
            self._by_opcode[record.instruction.opcode] = record.instruction

    def step(self, n: int = 1) -> str:
        """One step always moves (like gdb's stepi); N steps stop early at breakpoints."""
        m = self.dbg
        self.prev_regs = self._regs()
        if n == 1:
            rec = m.step()
            self._remember(rec)
            self.last, self.last_stop = rec, None
            self.stop_text = describe_record(rec)
        else:
            stop = m.step_n(n)
            self.last, self.last_stop = m.last, stop
            self._remember(m.last)
            self.stop_text = describe_stop(stop)
        return self.stop_text

    def reverse(self, n: int = 1, progress: LoadProgress | None = None) -> str:
        """Undo the last `n` events (steps and `set` edits) exactly, through the machine's
        bounded history; `progress(done, n)` as it goes. Safe in a worker thread:
        `stop()` ends it at the machine's next check."""
        m = self.dbg
        self.prev_regs = self._regs()
        before = sum(m.position)
        stop = m.reverse(n, progress)
        done = before - sum(m.position)
        self.last, self.last_stop = None, None
        if not done:
            self.stop_text = "at the start of history: nothing to reverse" \
                if stop.reason == "start" and m.history.enabled else describe_stop(stop)
        else:
            why = "" if done == n else " (stopped by the user)" \
                if stop.reason == "interrupt" else ": the start of history"
            self.stop_text = f"reversed {counted(done, 'step')} to pc {self.state.pc:#x}{why}"
        return self.stop_text

    def stop(self) -> None:
        """Ask a running command to stop at the next step boundary (any thread)."""
        self.interrupt.set()

    def arm(self, kind: str, arg: int = 0) -> None:
        """Choose what the next `run()` does (RUN_KINDS); the console arms, the App runs.

        Decision: every long command goes through the App's one run worker, so each
        has the same progress line and Esc / Ctrl+C."""
        if kind not in RUN_KINDS:
            raise ValueError(f"expected one of {', '.join(RUN_KINDS)}, found {kind!r}")
        if self.busy:
            raise ValueError("running: Esc or Ctrl+C stops it first")
        self._plan = RunPlan(kind, arg)

    def run(self, progress: Progress | None = None, slice_s: float = 0.05) -> str:
        """Carry out the armed command (default: continue) until a stop reason or
        `stop()`; `progress(steps, rate)` every `slice_s` seconds.

        `interrupt` is not cleared here: the caller clears it before it starts the run
        (the App, on its UI thread), so a stop asked for between then and the first step
        stops the run at once ("stopped by the user" after 0 steps)."""
        m = self.dbg
        plan, self._plan = self._plan, RunPlan()
        self.prev_regs = self._regs()
        start = self.state.steps
        self.busy = True
        try:
            with _ticking(progress, lambda: abs(self.state.steps - start), slice_s):
                stop = self._carry_out(plan)
        finally:
            self.busy = False
        if stop.reason == "interrupt":
            stop.detail = "stopped by the user"  # Esc / Ctrl+C is the only interrupter
        self.last, self.last_stop = m.last, stop
        self._remember(m.last)
        moved = abs(self.state.steps - start)
        back = " back" if plan.kind == "reverse-continue" else ""
        self.stop_text = f"{describe_stop(stop)} after {moved:,} step{'s' * (moved != 1)}{back}"
        return self.stop_text

    def _carry_out(self, plan: RunPlan) -> Stop:
        m = self.dbg
        if plan.kind == "reverse-continue":
            stop = m.reverse_continue()  # it checks `interrupt` (shared) as it goes
            return stop
        until = plan.arg if plan.kind == "until" else None
        while True:
            stop = m.cont(until_pc=until)
            if stop.reason != "breakpoint" or not self._pass(stop):
                return stop
            if self.interrupt.is_set():  # stop here, as cont would, consuming the flag
                self.interrupt.clear()
                return Stop("interrupt", self.state.pc, "interrupted", stop.steps)

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
        """`continue N`: pass the breakpoint the machine stopped at N-1 more times."""
        hit = self.last_stop.breakpoints if self.last_stop is not None and \
            self.last_stop.reason == "breakpoint" else []
        if not hit:
            return "not stopped at a breakpoint: the count is ignored"
        for bp in hit:
            self.ignore[bp.id] = n - 1
        ids = ", ".join(f"#{bp.id}" for bp in hit)
        return f"will ignore the next {n - 1} crossing(s) of breakpoint {ids}; continuing"

    # -- breakpoints ---------------------------------------------------------------
    def breakpoints(self) -> list[Breakpoint]:
        return list(self.dbg.breakpoints)

    def add_breakpoint(self, spec: str) -> Breakpoint:
        """Add a breakpoint; ValueError if it names a PC outside the program or a
        location outside the machine (it could never fire)."""
        bp = parse_spec(spec)  # the machine checks pc: / watch: / change: itself
        reads = list(bp.cond.targets) if bp.cond is not None else []
        if bp.kind == "if":
            reads += bp.value.targets
        for t in reads:  # a condition reading outside the machine would never be true
            self.check(t)
        return self.dbg.add_breakpoint(spec)

    def delete_breakpoint(self, ident: int | None) -> int:
        """Delete breakpoint #ident (all when None); ValueError if there is no such one."""
        m = self.dbg
        if ident is None:
            ids = [bp.id for bp in m.breakpoints]
            for i in ids:
                m.delete_breakpoint(i)
                self.ignore.pop(i, None)
            return len(ids)
        if not m.delete_breakpoint(ident):
            raise ValueError(f"no breakpoint #{ident}")
        self.ignore.pop(ident, None)
        return 1

    def enable(self, idents: list[int] | None, on: bool) -> str:
        """Enable or disable breakpoints by number (all when None), like gdb."""
        return enable_breakpoints(self.dbg, idents, on)

    def pc_of(self, index: int) -> int:
        """The PC of record `index` (the Program cursor's record)."""
        if not 0 <= index < len(self.lines):
            raise ValueError("no record under the cursor")
        return self.lines[index].offset + self.state.config.base

    def toggle_breakpoint(self, index: int) -> str:
        """Breakpoint at record `index` on or off; returns what happened."""
        m = self.dbg
        pc = self.pc_of(index)
        for bp in m.breakpoints:
            if bp.kind == "pc" and bp.value == pc:
                m.delete_breakpoint(bp.id)
                return f"deleted breakpoint #{bp.id} at {pc:#x}"
        bp = m.add_breakpoint(f"pc:{pc:#x}")
        return f"breakpoint {bp.describe()}"

    def breakpoint_indices(self) -> frozenset[int]:
        base = self.state.config.base
        return frozenset((bp.value - base) // 64 for bp in self.breakpoints()
                         if bp.kind == "pc" and bp.enabled)

    # -- bounds --------------------------------------------------------------------------
    def check(self, what: expr.Target | int) -> None:
        """The machine's one bounds check (a Target, or a PC: one of the program's
        records) for print / x / set / watch / break / goto / until."""
        self.dbg.check(what)

    def resolve_pc(self, text: str) -> int:
        """An address (0x80, pc:0x80) or a label of the program, checked."""
        t = text.strip().removeprefix("pc:").strip()
        if t in self.labels:
            pc = self.state.config.base + self.labels[t]
        else:
            try:
                pc = int(t.replace("_", ""), 0)
            except ValueError:
                known = ", ".join(sorted(self.labels)) or "none"
                raise ValueError(f"expected a record address such as 0x80 or a label "
                                 f"(labels: {known}), found {t!r}") from None
        self.check(pc)
        return pc

    # -- inspecting ------------------------------------------------------------------
    def who(self, target: str) -> str:
        """Which step last wrote a target. Every step sets the PC, so for `PC` it is
        the previous step (gdb-like: where did I come from)."""
        t = expr.parse_target(target)
        state = self.state
        self.check(t)
        if t.kind in ("reg", "pc"):
            hit = state.who_wrote(t.name)
        elif t.kind == "mem":
            hit = state.who_wrote(t.space, t.index, t.b0)
        elif t.kind in ("acc", "idx"):
            hit = state.who_wrote(t.kind, t.index)
        else:
            hit = state.who_wrote(t.name)
        verb = "set" if t.kind == "pc" else "written"
        if hit is None:
            since = "since the start" if not state.journal.origin else \
                "within the kept history (older steps are folded into checkpoints)"
            return f"{target}: not {verb} {since}"
        step, pc = hit
        return f"{target}: last {verb} by step {step}{at_pc(pc)}"

    def set_value(self, target: str, value: str) -> str:
        """`set TARGET = VALUE` through the machine (journaled: `reverse` undoes it, a
        saved session keeps it); returns what was stored, or ValueError if the target
        cannot hold the value (decisions: machine/edits.py)."""
        self.last_stop = None
        return self.dbg.edit(target, value)

    def apply_fix(self, index: int | None = None) -> str:
        """Apply the checked fix of record `index` (default: the one at the PC, which the
        Legality pane shows) to the program in memory through Machine.edit_record
        (journaled: `reverse` undoes it, a saved session keeps it; views.record_fix);
        what changed, e.g. "record 3: dst.start_addr 0x00001001 -> 0x00001000; now
        valid". ValueError (one line) when there is no record or no fix, saying why."""
        m = self.dbg
        before = m.program
        text = fix_record(m, index, m.edit_record)
        if m.program is not before:
            self.last_stop = None
            self.stop_text = text  # the stop it fixed is stale
        return text

    def snapshot(self) -> Snapshot:
        """The machine at this stop, as the panes render it."""
        self._sync_listing()
        return self._snapshots.build(
            self.dbg, record=self.last, previous=self._by_opcode,
            prev_registers=self.prev_regs, breakpoints=self.breakpoint_indices(),
            lanes=self.last_lanes, stop=self.stop_text)
