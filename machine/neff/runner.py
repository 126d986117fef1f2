"""Running a NEFF subgraph to its end: the five engines and one actor per DMA queue
(neff-facts §5.4), headless.

    run = NeffRun(lower(open_neff("k.neff")), inputs={"a": array})
    out = run.run()            # Outcome: complete | deadlock | fault | invalid | ...
    out.lines()                # what `run` prints

Actors: each engine is a machine.debugger.Machine over its lowered stream (SBUF, PSUM
and the semaphores shared); an engine may step when it has not halted and every wait
of its next record holds (the header wait, and EVENT_SEMAPHORE's second wait at 0x20:
machine.core.events.plan_of). A DMA queue may step when its FIFO is not empty; its step
completes the head entry (machine.neff.dma). Schedule: round-robin over the actors, each
running while it can. Every wait in a NEFF is `>=` on a counter that only rises, so the
outcome does not depend on the schedule (neff-facts §5.4).

Outcome: complete (every engine halted at the end of its stream, every FIFO empty);
deadlock (nothing can step, some engine has not ended: each blocked engine is reported
with what could still raise its semaphore, DMA entries by queue); fault or invalid (an
instruction or a DMA entry the model refused: the run stops there); interrupted; limit.

With `races=True` the run checks races (machine.neff.racecheck): it then follows the
core's `rr` schedule step for step (one step of each actor that can step, in the core's
actor order), so the races found are the core's; records that only synchronise still
run inline, one at a time (an engine whose inline record changed no semaphore and no
queue while all the others were blocked steps again without visiting them: the
schedule would come straight back to it).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from neurondbg.machine.core.events import Plan, SemEvent, WaitSpec, plan_of
from neurondbg.machine.core.kernel import ENGINE_ORDER
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines.record import Fault, StepRecord
from neurondbg.machine.history import History
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from neurondbg.machine.isa.opcodes import Opcode, mnemonic
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.data import load_constants, load_inputs
from neurondbg.machine.neff.deadlock import deadlock_lines
from neurondbg.machine.neff.dma import DmaModel, Moved
from neurondbg.machine.neff.lower import Lowered
from neurondbg.machine.neff.model import ENGINES, Engine
from neurondbg.machine.neff.racecheck import RaceCheck
from neurondbg.machine.neff.roles import engine_label
from neurondbg.machine.neff.stale import MAY_WRITE, mark
from neurondbg.machine.neff.triggers import trigger_rows, trigger_targets
from neurondbg.machine.state import MachineConfig, MachineState
from neurondbg.machine.words import plural

Status = Literal["complete", "deadlock", "fault", "invalid", "interrupted", "limit"]


@dataclass
class Outcome:
    """How a run ended (module docstring)."""

    status: Status
    steps: int
    detail: str
    blocked: list[str] = field(default_factory=list)  # deadlock: one line per engine
    actor: str | None = None  # fault / invalid: the engine or queue that stopped the run

    def lines(self) -> list[str]:
        return [self.detail, *(f"  {b}" for b in self.blocked)]



class NeffRun:
    """A lowered subgraph loaded on the model (module docstring)."""

    def __init__(self, low: Lowered, inputs: Mapping[str, np.ndarray] | None = None,
                 journal_budget: int = 0, races: bool = False) -> None:
        """`journal_budget` 0: headless (no history; records that only synchronise run
        inline, unjournaled: see `_sync_run`). `races`: check races (headless only), as
        the core does under its `rr` schedule (`race_check`)."""
        self.low = low
        self.headless = journal_budget == 0
        if races and not self.headless:
            raise ValueError("a NeffRun checks races only headless (journal_budget 0)")
        base = MachineConfig(gen=low.gen)
        self.machines: dict[Engine, Machine] = {}
        first: MachineState | None = None
        for e in ENGINES:
            m = Machine(low.programs[e], replace(base, engine=e.value),
                        journal_budget=journal_budget, shared=first)
            # judged as NEFF records (machine.neff.verdicts): a trigger is not refused for
            # the engine_has_opcode clause a dispatch table would fail it on
            m._valid = low.valid[e]
            self.machines[e] = m
            first = first or m.state
        assert first is not None
        cfg = first.config
        self.dma = DmaModel(low.sub, cfg.partitions, cfg.sbuf_bytes,
                            journaled=not self.headless)
        self.queue_states = [MachineState.create(replace(cfg, engine=q), shared=first)
                             for q in self.dma.names]
        self._queue_history = [History(0) for _ in self.dma.names]
        for st in (*(m.state for m in self.machines.values()), *self.queue_states):
            self.dma.attach(st)
        self.notes = [*low.notes, *load_constants(self.dma, low.sub),
                      *load_inputs(self.dma, low.sub, inputs or {})]
        self._ms = list(self.machines.values())
        self._plans: list[dict[bytes, Plan]] = [{} for _ in self._ms]
        self._event_plans: dict[bytes, tuple[SemEvent, ...]] = {}
        self.steps = 0
        self.completions = [0] * len(self.dma.names)
        self.interrupt = threading.Event()
        self._tables = [sync_table(low, e) for e in ENGINES]
        self._sync = self._tables if self.headless else None
        self._marked: set[int] = set()  # opaque opcodes that have made their stale marks
        # the core's actors: the engines in its order, then each DMA queue that has entries
        self.busy = [q for q, name in enumerate(self.dma.names)
                     if any(x.queue == name for x in self.dma.entries)]
        self._names = [e.value for e in ENGINES]  # (an Enum's value is a property)
        # per engine, what a checked step reads first: its machine, state, table, base
        self._engines = [(m, m.state, t, m.config.base) for m, t in zip(self._ms, self._tables,
                                                                         strict=True)]
        self._core_order = sorted(range(len(ENGINES)),
                                  key=lambda i: ENGINE_ORDER.index(ENGINES[i].value))
        # per engine, the (semaphore, value) of the `>=` wait it was last found blocked on
        self._waits_on: list[tuple[int, int] | None] = [None] * len(ENGINES)
        # the last checked step of an engine changed no semaphore and no queue
        self._quiet = False
        self.race_check: RaceCheck | None = None
        if races:
            self.race_check = RaceCheck(
                [*(ENGINES[i].value for i in self._core_order),
                 *(self.dma.names[q] for q in self.busy)],
                {e.value: m for e, m in self.machines.items()}, list(first.sem),
                bool(self.busy))

    @property
    def state(self) -> MachineState:
        """The first engine's state (SBUF, PSUM, semaphores are every engine's)."""
        return self._ms[0].state

    # -- one actor ----------------------------------------------------------------------
    def blocked(self, i: int) -> WaitSpec | None:
        """The wait engine i's next record cannot pass now (None: it may step)."""
        m = self._ms[i]
        k = (m.state.pc - m.config.base) // RECORD_BYTES
        if not 0 <= k < m.count:
            return None
        return self._plan(i, k).blocked_on(m.state)

    def runnable(self, i: int) -> bool:
        return not self._ms[i].state.halted and self._may_issue(i)

    def _may_issue(self, i: int) -> bool:
        """`blocked(i) is None`, read from the SyncTable where the record's waits are of
        the forms it holds (no decode), else through the record's Plan."""
        st = self._ms[i].state
        t = self._tables[i]
        k = (st.pc - self._ms[i].config.base) // RECORD_BYTES
        if 0 <= k < len(t.plain) and t.plain[k]:
            sem = st.sem
            w = t.hi[k]
            if w >= 0 and sem[w] < t.hv[k]:
                return False
            w = t.ei[k]
            return w < 0 or sem[w] >= t.ev[k]
        return self.blocked(i) is None

    def complete(self, q: int) -> Moved | str:
        """Queue q's step: its head entry completes (a fault string: nothing changed)."""
        st = self.queue_states[q]
        st.begin_step()
        fault = None
        moved: Moved | None = None
        try:
            moved = self.dma.complete(st, q)
        except Fault as e:
            fault = str(e)
        except Exception as e:  # the model never raises out of a step (house rule)
            fault = f"internal error completing a DMA entry: {type(e).__name__}: {e}"
        st.end_step()
        if fault is not None:
            st.undo_step()
            return fault
        self._queue_history[q].keep(st, 0)
        self.completions[q] += 1
        self.steps += 1
        assert moved is not None
        return moved

    # -- the run ------------------------------------------------------------------------
    def run(self, max_steps: int | None = None) -> Outcome:
        """Round-robin until complete, deadlock, a fault, an interrupt or `max_steps`."""
        limit = self.steps + max_steps if max_steps is not None else None
        if self.race_check is not None:
            return self._checked_run(limit)
        while True:
            moved = False
            for i, m in enumerate(self._ms):
                if self.interrupt.is_set():
                    return self._interrupted()
                if self._sync is not None:
                    got = self._sync_run(i, limit)
                    if isinstance(got, Outcome):
                        return got
                    moved = moved or got
                while not m.state.halted and self._may_issue(i):
                    if limit is not None and self.steps >= limit:
                        return self._limited()
                    if self.interrupt.is_set():  # an Event look costs ~0.1 us
                        return self._interrupted()
                    rec = m.step()
                    if rec.invalid or rec.fault:
                        return self._refused(ENGINES[i], rec)
                    self.steps += 1
                    moved = True
                    if self._sync is not None:
                        got = self._sync_run(i, limit)
                        if isinstance(got, Outcome):
                            return got
            for q in range(len(self.dma.names)):
                while self.dma.pending(q):
                    if self.interrupt.is_set():
                        return self._interrupted()
                    if limit is not None and self.steps >= limit:
                        return self._limited()
                    done = self.complete(q)
                    if isinstance(done, str):
                        return Outcome("fault", self.steps, f"fault: {done}",
                                       actor=self.dma.names[q])
                    moved = True
            if not moved:
                break
        return self._end()

    def _end(self) -> Outcome:
        """Nothing can step: complete, or a deadlock."""
        if all(m.state.halted for m in self._ms):
            return Outcome("complete", self.steps, self._complete_text())
        return Outcome("deadlock", self.steps, "deadlock: nothing can step and "
                       + ", ".join(engine_label(e) for i, e in enumerate(ENGINES)
                                   if not self._ms[i].state.halted)
                       + " have not reached their end", self.deadlock_lines())

    # -- the run with race checking -----------------------------------------------------
    def _checked_run(self, limit: int | None) -> Outcome:
        """The core's `rr` schedule, step for step (machine.core.schedule: the next
        actor after the last one that can step), each step fed to the race check."""
        order = self._core_order
        n_engines = len(order)
        busy = self.busy
        n = n_engines + len(busy)
        sem = self.state.sem
        head, tail = self.dma.head, self.dma.tail
        waits = self._waits_on
        i = 0
        idle = 0  # actors in a row found unable to step: n of them, nothing can
        while idle < n:
            if not idle:  # (a step was taken since the last look)
                if limit is not None and self.steps >= limit:
                    return self._limited()
                if self.interrupt.is_set():
                    return self._interrupted()
            if i < n_engines:
                e = order[i]
                w = waits[e]
                # still blocked on the wait it was found blocked on: no call
                got = False if w is not None and sem[w[0]] < w[1] else self._checked_step(e)
            else:
                q = busy[i - n_engines]
                got = tail[q] != head[q] and self._checked_complete(q)
            if got is True:
                if idle == n - 1 and i < n_engines and self._quiet:
                    # every other actor was found unable to step since this engine's last
                    # step, and this step changed no semaphore and no queue: they still
                    # cannot, and the schedule comes straight back to this one
                    if limit is not None and self.steps >= limit:
                        return self._limited()
                    if self.interrupt.is_set():
                        return self._interrupted()
                    continue
                idle = 0
            elif got is False:
                idle += 1
            else:
                return got
            i = i + 1 if i + 1 < n else 0
        return self._end()

    def _checked_step(self, i: int) -> bool | Outcome:
        """Engine i's next record, if it can step now (False: it cannot)."""
        rc = self.race_check
        assert rc is not None
        m, st, t, base = self._engines[i]
        if st.halted:
            self._waits_on[i] = _NEVER
            return False
        pc = st.pc
        k = (pc - base) // RECORD_BYTES
        step = self.steps
        inside = 0 <= k < len(t.fast)
        plain = inside and t.plain[k]
        if plain:
            sem = st.sem
            h, hv, e, ev = t.hi[k], t.hv[k], t.ei[k], t.ev[k]
            if h >= 0 and sem[h] < hv:
                self._waits_on[i] = (h, hv)
                return False
            if e >= 0 and sem[e] < ev:
                self._waits_on[i] = (e, ev)
                return False
            self._waits_on[i] = None
            if t.fast[k]:
                what = t.kind[k]
                entry = None
                if what == _TRIGGER:
                    try:
                        self.dma.trigger(st, ENGINES[i], t.queue[k], t.entry[k])
                    except Fault as err:
                        return self._trigger_fault(ENGINES[i], k, err)
                    entry = self._enqueued(t.queue[k])
                elif what == _OPAQUE and t.ops[k] not in self._marked:
                    self._mark(st, ENGINES[i], base, k)
                u = t.ui[k]
                v = 0
                if u >= 0:
                    sem[u] = v = (sem[u] + 1) & 0xFFFFFFFF
                self._quiet = u < 0 and entry is None
                st.pc = pc + RECORD_BYTES
                self.steps = step + 1
                rc.sync(self._names[i], pc, step, h, hv, e, ev, u, v, t.um[k], entry)
                return True
        else:
            self._waits_on[i] = None
            if self.blocked(i) is not None:
                return False
        plain = plain and t.ops[k] not in _WHOLE_RECORD
        if plain:
            # its waits from the table (`>=` ones), its semaphore writes from the bytes
            # that name them (a stream's records share a few)
            waits = t.waits(k)
            events = self._events(i, k)
        else:
            pre = rc.before(st, self._plan(i, k))
        self._quiet = False  # (its handler may write a semaphore)
        st.reads = []
        rec = m.step()
        reads, st.reads = st.reads, None
        if rec.invalid or rec.fault:
            return self._refused(ENGINES[i], rec)
        self.steps = step + 1
        entry = self._enqueued(t.queue[k]) if inside and t.kind[k] == _TRIGGER else None
        if plain:
            rc.plain_step(self._names[i], rec, waits, events, reads or [], step, entry)
        else:
            rc.step(self._names[i], rec, pre, reads or [], step, entry)
        return True

    def _events(self, i: int, k: int) -> tuple[SemEvent, ...]:
        """The semaphore writes of engine i's record k (not EVENT_SEMAPHORE nor
        TEST_EVENT_SEM), kept by the bytes they depend on: the opcode and the events
        header without the wait's threshold."""
        m = self._ms[i]
        key = m.program.record(k)[:8]
        got = self._event_plans.get(key)
        if got is None:
            if len(self._event_plans) >= _PLANS_KEPT:
                self._event_plans.clear()
            got = self._event_plans[key] = plan_of(m.instruction(k)).events
        return got

    def _enqueued(self, queue: str) -> int | None:
        """The entry index a trigger just put at the back of `queue`."""
        q = self.dma.index[queue]
        return self.dma.order.get((q, self.dma.tail[q] - 1))

    def _checked_complete(self, q: int) -> bool | Outcome:
        """DMA queue q completes its head entry, if it has one (False: it is empty)."""
        rc = self.race_check
        assert rc is not None
        dma = self.dma
        if not dma.pending(q):
            return False
        step = self.steps
        index = dma.order[(q, dma.head[q])]
        assert index is not None
        k = self.completions[q]
        done = self.complete(q)
        if isinstance(done, str):
            return Outcome("fault", self.steps, f"fault: {done}", actor=dma.names[q])
        entry = dma.entries[index]
        rc.completed(dma.names[q], k, entry, index, self.state.sem[entry.semaphore], step)
        return True

    def _plan(self, i: int, k: int) -> Plan:
        """The Plan of engine i's record k, kept by the bytes it reads (the opcode and the
        events header, or the whole record for the two opcodes whose own fields wait or
        update), as the core's engine queues keep them: a stream shares a few."""
        m = self._ms[i]
        raw = m.program.record(k)
        key = raw if raw[0] in _WHOLE_RECORD else raw[:_PLAN_KEY]
        plans = self._plans[i]
        p = plans.get(key)
        if p is None:
            if len(plans) >= _PLANS_KEPT:
                plans.clear()
            p = plans[key] = plan_of(m.instruction(k))
        return p

    def _mark(self, st: MachineState, engine: Engine, base: int, k: int) -> None:
        """The first of each opaque opcode marks (the first marker stays named)."""
        op = self._tables[ENGINES.index(engine)].ops[k]
        for space in MAY_WRITE.get(op, ()):
            mark(st, space, f"{mnemonic(op)} at {engine.value} {base + k * RECORD_BYTES:#x}")
        self._marked.add(op)

    def _sync_run(self, i: int, limit: int | None) -> bool | Outcome:
        """Run engine i inline through records that only synchronise (headless): their
        waits checked on the semaphores, a SEM_INC update applied, a trigger enqueued,
        an opaque one's stale mark made; no journal, no StepRecord. True if it moved."""
        assert self._sync is not None
        t = self._sync[i]
        m = self._ms[i]
        st = m.state
        base = m.config.base
        k0 = k = (st.pc - base) // RECORD_BYTES
        n = len(t.fast)
        if not 0 <= k < n:
            return False
        stop = n if limit is None else min(n, k + max(0, limit - self.steps))
        sem = st.sem
        fast, hi, hv, ei, ev, ui, kind = t.fast, t.hi, t.hv, t.ei, t.ev, t.ui, t.kind
        engine = ENGINES[i]
        interrupted = False
        while k < stop and fast[k]:
            if not k & _CHECK_EVERY and k > k0 and self.interrupt.is_set():
                interrupted = True
                break
            w = hi[k]
            if w >= 0 and sem[w] < hv[k]:
                break
            w = ei[k]
            if w >= 0 and sem[w] < ev[k]:
                break
            what = kind[k]
            if what == _TRIGGER:
                try:
                    self.dma.trigger(st, engine, t.queue[k], t.entry[k])
                except Fault as e:
                    st.pc = base + k * RECORD_BYTES
                    self.steps += k - k0
                    return self._trigger_fault(engine, k, e)
            elif what == _OPAQUE and t.ops[k] not in self._marked:
                self._mark(st, engine, base, k)
            u = ui[k]
            if u >= 0:
                sem[u] = (sem[u] + 1) & 0xFFFFFFFF
            k += 1
        st.pc = base + k * RECORD_BYTES
        self.steps += k - k0
        if interrupted:
            return self._interrupted()
        if limit is not None and self.steps >= limit and k < n and self._may_issue(i):
            # (a record that cannot issue is no step cut off: the run goes on to find
            # another actor that can, or the end, as a journaled run does)
            return self._limited()
        return k > k0

    def _limited(self) -> Outcome:
        """Where `--max-steps` stopped the run."""
        return Outcome("limit", self.steps, f"stopped after {self.steps:,} steps "
                       "(--max-steps)")

    def _interrupted(self) -> Outcome:
        """Where a Ctrl+C (the `interrupt` Event) stopped the run."""
        return Outcome("interrupted", self.steps, "interrupted")

    def _trigger_fault(self, engine: Engine, k: int, e: Fault) -> Outcome:
        """Engine's record k, a trigger the DMA model refused."""
        return Outcome("fault", self.steps, f"fault: {engine_label(engine)} record #{k} "
                       f"(PSEUDO_DMATRIGGER): {e}", actor=engine.value)

    def _complete_text(self) -> str:
        n = sum(self.completions)
        return (f"complete: every engine at the end of its stream, "
                f"{n:,} DMA {plural(n, 'entry', 'entries')} completed")

    def _refused(self, engine: Engine, rec: StepRecord) -> Outcome:
        where = f"{engine_label(engine)} record #{rec.index} ({rec.mnemonic})"
        if rec.invalid:
            failed = ", ".join(rec.verdict.failed) if rec.verdict is not None else "legality"
            return Outcome("invalid", self.steps, f"invalid: {where} fails {failed}",
                           actor=engine.value)
        return Outcome("fault", self.steps, f"fault: {where}: {rec.fault}", actor=engine.value)

    def deadlock_lines(self) -> list[str]:
        """For each blocked engine: what it waits for and what could still raise it."""
        blocked = {e: w for i, e in enumerate(ENGINES)
                   if not self._ms[i].state.halted and (w := self.blocked(i)) is not None}
        return deadlock_lines(self.low, self.dma, {e: m.state for e, m in
                                                   self.machines.items()}, blocked)


_PLAIN, _OPAQUE, _TRIGGER = 0, 1, 2
# A Plan reads the opcode and the events header (bytes 4..11) alone, except for these
# two opcodes, whose own fields wait and update: plans are kept by those bytes
_PLAN_KEY = 12
_WHOLE_RECORD = frozenset({int(Opcode.EVENT_SEMAPHORE), int(Opcode.TEST_EVENT_SEM)})
_PLANS_KEPT = 1 << 12  # distinct plans an engine keeps
_NEVER = (0, 1 << 32)  # a wait no semaphore (32 bits) passes: a halted engine's
_CHECK_EVERY = 0xFFF  # the inline loop looks at the interrupt every 4096 records (~1 ms)
_SYNC_OPS = {Opcode.SET_ORDERING_MODE: _PLAIN, Opcode.PSEUDO_BRANCH_LABEL: _PLAIN,
             Opcode.ACTIVATION_TABLE_LOAD: _PLAIN, Opcode.NOP: _PLAIN,
             Opcode.EVENT_SEMAPHORE: _PLAIN, Opcode.LDWEIGHTS: _OPAQUE,
             Opcode.MATMUL: _OPAQUE, Opcode.ACTIVATE: _OPAQUE,
             Opcode.PSEUDO_DMATRIGGER: _TRIGGER}


@dataclass(frozen=True)
class SyncTable:
    """Per record of one lowered stream, what an inline step needs (lists, not arrays:
    read one element at a time). `fast[k]`: record k only synchronises in a form the
    inline loop handles: a sync opcode, valid, waits SEM_GE_IMM or none, the update
    SEM_INC or none, EVENT_SEMAPHORE without an update of its own. `plain[k]`: every
    wait of record k (whatever its opcode) is SEM_GE_IMM or none, so `hi`/`hv`, `ei`/`ev`
    are all of them (its Plan's `blocked_on` is those comparisons). -1: no wait/update."""

    fast: list[bool]
    plain: list[bool]
    hi: list[int]  # header wait: semaphore
    hv: list[int]  # header wait: threshold
    ei: list[int]  # EVENT_SEMAPHORE's wait at 0x20: semaphore
    ev: list[int]
    ui: list[int]  # SEM_INC target
    um: list[int]  # its update mode (SEM_INC_READ or SEM_INC_COMPLETE)
    kind: list[int]  # _PLAIN, _OPAQUE, _TRIGGER
    ops: list[int]  # opcodes
    queue: dict[int, str]  # trigger records: queue name and entry id
    entry: dict[int, int]

    def waits(self, k: int) -> list[tuple[int, int]]:
        """Record k's `>=` waits as (semaphore, threshold): the header's, then 0x20's."""
        got = []
        if self.hi[k] >= 0:
            got.append((self.hi[k], self.hv[k]))
        if self.ei[k] >= 0:
            got.append((self.ei[k], self.ev[k]))
        return got


def _u32(raw: np.ndarray, at: int) -> np.ndarray:
    return np.ascontiguousarray(raw[:, at:at + 4]).view("<u4").reshape(-1)


def sync_table(low: Lowered, engine: Engine) -> SyncTable:
    """The SyncTable of `engine`'s lowered stream (the appended HALT is not fast)."""
    raw = np.asarray(low.programs[engine].raw)
    ops = raw[:, 0]
    kind = np.full(len(raw), -1, dtype=np.int64)
    for op, k in _SYNC_OPS.items():
        kind[ops == op] = k
    es = ops == Opcode.EVENT_SEMAPHORE
    hm, um = raw[:, 4], raw[:, 6]
    em = np.where(es, raw[:, 0x20], 0)
    eu = np.where(es, raw[:, 0x22], 0)
    ge, inc = WaitMode.SEM_GE_IMM, (UpdateMode.SEM_INC_READ, UpdateMode.SEM_INC_COMPLETE)
    plain = np.isin(hm, (0, ge)) & np.isin(em, (0, ge))
    fast = (kind >= 0) & low.valid[engine] & plain & (eu == 0) & np.isin(um, (0, *inc))
    hi = np.where(hm == ge, raw[:, 5].astype(np.int64), -1)
    ei = np.where(em == ge, raw[:, 0x21].astype(np.int64), -1)
    ui = np.where(np.isin(um, inc), raw[:, 7].astype(np.int64), -1)
    rows = trigger_rows(raw)
    names, ids = trigger_targets(raw, rows)
    r = rows.tolist()
    return SyncTable(fast.tolist(), plain.tolist(), hi.tolist(), _u32(raw, 8).tolist(), ei.tolist(),
                     _u32(raw, 0x24).tolist(), ui.tolist(), um.tolist(), kind.tolist(),
                     ops.tolist(),
                     dict(zip(r, names, strict=True)), dict(zip(r, ids, strict=True)))


