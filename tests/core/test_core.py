"""The NeuronCore: engines sharing memory and semaphores, the scheduler, deadlocks,
reverse and replay (machine/core/core.py)."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.core.core import Core
from neurondbg.machine.isa.programs import handshake_loops
from neurondbg.machine.state import MachineConfig, MachineState
from tests.core.conftest import SMALL, core, kernel

COPY = ("COPY in_dtype=FP32 out_dtype=FP32 nac=4 src=sb[0, {src}] step=[1,0,0,0] "
        "num=[4,1,1,1] dst=sb[0, {dst}] step=[1,0,0,0] num=[4,1,1,1]")
PRODUCER = f"""
.data sb[0:4, 0] fp32 1.0 2.0 3.0 4.0
    {COPY.format(src=0, dst=0x100)} update_mode=SEM_INC_COMPLETE update_idx=3
    HALT
"""
CONSUMER = f"""
    {COPY.format(src=0x100, dst=0x200)} wait_mode=SEM_GE_IMM wait_idx=3 semaphore_value=1
    HALT
"""
POLICIES = ["rr", "in-order", "random:7"]


def loops(schedule: str = "rr", n: int = 50, **kw: object) -> Core:
    """Three engines, each a counted SEQ loop twice; POOL signals sem[1] between its loops,
    DVE waits for it there, ACT does neither."""
    return core(schedule, **kw,
                pool=handshake_loops(n, 3, "update_mode=SEM_INC_READ update_idx=1"),
                dve=handshake_loops(n + 7, 5, "wait_mode=SEM_GE_IMM wait_idx=1 "
                                    "semaphore_value=1"),
                act=handshake_loops(n // 2, 2))


def sbuf_f32(c: Core, offset: int) -> list[float]:
    return c.state().sbuf[0, offset:offset + 16].view("<f4").tolist()


def test_producer_consumer_handshake() -> None:
    c = core(pool=PRODUCER, dve=CONSUMER)
    assert c.status("pool") == "running" and c.status("dve") == "waiting"
    w = c.waiting("dve")
    assert (w.engine, w.pc, w.semaphore, w.value, w.condition, w.can_be_updated) == \
        ("dve", 0, 3, 0, "sem[3] >= 1", True)
    stop = c.cont()
    assert stop.reason == "halt" and stop.steps == 4 == c.steps
    assert sbuf_f32(c, 0x200) == [1.0, 2.0, 3.0, 4.0]
    assert c.races == []
    js = c.to_json()
    assert js["semaphores"] == {"3": 1} and js["races"] == []
    assert js["engines"]["dve"] == {"pc": 128, "registers": [0] * 64, "steps": 2,
                                    "status": "halted"}
    assert list(js["engines"]) == ["pool", "dve"]


def test_engines_share_memory_and_semaphores_only() -> None:
    c = core(pool="HALT", dve="HALT", act="HALT")
    pool, dve, act = (c.machines[e].state for e in ("pool", "dve", "act"))
    assert pool.sbuf is dve.sbuf is act.sbuf and pool.psum is act.psum
    assert pool.sem is dve.sem and pool.views is dve.views
    assert pool.R is not dve.R and pool.acc is not dve.acc and pool.journal is not dve.journal
    assert pool.peer("act") is act and dve.peer("dve") is dve
    lone = MachineState.create(MachineConfig(**SMALL))
    assert lone.peers is None and lone.peer("pool") is lone
    with pytest.raises(KeyError, match="no dve engine"):
        lone.peer("dve")


def test_blocked_engine_does_not_step() -> None:
    c = core(pool=PRODUCER, dve=CONSUMER)
    before = c.digest()
    s = c.step("dve")
    assert s.record is None and s.waited is not None and s.waited.condition == "sem[3] >= 1"
    assert c.steps == 0 and c.digest() == before
    s = c.step()  # the scheduler picks the only runnable engine
    assert s.engine == "pool" and s.record is not None and s.record.executed
    assert c.status("dve") == "running" and c.state("pool").sem[3] == 1


def test_deadlock_names_every_wait() -> None:
    c = core(pool="NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1 "
                  "update_mode=SEM_INC_READ update_idx=2\nHALT",
             dve="NOP wait_mode=SEM_EQ_IMM wait_idx=2 semaphore_value=1 "
                 "update_mode=SEM_INC_READ update_idx=1\nHALT",
             act="NOP wait_mode=EVT_SET wait_idx=9\nHALT")
    stop = c.cont()
    assert stop.reason == "deadlock" and stop.engine == "pool" and stop.pc == 0
    assert [w.to_dict() for w in stop.waiting] == [
        {"engine": "pool", "pc": 0, "semaphore": 1, "value": 0, "condition": "sem[1] >= 1",
         "can_be_updated": True},
        {"engine": "dve", "pc": 0, "semaphore": 2, "value": 0, "condition": "sem[2] == 1",
         "can_be_updated": True},
        {"engine": "act", "pc": 0, "semaphore": 9, "value": 0, "condition": "sem[9] != 0",
         "can_be_updated": False}]
    assert stop.to_dict()["waiting"][2]["can_be_updated"] is False
    assert "nothing left updates it" in stop.detail


def test_halted_updater_cannot_update() -> None:
    """The only queue naming sem[4] halted: the wait can never end."""
    c = core(pool="NOP update_mode=SEM_INC_READ update_idx=5\nHALT\n"
                  "NOP update_mode=SEM_INC_READ update_idx=4",
             dve="NOP wait_mode=SEM_GE_IMM wait_idx=4 semaphore_value=1\nHALT")
    stop = c.cont()
    assert stop.reason == "deadlock" and [w.engine for w in stop.waiting] == ["dve"]
    assert stop.waiting[0].can_be_updated is False


def test_one_queue_wait_is_a_deadlock_on_the_core() -> None:
    c = core(pool="NOP wait_mode=SEM_GT_IMM wait_idx=0 semaphore_value=0\nHALT")
    stop = c.cont()
    assert stop.reason == "deadlock" and stop.waiting[0].condition == "sem[0] > 0"
    assert c.status("pool") == "waiting"


def test_register_wait_condition_text() -> None:
    c = core(pool="MOVE R5=2\nNOP wait_mode=SEM_GE_REG wait_idx=1 semaphore_value=5\nHALT")
    stop = c.cont()
    assert stop.reason == "deadlock"
    assert stop.waiting[0].condition == "sem[1] >= R5 (= 2)" and stop.waiting[0].pc == 64


def test_fault_stops_the_core_naming_the_engine() -> None:
    c = core(pool="NOP\nNOP\nNOP\nHALT", dve="ALU_OP op=DIVIDE dtype=INT32 dst_dtype=INT32 "
             "dst=R1 src0=R1 src1=0\nHALT")
    stop = c.cont()
    assert stop.reason == "fault" and stop.engine == "dve" and stop.pc == 0
    assert stop.detail.startswith("dve: ") and c.status("dve") == "faulted"
    assert c.steps == 1  # pool stepped first; the faulting step changed nothing
    assert c.cont().reason == "fault"  # continuing re-issues it
    assert c.reverse_step() and c.status("dve") == "running"


def test_rr_and_in_order_schedules() -> None:
    text = "NOP\nNOP\nHALT"
    c = core("rr", pool=text, dve=text, act=text)
    c.cont()
    assert c.taken() == (0, ["pool", "dve", "act"] * 3)
    c = core("in-order", pool=text, dve=text, act=text)
    c.cont()
    assert c.taken()[1] == ["pool"] * 3 + ["dve"] * 3 + ["act"] * 3


def test_in_order_moves_on_when_blocked() -> None:
    c = core("in-order", pool="NOP\nNOP update_mode=SEM_INC_READ update_idx=1\nNOP\nHALT",
             dve="NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1\nHALT")
    assert c.cont().reason == "halt"
    assert c.taken()[1] == ["pool"] * 4 + ["dve"] * 2


def test_random_schedule_is_a_function_of_the_seed() -> None:
    def taken(schedule: str) -> list[str]:
        c = loops(schedule, n=20)
        assert c.cont().reason == "halt"
        return c.taken()[1]
    a = taken("random:1")
    assert a == taken("random:1") and a != taken("random:2")
    assert {"pool", "dve", "act"} == set(a[:30])


def test_bad_schedule_is_one_line() -> None:
    with pytest.raises(ValueError, match=r"expected one of rr, in-order, random:SEED"):
        core("fifo", pool="HALT")
    with pytest.raises(ValueError, match="random:SEED with SEED an integer"):
        core("random:x", pool="HALT")


@pytest.mark.parametrize("schedule", POLICIES)
def test_batched_run_equals_step_by_step(schedule: str) -> None:
    """The fast path (engines run ahead, the policy's order journaled) takes the same
    schedule and reaches the same state as stepping every instruction."""
    fast, slow = loops(schedule), loops(schedule)
    slow.on_step = lambda cs: None  # a record per step: no batching
    assert fast.cont().reason == slow.cont().reason == "halt"
    assert fast.taken() == slow.taken() and fast.digest() == slow.digest()
    assert fast.state("dve").R[1] == 57 * 5 + 57


@pytest.mark.parametrize("schedule", POLICIES)
def test_reverse_to_start_and_forward_is_identical(schedule: str) -> None:
    c = loops(schedule)
    start = c.digest()
    assert c.cont().reason == "halt"
    end, taken, n = c.digest(), c.taken(), c.steps
    mid = None
    for _ in range(n // 2):
        assert c.reverse_step()
    mid = c.digest()
    stop = c.reverse(10**9)
    assert stop.reason == "start" and c.steps == 0 and c.digest() == start
    assert not c.reverse_step()
    assert c.cont(max_steps=n - n // 2).reason == "max-steps" and c.digest() == mid
    assert c.cont().reason == "halt" and c.digest() == end and c.taken() == taken


def test_max_steps_counts_every_engine() -> None:
    c = loops()
    stop = c.cont(max_steps=101)
    assert stop.reason == "max-steps" and stop.steps == 101 == c.steps
    assert sum(c.engine_steps(e) for e in c.engines) == 101


def test_forced_steps_are_replayed_after_a_checkpoint() -> None:
    """With a tiny budget history is folded into checkpoints; reversing past the window
    replays forward, through a step forced on DVE, to the same state."""
    c = loops(n=200, journal_budget=2048)
    c.step("dve")
    c.step("dve")
    assert c.forced == {0: "dve", 1: "dve"}
    for _ in range(40):
        c.step()
    marks = {}
    while c.cont(max_steps=97).reason == "max-steps":
        marks[c.steps] = c.digest()
    assert c._timeline.origin > 0  # history was folded
    for s in sorted(marks, reverse=True)[::3]:
        c.reverse(c.steps - s)
        assert c.steps == s and c.digest() == marks[s]
    c.reverse(c.steps - 2)
    assert c.taken()[0] <= 2 and c.forced == {0: "dve", 1: "dve"}


def test_headless_run_keeps_no_history() -> None:
    c = loops(n=3000, journal_budget=0)
    assert c.cont().reason == "halt"
    assert all(len(m.state.journal.steps) < 5000 for m in c.machines.values())
    assert not c.reverse_step() and c.reverse(5).reason == "start"
    full = loops(n=3000)
    full.cont()
    assert full.digest() == c.digest()


def test_interrupt_stops_cont() -> None:
    c = loops(n=100)

    def stop_at_50(cs: object) -> None:
        if c.steps == 50:
            c.interrupt.set()
    c.on_step = stop_at_50
    stop = c.cont()
    assert stop.reason == "interrupt" and c.steps == 50


def test_kernel_data_applied_once_and_config_from_kernel() -> None:
    k = kernel(pool=PRODUCER, dve=CONSUMER)
    c = Core(k)
    assert c.machines["dve"].config.engine == "dve" and c.machines["pool"].config.gen == k.gen
    assert c.state().sbuf[0, 0:16].view("<f4").tolist() == [1.0, 2.0, 3.0, 4.0]
    assert np.all(c.state().sbuf[4:, 0:16] == 0)


def test_replays_report_no_steps_to_on_step() -> None:
    c = loops(n=200, journal_budget=4096)
    seen: list[str] = []
    c.on_step = lambda cs: seen.append(cs.engine)
    assert c.cont().reason == "halt" and len(seen) == c.steps
    n = len(seen)
    c.reverse(c.steps - 10)  # a checkpoint restored and replayed: no trace of that
    assert c.steps == 10 and len(seen) == n
    c.replay(30)
    assert c.steps == 30 and len(seen) == n
