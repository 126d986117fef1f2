"""Feeding one executed instruction to the race detector in the contract's order.

Per instruction (machine/core/races.py, DESIGN.md "Races"): `acquire` for each
satisfied wait (the header's, EVENT_SEMAPHORE's, and a TEST_EVENT_SEM READ_* of a
semaphore, which orders like a wait on the value it read), the release of a wait that
clears/sets its event as it passes, `access(read)` for every source region, the `_READ`
updates, `access(write)` for every destination, then the `_COMPLETE` updates (and
TEST_EVENT_SEM UPDATE_* stores, which have no memory operands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from neurondbg.machine.core.events import Plan, SemEvent
from neurondbg.machine.core.races import Access, Race, RaceDetector
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.state import MachineState, Region


@dataclass(frozen=True)
class Pre:
    """What the feed needs from before the instruction ran."""

    plan: Plan
    waits: tuple[tuple[int, Callable[[int], bool]], ...]  # (semaphore, condition)
    observed: tuple[int, ...]  # values of the semaphores TEST_EVENT_SEM READ_* copies
    # every wait an immediate `>=` (Plan.ge): (semaphore, value) each, in place of `waits`
    ge: tuple[tuple[int, int], ...] | None = None


class Feeder:
    def __init__(self, engines: Sequence[str], detector: RaceDetector,
                 initial: list[int]) -> None:
        self.engines = tuple(engines)
        self.detector = detector
        self.initial = initial  # each semaphore's value at step 0

    def before(self, st: MachineState, plan: Plan) -> Pre:
        reads = tuple(st.sem[k] for k in plan.reads) if plan.reads else ()
        if plan.ge is not None:
            return Pre(plan, (), reads, tuple((idx, v) for idx, v, _ in plan.ge))
        return Pre(plan, tuple((w.idx, w.predicate(st)) for w in plan.waits), reads)

    def after(self, engine: str, rec: StepRecord, pre: Pre, reads: list[Region],
              step: int) -> list[Race]:
        det, init = self.detector, self.initial
        pc, op = rec.pc, rec.mnemonic
        if pre.ge is not None:
            for sem, value in pre.ge:
                det.acquire_ge(engine, sem, value, step, init[sem])
        for sem, holds in pre.waits:
            det.acquire(engine, sem, holds, step, init[sem])
        for sem, v in zip(pre.plan.reads, pre.observed, strict=True):
            det.acquire(engine, sem, _equals(v), step, init[sem])
        # The semaphore writes of the step, in execution order, are the plan's events.
        events: list[tuple[SemEvent, int]] = []
        if pre.plan.events:
            values = [int(cast(int, w.new)) for w in rec.writes
                      if w.target.startswith("sem[")]
            events = list(zip(pre.plan.events, values, strict=False))
        for ev, v in events:
            if ev.kind == "pass":  # a wait clearing/setting its event: no _READ update
                det.release(engine, pc, ev.idx, v, "read", step, update=False)
        found: list[Race] = []
        for r in reads:
            found += det.access(Access(engine, pc, op, "read", r, step))
        for ev, v in events:
            if ev.kind == "update" and ev.when == "read":
                det.release(engine, pc, ev.idx, v, "read", step, ev.mode)
        for w in rec.writes:
            if w.region is not None:
                found += det.access(Access(engine, pc, op, "write", w.region, step))
        for ev, v in events:
            if ev.kind != "pass" and ev.when == "complete":
                det.release(engine, pc, ev.idx, v, "complete", step, ev.mode)
        return found


def _equals(v: int) -> Callable[[int], bool]:
    """The condition a TEST_EVENT_SEM READ_* orders like: the semaphore holds `v`."""
    return lambda s: s == v
