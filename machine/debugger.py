"""The debugger: step, continue, run to PC, reverse; breakpoints, watchpoints, stop reasons.

    m = Machine(program, MachineConfig(gen=Gen.CAYMAN), data=inits, labels={"loop": 0x40})
    m.add_breakpoint("op:CAST")
    stop = m.cont()                  # Stop(reason, pc, detail, ...)
    rec = m.step()                   # StepRecord: writes, verdict, fault, lanes
    m.reverse_step(); m.reverse_continue()

Stop reasons: halt | breakpoint | fault | invalid | max-steps (and `interrupt` when
`m.interrupt` is set from another thread; checked at step boundaries). A
refused (invalid) or faulting instruction changes nothing: the machine stays
before it. `continue` uses the SEQ fast closures when no breakpoint needs
per-step records, and re-executes the last fast step to produce `last`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from machine import expr as ex
from machine.breakpoints import SEMANTIC_FLAG, STATIC_KINDS, Breakpoint, parse_spec
from machine.engines import Context, StepRecord, execute, handler_for
from machine.engines.record import LazyVerdict
from machine.engines.seq import FAST_OPCODES, fast_op
from machine.state import RECORD_BYTES, MachineConfig, MachineState

_MISSING = object()  # no Verdict cached yet (None is a cached "no legality engine")
FAST_CHUNK = 1 << 16  # fast steps between interrupt checks (~65 ms at 1e6 steps/s)
# `run` reports the first five; `interrupt` (UI) and `start` (reverse) are interactive only.
STOP_REASONS = ("halt", "breakpoint", "fault", "invalid", "max-steps", "interrupt", "start")


@dataclass
class Stop:
    """Why a run command returned."""

    reason: str
    pc: int
    detail: str
    steps: int = 0  # steps executed by this command
    breakpoint: Breakpoint | None = None
    record: StepRecord | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "pc": self.pc, "detail": self.detail}


class Machine:
    """A program loaded on a machine state, with breakpoints and a journal."""

    def __init__(self, program: Any, config: MachineConfig | None = None,
                 data: Iterable[Any] = (), labels: dict[str, int] | None = None) -> None:
        self.program = program
        self.config = (config or MachineConfig()).resolved()
        self.state = MachineState.create(self.config)
        self.labels: dict[str, int] = dict(labels or {})  # name -> byte offset of the record
        self.count = len(program)
        self._insts: list[Any] = [None] * self.count
        self._verdicts: dict[int, Any] = {}
        self._valid: np.ndarray | None = None
        self._fast: list[Callable[[], int] | None] | None = None
        self._stop: bytearray | None = None
        self.breakpoints: list[Breakpoint] = []
        self._next_bp = 1
        self.interrupt = threading.Event()
        self.last: StepRecord | None = None
        self.on_step: Callable[[StepRecord], None] | None = None  # e.g. `run --trace`
        for d in data:
            self.load_data(d)

    # -- program and legality ----------------------------------------------------------
    def instruction(self, i: int) -> Any:
        inst = self._insts[i]
        if inst is None:
            inst = self._insts[i] = self.program.instruction(i)
        return inst

    def valid(self, i: int) -> bool:
        """Whether record i passes legality (True when the legality engine is absent)."""
        if self._valid is None:
            try:
                from machine.legality.explain import validate

                self._valid = np.asarray(validate(self.program, self.config.gen,
                                                  self.config.engine).valid, dtype=bool)
            except Exception:  # the legality engine is optional for the machine
                self._valid = np.ones(self.count, dtype=bool)
        return bool(self._valid[i])

    def verdict(self, i: int) -> Any:
        """The wire-level Verdict of record i, or None without a legality engine."""
        if i not in self._verdicts:
            try:
                from machine.legality.explain import explain

                self._verdicts[i] = explain(self.instruction(i), self.config.gen,
                                            self.config.engine)
            except Exception:
                self._verdicts[i] = None
        return self._verdicts[i]

    def _lazy_verdict(self, i: int) -> Any:
        """Record i's Verdict if already explained, else a LazyVerdict (DESIGN: the bulk
        validity flag decides the step; the explanation waits until someone reads it)."""
        v = self._verdicts.get(i, _MISSING)
        return LazyVerdict(lambda: self.verdict(i)) if v is _MISSING else v

    def index_of(self, pc: int) -> int | None:
        i, rem = divmod(pc - self.config.base, RECORD_BYTES)
        return i if rem == 0 and 0 <= i < self.count else None

    # -- initial data ----------------------------------------------------------------------
    def load_data(self, init: Any) -> None:
        """Apply a machine.asm DataInit (not journaled: it is the initial state)."""
        mem = self.state.memory(init.space)
        p0, p1 = init.partitions
        end = init.offset + init.data.shape[1]
        if p1 > mem.shape[0] or end > mem.shape[1]:
            raise ValueError(f"data for {init.space}[{p0}:{p1}, {init.offset}] ({init.nbytes} "
                             f"bytes) does not fit {mem.shape[0]} x {mem.shape[1]} bytes")
        mem[p0:p1, init.offset:end] = init.data

    def load_sbuf(self, array: np.ndarray) -> None:
        """Place a uint8 (partitions, bytes) array at SBUF partition 0, byte 0."""
        a = np.asarray(array)
        sb = self.state.sbuf
        if a.dtype != np.uint8 or a.ndim != 2:
            raise ValueError(f"expected a uint8 array of shape (partitions, bytes), got "
                             f"{a.dtype} {a.shape}")
        if a.shape[0] > sb.shape[0] or a.shape[1] > sb.shape[1]:
            raise ValueError(f"array {a.shape} does not fit SBUF {sb.shape}")
        sb[:a.shape[0], :a.shape[1]] = a

    # -- breakpoints -----------------------------------------------------------------------
    def add_breakpoint(self, spec: str) -> Breakpoint:
        """Parse and add a breakpoint; ValueError (with column) on a bad spec or label."""
        bp = parse_spec(spec)
        if bp.kind == "label" and bp.value not in self.labels:
            known = ", ".join(sorted(self.labels)) or "none"
            raise ValueError(f"column 7: unknown label {bp.value!r}; labels: {known}")
        if bp.kind == "change":
            bp.watch_old = ex.snapshot(bp.value, self.state)
        bp.id = self._next_bp
        self._next_bp += 1
        self.breakpoints.append(bp)
        self._stop = None
        return bp

    def delete_breakpoint(self, bp_id: int) -> bool:
        before = len(self.breakpoints)
        self.breakpoints = [b for b in self.breakpoints if b.id != bp_id]
        self._stop = None
        return len(self.breakpoints) != before

    def set_enabled(self, bp_id: int, enabled: bool) -> None:
        for b in self.breakpoints:
            if b.id == bp_id:
                b.enabled = enabled
        self._stop = None

    def _static_match(self, bp: Breakpoint, i: int) -> bool:
        if bp.kind == "pc":
            return bp.value == self.config.base + i * RECORD_BYTES
        if bp.kind == "label":
            return self.labels.get(bp.value) == i * RECORD_BYTES
        if bp.kind == "op":
            return int(self.program.opcodes[i]) == bp.value
        return not self.valid(i)  # "invalid"

    def _static_hit(self, pc: int) -> Breakpoint | None:
        i = self.index_of(pc)
        if i is None:
            return None
        for bp in self.breakpoints:
            if bp.enabled and bp.kind in STATIC_KINDS and self._static_match(bp, i) and (
                    bp.cond is None or self._cond(bp)):
                return bp
        return None

    def _cond(self, bp: Breakpoint) -> bool:
        try:
            return bool(bp.cond(self.state)) if bp.cond is not None else True
        except (ValueError, ArithmeticError, IndexError):
            return True  # a condition that cannot be evaluated stops, so the user sees it

    def _dynamic_hit(self, rec: StepRecord) -> tuple[Breakpoint, str] | None:
        for bp in self.breakpoints:
            if not bp.enabled or bp.kind in STATIC_KINDS:
                continue
            why = self._dynamic_reason(bp, rec)
            if why and (bp.cond is None or self._cond(bp)):
                return bp, why
        return None

    def _dynamic_reason(self, bp: Breakpoint, rec: StepRecord) -> str | None:
        k = bp.kind
        if k == "fault":
            return f"fault: {rec.fault}" if rec.fault else None
        if k == "if":
            try:
                return f"{bp.value.text} is true" if bp.value(self.state) else None
            except (ValueError, ArithmeticError, IndexError) as e:
                return f"{bp.value.text}: {e}"
        if k == "watch":
            hit = _written(bp.value, rec)
            return f"{bp.value.name} written" if hit else None
        if k == "change":
            now = ex.snapshot(bp.value, self.state)
            if now != bp.watch_old:
                old, bp.watch_old = bp.watch_old, now
                return f"{bp.value.name} changed" + (
                    f": {old} -> {now}" if not isinstance(now, bytes) else "")
            return None
        if rec.lanes is not None:  # semantic: saturate / tie / nan / inf
            flags = rec.lanes.flags[SEMANTIC_FLAG[k]]
            n = int(flags.sum())
            if n:
                p, e = (int(v) for v in np.argwhere(flags)[0])
                return (f"{k}: {n} lane(s) of {rec.mnemonic}; first: partition "
                        f"{p + rec.lanes.p0}, element {e}")
        return None

    def _needs_records(self) -> bool:
        return self.on_step is not None or any(
            b.enabled and b.kind not in STATIC_KINDS for b in self.breakpoints)

    # -- one step ----------------------------------------------------------------------------
    def step(self) -> StepRecord:
        """Execute one instruction with a full record (no breakpoint checks)."""
        st = self.state
        pc, step = st.pc, st.steps
        i, rem = divmod(pc - self.config.base, RECORD_BYTES)
        if st.halted:
            rec = StepRecord(step, pc, i, halted=True, next_pc=pc)
        elif rem or not 0 <= i < self.count:
            rec = StepRecord(step, pc, i, next_pc=pc, fault=(
                f"PC {pc:#x} is outside the program ({self.count} records from "
                f"{self.config.base:#x}{', not on a record boundary' if rem else ''})"))
        else:
            rec = self._execute(i, pc, step)
        self.last = rec
        if self.on_step is not None:
            self.on_step(rec)
        return rec

    def _execute(self, i: int, pc: int, step: int) -> StepRecord:
        st = self.state
        inst = self.instruction(i)
        verdict = self._lazy_verdict(i)
        if not self.valid(i) and not self.config.execute_invalid:
            return StepRecord(step, pc, i, inst, verdict, invalid=True, next_pc=pc)
        handler, why = handler_for(inst.opcode, self.config.engine, self.config.gen)
        if handler is None:
            return StepRecord(step, pc, i, inst, verdict, fault=why, next_pc=pc)
        ctx = Context(st, self.config.engine, pc)
        st.writes = []
        st.begin_step()
        fault = None
        try:
            nxt = execute(ctx, inst, handler)
            st.set_pc(pc + RECORD_BYTES if nxt is None else nxt)
        except Exception as e:  # the model never raises out of a step
            from machine.engines.record import Fault

            fault = str(e) if isinstance(e, Fault) else (
                f"internal error in {inst.mnemonic}: {type(e).__name__}: {e}")
        st.end_step()
        writes, st.writes = st.writes, None
        if fault is not None:
            st.undo_step()
            return StepRecord(step, pc, i, inst, verdict, fault=fault, next_pc=pc)
        return StepRecord(step, pc, i, inst, verdict, writes or [], halted=st.halted,
                          next_pc=st.pc, lanes=ctx.lanes)

    # -- fast path ---------------------------------------------------------------------------
    def _build_fast(self) -> None:
        if self._fast is None:
            fast: list[Callable[[], int] | None] = [None] * self.count
            ops = np.asarray(self.program.opcodes)
            candidates = np.flatnonzero(np.isin(ops, list(FAST_OPCODES)))
            for i in candidates.tolist():  # only SEQ records are decoded here
                h, _ = handler_for(int(ops[i]), self.config.engine, self.config.gen)
                if h is not None and (self.valid(i) or self.config.execute_invalid):
                    fast[i] = fast_op(self.state, self.instruction(i), i, self.count)
            self._fast = fast
        if self._stop is None:
            stop = np.ones(self.count + 1, dtype=np.uint8)
            stop[:self.count] = [f is None for f in self._fast]
            for bp in self.breakpoints:
                if bp.enabled and bp.kind in STATIC_KINDS:
                    stop[:self.count] |= self._static_mask(bp)
            self._stop = bytearray(stop.tobytes())

    def _static_mask(self, bp: Breakpoint) -> np.ndarray:
        """Records a static breakpoint matches (its condition is checked when it is hit)."""
        mask = np.zeros(self.count, dtype=np.uint8)
        if bp.kind == "op":
            mask[np.asarray(self.program.opcodes) == bp.value] = 1
        elif bp.kind in ("pc", "label"):
            pc = bp.value if bp.kind == "pc" else self.config.base + self.labels[bp.value]
            i = self.index_of(pc)
            if i is not None:
                mask[i] = 1
        elif self.count:  # invalid
            self.valid(0)  # computes the bulk legality array once
            assert self._valid is not None
            mask[~self._valid] = 1
        return mask

    def _fast_run(self, budget: int) -> int:
        """Run fast closures from the PC until a stop index or `budget` steps; steps done."""
        st = self.state
        i = self.index_of(st.pc)
        if i is None or st.halted:
            return 0
        self._build_fast()
        fast, stop = self._fast, self._stop
        assert fast is not None and stop is not None
        if stop[i]:
            return 0
        n = 0
        while n < budget:
            i = fast[i]()  # type: ignore[misc]
            n += 1
            if stop[i]:
                break
        st.pc = self.config.base + i * RECORD_BYTES
        return n

    def _refresh_last(self) -> None:
        """Re-execute the last (fast) step through the slow path to get its record."""
        if self.state.steps:
            self.state.undo_step()
            on_step, self.on_step = self.on_step, None
            self.step()
            self.on_step = on_step

    # -- run commands ------------------------------------------------------------------------
    def cont(self, max_steps: int | None = None, until_pc: int | None = None) -> Stop:
        """Continue until a stop reason; `until_pc` adds a temporary breakpoint."""
        self.interrupt.clear()
        done = 0
        first = True
        fast_last = False
        use_fast = not self._needs_records() and until_pc is None
        try:
            while True:
                st = self.state
                if max_steps is not None and done >= max_steps:
                    return Stop("max-steps", st.pc, f"stopped after {done} steps", done)
                if self.interrupt.is_set():
                    return Stop("interrupt", st.pc, "interrupted", done)
                if not first:
                    if until_pc is not None and st.pc == until_pc:
                        return Stop("breakpoint", st.pc, f"reached {until_pc:#x}", done)
                    bp = self._static_hit(st.pc)
                    if bp is not None:
                        bp.hits += 1
                        return Stop("breakpoint", st.pc, f"{bp.describe()}", done, bp)
                first = False
                if use_fast:
                    budget = FAST_CHUNK if max_steps is None else min(FAST_CHUNK,
                                                                      max_steps - done)
                    k = self._fast_run(budget)
                    if k:
                        done += k
                        fast_last = True
                        continue
                fast_last = False
                rec = self.step()
                stop = self._after(rec)
                if rec.executed:
                    done += 1
                if stop is not None:
                    stop.steps = done
                    return stop
        finally:
            if fast_last:
                self._refresh_last()

    def _after(self, rec: StepRecord) -> Stop | None:
        pc = self.state.pc
        if rec.fault:
            return Stop("fault", rec.pc, rec.fault, record=rec)
        if rec.invalid:
            v = rec.verdict
            failed = ", ".join(v.failed) if v is not None else "legality"
            name = v.predicate if v is not None else "legality"
            return Stop("invalid", rec.pc, f"{rec.mnemonic} at {rec.pc:#x} fails {name}: "
                        f"{failed}", record=rec)
        hit = self._dynamic_hit(rec)
        if hit is not None:
            hit[0].hits += 1
            return Stop("breakpoint", pc, f"{hit[0].describe()}: {hit[1]}", breakpoint=hit[0],
                        record=rec)
        if rec.halted:
            return Stop("halt", pc, "HALT" if rec.executed else "the machine is halted", record=rec)
        return None

    def step_n(self, n: int = 1) -> Stop:
        """`n` steps, stopping early at breakpoints and the other stop reasons."""
        return self.cont(max_steps=n)

    def run_to(self, pc: int) -> Stop:
        return self.cont(until_pc=pc)

    # -- reverse -------------------------------------------------------------------------------
    def reverse_step(self) -> bool:
        """Undo the last step exactly; False at the start of history."""
        if not self.state.steps:
            return False
        self.state.undo_step()
        self.last = None
        for bp in self.breakpoints:  # `change:` compares against the value now current
            if bp.kind == "change":
                bp.watch_old = ex.snapshot(bp.value, self.state)
        return True

    def rewind(self) -> int:
        """Undo every step (back to the loaded state); returns how many were undone."""
        n = 0
        while self.reverse_step():
            n += 1
        return n

    def reverse_continue(self, max_steps: int | None = None) -> Stop:
        """Undo steps until a static breakpoint is at the PC, a watched target was
        written by the undone step, or history starts."""
        n = 0
        while self.state.steps and (max_steps is None or n < max_steps):
            if self.interrupt.is_set():
                return Stop("interrupt", self.state.pc, "interrupted", n)
            step = self.state.steps - 1
            watched = self._watch_hit_at(step)
            self.reverse_step()
            n += 1
            bp = watched or self._static_hit(self.state.pc)
            if bp is not None:
                return Stop("breakpoint", self.state.pc, f"{bp.describe()} (reverse)", n, bp)
        if self.state.steps:
            return Stop("max-steps", self.state.pc, f"{n} steps back", n)
        return Stop("start", self.state.pc, "start of history", n)

    def _watch_hit_at(self, step: int) -> Breakpoint | None:
        """A watch/change breakpoint whose target the last journaled step wrote."""
        j = self.state.journal
        word = j.steps[step]
        nr, no = (word >> 8) & 0xFF, word & 0xFF
        regs = {w >> 32 for w in j.regs[len(j.regs) - nr:]} if nr else set()
        undos = j.others[len(j.others) - no:] if no else []
        for bp in self.breakpoints:
            if not (bp.enabled and bp.kind in ("watch", "change")):
                continue
            t = bp.value
            if t.kind == "reg" and t.index in regs:
                return bp
            for u in undos:
                if t.kind == "mem" and u.kind == "mem" and u.target == t.space:
                    r = u.key
                    if r.p0 < t.p1 and t.index < r.p1 and r.bounds[0] < t.b1 and \
                            t.b0 < r.bounds[1]:
                        return bp
                elif t.kind in ("sem", "shape") and u.target == t.kind and u.key == t.index:
                    return bp
                elif t.kind in ("acc", "idx") and u.target == t.kind and (
                        u.key.start <= t.index < u.key.stop):
                    return bp
        return None


def _written(t: ex.Target, rec: StepRecord) -> bool:
    for w in rec.writes:
        if t.kind == "reg" and w.target == f"R{t.index}":
            return True
        if t.kind == "pc" and w.target == "PC":
            return True
        if t.kind in ("sem", "shape") and w.target == f"{t.kind}[{t.index}]":
            return True
        if t.kind in ("acc", "idx") and w.target == t.kind and w.index is not None and (
                w.index.start <= t.index < w.index.stop):
            return True
        if t.kind == "mem" and w.region is not None and w.region.space == t.space:
            r = w.region
            if r.p0 < t.p1 and t.index < r.p1:
                o = r.elem_offsets
                if bool(np.any((o < t.b1) & (o + r.size > t.b0))):
                    return True
    return False
