"""Actors: what the core's scheduler can pick, and the one interface it sees them by.

An actor is anything that takes global steps on a core: an engine queue (a program of
64-byte records run by that engine's `Machine`) or, for compiler output, a DMA queue
(a FIFO of triggered entries; one step completes the head entry, moves its bytes and
adds 16 to its semaphore). The core's scheduler, waits and deadlock check, race feed,
timeline (undo, checkpoints, digest) and breakpoint matching read actors only through
`Actor`, so a new kind of actor touches none of them.

Every actor owns a `MachineState` made with `shared=` the core's first state: its own
registers, PC and undo journal; SBUF, PSUM and the semaphores are the core's. Writes
through that state are journaled, so `undo` is `state.undo_step()` for most actors and
a checkpoint of the core is one `snap()` per actor plus the shared memory.

    class DmaQueue:                              # a sketch of another actor kind
        kind = ActorKind.DMA
        def rest(self): return EngineStatus.IDLE if not self.fifo else None
        def blocked(self): return None           # a non-empty FIFO may always issue
        def issue(self, step, feeder): ...       # pop head, write bytes, sem += 16
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

import numpy as np

from neurondbg.machine.breakpoints import static_match
from neurondbg.machine.core.events import NO_PLAN, Plan, WaitSpec, plan_of, update_targets
from neurondbg.machine.history import History
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.state import MachineState
from neurondbg.machine.stops import EngineStatus

PLANS_KEPT = 1 << 12  # distinct records an engine queue keeps the plan of
# A plan reads the opcode and the events header (bytes 4..11 in every struct) alone,
# except EVENT_SEMAPHORE's and TEST_EVENT_SEM's, which read fields past it: plans are
# kept by those bytes, so the records of a stream (which differ in their operands) share
# a handful of plans.
_PLAN_KEY = 12
_WHOLE_RECORD = frozenset({int(Opcode.EVENT_SEMAPHORE), int(Opcode.TEST_EVENT_SEM)})

if TYPE_CHECKING:
    from hashlib import _Hash

    from neurondbg.machine.breakpoints import Breakpoint
    from neurondbg.machine.core.feed import Feeder
    from neurondbg.machine.core.races import Race
    from neurondbg.machine.debugger import Machine
    from neurondbg.machine.engines.record import StepRecord


class ActorKind(StrEnum):
    """What an actor is: an engine's instruction queue, or a DMA queue."""

    ENGINE = "engine"
    DMA = "dma"


@dataclass
class Issued:
    """What one issued step did: its record (writes with old/new values, semaphores
    included; `executed` False: it did not issue, `fault` says why) and the races the
    race feed found in it."""

    record: StepRecord
    races: list[Race] = field(default_factory=list)


class Snap(Protocol):
    """An actor's own state at a checkpoint (the shared memory is the core's)."""

    @property
    def nbytes(self) -> int: ...

    def put(self, st: MachineState) -> None:
        """Restore into `st`, its journal emptied and starting at the snapshot's step."""


class Actor(Protocol):
    """What the core schedules. Indices, order and names are fixed for a core's life."""

    name: str  # "dve", or a DMA queue's name: unique on the core
    kind: ActorKind
    state: MachineState  # own registers, PC and journal; shared memory and semaphores

    def rest(self) -> EngineStatus | None:
        """Why it has nothing to issue (HALTED; IDLE: an empty DMA queue, which is not a
        deadlock), or None when it has work (it may still be blocked on a wait)."""

    def blocked(self) -> WaitSpec | None:
        """The wait its next step cannot pass now, or None (it may issue). Only asked
        while `rest()` is None; never changes state."""

    def updates(self) -> frozenset[int]:
        """Semaphores its remaining work (and what it triggers) may still update: the
        deadlock report's "can it ever be signalled"."""

    def issue(self, step: int, feeder: Feeder | None) -> Issued:
        """Take one step (global step number `step`) with a full record, journaled on
        `state` when it executed; never raises (a fault is `record.fault`). `feeder`
        (None: no race detection) is fed the step's waits, reads, writes and semaphore
        updates in execution order. Asked while `rest()` is not None (a user stepping a
        halted engine), it journals nothing and returns a record that did not execute."""

    def undo(self) -> None:
        """Undo its newest journaled step exactly."""

    def run_ahead(self, budget: int) -> int:
        """Take up to `budget` steps that touch only its own registers (never a wait,
        memory or a semaphore), journaled; the count taken (0: none; its next step must
        go through `issue`)."""

    def static_hits(self) -> list[Breakpoint]:
        """The enabled static breakpoints (`op`, `pc`, `label`, `invalid`) armed on it that
        match its next step (conditions are the core's to judge)."""

    def arm(self, bp: Breakpoint) -> None:
        """Add a static breakpoint to what `static_hits` and `run_ahead` stop before."""

    def disarm(self, bp_id: int) -> None:
        """Remove an armed breakpoint (by id)."""

    def refresh(self) -> None:
        """An armed breakpoint was enabled or disabled: forget what depends on that."""

    def where(self) -> str:
        """Its next step in words: "dve CAST at 0x40"."""

    def snap(self) -> Snap:
        """Its own state now (a checkpoint); `Snap.put` restores it."""

    def hash_into(self, h: _Hash) -> None:
        """Feed its own state (not the shared memory) to a digest."""


@dataclass
class EngineSnap:
    """One engine's own state at a checkpoint."""

    steps: int  # its journal length (own step count)
    R: list[int]
    pc: int
    shape: list[int]
    acc: np.ndarray
    idx: np.ndarray
    fp8_exp4: str
    fp8_sat: bool
    halted: bool

    @classmethod
    def of(cls, st: MachineState) -> EngineSnap:
        return cls(len(st.journal), list(st.R), st.pc, list(st.shape), st.acc.copy(),
                   st.idx.copy(), st.fp8_exp4, st.fp8_sat, st.halted)

    @property
    def nbytes(self) -> int:
        return 8 * (len(self.R) + len(self.shape)) + self.acc.nbytes + self.idx.nbytes + 64

    def put(self, st: MachineState) -> None:
        st.R[:] = self.R  # in place: fast closures hold the list
        st.shape[:] = self.shape
        st.pc = self.pc
        st.acc[...] = self.acc
        st.idx[...] = self.idx
        st.fp8_exp4, st.fp8_sat, st.halted = self.fp8_exp4, self.fp8_sat, self.halted
        st.journal.clear(self.steps)


class Passive(History):
    """An engine Machine's history inside a core: the core takes checkpoints and folds
    journals for all actors at once, so the machine's own policy does nothing. `start`:
    the own history of a program's Machine the core took over; its checkpoint 0 (the
    memory the program loaded with, which saving its session reads) is kept, and taken
    at the first change if it was not yet."""

    def __init__(self, start: History | None = None) -> None:
        super().__init__(0)
        self._start = start is not None
        if start is not None:
            self.checkpoints = list(start.checkpoints[:1])

    def base(self, state: MachineState, edits: int) -> None:
        if self._start:
            super().base(state, edits)

    def keep(self, state: MachineState, edits: int) -> None:
        return None


class EngineQueue:
    """An engine's instruction queue as an actor: its `Machine` executes the steps."""

    kind = ActorKind.ENGINE

    def __init__(self, name: str, machine: Machine, keep_start: bool = False) -> None:
        """`keep_start`: `machine` is a program's, loaded before (Passive's `start`)."""
        self.name = name
        self.machine = machine
        self.state = machine.state
        machine.history = Passive(machine.history if keep_start else None)
        # plans by the record bytes they read (_PLAN_KEY; at most PLANS_KEPT), and
        # the plan of the record at one PC (the scheduler asks about the same PC often)
        self._plans: dict[bytes, Plan] = {}
        self._at: tuple[int, Plan] | None = None
        self._targets: frozenset[int] | None = None

    def plan(self) -> Plan:
        """The semaphore side (waits, updates) of its next instruction."""
        m = self.machine
        pc = m.state.pc
        at = self._at
        if at is not None and at[0] == pc:
            return at[1]
        k = m.index_of(pc)
        if k is None:
            return NO_PLAN  # outside the program: issuing it faults
        raw = m.program.record(k)
        key = raw if raw[0] in _WHOLE_RECORD else raw[:_PLAN_KEY]
        p = self._plans.get(key)
        if p is None:
            if len(self._plans) >= PLANS_KEPT:
                self._plans.clear()
            p = self._plans[key] = plan_of(m.instruction(k))
        self._at = (pc, p)
        return p

    def rest(self) -> EngineStatus | None:
        return EngineStatus.HALTED if self.state.halted else None

    def blocked(self) -> WaitSpec | None:
        return self.plan().blocked_on(self.state)

    def updates(self) -> frozenset[int]:
        if self._targets is None:
            self._targets = update_targets(self.machine.program.raw)
        return self._targets

    def issue(self, step: int, feeder: Feeder | None) -> Issued:
        st = self.state
        pre = feeder.before(st, self.plan()) if feeder is not None else None
        if feeder is not None:
            st.reads = []
        rec = self.machine.step()
        reads, st.reads = st.reads, None
        if rec.executed and feeder is not None and pre is not None:
            return Issued(rec, feeder.after(self.name, rec, pre, reads or [], step))
        return Issued(rec)

    def undo(self) -> None:
        self.machine.undo_step()

    def write_record(self, index: int, raw: bytes) -> None:
        """Put `raw` in as record `index` of this queue (Machine.write_record) and forget
        what was derived from the old one: its wait/update plan, the semaphores the
        queue can update."""
        self.machine.write_record(index, raw)
        self._at = None  # (plans are by bytes: the new record finds its own)
        self._targets = None

    def run_ahead(self, budget: int) -> int:
        return self.machine.fast_run(budget)

    def static_hits(self) -> list[Breakpoint]:
        m = self.machine
        if not m.breakpoints:
            return []
        k = m.index_of(m.state.pc)
        if k is None:
            return []
        return [bp for bp in m.breakpoints if bp.enabled and static_match(bp, m, k)]

    def arm(self, bp: Breakpoint) -> None:
        self.machine.breakpoints.append(bp)
        self.machine.invalidate_stops()

    def disarm(self, bp_id: int) -> None:
        m = self.machine
        m.breakpoints = [b for b in m.breakpoints if b.id != bp_id]
        m.invalidate_stops()

    def refresh(self) -> None:
        self.machine.invalidate_stops()

    def where(self) -> str:
        m = self.machine
        k = m.index_of(m.state.pc)
        name = f"{m.instruction(k).mnemonic} at " if k is not None else ""
        return f"{self.name} {name}{m.state.pc:#x}"

    def snap(self) -> EngineSnap:
        return EngineSnap.of(self.state)

    def hash_into(self, h: _Hash) -> None:
        self.state.hash_into(h, shared=False)
