"""The one place the UI touches the machine: load a program, drive the
debugger, and turn its state into a `Snapshot` for the panes.

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

import numpy as np

from machine import expr
from machine.asm.disasm import disassemble_lines
from machine.breakpoints import parse_spec
from machine.debugger import Machine, Stop
from machine.dtypes import Gen
from machine.legality.explain import explain, validate
from machine.legality.nki import bridge
from sessions.cli_support import open_program_or_session
from sessions.examples import DEMO
from views.snapshot import ProgramLine, Snapshot, WrittenRegion

Progress = Callable[[int, float], None]  # (steps so far, steps per second)
LoadProgress = Callable[[int, int], None]  # (done, total): replaying a session, reversing
RUN_KINDS = ("continue", "until", "reverse-continue")


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

    def __init__(self, path: str | Path | None = None, gen: str | Gen = "cayman",
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
        self.program = machine.program
        self.labels: dict[str, int] = dict(machine.labels)
        self.gen = machine.config.gen
        self.engine = machine.config.engine
        self.notes: list[Any] = list(opened.session.notes) if opened.session else []
        self.layout: dict[str, Any] = dict(opened.layout)  # e.g. {"focus": "lanes"}
        self.warnings: list[str] = list(opened.warnings)
        self.program_path = Path(opened.program_path)  # a session names its own program
        self.lines = self._listing()
        self.last_lanes: tuple[Any, int] | None = None  # (Lanes, step) of the last conversion
        self.dbg = self._make_debugger(machine)
        self.last: Any = None  # last StepRecord
        self.last_stop: Stop | None = None  # the stop of the last run / step N (continue N)
        self.prev_regs: list[int] | None = None
        self.stop_text = "loaded" if opened.session is None else \
            f"session at step {self.state.steps}"
        self.ignore: dict[int, int] = {}  # breakpoint id -> crossings still to pass (gdb)
        self.busy = False  # a run() is under way (in the App's worker thread)
        self._plan = RunPlan()
        self._by_opcode: dict[int, Any] = {}
        self._judged: dict[int, tuple[Any, Any, list[Any]]] = {}

    def save(self, path: str | Path, layout: dict[str, Any] | None = None) -> str:
        """Write a session file (sessions.save_session: atomic) at the current step."""
        from sessions import save_session

        m = self.require()
        save_session(path, m, program_path=self.program_path, layout=layout or {},
                     notes=self.notes or None)
        return f"saved {path} at step {self.state.steps}"

    def note(self) -> Any | None:
        """The tour note for the current step (the last one at or before it)."""
        here = [n for n in self.notes if n.step <= self.state.steps]
        return here[-1] if here else None

    # -- loading ---------------------------------------------------------------
    def _listing(self) -> list[ProgramLine]:
        """The listing, each record judged once by the vectorized validator."""
        by_offset = {off: name for name, off in self.labels.items()}
        valid = np.asarray(validate(self.program, self.gen, self.engine).valid, bool)
        texts = disassemble_lines(self.program, self.gen)  # re-assemblable, one per record
        return [ProgramLine(i, i * 64, texts[i].strip(), bool(valid[i]), by_offset.get(i * 64))
                for i in range(len(self.program))]

    def _make_debugger(self, m: Machine) -> Machine:
        # One event stops everything: the App's Esc sets `session.interrupt`, which is
        # the machine's own, so a single long `cont` sees it at its next check.
        m.interrupt = self.interrupt
        # Keep the lanes of the last conversion even when `continue` runs past it.
        # Wrapping `step` (not setting `on_step`) keeps the SEQ fast path of `cont`:
        # conversions never take that path, they always go through `step`.
        inner = m.step

        def step_keeping_lanes() -> Any:
            rec = inner()
            if rec.lanes is not None:
                self.last_lanes = (rec.lanes, rec.step)
            return rec

        m.step = step_keeping_lanes  # type: ignore[method-assign]
        return m

    def require(self) -> Machine:
        return self.dbg

    @property
    def state(self) -> Any:
        return self.dbg.state

    # -- driving ----------------------------------------------------------------
    def _regs(self) -> list[int]:
        return list(self.state.R)

    def _remember(self, record: Any) -> None:
        inst = getattr(record, "instruction", None)
        if inst is not None and getattr(record, "executed", True):
            self._by_opcode[inst.opcode] = inst

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
        if self.last_lanes is not None and self.last_lanes[1] >= self.state.steps:
            self.last_lanes = None  # that conversion has been undone
        if not done:
            self.stop_text = "at the start of history: nothing to reverse" \
                if stop.reason == "start" and m.history.enabled else describe_stop(stop)
        else:
            why = "" if done == n else " (stopped by the user)" \
                if stop.reason == "interrupt" else ": the start of history"
            self.stop_text = f"reversed {done:,} step(s) to pc {self.state.pc:#x}{why}"
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
        `stop()`; `progress(steps, rate)` every `slice_s` seconds."""
        m = self.dbg
        plan, self._plan = self._plan, RunPlan()
        self.interrupt.clear()
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
            if self.last_lanes is not None and self.last_lanes[1] >= self.state.steps:
                self.last_lanes = None
            return stop
        until = plan.arg if plan.kind == "until" else None
        while True:
            stop = m.cont(until_pc=until)
            if stop.reason != "breakpoint" or not self._pass(stop):
                return stop
            if self.interrupt.is_set():  # cont clears it on entry: look before going on
                return Stop("interrupt", self.state.pc, "interrupted", stop.steps)

    def _pass(self, stop: Stop) -> bool:
        """Whether a breakpoint stop is one `continue N` said to pass (gdb's ignore
        count): every breakpoint that matched must still have crossings to pass."""
        hit = matched(stop)
        if not hit or not all(self.ignore.get(bp.id, 0) > 0 for bp in hit):
            return False
        for bp in hit:
            self.ignore[bp.id] -= 1
        return True

    def ignore_current(self, n: int) -> str:
        """`continue N`: pass the breakpoint the machine stopped at N-1 more times."""
        hit = matched(self.last_stop) if self.last_stop is not None and \
            self.last_stop.reason == "breakpoint" else []
        if not hit:
            return "not stopped at a breakpoint: the count is ignored"
        for bp in hit:
            self.ignore[bp.id] = n - 1
        ids = ", ".join(f"#{bp.id}" for bp in hit)
        return f"will ignore the next {n - 1} crossing(s) of breakpoint {ids}; continuing"

    # -- breakpoints ---------------------------------------------------------------
    def breakpoints(self) -> list[Any]:
        return list(self.dbg.breakpoints)

    def add_breakpoint(self, spec: str) -> Any:
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
        known = {bp.id for bp in self.dbg.breakpoints}
        ids = sorted(known) if idents is None else idents
        missing = [i for i in ids if i not in known]
        if missing:
            raise ValueError(f"no breakpoint #{missing[0]}")
        for i in ids:
            self.dbg.set_enabled(i, on)
        if not ids:
            return "no breakpoints"
        return f"{'enabled' if on else 'disabled'} " + ", ".join(f"#{i}" for i in ids)

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
        return f"{target}: last {verb} by step {step}{_at(pc)}"

    def set_value(self, target: str, value: str) -> str:
        """`set TARGET = VALUE` through the machine (journaled: `reverse` undoes it, a
        saved session keeps it); returns what was stored, or ValueError if the target
        cannot hold the value (decisions: machine/edits.py)."""
        self.last_stop = None
        return self.dbg.edit(target, value)

    def snapshot(self) -> Snapshot:
        state = self.state
        n = len(self.lines)
        pc_index = state.pc_index if 0 <= state.pc_index < n else None
        source = self.dbg if self.dbg is not None else self.program  # the machine caches them
        inst = source.instruction(pc_index) if pc_index is not None else None
        verdict = nki = None
        split: list[Any] = []
        if inst is not None:  # a record's verdicts never change: judge it once
            if pc_index not in self._judged:
                self._judged[pc_index] = judge(inst, self.gen, self.engine)
            verdict, nki, split = self._judged[pc_index]
        record = self.last
        previous = self._by_opcode.get(inst.opcode) if inst is not None else None
        return Snapshot(
            program_name=self.name, gen=self.gen.label, engine=self.engine, lines=self.lines,
            pc=state.pc, pc_index=pc_index, steps=state.steps, registers=self._regs(),
            prev_registers=self.prev_regs, breakpoints=self.breakpoint_indices(),
            instruction=inst, previous_same=previous if previous is not inst else None,
            verdict=verdict, nki_verdict=nki, sbuf=state.sbuf, psum=state.psum, acc=state.acc,
            idx=state.idx, written=written_regions(record), record=record,
            lanes=self.last_lanes[0] if self.last_lanes else None, stop=self.stop_text,
            fault=getattr(record, "fault", None), halted=bool(getattr(state, "halted", False)),
            extra={"disagreements": split,
                   "lanes_step": self.last_lanes[1] if self.last_lanes else None})


def _at(pc: int | None) -> str:
    """` at pc 0x40`, or why the PC is not known (history past the journal budget is
    folded into checkpoints, which keep state, not each step's PC)."""
    return " (its pc is in folded history)" if pc is None else f" at pc {pc:#x}"


def judge(inst: Any, gen: Gen, engine: str) -> tuple[Any, Any, list[Any]]:
    """(wire verdict, NKI verdict, disagreements) of one instruction; None / [] where the
    instruction<->intrinsic bridge has nothing to say."""
    try:
        verdict = explain(inst, gen, engine)
    except ValueError:
        verdict = None
    try:  # the bridge judges fields it may not know: its refusal means "nothing to say"
        nki = bridge.check_fields(inst.opcode, inst.fields, gen)
        split = list(bridge.disagreements(inst.opcode, inst.fields, gen)) if nki else []
    except (AttributeError, ValueError, KeyError):
        nki, split = None, []
    return verdict, nki, split


def written_regions(record: Any) -> tuple[WrittenRegion, ...]:
    """The SBUF/PSUM cells a StepRecord wrote."""
    out = []
    lanes = getattr(record, "lanes", None)
    fmt = getattr(lanes, "dst", None)  # a conversion writes elements of its target format
    for w in getattr(record, "writes", None) or ():
        region = getattr(w, "region", None)
        if region is None:
            continue
        out.append(WrittenRegion(region.space, region.p0, region.p1, region.byte_index, fmt))
    return tuple(out)


def matched(stop: Stop) -> list[Any]:
    """Every breakpoint a stop matched."""
    return list(stop.breakpoints)


def describe_record(rec: Any) -> str:
    """One step's outcome as one line: the instruction and its PC (the Registers pane
    marks what it wrote)."""
    where = f"{rec.mnemonic or 'record'} at pc {rec.pc:#x}"
    if rec.fault:
        return f"fault: {rec.fault}" if rec.mnemonic is None or rec.mnemonic in rec.fault \
            else f"fault in {where}: {rec.fault}"
    if rec.invalid:
        failed = ", ".join(rec.verdict.failed) if rec.verdict is not None else "legality"
        return f"invalid: {where} refused (fails {failed}); the machine stays before it"
    if rec.halted:
        return "halt" if rec.executed else "the machine is halted"
    flags = ""
    if rec.lanes is not None:
        counts = {k: v for k, v in rec.lanes.counts().items() if v}
        flags = "  lanes: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "exact")
    return f"stepped {where}{flags}"


def describe_stop(stop: Stop | str | None) -> str:
    """A stop as one line: why, which breakpoints (all that matched), the instruction
    that caused it (opcode, PC; for watches old -> new, in the machine's detail),
    and where the machine now is."""
    if stop is None:
        return ""
    if isinstance(stop, str):
        return stop
    text = stop.reason
    if stop.detail:
        text += f": {stop.detail}"
    rec = stop.record
    if stop.reason == "fault" and rec is not None and rec.mnemonic and \
            rec.mnemonic not in stop.detail:
        text = f"fault in {rec.mnemonic} at pc {rec.pc:#x}: {stop.detail}"
    return f"{text} (pc {stop.pc:#x})"
