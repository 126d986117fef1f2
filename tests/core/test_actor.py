"""The actor interface (machine/core/actor.py): a core schedules, blocks, reverses,
checkpoints and race-checks an actor that is not an engine queue exactly as it does an
engine. The actor here is a small FIFO of DMA-like entries: each step writes 16 bytes
of SBUF and adds 16 to its entry's semaphore (neff-facts §5.3's completion rule)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from neurondbg.machine.core.actor import ActorKind, EngineSnap, Issued
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.feed import Feeder
from neurondbg.machine.core.races import Access, RaceDetector
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.state import MachineConfig, MachineState, Region
from neurondbg.machine.stops import EngineStatus, StopReason
from tests.core.conftest import SMALL, kernel

DST = Region("sbuf", 0, 1, 0x200, 1, (1, 0, 0, 0), (16, 1, 1, 1))
COPY = ("COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, 0x200] step=[1,0,0,0] "
        "num=[4,1,1,1] dst=sb[0, 0x300] step=[1,0,0,0] num=[4,1,1,1]")


def waiting(text: str, sem: int, value: int) -> str:
    return (f"{text} events.wait_mode=SEM_GE_IMM events.wait_idx={sem} "
            f"events.semaphore_value={value}")


@dataclass(frozen=True)
class _Op:
    mnemonic: str
    opcode: int | None = None


class Fifo:
    """A queue of entries (semaphore, byte to fill DST with); its PC counts the entries
    completed, so the journal, undo and checkpoints cover all of its state."""

    kind = ActorKind.DMA

    def __init__(self, name: str, shared: MachineState, entries: list[tuple[int, int]]
                 ) -> None:
        self.name = name
        self.state = MachineState.create(replace(shared.config, engine=name), shared=shared)
        self.entries = entries

    def rest(self) -> EngineStatus | None:
        return EngineStatus.IDLE if self.state.pc >= len(self.entries) else None

    def blocked(self) -> None:
        return None

    def updates(self) -> frozenset[int]:
        return frozenset(s for s, _ in self.entries[self.state.pc:])

    def issue(self, step: int, feeder: Feeder | None) -> Issued:
        st = self.state
        k = st.pc
        if k >= len(self.entries):
            return Issued(StepRecord(st.steps, k, k, halted=True, next_pc=k))
        sem, fill = self.entries[k]
        st.writes = []
        st.begin_step()
        st.write_block(DST, np.full((1, 16), fill, np.uint8))
        st.write_scalar("sem", sem, st.sem[sem] + 16)
        st.set_pc(k + 1)
        st.end_step()
        writes, st.writes = st.writes, None
        rec = StepRecord(st.steps - 1, k, k, instruction=_Op("DMA"), writes=writes,
                         next_pc=k + 1)
        if feeder is None:
            return Issued(rec)
        det = feeder.detector
        races = det.access(Access(self.name, k, "DMA", "write", DST, step))
        det.release(self.name, k, sem, st.sem[sem], "complete", step)
        return Issued(rec, races)

    def undo(self) -> None:
        self.state.undo_step()

    def run_ahead(self, budget: int) -> int:
        return 0

    def static_hits(self) -> list:
        return []

    def arm(self, bp: object) -> None:
        return None

    def disarm(self, bp_id: int) -> None:
        return None

    def refresh(self) -> None:
        return None

    def where(self) -> str:
        return f"{self.name} entry {self.state.pc}"

    def snap(self) -> EngineSnap:
        return EngineSnap.of(self.state)

    def hash_into(self, h: object) -> None:
        self.state.hash_into(h, shared=False)


def fifo_core(dve: str, entries: list[tuple[int, int]], **kw: object) -> Core:
    return Core(kernel(dve=dve), MachineConfig(**SMALL),
                extra_actors=lambda shared: [Fifo("q0", shared, entries)], **kw)


def test_an_actor_is_scheduled_and_its_wait_is_met() -> None:
    c = fifo_core(waiting(COPY, 3, 16) + "\nHALT", [(3, 7)])
    assert c.names == ("dve", "q0") and c.engines == ("dve",)
    assert c.status("dve") == EngineStatus.WAITING and c.status("q0") == EngineStatus.RUNNING
    stop = c.cont()
    assert stop.reason == StopReason.HALT
    assert c.taken() == (0, ["q0", "dve", "dve"])
    assert c.status("q0") == EngineStatus.IDLE and c.status("dve") == EngineStatus.HALTED
    assert c.state().sem[3] == 16
    assert bytes(c.state().sbuf[0, 0x300:0x310]) == bytes([7] * 16)
    assert c.races == []
    assert list(c.to_json()["engines"]) == ["dve"]


def test_reverse_and_replay_through_an_actor_are_exact() -> None:
    c = fifo_core(waiting(COPY, 3, 32) + "\nHALT", [(3, 5), (3, 9)])
    start = c.digest()
    c.cont()
    end, steps = c.digest(), c.steps
    assert steps == 4 and c.state().sem[3] == 32
    assert bytes(c.state().sbuf[0, 0x300:0x310]) == bytes([9] * 16)
    assert c.reverse(steps).reason == StopReason.START
    assert c.digest() == start and c.state().sem[3] == 0
    assert c.status("q0") == EngineStatus.RUNNING
    assert c.replay(steps) is None and c.digest() == end


def test_checkpoints_restore_an_actor() -> None:
    n = 300
    c = fifo_core(waiting("NOP", 3, 16 * n) + "\nHALT", [(3, 1)] * n, journal_budget=4096)
    start = c.digest()
    c.cont()
    assert c._timeline.origin > 0  # history was folded into checkpoints
    end = c.digest()
    c.reverse(c.steps)
    assert c.digest() == start and c.state().sem[3] == 0
    c.cont()
    assert c.digest() == end


def test_a_wait_nothing_left_can_meet_is_a_deadlock() -> None:
    c = fifo_core(waiting("NOP", 3, 32) + "\nHALT", [(3, 1)])
    assert c.waiting("dve") is not None and c.waiting("dve").can_be_updated
    stop = c.cont()
    assert stop.reason == StopReason.DEADLOCK and stop.engine == "dve"
    assert [w.can_be_updated for w in stop.waiting] == [False]
    assert c.status("q0") == EngineStatus.IDLE


@pytest.mark.parametrize(("wait", "raced"), [(True, False), (False, True)])
def test_an_actor_write_races_with_an_unordered_read(wait: bool, raced: bool) -> None:
    text = waiting(COPY, 3, 16) if wait else COPY
    c = fifo_core(text + "\nHALT", [(3, 2)])
    c.cont()
    assert [(r.a.engine, r.a.kind, r.b.engine, r.b.kind) for r in c.races] == (
        [("dve", "read", "q0", "write")] if raced else [])


def test_unique_actor_names() -> None:
    with pytest.raises(ValueError, match="unique"):
        Core(kernel(dve="HALT"), MachineConfig(**SMALL),
             extra_actors=lambda shared: [Fifo("dve", shared, [])])


def test_a_forked_clock_orders_what_came_before_only() -> None:
    region = Region("sbuf", 0, 1, 0, 1, (1, 0, 0, 0), (8, 1, 1, 1))
    d = RaceDetector(("sp", "q"))
    d.access(Access("sp", 0, "W", "write", region, 0))
    clock = d.fork("sp", 0)
    d.join_clock("q", clock, 1)
    assert d.access(Access("q", 0, "DMA", "write", region, 1)) == []
    assert len(d.access(Access("sp", 64, "W", "write", region, 2))) == 1  # after the fork
    d.rewind(1)  # the join and what followed are forgotten, the fork is kept
    assert d.clock("sp") == (2, 0) and d.clock("q") == (0, 1)
    assert len(d.access(Access("q", 0, "DMA", "write", region, 1))) == 1  # nothing joined
    d.rewind(0)
    assert d.clock("sp") == (1, 0)
