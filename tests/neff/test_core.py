"""A NEFF on the core (machine.neff.core): DMA queues are actors the core schedules,
reverses, replays, checkpoints and race-checks like engines (neff-facts §5, §7)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.core import NeffCore, neff_core
from neurondbg.machine.neff.data import read_output
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import DmaEntry, DmaQueue, Engine, Subgraph
from neurondbg.machine.stops import EngineStatus, StopReason
from tests.neff.kernels import (
    ROW,
    SP_Q,
    SP_SEMS,
    inc,
    streams,
    tt_add,
    vector_add,
    wait,
)
from tests.neff.kernels import load as load_from

RNG = np.random.default_rng(11)
A = RNG.standard_normal((128, 16)).astype(np.float32)
B = RNG.standard_normal((128, 16)).astype(np.float32)


def load(sub: Subgraph, **kw: object) -> NeffCore:
    return neff_core(lower_subgraph(sub, Gen.SUNDA), inputs={"a": A, "b": B}, **kw)


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:1", "random:5"])
def test_a_neff_completes_race_free_under_any_schedule(schedule: str) -> None:
    nc = load(vector_add(), schedule=schedule)
    c = nc.core
    assert c.names == ("pool", "dve", "act", "pe", "sp", "qSPIO0", "qPoolIO0")
    stop = c.cont()
    assert (stop.reason, c.steps, c.races) == (StopReason.HALT, 19, [])
    assert np.array_equal(read_output(nc.dma, nc.low.sub, "out"), A + B)
    assert c.status("qSPIO0") == EngineStatus.IDLE
    assert sorted(c.taken()[1]).count("qSPIO0") == 2


def test_reverse_and_replay_through_dma_are_exact() -> None:
    nc = load(vector_add())
    c = nc.core
    start = c.digest()
    c.cont()
    end, steps = c.digest(), c.steps
    assert c.reverse(steps).reason == StopReason.START
    assert c.digest() == start and nc.dma.pending(0) == 0 and nc.dma.tail == [0, 0]
    assert not read_output(nc.dma, nc.low.sub, "out").any()
    assert c.replay(steps) is None and c.digest() == end
    assert np.array_equal(read_output(nc.dma, nc.low.sub, "out"), A + B)


def test_checkpoints_restore_the_dma_state() -> None:
    """30 more loads of `a` (8 KiB journaled each) against a 64 KiB budget: history is
    folded into checkpoints, which must give the FIFOs, DRAM and SBUF back."""
    extra = tuple(DmaEntry(SP_Q, i, SP_SEMS[i % 16], vector_add().entries[Engine.SP][0]
                           .descriptors, f"again {i}") for i in range(2, 32))
    sp = "\n".join(f"TRIGGER {SP_Q} {i}" for i in range(32))
    nc = load(vector_add(sp=sp, extra_sp=extra), journal_budget=64 << 10, races=False)
    c = nc.core
    start = c.digest()
    c.cont()
    end = c.digest()
    assert c._timeline.origin > 0
    c.reverse(c.steps)
    assert c.digest() == start
    c.cont()
    assert c.digest() == end


def test_a_missing_wait_is_a_race_against_the_dma_entry() -> None:
    """DVE adds without waiting for the loads: its reads race with the entries' writes."""
    nc = load(vector_add(dve=tt_add(0, ROW, 2 * ROW, inc(6))), schedule="in-order")
    c = nc.core
    c.cont()
    pairs = {(r.a.engine, r.a.opcode, r.b.engine, r.b.opcode) for r in c.races}
    assert pairs == {("dve", "TENSOR_TENSOR_ARITH_OP", "qSPIO0", "DMA qSPIO0#0 (load a)"),
                     ("dve", "TENSOR_TENSOR_ARITH_OP", "qSPIO0", "DMA qSPIO0#1 (load b)")}


def test_waiting_on_the_later_entry_orders_the_earlier_one() -> None:
    """FIFO per queue: DVE waits only for entry 1 (sem 9) yet reads entry 0's bytes too;
    no race, under every schedule tried."""
    for schedule in ("rr", "random:2", "random:3"):
        nc = load(vector_add(), schedule=schedule)
        nc.core.cont()
        assert nc.core.races == []


SPILL_Q, SPILL_SEMS = "qSPSpillReload0", tuple(range(40, 56))


def two_queues(dve_waits: str) -> Subgraph:
    """SP loads `a` on qSPIO0 (entry 0, sem 8), then `b` on a second queue of its own
    (qSPSpillReload0 entry 0, sem 40); DVE runs the EVENT_SEMAPHOREs waiting for
    `dve_waits` ("sem value" pairs), then adds a + b; Pool stores the sum."""
    base = vector_add()
    es = "\n".join(f"EVENT_SEMAPHORE {wait(int(s), int(v))}"
                   for s, v in (w.split() for w in dve_waits.split(",")))
    text = {"sp": f"TRIGGER {SP_Q} 0\nTRIGGER {SPILL_Q} 0",
            "dve": f"{es}\n{tt_add(0, ROW, 2 * ROW, inc(6))}",
            "pool": f"TRIGGER {base.entries[Engine.POOL][0].queue} 0 6 1\n"
                    f"NOP {wait(base.entries[Engine.POOL][0].semaphore, 16)}"}
    sp = (DmaEntry(SP_Q, 0, SP_SEMS[0], (load_from("a", 0),), "load a"),
          DmaEntry(SPILL_Q, 0, SPILL_SEMS[0], (load_from("b", ROW),), "load b"))
    return replace(base, streams=streams(**text),
                   queues={**base.queues, SPILL_Q: DmaQueue(SPILL_Q, Engine.SP, SPILL_SEMS,
                                                              "data")},
                   entries={**base.entries, Engine.SP: sp})


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:1", "random:4"])
def test_an_entry_is_ordered_by_its_own_queue_not_by_a_later_trigger(schedule: str) -> None:
    """neff-facts §5.3, §7: an entry's accesses happen at its completion, after its
    trigger and its queue's earlier entries only. Waiting for qSPSpillReload0#0, which
    SP triggered after qSPIO0#0, does not order qSPIO0#0's write (queues are
    independent): DVE's read of `a` races with it. Waiting for both orders both."""
    nc = load(two_queues(f"{SPILL_SEMS[0]} 16"), schedule=schedule)
    nc.core.cont()
    assert {frozenset({(r.a.engine, r.a.opcode), (r.b.engine, r.b.opcode)})
            for r in nc.core.races} == {frozenset({("dve", "TENSOR_TENSOR_ARITH_OP"),
                                                   (SP_Q, "DMA qSPIO0#0 (load a)")})}
    nc = load(two_queues(f"{SPILL_SEMS[0]} 16,{SP_SEMS[0]} 16"), schedule=schedule)
    stop = nc.core.cont()
    assert (stop.reason, nc.core.races) == (StopReason.HALT, [])
    assert np.array_equal(read_output(nc.dma, nc.low.sub, "out"), A + B)


def test_a_starved_wait_deadlocks_and_names_the_entries() -> None:
    extra = (DmaEntry(SP_Q, 17, SP_SEMS[1], (), "never"),)
    dve = f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 32)}\n{tt_add(0, ROW, 2 * ROW, inc(6))}"
    nc = load(vector_add(dve=dve, extra_sp=extra))
    stop = nc.core.cont()
    assert stop.reason == StopReason.DEADLOCK
    assert nc.deadlock_lines() == [
        "DVE waits at #1 for sem[9] >= 32 (now 16): only qSPIO0 entries 1 and 17 can raise "
        "it, and qSPIO0#17 is never triggered",
        "Pool waits at #1 for sem[6] >= 1 (now 0): only updates by DVE can raise it"]
    dve_wait = next(w for w in stop.waiting if w.engine == "dve")
    assert dve_wait.can_be_updated is False


def test_a_dma_breakpoint_stops_after_each_completion_of_its_queue() -> None:
    nc = load(vector_add())
    c = nc.core
    c.add_breakpoint("dma:qSPIO0")
    details = [c.cont().detail for _ in range(3)]
    assert details[:2] == [
        "#1 dma:qSPIO0: qSPIO0 DMA qSPIO0#0 (load a) at 0x0: dma: DMA qSPIO0#0 (load a) "
        "completed",
        "#1 dma:qSPIO0: qSPIO0 DMA qSPIO0#1 (load b) at 0x1: dma: DMA qSPIO0#1 (load b) "
        "completed"]
    assert details[2] == "every engine halted"
    # reverse-continue judges the completions it undoes as forward did, newest first
    back = [c.reverse_continue().detail for _ in range(3)]
    assert back == [
        "#1 dma:qSPIO0: qSPIO0 entry 1: dma: DMA qSPIO0#1 (load b) completed (reverse)",
        "#1 dma:qSPIO0: qSPIO0 entry 0: dma: DMA qSPIO0#0 (load a) completed (reverse)",
        "start of history"]
    assert c.steps == 0
    with pytest.raises(ValueError, match="no DMA queue 'qX' here"):
        c.add_breakpoint("dma:qX")
