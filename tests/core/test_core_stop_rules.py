"""Where a NeuronCore stops when several breakpoints meet, and reverse-continue stopping
on the after-step kinds (race, wait) exactly where forward execution does
(machine/core/core.py, docs/architecture.md "Stops")."""

from __future__ import annotations

import pytest

from tests.core.conftest import core
from tests.core.test_core import CONSUMER, PRODUCER
from tests.core.test_core_breakpoints import RACY_CONSUMER
from tests.core.test_run_kernel import run_json

SIGNAL = "NOP update_mode=SEM_INC_READ update_idx=2\nHALT"
NOPS = "NOP\nNOP\nHALT"
RACY_PRODUCER = PRODUCER.replace("update_mode=SEM_INC_COMPLETE update_idx=3", "")


@pytest.mark.parametrize("others", [{}, {"dve": NOPS}])
def test_engine_breakpoint_is_not_stepped_over_by_another_engines_stop(others: dict) -> None:
    """`if:sem[2] > 0` stops after POOL's step; ACT's `op:NOP@act` must still stop ACT
    before its NOP (reported at that stop when ACT issues next, else a stop of its own)."""
    c = core(pool=SIGNAL, act="NOP\nHALT", **others)
    cond = c.add_breakpoint("if:sem[2] > 0")
    bp = c.add_breakpoint("op:NOP@act")
    seen = []
    for _ in range(4):
        stop = c.cont()
        seen.append((stop.reason, [b.id for b in stop.breakpoints], c.engine_steps("act")))
        if stop.reason == "halt":
            break
    assert bp.hits == 1 and cond.hits == 1
    stops_at_act = [s for s in seen if bp.id in s[1]]
    assert stops_at_act and stops_at_act[0][2] == 0  # before ACT ran its NOP
    assert seen[-1][0] == "halt"


def test_continuing_steps_over_only_the_engine_that_stopped() -> None:
    """Two engines at a breakpoint at once: each is a stop of its own, and `c` from the
    first steps over the first engine's breakpoint only."""
    c = core(pool="NOP\nHALT", dve="NOP\nHALT")
    bp = c.add_breakpoint("op:HALT")
    first = c.cont()
    assert (first.reason, first.engine, first.breakpoint) == ("breakpoint", "pool", bp)
    second = c.cont()
    assert (second.reason, second.engine, second.breakpoint) == ("breakpoint", "dve", bp)
    assert second.steps == 1 and bp.hits == 2
    assert c.cont().reason == "halt"


def test_wait_fires_for_an_engine_blocked_at_its_first_instruction() -> None:
    c = core(pool=PRODUCER, dve=CONSUMER)
    bp = c.add_breakpoint("wait")
    stop = c.cont()
    assert (stop.reason, stop.engine, stop.pc, stop.steps, stop.breakpoint) == \
        ("wait", "dve", 0, 0, bp)
    assert "dve waits at 0x0 for sem[3] >= 1" in stop.detail and bp.hits == 1
    assert c.cont().reason == "halt" and bp.hits == 1


def test_wait_at_the_start_of_another_engine_does_not_stop() -> None:
    c = core(pool=PRODUCER, dve=CONSUMER)
    c.add_breakpoint("wait@pool")
    assert c.cont().reason == "halt"


def test_reverse_continue_stops_at_a_race() -> None:
    c = core(pool=RACY_PRODUCER, dve=RACY_CONSUMER)
    assert c.cont().reason == "halt" and len(c.races) == 1
    end = c.steps
    bp = c.add_breakpoint("race")
    stop = c.reverse_continue()
    assert (stop.reason, stop.engine, stop.breakpoint) == ("race", "dve", bp)
    # before DVE's racing COPY (its second instruction), as a reverse watch stops
    # before the write
    assert c.engine_steps("dve") == 1 and c.state("dve").pc == 0x40
    assert "race: pool COPY at pc 0x0 writes and dve COPY at pc 0x40 reads" in stop.detail
    assert c.reverse_continue().reason == "start"
    assert c.cont().reason == "race" and c.cont().reason == "halt" and c.steps == end
    assert len(c.races) == 1


def test_reverse_continue_race_of_another_engine_does_not_stop() -> None:
    c = core(pool=RACY_PRODUCER, dve=RACY_CONSUMER, act="NOP\nHALT")
    c.cont()
    c.add_breakpoint("race@act")
    assert c.reverse_continue().reason == "start"


def test_reverse_continue_stops_at_waits() -> None:
    c = core(pool="NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1\nHALT",
             dve="NOP\nNOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value=1\nHALT")
    assert c.cont().reason == "deadlock"
    w = c.add_breakpoint("wait")
    stop = c.reverse_continue()  # DVE's NOP left it blocked
    assert (stop.reason, stop.engine, stop.breakpoint, c.steps) == ("wait", "dve", w, 0)
    assert "dve waits at 0x40 for sem[2] >= 1" in stop.detail
    # at step 0 POOL is blocked at its first instruction: forward stops there first,
    # reverse last
    stop = c.reverse_continue()
    assert (stop.reason, stop.engine, stop.steps, c.steps) == ("wait", "pool", 0, 0)
    assert c.reverse_continue().reason == "start"
    stop = c.cont()
    assert (stop.reason, stop.engine, c.steps) == ("wait", "dve", 1)
    c.reverse(1)
    assert c.steps == 0
    stop = c.cont()
    assert (stop.reason, stop.engine, c.steps) == ("wait", "pool", 0)


def test_run_break_wait_stops_where_the_consumer_blocks_at_its_first_instruction() -> None:
    """`neurondbg run producer_consumer.asm --break wait` (the example's own comment)."""
    code, d = run_json("producer_consumer", "--break", "wait")
    assert code == 0 and d["steps"] == 0
    assert (d["stop"]["reason"], d["stop"]["engine"], d["stop"]["pc"]) == ("wait", "dve", 0)
    assert d["stop"]["source"].endswith("producer_consumer.asm:20:5")
    assert d["engines"]["dve"]["status"] == "waiting"
