"""The core counterpart of views.session.Session: a kernel on a machine.core.Core.

`CoreSession(path)` opens a kernel (a manifest or an `.engine` assembly file) through
sessions.kernel_open and offers the methods the App and the console call on a
Session (step, reverse, run, breakpoints, who, snapshot, ...), acting on the FOCUSED
engine where a Session acts on its one machine, plus the core's own: `step_core`
(one scheduler step), `focus_engine`, `cycle_focus`, `set_schedule`, `travel`.

Steps are numbered as the title counts them: the N-th step taken is "step N" (the
model's global step index N-1); travelling to step N leaves the machine right after it.

Decisions where the issue is silent (gdb / pudb habits):
- `step` (s) steps the focused engine only; a blocked or halted engine does not move
  and the reply says why. `step_core` (S) is one scheduler step.
- A stop that names an engine (a breakpoint, a race, a fault) moves the focus to it,
  as gdb switches to the thread that stopped.
- `schedule POLICY` restarts the kernel at step 0 under the new policy (a Core's
  policy is fixed for its life; the path taken so far belongs to the old one), keeping
  the breakpoints.
- `set` edits the kernel through Core.edit (`dve.R3 = 5`; without `ENGINE.` the
  focused engine's own registers): journaled at the global step it was made, so reverse
  undoes it; it drops the undone future (those steps ran without it). A kernel session
  file does not keep edits: saving after one is refused, saying so.
- The gen is the kernel's own ([kernel] gen), not the TUI's default.
- `until ADDR` runs until the FOCUSED engine is about to execute ADDR (a label of its
  queue, or an address); `reverse-continue` undoes global steps back to the previous
  breakpoint or watch hit (Core.run_to / Core.reverse_continue).
- Timeline travel forward (to a step undone earlier) re-takes the recorded engine of
  each step with `Core.step(engine)`, so it is exact whatever the policy.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import replace
from pathlib import Path
from typing import Any

from neurondbg.debug.listing_text import Listing, program_listing
from neurondbg.machine import expr
from neurondbg.machine.breakpoints import Breakpoint
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.events import plan_of, update_targets
from neurondbg.machine.core.races import Race
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines.record import Lanes, StepRecord
from neurondbg.machine.isa.codec import Instruction, Program
from neurondbg.machine.state import RECORD_BYTES, MachineState
from neurondbg.machine.stops import Stop, StopReason
from neurondbg.machine.words import counted
from neurondbg.sessions.kernel_kind import kernel_session_spec
from neurondbg.sessions.kernel_open import OpenedKernel, open_kernel
from neurondbg.views.record_fix import fix_record, relist
from neurondbg.views.session import Progress, _ticking, enable_breakpoints
from neurondbg.views.snapshot import (
    Cell,
    Edge,
    EngineRow,
    RaceView,
    SemRow,
    Snapshot,
    TimelineData,
    WrittenRegion,
    race_view,
)
from neurondbg.views.snapshot_build import SnapshotBuilder

RUN_KINDS = ("continue", "until", "reverse-continue")
CELL_CACHE = 200_000  # timeline cells kept (past steps never change); then start afresh


class CoreSession:
    """A loaded kernel and the Core running it."""

    # What this session offers (views.session.Session has the same names): a schedule
    # over several engines (`step core`, `schedule`, `focus`); `set` and `fix` edit it.
    has_schedule = True
    can_edit = True

    def __init__(self, path: str | Path, gen: Any = None, engine: str = "pool", *,
                 progress: Any = None, interrupt: threading.Event | None = None,
                 schedule: str = "rr", subgraph: str | None = None) -> None:
        """`gen`, `engine`, `progress`: as Session's, unused (the kernel says its gen and
        engines; opening does not replay). `subgraph`: a NEFF's (sessions.neff_open).
        SessionError (a ValueError) on bad input."""
        self.path = Path(path)
        self.name = self.path.name
        self.program_path: Path = self.path
        self.interrupt = interrupt if interrupt is not None else threading.Event()
        self.subgraph = subgraph
        spec = kernel_session_spec(self.path)
        self.notes: list[Any] = []
        self.layout: dict[str, Any] = {}
        if spec is not None:  # a saved kernel session (or a tour): replayed to its step
            from neurondbg.sessions.store import load_kernel_session

            self.opened: OpenedKernel = load_kernel_session(spec, progress=progress,
                                                            interrupt=self.interrupt)
            self.program_path = spec.program_path
            self.notes = list(spec.notes)
            self.layout = dict(spec.layout)
        else:
            self.opened = self._open(schedule)
        self.warnings: list[str] = list(self.opened.warnings)
        self.ignore: dict[int, int] = {}
        self.busy = False
        self.stop_text = "loaded"
        self.last_stop: Stop | None = None
        self._armed: tuple[str, int] = ("continue", 0)
        self._setup()

    def _open(self, schedule: str) -> OpenedKernel:
        from neurondbg.sessions.neff_open import is_neff, open_neff_kernel

        if is_neff(self.path):
            return open_neff_kernel(self.path, self.subgraph, schedule=schedule)
        return open_kernel(self.path, schedule=schedule)

    def _setup(self) -> None:
        """Per-engine listings and snapshot builders of the opened kernel's Core."""
        core = self.core
        core.interrupt = self.interrupt  # one event stops the run, as Session's
        self.gen = core.kernel.gen
        self.lines_of: dict[str, Listing] = {}
        self._builders: dict[str, SnapshotBuilder] = {}
        for e in core.engines:
            m = core.machines[e]
            valid = getattr(self.opened, "valid", None)  # a NEFF's own verdicts
            lines = program_listing(m.program, dict(m.labels), self.gen, e,
                                    valid(e) if valid is not None else None)
            self.lines_of[e] = lines
            self._builders[e] = SnapshotBuilder(f"{self.name} [{e}]", self.gen, e, lines)
        self._last: dict[str, StepRecord] = {}
        self._by_opcode: dict[str, dict[int, Instruction]] = {e: {} for e in core.engines}
        self.prev_regs: list[int] | None = None
        self._path: list[int] = []  # the engine of every step known (past + undone future)
        self._index = _Index(core)
        self._plans: dict[int, tuple[Instruction, tuple[Any, ...]]] = {}  # id -> waits
        self._sems: dict[str, frozenset[int]] = {}
        # the records each engine's `lines_of` lists (a record edit gives a new Program)
        self._listed: dict[str, Program] = {e: core.machines[e].program
                                            for e in core.engines}

    @property
    def core(self) -> Core:
        return self.opened.core

    # -- the Session surface (the focused engine) -----------------------------------
    @property
    def engine(self) -> str:
        return self.core.focus

    @property
    def engines(self) -> tuple[str, ...]:
        return self.core.engines

    @property
    def dbg(self) -> Machine:
        return self.core.machines[self.core.focus]

    def require(self) -> Machine:
        return self.dbg

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
        """(global steps, `set` edits kept)."""
        return self.core.steps, len(self.core.edits)

    @property
    def last_lanes(self) -> tuple[Lanes, int] | None:
        rec = self.dbg.last_conversion
        if rec is None or rec.lanes is None or rec.step >= self.state.steps:
            return None
        return rec.lanes, rec.step

    def note(self) -> Any:
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
        are kept. ValueError for a bad policy (nothing changes)."""
        from neurondbg.machine.core.schedule import parse_policy

        parse_policy(policy)  # the one-line error before anything is thrown away
        kept = [(bp.text, bp.enabled) for bp in self.core.breakpoints]
        focus = self.core.focus
        self.opened = self._open(policy)
        for spec, enabled in kept:
            bp = self.core.add_breakpoint(spec)
            if not enabled:
                self.core.set_enabled(bp.id, False)
        self._setup()
        self.core.focus = focus
        self.last_stop = None
        self.stop_text = f"schedule {self.core.schedule}: restarted at step 0"
        return self.stop_text

    # -- driving -------------------------------------------------------------------------
    def _note_step(self, engine: str, rec: StepRecord | None) -> None:
        if rec is not None and rec.executed:
            self._last[engine] = rec
            if rec.instruction is not None:
                self._by_opcode[engine][rec.instruction.opcode] = rec.instruction

    def _begin(self) -> None:
        self.prev_regs = list(self.state.R)
        self.last_stop = None

    def step(self, n: int = 1) -> str:
        """Step the focused engine `n` instructions (others do not move); `step N` stops
        at `interrupt` (set by Esc / Ctrl+C while the App's worker runs it)."""
        self._begin()
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

    def _refusal(self, e: str, rec: StepRecord | None, waited: Any) -> str:
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
            waits = [w.describe() for w in _waits(self.core)]
            self.stop_text = ("nothing can run: " + "; ".join(waits)) if waits else \
                self._refusal(cs.engine, cs.record, cs.waited)
            return self.stop_text
        self.core.focus = cs.engine
        rec = cs.record
        self.stop_text = f"step {self.core.steps}: {cs.engine} {rec.mnemonic} at {rec.pc:#x}"
        if cs.races:
            self._race_stop(cs.races)
            self.stop_text += f"; race: {cs.races[0].missing}"
        return self.stop_text

    def _race_stop(self, races: list[Race]) -> None:
        self.last_stop = Stop(StopReason.RACE, races[0].b.pc, "race",
                              engine=races[0].b.engine, races=list(races))

    def reverse(self, n: int = 1, progress: Any = None) -> str:
        """Undo the last `n` global steps exactly (in global order); one event (a step,
        or an edit on top) when `n` is 1. The reply counts events, as a program's does."""
        self._begin()
        before = sum(self.position)
        if n == 1:
            if self.core.reverse_step():
                self._index.hint_back()
        else:
            self.core.reverse(n)
        self._last.clear()
        done = before - sum(self.position)
        self.stop_text = "at the start of history: nothing to reverse" if not done else \
            f"reversed {counted(done, 'step')} to step {self.core.steps}"
        return self.stop_text

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
        self.interrupt.set()

    def arm(self, kind: str, arg: int = 0) -> None:
        """Choose what the next `run()` does (RUN_KINDS), as Session.arm."""
        if kind not in RUN_KINDS:
            raise ValueError(f"expected one of {', '.join(RUN_KINDS)}, found {kind!r}")
        if self.busy:
            raise ValueError("running: Esc or Ctrl+C stops it first")
        self._armed = (kind, arg)

    def ignore_current(self, n: int) -> str:
        return "a count is not used on a kernel: continuing"

    def run(self, progress: Progress | None = None, slice_s: float = 0.05) -> str:
        """`continue` the core until a stop reason or `stop()`."""
        self._begin()
        (kind, arg), self._armed = self._armed, ("continue", 0)
        start = self.core.steps
        found_before = len(self.core.races)
        moved_from = {e: self.core.engine_steps(e) for e in self.core.engines}
        self.busy = True
        try:
            with _ticking(progress, lambda: abs(self.core.steps - start), slice_s):
                if kind == "until":
                    stop = self.core.run_to(arg, self.core.focus)
                elif kind == "reverse-continue":
                    stop = self.core.reverse_continue()
                else:
                    stop = self.core.cont()
        finally:
            self.busy = False
        if stop.reason == "interrupt":
            stop.detail = "stopped by the user"
        self.last_stop = stop
        if stop.engine is not None and stop.reason not in ("halt", "max-steps"):
            self.core.focus = stop.engine
        # A run's steps leave no records (the fast path): an engine that moved has no
        # last step to show but the stop's (its writes, its instruction), not an older one.
        for e, steps in moved_from.items():
            if self.core.engine_steps(e) != steps:
                self._last.pop(e, None)
        if stop.record is not None and stop.engine is not None:
            self._note_step(stop.engine, stop.record)
        moved = abs(self.core.steps - start)
        said = stop.detail if stop.detail.startswith((stop.reason, "#")) else \
            f"{stop.reason}: {stop.detail}"
        back = " back" if kind == "reverse-continue" else ""
        self.stop_text = f"{said} after {moved:,} step{'s' * (moved != 1)}{back}"
        found = len(self.core.races) - found_before
        if found > 0 and stop.reason != "race":
            # like a thread sanitizer, a race is reported where it happens without stopping
            # (unless `break race` asks to): say so, or a halt would read as a clean run
            self.stop_text += (f"; {found} race{'s' * (found != 1)} found on the way "
                               "(✖ on the timeline; `break race` stops at one)")
        return self.stop_text

    # -- breakpoints ------------------------------------------------------------------
    def breakpoints(self) -> list[Breakpoint]:
        return list(self.core.breakpoints)

    def add_breakpoint(self, spec: str) -> Breakpoint:
        return self.core.add_breakpoint(spec)

    def delete_breakpoint(self, ident: int | None) -> int:
        ids = [bp.id for bp in self.core.breakpoints] if ident is None else [ident]
        for i in ids:
            if not self.core.delete_breakpoint(i):
                raise ValueError(f"no breakpoint #{i}")
        return len(ids)

    def enable(self, idents: list[int] | None, on: bool) -> str:
        return enable_breakpoints(self.core, idents, on)

    def pc_of(self, index: int) -> int:
        if not 0 <= index < len(self.lines):
            raise ValueError("no record under the cursor")
        return self.lines[index].offset + self.state.config.base

    def toggle_breakpoint(self, index: int) -> str:
        """A breakpoint at record `index` of the focused engine's queue, on or off."""
        pc = self.pc_of(index)
        e = self.core.focus
        for bp in self.core.breakpoints:
            if bp.kind == "pc" and bp.value == pc and bp.engine == e:
                self.core.delete_breakpoint(bp.id)
                return f"deleted breakpoint #{bp.id} at {pc:#x}@{e}"
        bp = self.add_breakpoint(f"pc:{pc:#x}@{e}")
        return f"breakpoint {bp.describe()}"

    def breakpoint_indices(self, engine: str | None = None) -> frozenset[int]:
        e = engine or self.core.focus
        base = self.state.config.base
        return frozenset((bp.value - base) // RECORD_BYTES for bp in self.core.breakpoints
                         if bp.kind == "pc" and bp.enabled and bp.engine in (None, e))

    def check(self, what: Any) -> None:
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
                raise ValueError(f"expected a record address such as 0x80 or a label of "
                                 f"{self.engine} (labels: {known}), found {t!r}") from None
        self.check(pc)
        return pc

    def set_value(self, target: str, value: str) -> str:
        """`set TARGET = VALUE` through Core.edit; returns what was stored, or ValueError
        (one line) if the target cannot hold the value (machine/edits.py)."""
        self._begin()
        out = self.core.edit(target, value)
        del self._path[self.core.steps:]  # the undone future ran without this edit
        return out

    def apply_fix(self, index: int | None = None) -> str:
        """Apply the checked fix of record `index` of the FOCUSED engine's queue (default:
        the one at its PC, which the Legality pane shows) through Core.edit_record
        (journaled at this global step: `reverse` undoes it; views.record_fix); what
        changed, or ValueError (one line) when there is no record or no fix."""
        e = self.core.focus
        m = self.core.machines[e]
        before = m.program

        def write(i: int, raw: bytes) -> None:
            self._begin()
            self.core.edit_record(i, raw, e)
            del self._path[self.core.steps:]  # the undone future ran without this edit

        text = fix_record(m, index, write)
        if m.program is not before:
            self.stop_text = f"{e}: {text}"  # the stop it fixed is stale
        return text

    def _sync_listings(self) -> None:
        """After a record edit, or a reverse past one, relist the records that changed
        (views.record_fix.relist) of each engine whose program changed."""
        for e in self.core.engines:
            m = self.core.machines[e]
            lines = relist(m, self._listed[e], self.lines_of[e], dict(m.labels), self.gen)
            self._listed[e] = m.program
            if lines is None:
                continue
            self.lines_of[e] = lines
            self._sems.pop(e, None)
            # the builder caches each record's judgement: a fresh one judges the edited ones
            self._builders[e] = SnapshotBuilder(f"{self.name} [{e}]", self.gen, e, lines)

    def save(self, path: str | Path, layout: dict[str, Any] | None = None) -> str:
        from neurondbg.sessions.neff_open import OpenedNeffKernel
        from neurondbg.sessions.store import save_kernel_session

        if isinstance(self.opened, OpenedNeffKernel):
            raise ValueError(f"{self.name}: a NEFF's session cannot be saved yet")
        save_kernel_session(path, self.opened, self.last_stop)
        return f"saved {path} at step {self.core.steps}"

    # -- global steps ------------------------------------------------------------------
    def _positions(self) -> tuple[int, list[int], dict[str, list[int]]]:
        """(first kept step, engine index of each kept step, each engine's global steps),
        kept up to date step by step (rebuilt from the core after a run)."""
        ix = self._index.sync()
        return ix.origin, ix.names, ix.pos

    def global_step(self, engine: str, local: int) -> int | None:
        """The global step at which `engine` took its own step `local` (kept window)."""
        return self._index.sync().global_step(engine, local)

    def who(self, target: str) -> str:
        """Which step last wrote a target, in global step numbers: shared state (SBUF /
        PSUM bytes, `sem[3]` with who waits on it) across the engines, an engine's own
        (R5, PC, acc[P]) on the focused engine."""
        t = expr.parse_target(target)
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
        st = self.state
        if t.kind in ("reg", "pc"):
            hit = st.who_wrote(t.name)
        elif t.kind in ("acc", "idx"):
            hit = st.who_wrote(t.kind, t.index)
        else:
            hit = st.who_wrote(t.name)
        if hit is None:
            return f"{target}: not written by {e} within the kept history"
        step = _shown(self.global_step(e, hit[0]))
        return f"{target}: last written by {e} at {hit[1]:#x} (step {step})"

    def _last_writer(self, hit_of: Any) -> tuple[int, str, int] | None:
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
        best = self._last_writer(lambda st: st.who_wrote(f"sem[{i}]"))
        value = self.core.state().sem[i]
        head = f"sem[{i}] = {value}: "
        head += f"last updated by {best[1]} at {best[2]:#x} (step {best[0] + 1})" if best else \
            "not updated within the kept history"
        waiters = [w for w in _waits(self.core) if w.semaphore == i]
        if waiters:
            head += "; waited on by " + ", ".join(f"{w.engine} at {w.pc:#x} ({w.condition})"
                                                  for w in waiters)
        return head

    # -- snapshot -------------------------------------------------------------------------
    def _sync_path(self) -> None:
        """Keep the undone future while the steps taken are a prefix of it. Steps before
        `_Index.checked` are known equal (commands only append, or only pop, between two
        looks: `travel` looks in between), so a step costs O(1), not O(run)."""
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
        synchronises with, else the next one (None for a one-queue kernel)."""
        es = self.core.engines
        linked = self.synchronised_with(engine)
        for e in es:
            if e in linked:
                return e
        return es[(es.index(engine) + 1) % len(es)] if len(es) > 1 else None

    def _sem_set(self, engine: str) -> frozenset[int]:
        if engine not in self._sems:
            of = getattr(self.opened, "sem_set", None)  # a NEFF's: from its bytes at once
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
        core = self.core
        self._sync_path()
        self._sync_listings()
        e = core.focus
        m = core.machines[e]
        focused = self._builders[e].build(
            m, record=self._last.get(e), previous=self._by_opcode[e],
            prev_registers=self.prev_regs, breakpoints=self.breakpoint_indices(e),
            lanes=self.last_lanes, stop=self.stop_text)
        stale = getattr(self.opened, "stale_notes", None)  # a NEFF's (machine.neff.stale)
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
        dma_line = getattr(self.opened, "dma_line", None)  # a NEFF's queues (neff_open)
        if dma_line is not None:
            for e in core.names[len(core.engines):]:
                rows.append(EngineRow(e, core.state(e).pc, str(dma_line(e)), core.status(e),
                                      "", core.engine_steps(e), False))
        return rows

    def _sem_rows(self) -> list[SemRow]:
        core = self.core
        sem = core.state().sem
        waits = _waits(core)
        roles = getattr(self.opened, "roles", None)  # a NEFF's (machine.neff.roles)
        shown = sorted({i for i, v in enumerate(sem) if v} | {w.semaphore for w in waits})
        rows = []
        for i in shown:
            best = self._last_writer(lambda st, i=i: st.who_wrote(f"sem[{i}]"))
            by = f"{best[1]} {best[2]:#x} step {best[0] + 1}" if best else ""
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
        console prints the listing lines in full (views.snapshot.RaceView)."""
        where = self.opened.where(engine, pc)
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
                            _Cells(self), races, self.synchronised_with(e), e)


class _Index:
    """Global-step bookkeeping of the kept history: the engine of each step, each
    engine's global steps, every semaphore write (global step, value before). One step
    forward or back updates it in O(1) (the App's per-step render must not grow with
    the run, DESIGN "UI"); anything else (a run, a travel, a fold) rebuilds it from the
    core's schedule and the engines' journals."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.checked = 0  # CoreSession._sync_path: the path is known equal up to here
        self._hint: tuple[str, str] | None = None
        self.rebuild()

    def _mark(self) -> tuple[int, tuple[int, ...]]:
        core = self.core
        return core.steps, tuple(core.state(e).journal.origin for e in core.names)

    def hint(self, engine: str, rec: StepRecord | None) -> None:
        """`engine` just took one executed step (else nothing moved)."""
        if rec is not None and rec.executed:
            self._hint = (engine, "step") if self._hint is None else ("", "many")

    def hint_back(self) -> None:
        self._hint = ("", "back") if self._hint is None else ("", "many")

    def sync(self) -> _Index:
        mark = self._mark()
        hint, self._hint = self._hint, None
        if mark == self.mark:
            return self
        steps, origins = mark
        if hint is not None and origins == self.mark[1]:
            if hint[1] == "step" and steps == self.mark[0] + 1:
                self._forward(hint[0])
                self.mark = mark
                return self
            if hint[1] == "back" and steps == self.mark[0] - 1 and self.names:
                self._back()
                self.mark = mark
                return self
        self.rebuild()
        return self

    def rebuild(self) -> None:
        core = self.core
        origin, names = core.taken()
        order = {e: i for i, e in enumerate(core.names)}
        self.origin = origin
        self.names = [order[n] for n in names]
        self.pos: dict[str, list[int]] = {e: [] for e in core.names}
        for j, i in enumerate(self.names):
            self.pos[core.names[i]].append(origin + j)
        self.base = {e: core.engine_steps(e) - len(p) for e, p in self.pos.items()}
        writes: list[tuple[int, int, int, int]] = []
        for e in core.names:
            for n, u in enumerate(core.state(e).journal.others):
                if u.target == "sem":
                    g = self.global_step(e, u.step)
                    if g is not None:
                        writes.append((g, n, *u.slot))
        writes.sort()
        self.sems: dict[int, tuple[list[int], list[int]]] = {}
        for g, _, i, old in writes:
            steps, olds = self.sems.setdefault(i, ([], []))
            steps.append(g)
            olds.append(old)
        self.checked = min(self.checked, origin + len(self.names))
        self.cells: dict[tuple[str, int], Cell] = {}  # _Cells' final cells
        self.mark = self._mark()

    def _forward(self, engine: str) -> None:
        g = self.origin + len(self.names)
        self.names.append(self.core.names.index(engine))
        self.pos[engine].append(g)
        journal = self.core.state(engine).journal
        local = len(journal) - 1
        mine = []
        for u in reversed(journal.others):
            if u.step != local:
                break
            if u.target == "sem":
                mine.append(u.slot)
        for i, old in reversed(mine):
            steps, olds = self.sems.setdefault(i, ([], []))
            steps.append(g)
            olds.append(old)

    def _back(self) -> None:
        g = self.origin + len(self.names) - 1
        self.pos[self.core.names[self.names.pop()]].pop()
        for steps, olds in self.sems.values():
            while steps and steps[-1] == g:
                steps.pop()
                olds.pop()
        self.checked = min(self.checked, g)
        self.cells.clear()

    def global_step(self, engine: str, local: int) -> int | None:
        p = self.pos[engine]
        k = local - self.base[engine]
        return p[k] if 0 <= k < len(p) else None


def _shown(g: int | None) -> str:
    """A global step index as the UI numbers steps: the N-th step taken is step N."""
    return "?" if g is None else str(g + 1)


def _waits(core: Core) -> list[Any]:
    return [w for e in core.engines if (w := core.waiting(e)) is not None]


class _Cells:
    """Timeline cells of any step range, from the engines' journals (exact within the
    kept history): run cells name the instruction; an engine that did not run at a step
    is `wait` when its next instruction's semaphore wait did not hold on the value the
    semaphore had then (the journals' old values give it), else `ready`; `halted` after
    its HALT. Register-operand waits compare with the register's value now."""

    def __init__(self, s: CoreSession) -> None:
        self.s = s
        core = s.core
        self.core = core
        ix = s._index.sync()
        self.origin, self.pos, self.base = ix.origin, ix.pos, ix.base
        self.path = s._path  # read only while this frame draws
        self.steps = core.steps
        self._ix = ix

    def _sem_history(self) -> dict[int, tuple[list[int], list[int]]]:
        return self._ix.sems

    def sem_at(self, i: int, g: int) -> int:
        """The value of sem[i] before global step g."""
        steps, olds = self._sem_history().get(i, ([], []))
        k = bisect_left(steps, g)
        return olds[k] if k < len(steps) else int(self.core.state().sem[i])

    def _pc(self, e: str, k: int) -> int | None:
        """The PC of `e`'s k-th global issue in the window (its own step base + k)."""
        return self.core.state(e).journal.pc_of(self.base[e] + k)

    def _inst(self, e: str, pc: int) -> Instruction | None:
        m = self.core.machines.get(e)  # None: a DMA queue's lane (no instructions)
        if m is None:
            return None
        k = m.index_of(pc)
        return m.instruction(k) if k is not None else None

    def columns(self, lo: int, hi: int) -> list[list[Cell]]:
        out = []
        cache = self._ix.cells
        for e in self.core.names:
            p = self.pos[e]
            st = self.core.state(e)
            row = []
            for g in range(lo, hi):
                cell = cache.get((e, g))
                if cell is None:
                    cell, final = self._cell(e, p, st, g)
                    if final:
                        cache[(e, g)] = cell
                row.append(cell)
            out.append(row)
        if len(cache) > CELL_CACHE:
            cache.clear()
        return out

    def _cell(self, e: str, p: list[int], st: MachineState, g: int) -> tuple[Cell, bool]:
        """The cell of `e` at step g, and whether it is final: a past step after which
        the engine issued again never changes (until the index moves back)."""
        if g >= self.steps or g < self.origin:
            path = self.path
            mine = 0 <= g < len(path) and path[g] >= 0 and self.core.names[path[g]] == e
            return Cell("future" if mine else "ready"), False
        k = bisect_left(p, g)
        if k < len(p) and p[k] == g:
            pc = self._pc(e, k)
            inst = self._inst(e, pc) if pc is not None else None
            what = "DMA" if e not in self.core.machines else "?"
            return Cell("run", inst.mnemonic if inst is not None else what), True
        if k == len(p):
            if st.halted:
                return Cell("halted"), False
            pc: int | None = st.pc
        else:
            pc = self._pc(e, k)
        inst = self._inst(e, pc) if pc is not None else None
        kind = "wait" if inst is not None and self._blocked(inst, st, g) else "ready"
        return Cell(kind), k < len(p)

    def _blocked(self, inst: Instruction, st: MachineState, g: int) -> bool:
        return any(not w.predicate(st)(self.sem_at(w.idx, g)) for w in self._waits(inst))

    def _waits(self, inst: Instruction) -> tuple[Any, ...]:
        plans = self.s._plans
        key = id(inst)  # the machines cache their decoded instructions
        if key not in plans:
            plans[key] = (inst, plan_of(inst).waits)
        return plans[key][1]

    def edges(self, lo: int, hi: int) -> list[Edge]:
        out = []
        hist = self._sem_history()
        for e in self.core.engines:
            p = self.pos[e]
            for k in range(bisect_left(p, lo), bisect_left(p, hi)):
                g = p[k]
                pc = self._pc(e, k)
                inst = self._inst(e, pc) if pc is not None else None
                if inst is None:
                    continue
                for w in self._waits(inst):
                    steps = hist.get(w.idx, ([], []))[0]
                    j = bisect_left(steps, g) - 1
                    if j >= 0:
                        src = steps[j]
                        by = self.core.names[self.path[src]] if 0 <= src < len(
                            self.path) and self.path[src] >= 0 else "?"
                        out.append(Edge(w.idx, src, by, g, e))
        return out
