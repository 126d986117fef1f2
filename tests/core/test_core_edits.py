"""`set` on a kernel (Core.edit): stored at once, journaled at its global step, so
reverse undoes it and a replay from a checkpoint makes it again at the same step."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.stops import StopReason
from tests.core.conftest import core

DEADLOCK = {
    "pool": "NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1\n"
            "NOP update_mode=SEM_INC_READ update_idx=0\nHALT",
    "dve": "NOP wait_mode=SEM_GE_IMM wait_idx=0 semaphore_value=1\n"
           "NOP update_mode=SEM_INC_READ update_idx=1\nHALT",
}


def test_a_semaphore_set_by_hand_breaks_a_deadlock_and_reverse_undoes_it() -> None:
    c = core(**DEADLOCK)
    assert c.cont().reason == StopReason.DEADLOCK and c.steps == 0
    assert c.edit("sem[1]", "1") == "sem[1] = 1 (0x00000001)"
    assert c.cont().reason == StopReason.HALT
    assert c.state().sem[:2] == [1, 2]
    assert c.reverse(c.steps).reason == StopReason.START
    assert c.state().sem[:2] == [0, 1]  # the edit belongs to step 0: it stays
    assert c.reverse_step() and c.state().sem[:2] == [0, 0] and c.edits == []
    assert not c.reverse_step()


def test_own_registers_name_their_engine() -> None:
    c = core(pool="MOVE R1=2\nHALT", dve="NOP\nHALT")
    assert c.edit("dve.R3", "7") == "dve.R3 = 7 (0x00000007)"
    assert c.edit("R3", "dve.R3 + 1") == "pool.R3 = 8 (0x00000008)"
    assert (c.state("dve").R[3], c.state("pool").R[3]) == (7, 8)
    assert c.edit("dve.PC", "0x40") == "dve.PC = 0x40"
    assert c.state("dve").pc == 0x40
    c.cont()
    assert c.state("pool").R[1] == 2 and c.state("dve").R[3] == 7
    for _ in range(c.steps):
        assert c.reverse_step()
    assert [e.text for e in c.edits] == ["dve.R3", "pool.R3", "dve.PC"]
    while c.reverse_step():
        pass
    assert c.state("dve").pc == 0 and c.state("dve").R[3] == 0 and c.state("pool").R[3] == 0


@pytest.mark.parametrize(("target", "value", "message"), [
    ("act.R1", "1", "no act queue"),
    ("R99", "1", "R99"),
    ("sb[0, 0:8]", "1", "is a range"),
    ("R1", "1.5", "holds integers"),
    ("PC", "0x7", "not a record address"),
])
def test_bad_edits_say_why_in_one_line(target: str, value: str, message: str) -> None:
    c = core(pool="NOP\nHALT", dve="NOP\nHALT")
    with pytest.raises(ValueError, match=message) as err:
        c.edit(target, value)
    assert "\n" not in str(err.value) and c.edits == []


TEXT = {
    "pool": "MOVE R1=1\nNOP update_mode=SEM_INC_READ update_idx=0\nMOVE R2=R1\n"
            "NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1\nMOVE R3=R1\nHALT",
    "dve": "NOP wait_mode=SEM_GE_IMM wait_idx=0 semaphore_value=1\nMOVE R1=5\n"
           "NOP update_mode=SEM_INC_READ update_idx=1\nMOVE R4=R1\nHALT",
}
EDITS = st.sampled_from([("pool.R1", "9"), ("dve.R1", "3"), ("sem[1]", "1"),
                         ("sem[0]", "sem[0] + 1"), ("sb[0, 0x10]", "0x5a"), ("pool.R2", "4")])
OPS = st.lists(st.one_of(
    st.tuples(st.just("cont"), st.integers(1, 4)),
    st.tuples(st.just("edit"), EDITS),
    st.tuples(st.just("reverse"), st.integers(1, 4)),
    st.tuples(st.just("back"), st.just(0)),
), min_size=1, max_size=14)


def apply(c: Core, op: tuple) -> None:
    kind, arg = op
    if kind == "cont":
        c.cont(max_steps=arg)
    elif kind == "edit":
        c.edit(*arg)
    elif kind == "reverse":
        c.reverse(arg)
    else:
        c.reverse_step()


def forward_only(schedule: str, c: Core) -> str:
    """The digest a fresh core reaches by running forward and making `c`'s edits at their
    steps: what reverse and replay from a checkpoint must agree with."""
    fresh = core(schedule, **TEXT)
    for e in c.edits:
        if e.step > fresh.steps:
            fresh.cont(max_steps=e.step - fresh.steps)
        fresh.edit(e.text, str(e.bits))
    if c.steps > fresh.steps:
        fresh.cont(max_steps=c.steps - fresh.steps)
    assert fresh.steps == c.steps
    return fresh.digest()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS, st.sampled_from(["rr", "in-order", "random:4"]))
def test_reverse_and_replay_agree_with_running_forward(ops: list[tuple], schedule: str
                                                       ) -> None:
    """After each command (runs, edits, reverse: by popping steps or by restoring the
    step-0 checkpoint and replaying, whichever is shorter) the state is the one a fresh
    core reaches by running forward and making the same edits at the same steps; back at
    the start, only the edits made at step 0 remain (reverse discards what it undid)."""
    c = core(schedule, **TEXT)
    for op in ops:
        apply(c, op)
        assert c.digest() == forward_only(schedule, c), op
    c.reverse(c.steps)
    assert [e.step for e in c.edits] == [0] * len(c.edits)
    assert c.digest() == forward_only(schedule, c)
