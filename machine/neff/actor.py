"""A NEFF's DMA queue as an actor of the core (machine.core.actor): the scheduler picks
it like an engine; one step completes the queue's head entry (machine.neff.dma).

- rest: IDLE while the FIFO is empty (not a deadlock); it never waits on a semaphore.
- updates: the semaphores of its pending entries and of the entries a trigger still
  ahead of its engine's PC would queue (the deadlock report's "can it be raised").
- issue: pop, move the bytes, sem += 16, journaled on the queue's own state (its PC
  counts the entries it completed). Its record lists the writes unless `keep_writes`
  is off (`NeffCore.keep_writes`: a run that reads no step's writes). With race
  detection the entry's accesses happen at its completion, ordered after what its
  trigger's engine did before the trigger (the clock `fork`ed at the trigger,
  neff-facts §7) and after the queue's previous entry (the queue's own clock: FIFO).
  Accesses are named `qSPIO0#17 (I-10-0)`.
- checkpoints: the first queue's snapshot also keeps what all queues share (the FIFOs,
  DRAM, the stale marks), so restoring a checkpoint restores them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from neurondbg.machine.core.actor import ActorKind, EngineSnap, Issued
from neurondbg.machine.core.feed import Feeder, Pre
from neurondbg.machine.core.races import Access, Queued
from neurondbg.machine.engines.record import Fault, StepRecord
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.dma import DmaModel
from neurondbg.machine.neff.model import DmaEntry, Engine
from neurondbg.machine.neff.stale import marks
from neurondbg.machine.state import MachineState, Region
from neurondbg.machine.stops import EngineStatus

if TYPE_CHECKING:
    from hashlib import _Hash

    from neurondbg.machine.breakpoints import Breakpoint
    from neurondbg.machine.core.races import Race

DRAM_TILE = 1 << 16  # DRAM is kept in checkpoints as its non-zero tiles of this size


@dataclass(frozen=True)
class DmaOp:
    """What a DMA step's record shows as its instruction."""

    mnemonic: str
    opcode: int | None = None


@dataclass
class SharedSnap:
    """What every queue shares, at a checkpoint: the FIFOs, the stale marks and DRAM
    (its non-zero DRAM_TILE tiles, and the bytes past the last whole tile)."""

    order: dict[tuple[int, int], int | None]
    tail: list[int]
    head: list[int]
    stale: dict[str, str | None]
    dram_mask: np.ndarray
    dram_tiles: np.ndarray
    dram_rest: np.ndarray

    @classmethod
    def of(cls, dma: DmaModel, st: MachineState) -> SharedSnap:
        tiles, rest = _tiles(dma.dram)
        mask: np.ndarray = np.asarray(tiles.any(axis=1))
        return cls(dict(dma.order), list(dma.tail), list(dma.head), dict(marks(st)),
                   mask, tiles[mask], rest.copy())

    @property
    def nbytes(self) -> int:
        return (int(self.dram_mask.nbytes + self.dram_tiles.nbytes + self.dram_rest.nbytes)
                + 64 * len(self.order))

    def put(self, dma: DmaModel, st: MachineState) -> None:
        dma.order.clear()  # in place: every state of the core holds these objects
        dma.order.update(self.order)
        dma.tail[:] = self.tail
        dma.head[:] = self.head
        m = marks(st)
        m.clear()
        m.update(self.stale)
        tiles, rest = _tiles(dma.dram)
        tiles[...] = 0
        tiles[self.dram_mask] = self.dram_tiles
        rest[...] = self.dram_rest


def _tiles(dram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DRAM as (whole tiles, DRAM_TILE) and the bytes after them (views)."""
    n = dram.size // DRAM_TILE * DRAM_TILE
    return dram[:n].reshape(-1, DRAM_TILE), dram[n:]


@dataclass
class QueueSnap:
    """One queue's own state (and, for the first queue, the shared DMA state)."""

    own: EngineSnap
    shared: SharedSnap | None
    dma: DmaModel

    @property
    def nbytes(self) -> int:
        return self.own.nbytes + (self.shared.nbytes if self.shared else 0)

    def put(self, st: MachineState) -> None:
        self.own.put(st)
        if self.shared is not None:
            self.shared.put(self.dma, st)


class DmaQueueActor:
    """One DMA queue of a NEFF subgraph, scheduled by the core (module docstring)."""

    kind = ActorKind.DMA

    def __init__(self, dma: DmaModel, q: int, shared: MachineState, first: bool) -> None:
        self.dma = dma
        self.q = q
        self.name = dma.names[q]
        self.first = first  # keeps the shared DMA state in its checkpoints
        self.state = MachineState.create(replace(shared.config, engine=self.name),
                                         shared=shared)
        dma.attach(self.state)
        self._ahead = _triggers_ahead(dma, q)
        # each step's record lists its writes (old and new bytes, per descriptor): what
        # watches and a TUI read; False (a run nobody inspects) moves each entry's bytes
        # in merged copies instead (the race feed reads the entry's Regions either way)
        self.keep_writes = True

    # -- scheduling -----------------------------------------------------------------
    def rest(self) -> EngineStatus | None:
        return EngineStatus.IDLE if self.dma.pending(self.q) == 0 else None

    def blocked(self) -> None:
        return None

    def updates(self) -> frozenset[int]:
        out = {x.semaphore for x in self.dma.queued(self.q)}
        peers = self.state.peers or {}
        for engine, rows in self._ahead.items():
            st = peers.get(engine.value)
            if st is None or st.halted:
                continue
            k = (st.pc - st.config.base) // RECORD_BYTES
            out.update(self.dma.entries[x].semaphore for row, x in rows if row >= k)
        return frozenset(out)

    def head(self) -> DmaEntry | None:
        got = self.dma.queued(self.q)
        return got[0] if got else None

    def mnemonic(self) -> str:
        """What the queue's next step shows as its instruction: `DMA qSPIO0#3 (load a)`
        (a reverse-continue names the completion it undid by it, as forward does)."""
        entry = self.head()
        if entry is None:
            return f"DMA {self.name} (idle)"
        return f"DMA {entry.label}" + (f" ({entry.comment})" if entry.comment else "")

    def issue(self, step: int, feeder: Feeder | None) -> Issued:
        st = self.state
        k = st.pc
        entry = self.head()
        if entry is None:
            return Issued(StepRecord(st.steps, k, k, halted=True, next_pc=k))
        op = DmaOp(self.mnemonic())
        st.writes = [] if self.keep_writes else None
        st.begin_step()
        fault = None
        try:
            moved = self.dma.complete(st, self.q)
            st.set_pc(k + 1)
        except Fault as e:
            fault = str(e)
        except Exception as e:  # the model never raises out of a step (house rule)
            fault = f"internal error completing {entry.label}: {type(e).__name__}: {e}"
        st.end_step()
        writes, st.writes = st.writes, None
        if fault is not None:
            st.undo_step()
            return Issued(StepRecord(st.steps, k, k, op, fault=fault, next_pc=k))
        rec = StepRecord(st.steps - 1, k, k, op, writes=writes or [], next_pc=k + 1)
        if feeder is None:
            return Issued(rec)
        det = feeder.detector
        index = self.dma.order[(self.q, self.dma.head[self.q] - 1)]
        clock = self.dma.clocks.get(index) if index is not None else None
        if clock is not None:
            det.join_clock(self.name, clock, step)
        s = entry.semaphore
        trigger = feeder.triggers.get(index) if isinstance(feeder, TriggerFeeder) and \
            index is not None else None
        queued = Queued(*trigger, s, st.sem[s], entry.label) if trigger is not None else None
        races: list[Race] = []
        for r in moved.reads:
            races += det.access(Access(self.name, k, op.mnemonic, "read", r, step, queued))
        for r in moved.writes:
            races += det.access(Access(self.name, k, op.mnemonic, "write", r, step, queued))
        det.release(self.name, k, s, st.sem[s], "complete", step)
        return Issued(rec, races)

    def undo(self) -> None:
        self.state.undo_step()

    def run_ahead(self, budget: int) -> int:
        return 0

    def static_hits(self) -> list[Breakpoint]:
        return []

    def arm(self, bp: Breakpoint) -> None:
        return None

    def disarm(self, bp_id: int) -> None:
        return None

    def refresh(self) -> None:
        return None

    def where(self) -> str:
        entry = self.head()
        return f"{self.name} " + (f"entry {entry.id}" if entry is not None else "idle")

    def snap(self) -> QueueSnap:
        shared = SharedSnap.of(self.dma, self.state) if self.first else None
        return QueueSnap(EngineSnap.of(self.state), shared, self.dma)

    def hash_into(self, h: _Hash) -> None:
        self.state.hash_into(h, shared=False)
        if self.first:
            d = self.dma
            h.update(repr((sorted(d.order.items()), d.tail, d.head,
                           sorted(marks(self.state).items()))).encode())
            h.update(d.dram.tobytes())


def _triggers_ahead(dma: DmaModel, q: int) -> dict[Engine, list[tuple[int, int]]]:
    """Per engine: (record, entry) of each trigger of queue q in its stream."""
    from neurondbg.machine.neff.triggers import trigger_rows, trigger_targets

    out: dict[Engine, list[tuple[int, int]]] = {}
    name = dma.names[q]
    for e in dma.sub.entries:
        raw = dma.sub.stream(e)
        rows = trigger_rows(raw)
        names, ids = trigger_targets(raw, rows)
        got = [(r, dma.lookup[(e, n, i)]) for r, n, i in zip(rows.tolist(), names, ids,
                                                              strict=True)
               if n == name and (e, n, i) in dma.lookup]
        if got:
            out[e] = got
    return out


class TriggerFeeder(Feeder):
    """The core's race feed, which also hands out the trigger's clock at each
    PSEUDO_DMATRIGGER (a `dma_order` write): the entry's accesses, at its completion,
    are ordered after what the triggering engine did before the trigger only. It keeps
    where each entry was triggered, which a race names as where a wait goes."""

    def __init__(self, base: Feeder, dma: DmaModel) -> None:
        super().__init__(base.engines, base.detector, base.initial)
        self.dma = dma
        # entry index -> (engine, pc, global step) of its latest trigger
        self.triggers: dict[int, tuple[str, int, int]] = {}

    def after(self, engine: str, rec: StepRecord, pre: Pre, reads: list[Region], step: int
              ) -> list[Race]:
        found = super().after(engine, rec, pre, reads, step)
        for w in rec.writes:
            if w.target.startswith("dma_order[") and isinstance(w.new, int):
                self.dma.clocks[w.new] = self.detector.fork(engine, step)
                self.triggers[w.new] = (engine, rec.pc, step)
        return found


