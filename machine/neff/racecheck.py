"""Race checking in the headless NEFF run (machine.neff.runner): the core's race detector
(machine.core.races) fed the same events, in the same order, at the same global steps
as the core feeds it (machine.core.feed, machine.neff.actor), so the races found, their
order, words and hints are the core's.

    rc = RaceCheck(names, machines, dma, busy, initial)
    rc.sync(...)        # a record the runner runs inline: its waits, update, trigger
    rc.step(...)        # a record the engine's Machine executed (Feeder.after)
    rc.completed(...)   # a DMA entry completed: its SB accesses, then its release

The actors are the core's: the five engines, then each DMA queue that has entries;
their names are the detector's. Nothing rewinds a headless run: the detector keeps no
undo log (the core's without history does the same). The interleaving that decides
which of two unordered accesses came first is the core's default schedule, `rr`, which
the runner follows step for step while races are checked.

A trigger hands its engine's clock to the entry it enqueues (`fork`) after the record's
own events; the entry's completion joins it, so the entry's accesses are ordered after
what the engine did before the trigger, and after the queue's earlier entries (FIFO,
the queue's own clock).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from neurondbg.machine.core.events import Plan, SemEvent
from neurondbg.machine.core.feed import Feeder, Pre
from neurondbg.machine.core.intent import Intent
from neurondbg.machine.core.races import READ, WRITE, Access, Queued, Race, RaceDetector
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.isa.enums import UpdateMode
from neurondbg.machine.neff.footprint import Footprints
from neurondbg.machine.neff.model import DmaEntry
from neurondbg.machine.state import MachineState, Region


class RaceCheck:
    """The race feed of one headless run (module docstring)."""

    def __init__(self, names: Sequence[str], machines: Mapping[str, Machine],
                 initial: Sequence[int], others: bool) -> None:
        """`names`: the actors, engines first (the detector's order); `machines`: the
        engines' by name (a race's hint reads their code); `initial`: each semaphore's
        value before the first step; `others`: there are DMA queues among the actors."""
        self.initial = list(initial)
        self.detector = RaceDetector(
            names, undo_budget=0, history_budget=0,
            suggest=Intent(machines, self.initial, others).suggest)
        self._feeder = Feeder(names, self.detector, self.initial)
        self.clocks: dict[int, tuple[int, ...]] = {}  # entry index -> its trigger's clock
        self.triggers: dict[int, tuple[str, int, int]] = {}  # -> (engine, pc, step)
        self._footprints = Footprints()

    @property
    def races(self) -> list[Race]:
        return self.detector.races

    def sync(self, engine: str, pc: int, step: int, h: int, hv: int, e: int, ev: int,
             sem: int, value: int, mode: int, entry: int | None) -> None:
        """A record with no memory operand run inline: its satisfied `>=` waits, the
        header's `sem[h] >= hv` and EVENT_SEMAPHORE's `sem[e] >= ev` (-1: none), its
        header update (semaphore, -1 for none; its value after; its mode) and the entry
        index it enqueued (a trigger), in the core's order. (Ints, not tuples: most
        records of a NEFF come this way.)"""
        det = self.detector
        if h >= 0:
            det.acquire_ge(engine, h, hv, step, self.initial[h])
        if e >= 0:
            det.acquire_ge(engine, e, ev, step, self.initial[e])
        if sem >= 0:
            det.release(engine, pc, sem, value, "complete" if mode & 0x10 else READ, step,
                        _MODES[mode])
        if entry is not None:
            self.forked(engine, pc, step, entry)

    def before(self, st: MachineState, plan: Plan) -> Pre:
        return self._feeder.before(st, plan)

    def step(self, engine: str, rec: StepRecord, pre: Pre, reads: list[Region], step: int,
             entry: int | None) -> None:
        """A record its Machine executed (`reads`: the regions it read), as the core's
        feed sees it; `entry`: the entry index it enqueued (a trigger)."""
        self._feeder.after(engine, rec, pre, reads, step)
        if entry is not None:
            self.forked(engine, rec.pc, step, entry)

    def plain_step(self, engine: str, rec: StepRecord, waits: Sequence[tuple[int, int]],
                   events: Sequence[SemEvent], reads: list[Region], step: int,
                   entry: int | None) -> None:
        """`step` of a record whose waits are all `>=` (semaphore, value) and that reads
        no semaphore (not TEST_EVENT_SEM), its semaphore writes `events` (its Plan's),
        without a Plan per record: machine.core.feed's order."""
        det = self.detector
        init = self.initial
        pc, op = rec.pc, rec.mnemonic
        for sem, value in waits:
            det.acquire_ge(engine, sem, value, step, init[sem])
        done: list[tuple[SemEvent, int]] = []
        if events:
            values = [int(cast(int, w.new)) for w in rec.writes if w.target.startswith("sem[")]
            done = list(zip(events, values, strict=False))
            for ev, v in done:
                if ev.kind == "pass":
                    det.release(engine, pc, ev.idx, v, READ, step, update=False)
        for r in reads:
            det.access(Access(engine, pc, op, READ, r, step))
        for ev, v in done:
            if ev.kind == "update" and ev.when == READ:
                det.release(engine, pc, ev.idx, v, READ, step, ev.mode)
        for w in rec.writes:
            if w.region is not None:
                det.access(Access(engine, pc, op, WRITE, w.region, step))
        for ev, v in done:
            if ev.kind != "pass" and ev.when == "complete":
                det.release(engine, pc, ev.idx, v, "complete", step, ev.mode)
        if entry is not None:
            self.forked(engine, pc, step, entry)

    def forked(self, engine: str, pc: int, step: int, entry: int) -> None:
        """A trigger at `pc` of `engine` enqueued entry index `entry`."""
        self.clocks[entry] = self.detector.fork(engine, step)
        self.triggers[entry] = (engine, pc, step)

    def completed(self, queue: str, k: int, entry: DmaEntry, index: int, value: int,
                  step: int) -> None:
        """Queue `queue` completed its `k`-th entry, `entry` (index `index`), which
        raised its semaphore to `value`: its SB sides (machine.neff.footprint, the
        Regions the DMA model moves) are its accesses."""
        det = self.detector
        clock = self.clocks.get(index)
        if clock is not None:
            det.join_clock(queue, clock, step)
        s = entry.semaphore
        trigger = self.triggers.get(index)
        queued = Queued(*trigger, s, value, entry.label) if trigger is not None else None
        op = f"DMA {entry.label}" + (f" ({entry.comment})" if entry.comment else "")
        reads, writes = self._footprints.sides(entry)
        # each side's descriptors as one run (RaceDetector.access_run): the same races
        # as one access each, which is what the core feeds (a queue's pc, its entry's
        # ordinal, is never another access's)
        if reads:
            det.access_run(Access(queue, k, op, READ, reads[0], step, queued), reads)
        if writes:
            det.access_run(Access(queue, k, op, WRITE, writes[0], step, queued), writes)
        det.release(queue, k, s, value, "complete", step)


_MODES: dict[int, UpdateMode] = {int(m): m for m in UpdateMode}  # (an Enum call costs ~1 us)
